/* merge.c — see merge.h. */
#include <stdlib.h>

#include "merge.h"

int merge_init(struct merge *m, size_t cap)
{
	m->n = 0;
	m->cap = cap;
	m->h = calloc(cap ? cap : 1, sizeof(*m->h));
	return m->h ? 0 : -1;
}

void merge_free(struct merge *m)
{
	free(m->h);
	m->h = NULL;
	m->n = m->cap = 0;
}
