/* numtext.h — integers as decimal text, two digits a step (no printf):
 * the events' fields in JSON (decode.c: snprintf was 2,000 of the 2,900
 * instructions an event's fields took there), commq's integers (wire.c)
 * and the rows shipped as text (ship.c, which had its own copy of this). */
#ifndef COMMD_NUMTEXT_H
#define COMMD_NUMTEXT_H

#include <stdint.h>
#include <string.h>

/* Room for any of them: 20 digits and a sign. */
#define NUMTEXT_MAX 21

extern const char numtext_pairs[201];

/* u's digits, written to end at `end` (exclusive); returns their start. */
static inline char *numtext_u64(char *end, uint64_t u)
{
	char *q = end;

	while (u >= 100) {
		q -= 2;
		memcpy(q, numtext_pairs + 2 * (u % 100), 2);
		u /= 100;
	}
	if (u >= 10) {
		q -= 2;
		memcpy(q, numtext_pairs + 2 * u, 2);
	} else {
		*--q = (char)('0' + u);
	}
	return q;
}

/* The same for a signed value (INT64_MIN included). */
static inline char *numtext_i64(char *end, int64_t v)
{
	char *q = numtext_u64(end, v < 0 ? 0ull - (uint64_t)v : (uint64_t)v);

	if (v < 0)
		*--q = '-';
	return q;
}

#endif
