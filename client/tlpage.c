/* tlpage.c — see tlpage.h.
 *
 * One batch of statements whose results come in order (the window, the
 * busiest comms, the slices, the tasks they name, the wakeups, the
 * losses), each written out as a JSON array while its rows stream in:
 * the client holds one row at a time, whatever the window's size, and
 * the page gets every slice as it is stored (nothing merged).
 *
 * The data object (the page's script reads it; docs/timeline.md):
 *   window  [lo - base, hi - lo, "source", "ISO-8601 UTC" | null, at]:
 *           the time of day at lo + at (where the window meets the
 *           captures); ns, every other time is relative to lo
 *   top     the busiest comms of the window, busiest first (12 at most)
 *   s       slices, 7 numbers each: cpu, ts - previous row's ts (the
 *           first: ts - lo), dur, task (comm_history id), end state
 *           (-1: none), lost (0/1), how the slice began (0: a recorded
 *           switch, 1: inferred)
 *   tasks   [id, pid, tgid | -1, "comm", "#colour"] for every task named
 *   w       wakeups that led to a run, 6 numbers each: ts, pid, latency,
 *           cpu it ran on, waker pid | -1, waker's CPU | -1
 *   lost    [cpu | -1, ts, count]
 *   letters {"state": "letters"} for every end state of s
 *   today   {"state": value} the same states in the numbering of kernels
 *           since 4.14, which the page reads them in (states.h)
 *   n       [slices, tasks, wakeups, losses]
 */
#include "tlpage.h"
#include "timeline.h"
#include "grow.h"
#include "json.h"
#include "log.h"
#include "sqlfuncs.h"
#include "states.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A page draws a million slices in about a second and a half (bench/
 * timeline.sh); past this many it would take too long to be of use. */
#define MAX_SLICES	2000000
#define TOP_COMMS	12
#define MAX_LETTERS	64

enum { Q_WINDOW, Q_TOP, Q_SLICES, Q_TASKS, Q_WAKEUPS, Q_LOST, NQUERIES };

struct page {
	struct report_sink_error err;
	json_put_fn *put;
	void *put_ctx;
	int stage, rows;
	int64_t lo, hi, prev_ts;
	char *states;			/* the capture's letters map */
	char *top[TOP_COMMS];
	int ntop;
	int64_t letters[MAX_LETTERS];
	int nletters;
	uint64_t n[4];
};

/* ---- writing ---- */

static void put(struct page *p, const char *s, size_t n)
{
	p->put(p->put_ctx, s, n);
}

static void puts_(struct page *p, const char *s)
{
	put(p, s, strlen(s));
}

