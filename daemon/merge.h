/* merge.h — the next of many time-ordered sources (the CPUs of a live
 * capture, the buffers' CPUs of a trace.dat): a binary min-heap of
 * (key, source) pairs.  The earliest key comes first; on a tie the lowest
 * source number, the order a scan of the sources from the first gives.
 * A merge step costs O(log n) in the sources that hold something, not
 * O(n) in all of them: on a machine of 256 CPUs, most of them idle, a
 * record's turn no longer looks at every CPU. */
#ifndef COMMD_MERGE_H
#define COMMD_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct merge_item {
	uint64_t key;
	int src;
};

struct merge {
	struct merge_item *h;
	size_t n, cap;
};

/* Room for `cap` sources (numbered 0 .. cap - 1); 0, or -1 (no memory). */
int merge_init(struct merge *m, size_t cap);
void merge_free(struct merge *m);

/* Empties the heap. */
static inline void merge_clear(struct merge *m)
{
	m->n = 0;
}

static inline bool merge_before(const struct merge_item *a, const struct merge_item *b)
{
	return a->key < b->key || (a->key == b->key && a->src < b->src);
}

/* Source src holds something at key (each source at most once between
 * merge_clear and its removal). */
static inline void merge_add(struct merge *m, int src, uint64_t key)
{
	struct merge_item it = { key, src };
	size_t i;

	if (m->n == m->cap)
		return;		/* more than merge_init said: not possible */
	for (i = m->n++; i > 0; i = (i - 1) / 2) {
		size_t up = (i - 1) / 2;

		if (!merge_before(&it, &m->h[up]))
			break;
		m->h[i] = m->h[up];
	}
	m->h[i] = it;
}

/* The earliest: false when empty. */
static inline bool merge_top(const struct merge *m, int *src, uint64_t *key)
{
	if (!m->n)
		return false;
	*src = m->h[0].src;
	*key = m->h[0].key;
	return true;
}

/* The top source's next key (it moved on), or its removal (present:
 * false, it holds nothing more). */
static inline void merge_next(struct merge *m, bool present, uint64_t key)
{
	struct merge_item it;
	size_t i = 0;

	if (!m->n)
		return;
	if (present) {
		it = (struct merge_item){ key, m->h[0].src };
	} else {
		it = m->h[--m->n];
		if (!m->n)
			return;
	}
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= m->n)
			break;
		if (c + 1 < m->n && merge_before(&m->h[c + 1], &m->h[c]))
			c++;
		if (!merge_before(&m->h[c], &it))
			break;
		m->h[i] = m->h[c];
		i = c;
	}
	m->h[i] = it;
}

#endif
