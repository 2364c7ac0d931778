/* grow.h — the one growable array: `*pp` (a pointer to elements of `elem`
 * bytes, `*cap` of them allocated) is made to hold at least `need`,
 * doubling from 16 so that appends cost O(1) amortised; with `zero` the
 * new elements are zeroed. Returns 0, or -1 with errno ENOMEM leaving the
 * array as it was. */
#ifndef COMMD_GROW_H
#define COMMD_GROW_H

#include <stddef.h>

int grow_array_slow(void *pp, size_t *cap, size_t elem, size_t need, int zero);

/* The common case, that the array is big enough already, is a compare at
 * the caller (it runs per record on the import's path and per value on
 * the query server's). */
static inline int grow_array(void *pp, size_t *cap, size_t elem, size_t need,
			     int zero)
{
	return need <= *cap ? 0 : grow_array_slow(pp, cap, elem, need, zero);
}

#endif
