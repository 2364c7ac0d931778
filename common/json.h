/* json.h — the one JSON string writer, for events.fields (decode.c),
 * commq -json (output.c) and the Chrome trace export (export.c).
 *
 * Text is kept as it is, UTF-8 included; what is not text is escaped so
 * the JSON stays valid whatever bytes a task name or an event holds:
 *   '"' and '\'               escaped with a backslash
 *   \b \f \n \r \t            their short escapes
 *   other bytes below 0x20    \u00XX
 *   a byte that is not part   \u00XX of that byte: nothing is dropped or
 *   of valid UTF-8            replaced, and a reader that knows the rule
 *                             gets the byte back
 *   with JSON_TTY, DEL and    \u007f, \u0080..\u009f as well (they
 *   the C1 controls           drive a terminal; JSON itself allows them)
 * Valid UTF-8 (RFC 3629: no overlong forms, surrogates or code points
 * past U+10FFFF) passes through. */
#ifndef COMMD_JSON_H
#define COMMD_JSON_H

#include <stddef.h>

enum { JSON_TTY = 1 };

/* Where the writer's output goes: n bytes at p. */
typedef void json_put_fn(void *ctx, const char *p, size_t n);

/* Writes s (n bytes, NULs included) as a JSON string, quotes included. */
void json_string_to(json_put_fn *put, void *ctx, const char *s, size_t n,
		 unsigned flags);

/* The length of the well-formed UTF-8 sequence at s (n bytes at most), 1
 * for an ASCII byte, 0 where none starts. */
size_t json_utf8_len(const unsigned char *s, size_t n);

#endif