static void putf(struct page *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void putf(struct page *p, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(p, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void put_text(struct page *p, const struct output_value *v)
{
	if (v->type == OUTPUT_NULL)
		puts_(p, "null");
	else
		json_string_to(p->put, p->put_ctx, v->text, v->len, 0);
}

/* ---- the SQL ---- */

static const char tgid_sql[] =
	"coalesce((SELECT g.tgid FROM comm_history g WHERE g.pid = h.pid\n"
	"            AND g.start_ts <= h.start_ts AND g.tgid IS NOT NULL\n"
	"          ORDER BY g.start_ts DESC LIMIT 1),\n"
	"         (SELECT g.tgid FROM comm_history g WHERE g.pid = h.pid\n"
	"            AND g.tgid IS NOT NULL ORDER BY g.start_ts LIMIT 1))";

#define WALL_AT "max(w.lo, coalesce((SELECT min(start_ts) FROM capture), w.lo))"

/* The window first: the statements after it take its bounds as
 * literals, so that all of them read one window even when the daemon
 * commits between them (each runs on a snapshot of its own). */
static void window_sql(struct sbuf *q, const struct report_args *a)
{
	timeline_window_cte(q, a);
	sbuf_printf(q, "\nSELECT w.lo, w.hi, %s AS base,\n"
		    "  (SELECT source FROM capture ORDER BY id LIMIT 1),\n  ",
		    report_base_sql);
	/* the time of day where the window meets a capture (a live window
	 * may begin before it) */
	report_wall_sql(q, WALL_AT);
	sbuf_printf(q, ",\n  (SELECT states FROM capture WHERE states IS NOT NULL\n"
		    "   ORDER BY id DESC LIMIT 1),\n  " WALL_AT " - w.lo\nFROM w;\n");
}

/* The rest, over [lo, hi] (a's window when a is given as it is: --sql). */
static void rows_sql(struct sbuf *q, const struct report_args *a)
{
	timeline_window_cte(q, a);
	sbuf_printf(q, "\nSELECT s.comm, sum(" CLIPPED ") AS ns FROM ws s\n"
		    "WHERE s.pid <> 0 AND " IN_WINDOW "\n"
		    "GROUP BY s.comm ORDER BY ns DESC, s.comm LIMIT %d;\n", TOP_COMMS);
	timeline_window_cte(q, a);
	sbuf_printf(q, "\nSELECT s.cpu, s.ts, s.dur, s.hid, s.end_state, s.lost,\n"
		    "       s.start_err IS NOT NULL FROM ws s WHERE " IN_WINDOW ";\n");
	timeline_window_cte(q, a);
	sbuf_printf(q, "\nSELECT h.id, h.pid, %s, coalesce(h.comm, '<...>')\n"
		    "FROM comm_history h\n"
		    "WHERE h.id IN (SELECT s.hid FROM ws s WHERE " IN_WINDOW ");\n",
		    tgid_sql);
	timeline_window_cte(q, a);
	sbuf_printf(q, "\nSELECT l.ts, l.pid, l.latency, l.cpu, l.waker_pid, l.waker_cpu\n"
		    "FROM wl l;\n");
	timeline_window_cte(q, a);
	sbuf_printf(q, "\nSELECT l.cpu, l.ts, l.count FROM lost_events l, w\n"
		    "WHERE l.ts >= w.lo AND l.ts <= w.hi;\n");
}

/* ---- the results ---- */

static const char *const opening[NQUERIES] = {
	"{\"v\":1,\"window\":", ",\n\"top\":[", ",\n\"s\":[", "],\n\"tasks\":[",
	"],\n\"w\":[", "],\n\"lost\":[",
};
static const int columns[NQUERIES] = { 7, 2, 7, 4, 6, 3 };

static int pg_begin(void *ctx, const struct output_column *c, int n)
{
	struct page *p = ctx;

	(void)c;
	if (++p->stage >= NQUERIES)
		return report_fail(&p->err, EPROTO, "timeline: more results than asked for");
	if (n != columns[p->stage])
		return report_fail(&p->err, EPROTO, "timeline: result %d came with %d "
				   "columns, not %d", p->stage, n, columns[p->stage]);
	puts_(p, opening[p->stage]);
	p->rows = 0;
	return 0;
}

static void sep(struct page *p)
{
	if (p->rows++)
		puts_(p, ",");
}

static int window_row(struct page *p, const struct output_value *v)
{
	int64_t lo = report_int(&v[0], 0), hi = report_int(&v[1], 0);

	if (v[0].type == OUTPUT_NULL || v[1].type == OUTPUT_NULL)
		return report_fail(&p->err, ENODATA, "timeline: nothing to draw: the "
				   "database has no sched slices");
	if (hi <= lo)
		return report_fail(&p->err, EDOM, "timeline: the window is empty (%"
				   PRId64 " .. %" PRId64 ")", lo, hi);
	p->lo = p->prev_ts = lo;
	p->hi = hi;
	putf(p, "[%" PRId64 ",%" PRId64 ",", lo - report_int(&v[2], lo), hi - lo);
	put_text(p, &v[3]);
	puts_(p, ",");
	put_text(p, &v[4]);
	putf(p, ",%" PRId64 "]", report_int(&v[6], 0));
	if (v[5].type != OUTPUT_NULL && !(p->states = strdup(v[5].text)))
		return report_fail(&p->err, ENOMEM, "%s", strerror(ENOMEM));
	p->rows++;
	return 0;
}

static int top_row(struct page *p, const struct output_value *v)
{
	if (v[0].type == OUTPUT_NULL || p->ntop >= TOP_COMMS)
		return 0;
	if (!(p->top[p->ntop] = strdup(v[0].text)))
		return report_fail(&p->err, ENOMEM, "%s", strerror(ENOMEM));
	p->ntop++;
	sep(p);
	put_text(p, v);
	return 0;
}

static void note_state(struct page *p, int64_t state)
{
	for (int i = 0; i < p->nletters; i++)
		if (p->letters[i] == state)
			return;
	if (p->nletters < MAX_LETTERS)
		p->letters[p->nletters++] = state;
}

static int slice_row(struct page *p, const struct output_value *v)
{
	int64_t ts = report_int(&v[1], 0), state = report_int(&v[4], -1);

	if (++p->n[0] > MAX_SLICES)
		return report_fail(&p->err, EFBIG, "timeline: the window holds more than "
				   "%d slices, more than a page can show; narrow it "
				   "with --from/--to (or --last)", MAX_SLICES);
	sep(p);
	putf(p, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%d,%d",
	     report_int(&v[0], -1), ts - p->prev_ts, report_int(&v[2], 0),
	     report_int(&v[3], -1), state, report_int(&v[5], 0) != 0,
	     report_int(&v[6], 0) != 0);
	p->prev_ts = ts;
	if (state >= 0)
		note_state(p, state);
	return 0;
}

static int task_row(struct page *p, const struct output_value *v)
{
	const char *comm = v[3].type == OUTPUT_NULL ? "<...>" : v[3].text;
	char color[8];
	int rank = 0;

	for (int i = 0; i < p->ntop; i++)
		if (!strcmp(p->top[i], comm))
			rank = i + 1;
	timeline_comm_color(comm, rank, color);
	p->n[1]++;
	sep(p);
	putf(p, "[%" PRId64 ",%" PRId64 ",%" PRId64 ",", report_int(&v[0], -1),
	     report_int(&v[1], -1), report_int(&v[2], -1));
	put_text(p, &v[3]);
	putf(p, ",\"%s\"]", color);
	return 0;
}

static int wakeup_row(struct page *p, const struct output_value *v)
{
	p->n[2]++;
	sep(p);
	putf(p, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64,
	     report_int(&v[0], 0) - p->lo, report_int(&v[1], -1), report_int(&v[2], 0),
	     report_int(&v[3], -1), report_int(&v[4], -1), report_int(&v[5], -1));
	return 0;
}

static int lost_row(struct page *p, const struct output_value *v)
{
	p->n[3]++;
	sep(p);
	putf(p, "[%" PRId64 ",%" PRId64 ",%" PRId64 "]", report_int(&v[0], -1),
	     report_int(&v[1], 0) - p->lo, report_int(&v[2], 0));
	return 0;
}

static int pg_row(void *ctx, const struct output_value *v, int n)
{
	struct page *p = ctx;

	(void)n;
	switch (p->stage) {
	case Q_WINDOW:
		return p->rows ? 0 : window_row(p, v);
	case Q_TOP:
		return top_row(p, v);
	case Q_SLICES:
		return slice_row(p, v);
	case Q_TASKS:
		return task_row(p, v);
	case Q_WAKEUPS:
		return wakeup_row(p, v);
	default:
		return lost_row(p, v);
	}
}

static int pg_end(void *ctx)
{
	struct page *p = ctx;

	if (p->stage == Q_WINDOW && !p->rows)
		return report_fail(&p->err, ENODATA, "timeline: nothing to draw: the "
				   "database has no sched slices");
	if (p->stage == Q_TOP)
		puts_(p, "]");
	return 0;
}

static const struct output_sink page_sink = { pg_begin, pg_row, pg_end };

/* The closing part: the letters of the states seen, their values in
 * today's numbering, the counts. */
static void finish(struct page *p)
{
	struct state_map m;
	char out[64];

	puts_(p, "],\n\"letters\":{");
	for (int i = 0; i < p->nletters; i++) {
		state_letters(p->states, (uint64_t)p->letters[i], out, sizeof(out));
		putf(p, "%s\"%" PRId64 "\":", i ? "," : "", p->letters[i]);
		json_string_to(p->put, p->put_ctx, out, strlen(out), 0);
	}
	state_map_init(&m, p->states);
	puts_(p, "},\n\"today\":{");
	for (int i = 0; i < p->nletters; i++)
		putf(p, "%s\"%" PRId64 "\":%" PRId64, i ? "," : "", p->letters[i],
		     state_today(&m, p->letters[i]));
	putf(p, "},\n\"n\":[%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]}",
	     p->n[0], p->n[1], p->n[2], p->n[3]);
}

void tlpage_sql(struct sbuf *q, const struct report_args *a)
{
	window_sql(q, a);
	rows_sql(q, a);
}

int tlpage_data(const struct report_args *a, report_run_fn *run, void *ctx,
		json_put_fn *out, void *out_ctx)
{
	struct sbuf sql = { 0 };
	struct page p = { .stage = -1, .put = out, .put_ctx = out_ctx };
	int ret = -1;

	window_sql(&sql, a);
	if (sql.oom) {
		log_error("%s", strerror(ENOMEM));
		goto out;
	}
	if (report_query(run, ctx, sql.s, &page_sink, &p, &p.err) < 0)
		goto out;
	if (p.stage == Q_WINDOW && p.rows) {
		struct report_args b = *a;

		b.from = (struct report_time){ .set = true, .ns = p.lo };
		b.to = (struct report_time){ .set = true, .ns = p.hi };
		sbuf_free(&sql);
		sql = (struct sbuf){ 0 };
		rows_sql(&sql, &b);
		if (sql.oom) {
			log_error("%s", strerror(ENOMEM));
			goto out;
		}
		if (report_query(run, ctx, sql.s, &page_sink, &p, &p.err) < 0)
			goto out;
	}
	if (p.stage != Q_LOST) {
		log_error("timeline: %d results, not %d", p.stage + 1, NQUERIES);
		goto out;
	}
	finish(&p);
	ret = 0;
out:
	sbuf_free(&sql);
	free(p.states);
	for (int i = 0; i < p.ntop; i++)
		free(p.top[i]);
	return ret;
}

/* ---- the page ---- */

/* Into a <script> element: "</" must not appear, so every '<' (only ever
 * inside a JSON string) is written as \u003c. */
static void put_html_json(void *ctx, const char *s, size_t n)
{
	FILE *f = ctx;
	size_t i = 0, j;

	while (i < n) {
		for (j = i; j < n && s[j] != '<'; j++)
			;
		fwrite(s + i, 1, j - i, f);
		if (j < n)
			fputs("\\u003c", f);
		i = j + 1;
	}
}

int tlpage_write(FILE *f, const struct report_args *a, report_run_fn *run, void *ctx)
{
	const char *mark = "/*COMMD-DATA*/";
	const char *at = strstr(commd_timeline_page, mark);

	if (!at) {
		log_error("timeline: the page template has no data mark");
		return -1;
	}
	fwrite(commd_timeline_page, 1, (size_t)(at - commd_timeline_page), f);
	if (tlpage_data(a, run, ctx, put_html_json, f) < 0)
		return -1;
	fputs(at + strlen(mark), f);
	return 0;
}

int tlpage_live(json_put_fn *out, void *out_ctx, const char *token, int64_t last_ns)
{
	const char *mark = "/*COMMD-DATA*/", *data = "<script id=\"data\"";
	const char *at = strstr(commd_timeline_page, data);
	const char *m = at ? strstr(at, mark) : NULL;
	char live[160];
	int n;

	if (!m)
		return -1;
	n = snprintf(live, sizeof(live), "<script>window.COMMD_LIVE = { token: \"%s\", "
		     "seconds: %.9g };</script>\n", token, (double)last_ns / 1e9);
	if (n < 0 || (size_t)n >= sizeof(live))
		return -1;
	out(out_ctx, commd_timeline_page, (size_t)(at - commd_timeline_page));
	out(out_ctx, live, (size_t)n);
	out(out_ctx, at, (size_t)(m - at));
	out(out_ctx, "null", 4);
	m += strlen(mark);
	out(out_ctx, m, strlen(m));
	return 0;
}
