/* grow.c — see grow.h. */
#include "grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int grow_array_slow(void *pp, size_t *cap, size_t elem, size_t need, int zero)
{
	size_t n = *cap ? *cap : 16;
	void *old, *q;

	while (n < need) {
		if (n > SIZE_MAX / 2 / (elem ? elem : 1)) {
			errno = ENOMEM;
			return -1;
		}
		n *= 2;
	}
	memcpy(&old, pp, sizeof(old));	/* *pp is any object pointer */
	q = realloc(old, n * elem);
	if (!q) {
		errno = ENOMEM;
		return -1;
	}
	if (zero)
		memset((char *)q + *cap * elem, 0, (n - *cap) * elem);
	memcpy(pp, &q, sizeof(q));
	*cap = n;
	return 0;
}
