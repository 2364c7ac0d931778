/* flame.h — a flame graph drawn by commq itself (commq offcpu -o
 * FILE.svg): collapsed stacks ("outer;...;inner" and a value) in, one
 * self-contained SVG out. Each frame is a box as wide as the share of
 * the total its stacks hold, callers below their callees (the root at
 * the bottom), coloured by a hash of the name, with a tooltip (<title>)
 * giving the name, the value and the share. */
#ifndef COMMQ_FLAME_H
#define COMMQ_FLAME_H

#include <stdint.h>
#include <stdio.h>

struct flame;

struct flame *flame_new(void);
void flame_free(struct flame *f);
/* Adds value to the path of frames in stack (';' between them). Returns
 * 0 or -1 (errno ENOMEM). */
int flame_add(struct flame *f, const char *stack, size_t len, uint64_t value);
/* Writes the SVG (width px); unit names the values ("µs"). Returns 0 or
 * -1 (errno from the stream). */
int flame_write_svg(const struct flame *f, FILE *out, const char *title,
		    const char *unit, int width);

#endif
