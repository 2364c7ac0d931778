/* resolve_cost — instructions per resolved event, for callgrind.
 *
 * Decodes a trace.dat into memory first (not measured), then runs the comm
 * cache over every event the way the pipeline does: the names in the
 * event's own fields, then the row of its pid. Run under
 *   valgrind --tool=callgrind --toggle-collect=resolve_all resolve_cost F
 * and divide the instructions by the events it prints. Built twice: the
 * normal cache, and with RESOLVE_ALWAYS_COPY (every observation copies the
 * name, changed or not) for the side-by-side figure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "resolve.h"
#include "tracedat.h"

struct ev {
	int kind, cpu, has;
	int32_t pid, p[2];
	uint64_t ts;
	char c[2][64];		/* the field as the record had it */
	uint8_t len[2];
	size_t size[2];
};

struct evs {
	struct decode *d;
	struct ev *v;
	size_t n, cap;
};

static int collect(void *ctx, const void *data, int size, int cpu, uint64_t ts,
		   int64_t missed)
{
	struct evs *e = ctx;
	struct decode_event de;
	struct ev *x;

	(void)missed;
	if (!data || decode_record(e->d, data, size, cpu, ts, &de))
		return 0;
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 65536;
		e->v = realloc(e->v, e->cap * sizeof(*e->v));
		if (!e->v)
			return 1;
	}
	x = &e->v[e->n++];
	memset(x, 0, sizeof(*x));
	x->kind = de.names_task ? DECODE_SCHED_WAKEUP : (int)de.kind;
	x->cpu = cpu;
	x->ts = ts;
	x->pid = de.pid;
	x->has = (int)de.has;
	x->p[0] = de.p[0];
	x->p[1] = de.p[1];
	for (int i = 0; i < 2; i++) {
		if (!(de.has & (DECODE_HAS_C0 << i)))
			continue;
		x->len[i] = (uint8_t)(de.c[i].len < 63 ? de.c[i].len : 63);
		if (de.c[i].size == DECODE_STR_NUL)
			x->size[i] = RESOLVE_NUL_TERMINATED;
		else
			x->size[i] = de.c[i].size <= 64 ? de.c[i].size : 0;
		memcpy(x->c[i], de.c[i].s, x->size[i] && x->size[i] <= 64 ?
		       x->size[i] : x->len[i]);	/* c[] is zeroed: the NUL */
	}
	return 0;
}

static inline void name(struct resolve *r, const struct ev *x, int slot,
			uint32_t *hid)
{
	if ((x->has & (DECODE_HAS_P0 << slot)) && (x->has & (DECODE_HAS_C0 << slot)))
		resolve_name_fast(r, x->p[slot], x->cpu, x->c[slot], x->len[slot],
				  x->size[slot], x->ts, RESOLVE_SRC_SCHED_SWITCH,
				  !*hid && x->p[slot] == x->pid ? hid : NULL);
}

/* The measured part, as pipeline_record does it. noinline: callgrind
 * toggles on this symbol. */
__attribute__((noinline)) uint64_t resolve_all(struct resolve *r, const struct ev *v,
					       size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ev *x = &v[i];
		uint32_t hid = 0;

		switch (x->kind) {
		case DECODE_SCHED_SWITCH:
		case DECODE_SCHED_PROCESS_FORK:
			name(r, x, 0, &hid);
			name(r, x, 1, &hid);
			break;
		case DECODE_TASK_RENAME:
			name(r, x, 0, &hid);
			break;
		case DECODE_SCHED_PROCESS_EXEC:
		case DECODE_OTHER:
			break;
		default:
			name(r, x, 0, &hid);
			break;
		}
		if (!hid)
			hid = resolve_hid_fast(r, x->pid, x->cpu, x->ts);
		sum += hid;
	}
	return sum;
}

int main(int argc, char **argv)
{
	struct evs e = { 0 };
	struct tracedat *t;
	struct resolve *r;
	char err[256];
	uint64_t sum;

	if (argc != 2) {
		fprintf(stderr, "usage: resolve_cost TRACE.dat\n");
		return 2;
	}
	t = tracedat_open(argv[1], err, sizeof(err));
	if (!t) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		return 1;
	}
	e.d = decode_new(tracedat_tep(t));
	if (!e.d || tracedat_iterate(t, collect, &e)) {
		fprintf(stderr, "%s: cannot decode\n", argv[1]);
		return 1;
	}
	r = resolve_new(decode_comm_width(e.d));
	sum = resolve_all(r, e.v, e.n);
	printf("events %zu rows %u updates %llu (checksum %llu)\n", e.n,
	       resolve_row_count(r), (unsigned long long)resolve_updates(r),
	       (unsigned long long)sum);
	resolve_free(r);
	decode_free(e.d);
	tracedat_close(t);
	free(e.v);
	return 0;
}
