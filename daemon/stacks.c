/* stacks.c — see stacks.h. */
#include "stacks.h"

#include "grow.h"
#include "kallsyms.h"
#include "store.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#define MAX_FRAMES 128

/* Stacks seen: the hash of their addresses and their id (open
 * addressing; a slot's key 0 is empty). */
struct seen {
	uint64_t key;
	int64_t id;
};

struct stacks {
	struct tep_handle *tep;
	struct store *store;
	struct seen *slots;
	size_t nslots, n;
	char text[MAX_FRAMES * 80];
};

struct stacks *stacks_new(struct tep_handle *tep, struct store *store)
{
	struct stacks *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->tep = tep;
	st->store = store;
	return st;
}

void stacks_free(struct stacks *st)
{
	if (!st)
		return;
	free(st->slots);
	free(st);
}

static uint64_t fnv(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h ? h : 1;
}

/* The frames the tracing itself adds above the scheduler (the
 * tracepoint's handler): not where the task slept. */
static int tracing_frame(const char *name)
{
	return !strncmp(name, "trace_event_raw_event_", 22) ||
	       !strncmp(name, "__traceiter_", 12) || !strncmp(name, "perf_trace_", 11) ||
	       !strncmp(name, "__trace_stack", 13) || !strncmp(name, "trace_", 6) ||
	       !strncmp(name, "event_triggers_", 15) || !strncmp(name, "__ftrace_trace_stack", 20);
}

size_t stacks_text(struct tep_handle *tep, const uint64_t *addr, int n, char *buf,
		   size_t len)
{
	const char *names[MAX_FRAMES];
	char hex[MAX_FRAMES][24];
	int first = 0;
	size_t o = 0;

	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	if (tep)
		kallsyms_load(tep);	/* an import's first stack */
	for (int i = 0; i < n; i++) {
		names[i] = tep ? tep_find_function(tep, (unsigned long long)addr[i]) : NULL;
		if (!names[i]) {
			snprintf(hex[i], sizeof(hex[i]), "0x%" PRIx64, addr[i]);
			names[i] = hex[i];
		}
	}
	/* innermost first: skip the tracing frames above __schedule */
	while (first < n && tracing_frame(names[first]))
		first++;
	if (len)
		buf[0] = '\0';
	for (int i = n - 1; i >= first; i--) {
		int w = snprintf(buf + o, o < len ? len - o : 0, "%s%s", i == n - 1 ? "" : ";",
				 names[i]);

		if (w > 0)
			o += (size_t)w;
	}
	if (o >= len && len)
		o = len - 1;
	return o;
}

static int rehash(struct stacks *st)
{
	size_t n = st->nslots ? st->nslots * 2 : 1024;
	struct seen *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < st->nslots; i++) {
		size_t k;

		if (!st->slots[i].key)
			continue;
		for (k = st->slots[i].key & (n - 1); slots[k].key; k = (k + 1) & (n - 1))
			;
		slots[k] = st->slots[i];
	}
	free(st->slots);
	st->slots = slots;
	st->nslots = n;
	return 0;
}

int64_t stacks_intern(struct stacks *st, const uint64_t *addr, int n)
{
	uint64_t key;
	size_t k, len;
	int64_t id;

	while (n > 0 && (!addr[n - 1] || addr[n - 1] == UINT64_MAX))
		n--;		/* the unused tail of a fixed array */
	if (n <= 0)
		return 0;
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	if ((st->n + 1) * 2 > st->nslots && rehash(st))
		return -1;
	key = fnv(addr, (size_t)n * sizeof(*addr));
	for (k = key & (st->nslots - 1); st->slots[k].key; k = (k + 1) & (st->nslots - 1))
		if (st->slots[k].key == key)
			return st->slots[k].id;
	len = stacks_text(st->tep, addr, n, st->text, sizeof(st->text));
	if (!len)
		return 0;
	/* The id: a hash of the names (63 bits, never 0), the same for the
	 * same stack in any capture. */
	id = (int64_t)(fnv(st->text, len) >> 1);
	if (!id)
		id = 1;
	if (store_stack(st->store, id, st->text, len))
		return -1;
	st->slots[k].key = key;
	st->slots[k].id = id;
	st->n++;
	return id;
}
