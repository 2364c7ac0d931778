/* reportsql.c — see reportsql.h. */
#define _GNU_SOURCE		/* asprintf, mkostemp */
#include "reportsql.h"
#include "grow.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- strings ---- */

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0,
			      fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if (b->s && (size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		bool fresh = !b->s;

		if (grow_array(&b->s, &b->cap, 1, b->len + (size_t)n + 1, 0)) {
			b->oom = true;
			return;
		}
		if (fresh)
			b->s[0] = '\0';
	}
}

void sbuf_sql_string(struct sbuf *b, const char *s)
{
	sbuf_printf(b, "'");
	for (const char *q; (q = strchr(s, '\'')); s = q + 1)
		sbuf_printf(b, "%.*s''", (int)(q - s), s);
	sbuf_printf(b, "%s'", s);
}

void sbuf_free(struct sbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

/* ---- SQL pieces ---- */

const char report_base_sql[] =
	"coalesce((SELECT min(start_ts) FROM capture), "
	SCHED_MIN_TS ")";

/* The newest event: the last one stored in any event table (each keyed
 * by ts: a look at its end, not a scan) and the end of every finished
 * capture. Not the last switch alone: on a running capture the slices
 * still open run to the newest event of any kind, and a window "the
 * last second" measured back from a switch long before it (a CPU busy
 * in one task, a quiet machine) was longer than a second. */
#define NEWEST_OF(t) " UNION ALL SELECT max(ts) FROM " t
const char report_newest_sql[] =
	"(SELECT max(t) FROM (SELECT max(end_ts) AS t FROM capture"
	REPORT_EVENT_TABLES(NEWEST_OF) "))";
#undef NEWEST_OF

void report_wall_sql(struct sbuf *b, const char *ts)
{
	/* The newest capture holding ts, its latest reading at or before
	 * it (its first when ts comes before them): wall()'s rule, in plain
	 * SQL so that --sql runs in the sqlite3 shell. */
	sbuf_printf(b,
"(SELECT strftime('%%Y-%%m-%%dT%%H:%%M:%%S', (%s + m.realtime - m.ts) / 1000000000,\n"
"                 'unixepoch')\n"
"        || printf('.%%09dZ', (%s + m.realtime - m.ts) %% 1000000000)\n"
"        FROM (SELECT (SELECT c.id FROM capture c\n"
"                      WHERE c.start_ts <= %s AND (c.end_ts IS NULL\n"
"                            OR c.end_ts >= %s)\n"
"                      ORDER BY c.id DESC LIMIT 1) AS id) k\n"
"        JOIN clock_map m ON m.capture = k.id\n"
"        WHERE m.ts = coalesce((SELECT max(n.ts) FROM clock_map n\n"
"                               WHERE n.capture = k.id AND n.ts <= %s),\n"
"                              (SELECT min(n.ts) FROM clock_map n\n"
"                               WHERE n.capture = k.id))\n"
"        LIMIT 1)", ts, ts, ts, ts, ts);
}

void report_time_sql(struct sbuf *b, const struct report_time *t)
{
	if (t->relative)
		sbuf_printf(b, "(%s + %" PRId64 ")", report_base_sql, t->ns);
	else if (t->last)
		sbuf_printf(b, "(%s - %" PRId64 ")", report_newest_sql, t->ns);
	else if (t->wall)
		/* The reading before it (the first, for a time before them
		 * all): realtime - (realtime of the reading - its ts). */
		sbuf_printf(b, "(%" PRId64 " - coalesce((SELECT realtime - ts FROM "
			    "clock_map WHERE realtime <= %" PRId64 " ORDER BY realtime "
			    "DESC LIMIT 1), (SELECT realtime - ts FROM clock_map "
			    "ORDER BY realtime LIMIT 1)))", t->ns, t->ns);
	else
		sbuf_printf(b, "%" PRId64, t->ns);
}

/* WITH w(lo, hi): the window, whole when --from/--to are not given. */
void report_window_cte(struct sbuf *b, const struct report_args *a)
{
	report_window_cte_range(b, &a->from, &a->to);
}


/* A slice at least this long is a long one: the schema indexes the
 * switches that begin one by CPU (029-long-slices.sql, its partial
 * index's WHERE, which a query must repeat to use it). */
#define LONG_SLICE "100000000"

/* The window as w(lo, hi, since) and its rows, read from the tables
 * themselves so that their time key bounds what is read (a view of a
 * UNION ALL joined to w would be read whole):
 *
 *   ws  the slices that may overlap it, as the sched view has them: those
 *       that start in [since, hi), and each CPU's last slice begun before
 *       lo (the one running at lo, if any: slices of a CPU do not
 *       overlap); capture.cpus says which CPUs. wp finds that slice's
 *       start by the CPU: a step back through the time key from lo,
 *       never more than LONG_SLICE, 100 ms (nothing for a busy
 *       CPU), and for an older start, a slice at least that long, the
 *       schema's two indexes by CPU (029: switches whose slice is long,
 *       derived slices); since is the earliest of the starts in that
 *       reach, and the older ones (wfar, an idle or offline CPU's) are
 *       looked up one by one, not read up to;
 *   wt  the same slices' times and comm_history rows alone, for a
 *       question that needs no name or pid: not joined to comm_history
 *       (every slice kept has its row there: retention cuts only history
 *       that ends before the first row kept), which costs a fifth of a
 *       window's `top`;
 *   wl  the wakeups that begin in it, as the wakeup_latency view has them.
 *
 * Unused CTEs cost nothing: SQLite skips them. NOT MATERIALIZED: read as
 * they are used, never stored whole first (a window may hold millions). */
void report_window_cte_range(struct sbuf *b, const struct report_time *from,
			     const struct report_time *to)
{

	/* (from the retention cutoff on: rows before it are deleted, or
	 * being deleted, chunk by chunk, while a cut is under way: its
	 * target is the cutoff then) */
	sbuf_printf(b, "WITH w0(lo, hi) AS (SELECT max(" REPORT_CUTOFF_SQL ", ");
	if (from && from->set)
		report_time_sql(b, from);
	else
		sbuf_printf(b, "0");
	sbuf_printf(b, "), ");
	if (to && to->set)
		report_time_sql(b, to);
	else
		sbuf_printf(b, "9223372036854775807");
	sbuf_printf(b, ")");
	report_window_rows_cte(b);
}

const char *const report_waking_tables[REPORT_NWAKING] = {
	"ev_sched_waking", "ev_sched_wakeup", "ev_sched_wakeup_new",
};

void report_window_rows_cte(struct sbuf *b)
{

	sbuf_printf(b, ",\n"
"wc(cpu) AS (SELECT 0 WHERE (SELECT max(cpus) FROM capture) > 0\n"
"            UNION ALL SELECT cpu + 1 FROM wc\n"
"            WHERE cpu + 1 < (SELECT max(cpus) FROM capture)),\n"
"wp0(cpu, short, evl, dvl, il) AS (SELECT wc.cpu,\n"
"        (SELECT max(e.ts) FROM ev_sched_switch e\n"
"         WHERE e.ts >= w0.lo - " LONG_SLICE " AND e.ts < w0.lo AND e.cpu = wc.cpu),\n"
"        (SELECT max(e.ts) FROM ev_sched_switch e\n"
"         WHERE e.cpu = wc.cpu AND e.ts < w0.lo AND e.slice_dur >= " LONG_SLICE "),\n"
"        (SELECT max(d.ts) FROM dv_sched d WHERE d.cpu = wc.cpu AND d.ts < w0.lo),\n"
"        (SELECT max(i.ts) FROM dv_open_idle i WHERE i.cpu = wc.cpu AND i.ts < w0.lo)\n"
"      FROM wc, w0),\n"
"wp(cpu, last) AS (SELECT cpu, max(coalesce(short, evl, dvl, il), coalesce(evl, dvl, il, short),\n"
"                                  coalesce(dvl, il, short, evl), coalesce(il, short, evl, dvl))\n"
"      FROM wp0),\n"
"w(lo, hi, since) AS (SELECT lo, hi, min(lo, coalesce((SELECT\n"
"        min(last) FROM wp WHERE last >= w0.lo - " LONG_SLICE "), lo))\n"
"      FROM w0),\n"
"wfar(ts, cpu) AS (SELECT last, cpu FROM wp WHERE last < (SELECT lo FROM w0) - " LONG_SLICE "),\n"
"ws(ts, dur, cpu, pid, comm, prio, end_state, lost, start_err, end_err, hid)\n"
"  AS NOT MATERIALIZED (\n"
"  SELECT e.ts, e.slice_dur, e.cpu, h.pid, coalesce(h.comm, '<...>'),\n"
"         e.next_prio, e.slice_state, 0, NULL, NULL, e.next_hid\n"
"  FROM ev_sched_switch e JOIN comm_history h ON h.id = e.next_hid\n"
"  WHERE e.ts >= (SELECT since FROM w) AND e.ts < (SELECT hi FROM w)\n"
"    AND e.slice_dur IS NOT NULL\n"
"  UNION ALL\n"
"  SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>'), e.prio,\n"
"         e.end_state, e.lost, e.start_err, e.end_err, e.hid\n"
"  FROM dv_sched e JOIN comm_history h ON h.id = e.hid\n"
"  WHERE e.ts >= (SELECT since FROM w) AND e.ts < (SELECT hi FROM w)\n"
"  UNION ALL\n"
"  SELECT e.ts, e.slice_dur, e.cpu, h.pid, coalesce(h.comm, '<...>'),\n"
"         e.next_prio, e.slice_state, 0, NULL, NULL, e.next_hid\n"
"  FROM wfar f JOIN ev_sched_switch e ON e.ts = f.ts AND e.cpu = f.cpu\n"
"  JOIN comm_history h ON h.id = e.next_hid\n"
"  WHERE e.slice_dur IS NOT NULL\n"
"  UNION ALL\n"
"  SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>'), e.prio,\n"
"         e.end_state, e.lost, e.start_err, e.end_err, e.hid\n"
"  FROM wfar f JOIN dv_sched e ON e.ts = f.ts AND e.cpu = f.cpu\n"
"  JOIN comm_history h ON h.id = e.hid\n"
"  UNION ALL\n"
"  SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>'), e.prio,\n"
"         NULL, 0, e.start_err, NULL, e.hid\n"
"  FROM dv_open_idle e JOIN comm_history h ON h.id = e.hid\n"
"  WHERE (e.ts >= (SELECT since FROM w) AND e.ts < (SELECT hi FROM w))\n"
"     OR (e.ts, e.cpu) IN (SELECT ts, cpu FROM wfar)),\n"
"wt(ts, dur, cpu, hid) AS NOT MATERIALIZED (\n"
"  SELECT ts, slice_dur, cpu, next_hid FROM ev_sched_switch\n"
"  WHERE ts >= (SELECT since FROM w) AND ts < (SELECT hi FROM w)\n"
"    AND slice_dur IS NOT NULL\n"
"  UNION ALL\n"
"  SELECT ts, dur, cpu, hid FROM dv_sched\n"
"  WHERE ts >= (SELECT since FROM w) AND ts < (SELECT hi FROM w)\n"
"  UNION ALL\n"
"  SELECT e.ts, e.slice_dur, e.cpu, e.next_hid\n"
"  FROM wfar f JOIN ev_sched_switch e ON e.ts = f.ts AND e.cpu = f.cpu\n"
"  WHERE e.slice_dur IS NOT NULL\n"
"  UNION ALL\n"
"  SELECT e.ts, e.dur, e.cpu, e.hid\n"
"  FROM wfar f JOIN dv_sched e ON e.ts = f.ts AND e.cpu = f.cpu\n"
"  UNION ALL\n"
"  SELECT ts, dur, cpu, hid FROM dv_open_idle\n"
"  WHERE (ts >= (SELECT since FROM w) AND ts < (SELECT hi FROM w))\n"
"     OR (ts, cpu) IN (SELECT ts, cpu FROM wfar)),\n"
"wl(ts, pid, comm, cpu, latency, waker_pid, waker_comm, waker_cpu, hid, waker_hid)\n"
"  AS NOT MATERIALIZED (\n");
	for (size_t i = 0; i < REPORT_NWAKING; i++)
		sbuf_printf(b,
"  SELECT e.ts, h.pid, coalesce(h.comm, '<...>'), e.run_cpu, e.latency,\n"
"         k.pid, k.comm, e.cpu, e.run_hid, e.hid\n"
"  FROM %s e JOIN comm_history h ON h.id = e.run_hid\n"
"  LEFT JOIN comm_history k ON k.id = e.hid\n"
"  WHERE e.ts >= (SELECT lo FROM w) AND e.ts < (SELECT hi FROM w)\n"
"    AND e.latency IS NOT NULL\n"
"  UNION ALL\n", report_waking_tables[i]);
	sbuf_printf(b,
"  SELECT e.ts, h.pid, coalesce(h.comm, '<...>'), e.cpu, e.latency,\n"
"         k.pid, k.comm, NULL, e.hid, e.waker_hid\n"
"  FROM dv_wakeup_latency e JOIN comm_history h ON h.id = e.hid\n"
"  LEFT JOIN comm_history k ON k.id = e.waker_hid\n"
"  WHERE e.ts >= (SELECT lo FROM w) AND e.ts < (SELECT hi FROM w))");
}

/* After WITH w: per CPU of the window, its busy (tasks), idle (pid 0) and
 * unknown ns (in no slice: before the CPU's first event, a switch nobody
 * recorded, a loss), out of the window's part of the captures (a capture
 * still running ends, per CPU, at its last stored slice), its slices and
 * tasks: cu(cpu, busy, idle, unknown, span, slices, tasks). The captures'
 * part is cseg(lo, hi), a row per capture the window meets, from the
 * retention cutoff on (rows before it are gone: nothing says what ran
 * there, and it was captured): the time between two captures (commd
 * stopped) is in none, so it is no CPU's span, nor unknown. A CPU is
 * the window's when it has a slice in it or before it (one with none
 * before its end was not traced: a cpumask left it out). */
void report_capture_window_cte(struct sbuf *b)
{
	sbuf_printf(b, ",\n"
"wcut(ts) AS (SELECT " REPORT_CUTOFF_SQL "),\n"
"cseg(lo, hi) AS MATERIALIZED (SELECT max(w.lo, coalesce(c.start_ts, 0), wcut.ts),\n"
"                        CASE WHEN c.end_ts IS NOT NULL THEN min(w.hi, c.end_ts) END\n"
"      FROM capture c, w, wcut\n"
"      WHERE coalesce(c.start_ts, 0) < w.hi\n"
"        AND (c.end_ts IS NULL OR c.end_ts > max(w.lo, wcut.ts))\n"
"      UNION ALL\n"
"      SELECT max(w.lo, coalesce((SELECT min(start_ts) FROM capture),\n"
"                                " SCHED_MIN_TS "), wcut.ts), NULL\n"
"      FROM w, wcut WHERE NOT EXISTS (SELECT 1 FROM capture)),\n"
"cw AS (SELECT max(w.lo, coalesce((SELECT min(start_ts) FROM capture),\n"
"                                 " SCHED_MIN_TS "), wcut.ts) AS lo,\n"
"              CASE WHEN (SELECT count(*) - count(end_ts) FROM capture) > 0\n"
"                   THEN NULL ELSE min(w.hi, (SELECT max(end_ts) FROM capture))\n"
"              END AS hi, w.hi AS whi FROM w, wcut)");
}

/* The span of the captures' part of the window on a CPU whose last slice
 * there ends at E (NULL: none; a capture still running ends there). */
#define SEG_SPAN(E) \
	"(SELECT coalesce(sum(max(0, coalesce(g.hi, min(" W_HI ", coalesce(" E ", g.lo)))\n" \
	"                                  - g.lo)), 0) FROM cseg g)"

void report_cpu_use_cte(struct sbuf *b)
{
	/* Summed per CPU first, the capture window joined to those few rows
	 * after: joined to every slice, the slices were stored and sorted
	 * twice (76 against 45 ms on a 1 s window of 51,000 slices). */
	report_capture_window_cte(b);
	sbuf_printf(b, ",\n"
"cs AS NOT MATERIALIZED (SELECT s.cpu, s.pid, " CLIPPED " AS t,\n"
"              s.ts + s.dur AS e\n"
"       FROM ws s WHERE " IN_WINDOW "),\n"
"cg AS (SELECT cpu,\n"
"              sum(CASE WHEN pid <> 0 THEN t ELSE 0 END) AS busy,\n"
"              sum(CASE WHEN pid = 0 THEN t ELSE 0 END) AS idle,\n"
"              max(e) AS e, count(*) AS slices,\n"
"              count(DISTINCT nullif(pid, 0)) AS tasks\n"
"       FROM cs GROUP BY cpu),\n"
"cu AS (SELECT k.cpu, coalesce(cg.busy, 0) AS busy, coalesce(cg.idle, 0) AS idle,\n"
"              " SEG_SPAN("cg.e") " AS span,\n"
"              coalesce(cg.slices, 0) AS slices, coalesce(cg.tasks, 0) AS tasks\n"
"       FROM (SELECT cpu FROM cg UNION SELECT cpu FROM wp WHERE last IS NOT NULL) k\n"
"       LEFT JOIN cg USING (cpu)),\n"
"cpu_use AS (SELECT cpu, busy, idle, max(0, span - busy - idle) AS unknown,\n"
"                   max(span, busy + idle) AS span, slices, tasks FROM cu\n"
"            WHERE span > 0 OR slices > 0)");
}

/* The time table's slices (duration column dur) cover in the window,
 * read from the table itself (through wt, the UNION's co-routine took 4
 * of the 22 ms of a 1 s window of 51,000 slices; this subquery is
 * flattened). */
#define KNOWN(table, dur, cond)						\
	"(SELECT coalesce(sum(" CLIPPED "), 0)\n"				\
	"          FROM (SELECT ts, " dur " AS dur FROM " table "\n"		\
	"                WHERE ts >= (SELECT since FROM w) AND ts < " W_HI cond "\n" \
	"                UNION ALL SELECT e.ts, e." dur " FROM wfar f JOIN " table " e\n" \
	"                ON e.ts = f.ts AND e.cpu = f.cpu" cond ") s\n"	\
	"          WHERE s.ts + s.dur > " W_LO ")"

void report_unknown_total_cte(struct sbuf *b)
{
	/* Slices of one CPU do not overlap (the pipeline ends one before
	 * it starts the next), so a CPU's slices in the window add up to
	 * at most its span there, and its latest-starting slice ends last:
	 * its end is a step back from hi through the time key, not a sort
	 * of the window by CPU. A CPU with no slice starting before hi (not
	 * traced) has no span, as in cpu_use. */
	report_capture_window_cte(b);
	sbuf_printf(b, ",\n"
"ce AS (SELECT wc.cpu, max(coalesce(\n"
"         (SELECT e.ts + e.slice_dur FROM ev_sched_switch e\n"
"          WHERE e.ts >= (SELECT since FROM w) AND e.ts < " W_HI "\n"
"            AND e.cpu = wc.cpu AND e.slice_dur IS NOT NULL\n"
"          ORDER BY e.ts DESC LIMIT 1), 0), coalesce(\n"
"         (SELECT d.ts + d.dur FROM dv_sched d\n"
"          WHERE d.ts >= (SELECT since FROM w) AND d.ts < " W_HI "\n"
"            AND d.cpu = wc.cpu ORDER BY d.ts DESC LIMIT 1), 0), coalesce(\n"
"         (SELECT max(coalesce(e.ts + e.slice_dur, 0), coalesce(d.ts + d.dur, 0))\n"
"          FROM wfar f LEFT JOIN ev_sched_switch e\n"
"            ON e.ts = f.ts AND e.cpu = f.cpu AND e.slice_dur IS NOT NULL\n"
"          LEFT JOIN dv_sched d ON d.ts = f.ts AND d.cpu = f.cpu\n"
"          WHERE f.cpu = wc.cpu), 0), coalesce(\n"
"         (SELECT max(i.ts + i.dur) FROM dv_open_idle i\n"
"          WHERE i.cpu = wc.cpu AND i.ts < " W_HI "), 0)) AS e\n"
"       FROM wc),\n"
"unknown_total AS (SELECT\n"
"         (SELECT sum(" SEG_SPAN("nullif(ce.e, 0)") ") FROM ce WHERE ce.e > 0) AS span,\n"
"         " KNOWN("ev_sched_switch", "slice_dur", " AND slice_dur IS NOT NULL") "\n"
"         + " KNOWN("dv_sched", "dur", "") "\n"
"         + " KNOWN("dv_open_idle", "dur", "") " AS known)");
}

/* ---- output files ---- */

FILE *report_open_temp(const char *path, char **tmp)
{
	mode_t mask = umask(0);
	FILE *f;
	int fd;

	umask(mask);
	if (asprintf(tmp, "%s.XXXXXX", path) < 0) {
		*tmp = NULL;
		errno = ENOMEM;
		return NULL;
	}
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	if (fchmod(fd, 0666 & ~mask) < 0 || !(f = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
		errno = e;
		return NULL;
	}
	return f;
}

int report_close_temp(FILE *f, char *tmp, const char *path, int ret)
{
	if (fclose(f) != 0 && ret == 0) {
		log_error("%s: %s", path, strerror(errno));
		ret = -1;
	}
	if (ret == 0 && rename(tmp, path) < 0) {
		log_error("%s: %s", path, strerror(errno));
		ret = -1;
	}
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

/* ---- running ---- */

int64_t report_int(const struct output_value *v, int64_t def)
{
	if (v->type == OUTPUT_NULL || !v->text)
		return def;
	return strtoll(v->text, NULL, 10);
}

int report_query(report_run_fn *run, void *run_ctx, const char *sql,
		 const struct output_sink *cb, void *ctx,
		 struct report_sink_error *serr)
{
	struct query_error err = { .offset = -1 };
	struct output *o = output_new_sink(cb, ctx);
	int ret;

	if (!o) {
		log_error("%s", strerror(errno));
		return -1;
	}
	serr->msg[0] = '\0';
	ret = run(run_ctx, sql, o, &err);
	output_free(o);
	if (ret < 0)
		log_error("%s", serr->msg[0] ? serr->msg : err.msg);
	return ret;
}

int report_fail(struct report_sink_error *e, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	errno = err;
	return -1;
}

