/* stacks.h — kernel stacks of switches into sleep (schema 014): the
 * kernel_stack records that follow them, symbolised with the capture's
 * kallsyms (libtraceevent's function map: /proc/kallsyms live, the
 * file's own in an import) and stored once each. */
#ifndef COMMD_STACKS_H
#define COMMD_STACKS_H

#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct store;
struct stacks;

struct stacks *stacks_new(struct tep_handle *tep, struct store *store);
void stacks_free(struct stacks *st);

/* The id of the stack of n return addresses (innermost first), stored in
 * `stacks` the first time it is seen; 0 when it has no frames, -1 when
 * the store failed or memory ran out. */
int64_t stacks_intern(struct stacks *st, const uint64_t *addr, int n);

/* The frames text of n addresses (outermost first, ';' between): the
 * tracing frames above __schedule are left out. Returns its length
 * (written up to len - 1, NUL-terminated). */
size_t stacks_text(struct tep_handle *tep, const uint64_t *addr, int n, char *buf,
		   size_t len);

#endif
