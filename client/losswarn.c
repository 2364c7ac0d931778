/* losswarn.c — see losswarn.h. */
#include "losswarn.h"

#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- which SQL reads events ---- */

/* Whether the identifier s (n bytes) is an event or derived table. */
static bool event_table(const char *s, size_t n)
{
	static const char *const names[] = { "sched", "events",
					     "wakeup_latency" };
	static const char *const prefixes[] = { "sched_", "task_", "ev_",
						"dv_" };

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (n == strlen(names[i]) && !strncasecmp(s, names[i], n))
			return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++) {
		size_t k = strlen(prefixes[i]);

		if (n > k && !strncasecmp(s, prefixes[i], k))
			return true;
	}
	return false;
}

static bool word_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

bool losswarn_reads_events(const char *sql)
{
	const char *p = sql;

	while (*p) {
		unsigned char c = *p;

		if (c == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
		} else if (c == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");

			p = e ? e + 2 : p + strlen(p);
		} else if (c == '\'') {
			/* a string literal: '' is a quote inside it */
			for (p++; *p; p++)
				if (*p == '\'' && *++p != '\'')
					break;
		} else if (c == '"' || c == '`' || c == '[') {
			/* a quoted identifier; "" (``) is the quote inside */
			char close = c == '[' ? ']' : (char)c;
			char name[64];
			size_t n = 0;

			for (p++; *p; p++) {
				if (*p == close) {
					if (close == ']' || p[1] != close)
						break;
					p++;
				}
				if (n < sizeof(name))
					name[n++] = *p;
			}
			if (*p)
				p++;
			if (n < sizeof(name) && event_table(name, n))
				return true;
		} else if (word_char(c)) {
			const char *w = p;

			while (word_char((unsigned char)*p))
				p++;
			if (event_table(w, (size_t)(p - w)))
				return true;
		} else {
			p++;
		}
	}
	return false;
}

/* ---- the time the rows cover ---- */

/* A time column: ts, or a name ending in _ts (start_ts, end_ts, ...). */
static bool time_column(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	return (n == 2 && !strcasecmp(name, "ts")) ||
	       (n > 3 && !strcasecmp(name + n - 3, "_ts"));
}

static bool integer_value(const struct output_value *v, int64_t *out)
{
	char *end;

	if (v->type != OUTPUT_INTEGER || !v->text)
		return false;
	errno = 0;
	*out = strtoll(v->text, &end, 10);
	return !errno && end != v->text && !*end;
}

static void extend(struct losswarn_tracker *t, int64_t v)
{
	if (!t->seen || v < t->lo)
		t->lo = v;
	if (!t->seen || v > t->hi)
		t->hi = v;
	t->seen = true;
	t->result_seen = true;
}

/* A result that showed no time cannot tell which it covered. */
static void close_result(struct losswarn_tracker *t)
{
	if (t->results && !t->result_seen)
		t->unknown = true;
}

static int track_begin(void *ctx, const struct output_column *cols, int n)
{
	struct losswarn_tracker *t = ctx;
	bool *is_ts = realloc(t->is_ts, (size_t)n * sizeof(*is_ts));

	if (!is_ts) {
		errno = ENOMEM;
		return -1;
	}
	t->is_ts = is_ts;
	t->ncols = n;
	t->dur_col = t->end_col = -1;
	for (int i = 0; i < n; i++) {
		is_ts[i] = time_column(cols[i].name);
		if (cols[i].name && !strcasecmp(cols[i].name, "dur"))
			t->dur_col = i;
		if (cols[i].name && !strcasecmp(cols[i].name, "end_ts"))
			t->end_col = i;
	}
	close_result(t);
	t->results = true;
	t->result_seen = false;
	return output_begin(t->out, cols, n);
}

static int track_row(void *ctx, const struct output_value *values, int n)
{
	struct losswarn_tracker *t = ctx;
	int64_t dur = 0;
	bool has_dur;

	(void)n;
	has_dur = t->dur_col >= 0 && integer_value(&values[t->dur_col], &dur) &&
		  dur > 0;
	/* a row still going on (a lifetime a running capture has not seen
	 * end) covers the time up to now */
	if (t->end_col >= 0 && values[t->end_col].type == OUTPUT_NULL)
		t->open_end = true;
	for (int i = 0; i < t->ncols; i++) {
		int64_t v;

		if (!t->is_ts[i] || !integer_value(&values[i], &v))
			continue;
		extend(t, v);
		if (has_dur && v <= INT64_MAX - dur)
			extend(t, v + dur);
	}
	return output_row(t->out, values);
}

static int track_end(void *ctx)
{
	struct losswarn_tracker *t = ctx;

	return output_end(t->out);
}

static const struct output_sink tracker_sink = {
	track_begin, track_row, track_end,
};

int losswarn_track(struct losswarn_tracker *t, struct output *out)
{
	memset(t, 0, sizeof(*t));
	t->out = out;
	t->dur_col = t->end_col = -1;
	t->sink = output_new_sink(&tracker_sink, t);
	return t->sink ? 0 : -1;
}

void losswarn_track_free(struct losswarn_tracker *t)
{
	output_free(t->sink);
	free(t->is_ts);
	memset(t, 0, sizeof(*t));
}

/* ---- the losses in a range, and the warning ---- */

/* The one row of the loss query. */
struct losses {
	char cpus[320];			/* "0,1" */
	int64_t records, first, last, events, unknown, base;
	bool has_base;
	int rows;
};

static int loss_begin(void *ctx, const struct output_column *cols, int n)
{
	(void)ctx;
	(void)cols;
	if (n != 7) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static int loss_row(void *ctx, const struct output_value *v, int n)
{
	struct losses *l = ctx;

	(void)n;
	if (l->rows++)
		return 0;
	if (v[0].type != OUTPUT_NULL && v[0].text) {
		size_t len = strlen(v[0].text);

		/* A machine with hundreds of CPUs: the first ones, then ... */
		if (len >= sizeof(l->cpus))
			len = sizeof(l->cpus) - 4;
		memcpy(l->cpus, v[0].text, len);
		strcpy(l->cpus + len, len < strlen(v[0].text) ? "..." : "");
	}
	l->records = report_int(&v[1], 0);
	l->first = report_int(&v[2], 0);
	l->last = report_int(&v[3], 0);
	l->events = report_int(&v[4], 0);
	l->unknown = report_int(&v[5], 0);
	l->has_base = v[6].type == OUTPUT_INTEGER;
	l->base = report_int(&v[6], 0);
	return 0;
}

static int loss_end(void *ctx)
{
	(void)ctx;
	return 0;
}

static const struct output_sink loss_sink = {
	loss_begin, loss_row, loss_end,
};

/* "+1.234567s" from the capture start. */
static void relative(char *buf, size_t size, int64_t ts, int64_t base)
{
	snprintf(buf, size, "%+.6fs", (double)(ts - base) / 1e9);
}

/* The warning about the losses l into buf. */
static void loss_text(char *buf, size_t size, const struct losses *l)
{
	char when[200], first[40], last[40], what[120];
	const char *cpus = l->cpus[0] ? l->cpus : "?";

	if (l->has_base) {
		relative(first, sizeof(first), l->first, l->base);
		relative(last, sizeof(last), l->last, l->base);
	}
	if (l->records == 1 || l->first == l->last) {
		if (l->has_base)
			snprintf(when, sizeof(when), "at %s from the capture "
				 "start (ts %" PRId64 ")", first, l->first);
		else
			snprintf(when, sizeof(when), "at ts %" PRId64, l->first);
	} else if (l->has_base) {
		snprintf(when, sizeof(when), "between %s and %s from the "
			 "capture start (ts %" PRId64 " to %" PRId64 ")", first,
			 last, l->first, l->last);
	} else {
		snprintf(when, sizeof(when), "between ts %" PRId64 " and %"
			 PRId64, l->first, l->last);
	}
	if (!l->unknown)
		snprintf(what, sizeof(what), "%" PRId64 " events", l->events);
	else if (l->unknown == l->records)
		snprintf(what, sizeof(what), "an unknown number of events");
	else
		snprintf(what, sizeof(what), "%" PRId64 " events and %" PRId64
			 " loss%s of unknown size", l->events, l->unknown,
			 l->unknown == 1 ? "" : "es");
	snprintf(buf, size, "warning: events were lost on CPU %s %s: %s; the "
		 "answer may be incomplete (-q silences this)", cpus, when,
		 what);
}

int losswarn_print(const struct losswarn_found *f)
{
	if (!f->loss[0] && !f->unknown[0] && !f->units[0] && !f->cut[0])
		return 0;
	/* After the rows, on a terminal too; the flush may be the first
	 * to find that they could not be written. */
	if (fflush(stdout) != 0)
		return -1;
	if (f->loss[0])
		log_warning("%s", f->loss);
	if (f->unknown[0])
		log_warning("%s", f->unknown);
	if (f->units[0])
		log_warning("%s", f->units);
	if (f->cut[0])
		log_warning("%s", f->cut);
	return 0;
}

/* The tables a CPU's events are looked for in, between hi and a loss
 * after it (each a step forward through its time key). */
#define GAP_TABLE(t) t,
static const char *const gap_tables[] = { REPORT_EVENT_TABLES(GAP_TABLE) };
#undef GAP_TABLE

/* Looks up the losses with ts in [lo, hi] (SQL expressions; NULL: no
 * bound): their warning into f->loss. A loss is stamped at the first
 * event after it: the events it took came before, back to the CPU's
 * last recorded one. So a CPU's first loss after hi counts too when that
 * CPU has no event from hi to it: the gap lies across hi (and the window
 * may lie inside it). */
static void check(const char *lo, const char *hi, report_run_fn *run,
		  void *ctx, struct losswarn_found *f)
{
	struct sbuf sql = { 0 };
	struct losses l = { .rows = 0 };
	struct query_error err = { .offset = -1 };
	struct output *o;

	sbuf_printf(&sql, "WITH l AS (SELECT cpu, ts, count FROM lost_events"
		    " WHERE ts IS NOT NULL");
	if (lo)
		sbuf_printf(&sql, " AND ts >= %s", lo);
	if (hi) {
		/* Per CPU, its first loss after hi */
		sbuf_printf(&sql, " AND ts <= %s\n"
			    "  UNION ALL SELECT f.cpu, f.ts, f.count FROM (SELECT cpu, min(ts)"
			    " AS ts FROM lost_events WHERE ts > %s GROUP BY cpu) n\n"
			    "  JOIN lost_events f ON f.ts = n.ts AND f.cpu IS n.cpu\n"
			    "  WHERE NOT EXISTS (", hi, hi);
		/* no event of the CPU in [hi, the loss): a step forward from
		 * hi through each table's time key, as far as the CPU's
		 * first event (or the loss) */
		for (size_t i = 0; i < sizeof(gap_tables) / sizeof(*gap_tables); i++)
			sbuf_printf(&sql, "%sSELECT 1 FROM %s e WHERE e.ts >= %s AND"
				    " e.ts < f.ts AND e.cpu = f.cpu", i ? " UNION ALL " : "",
				    gap_tables[i], hi);
		sbuf_printf(&sql, ")");
		if (lo)
			sbuf_printf(&sql, " AND f.ts >= %s", lo);
	}
	sbuf_printf(&sql, ")\n"
		    "SELECT (SELECT group_concat(cpu, ',') FROM (SELECT DISTINCT"
		    " cpu FROM l WHERE cpu IS NOT NULL ORDER BY cpu)),\n"
		    "       count(*), min(ts), max(ts), sum(count),"
		    " sum(count IS NULL),\n"
		    "       CASE WHEN count(*) > 0 THEN %s END\n"
		    "FROM l;", report_base_sql);
	o = output_new_sink(&loss_sink, &l);
	/* Any failure (no lost_events table, a refusal): say nothing. */
	if (!sql.oom && o && run(ctx, sql.s, o, &err) == 0 && l.rows == 1 &&
	    l.records > 0)
		loss_text(f->loss, sizeof(f->loss), &l);
	output_free(o);
	sbuf_free(&sql);
}

int losswarn_tracked(const struct losswarn_tracker *t, report_run_fn *run,
		     void *ctx)
{
	struct losswarn_found f = { .loss = "" };
	char lo[32], hi[32];
	bool whole = !t->seen || t->unknown || (t->results && !t->result_seen);

	snprintf(lo, sizeof(lo), "%" PRId64, t->lo);
	snprintf(hi, sizeof(hi), "%" PRId64, t->hi);
	check(whole ? NULL : lo, whole || t->open_end ? NULL : hi, run, ctx, &f);
	return losswarn_print(&f);
}

/* ---- unknown time in a report's window ---- */

struct unknown_time {
	int64_t unknown, span;
	char cpus[320];			/* "1:46.1%,3:2.0%" */
	int rows;
};

static int unknown_begin(void *ctx, const struct output_column *cols, int n)
{
	(void)ctx;
	(void)cols;
	if (n != 3) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static int unknown_row(void *ctx, const struct output_value *v, int n)
{
	struct unknown_time *u = ctx;

	(void)n;
	if (u->rows++)
		return 0;
	u->unknown = report_int(&v[0], 0);
	u->span = report_int(&v[1], 0);
	if (v[2].type != OUTPUT_NULL && v[2].text)
		snprintf(u->cpus, sizeof(u->cpus), "%s", v[2].text);
	return 0;
}

static const struct output_sink unknown_sink = {
	unknown_begin, unknown_row, loss_end,
};

/* Runs sql into u: whether it gave one row. */
static bool unknown_query_sql(const char *sql, report_run_fn *run, void *ctx,
			      struct unknown_time *u)
{
	struct query_error err = { .offset = -1 };
	struct output *o = output_new_sink(&unknown_sink, u);
	bool ok;

	*u = (struct unknown_time){ .rows = 0 };
	ok = o && run(ctx, sql, o, &err) == 0 && u->rows == 1;
	output_free(o);
	return ok;
}

/* Runs the window's CTEs, then cte's, then select, into u: whether it
 * gave one row. */
static bool unknown_query(const struct report_time *from,
			  const struct report_time *to,
			  void (*cte)(struct sbuf *), const char *select,
			  report_run_fn *run, void *ctx, struct unknown_time *u)
{
	struct sbuf sql = { 0 };
	struct query_error err = { .offset = -1 };
	struct output *o = output_new_sink(&unknown_sink, u);
	bool ok;

	*u = (struct unknown_time){ .rows = 0 };
	report_window_cte_range(&sql, from, to);
	cte(&sql);
	sbuf_printf(&sql, "\n%s", select);
	ok = !sql.oom && o && run(ctx, sql.s, o, &err) == 0 && u->rows == 1;
	output_free(o);
	sbuf_free(&sql);
	return ok;
}

/* The warning when a capture's trace clock counts no nanoseconds
 * (counter: events, uptime: jiffies, x86-tsc: cycles; `commd import`
 * says so too): the report's times are its counts, read as ns. */
static void check_units(report_run_fn *run, void *ctx, struct losswarn_found *f)
{
	struct unknown_time u;

	if (!unknown_query_sql("SELECT 0, 0, group_concat(clock, ', ') FROM (SELECT DISTINCT clock"
			       " FROM capture WHERE clock IN ('counter', 'uptime', 'x86-tsc'))"
			       " HAVING count(*) > 0;", run, ctx, &u) || !u.cpus[0])
		return;
	snprintf(f->units, sizeof(f->units), "warning: the trace clock (%s) counts "
		 "no nanoseconds (counter: events, uptime: jiffies, x86-tsc: TSC "
		 "cycles): the report's times, _ms and _us, and --last, --from and "
		 "--to, are its counts read as ns (-q silences this)", u.cpus);
}

/* The warning when the window given begins before the retention cutoff:
 * what came before it is deleted, and the answer covers the window from
 * the cutoff on (nothing at all when it ends before). */
static void check_cut(const struct report_time *from, report_run_fn *run, void *ctx,
		      struct losswarn_found *f)
{
	struct sbuf sql = { 0 };
	struct unknown_time u;

	if (!from->set)
		return;
	sbuf_printf(&sql, "SELECT ");
	report_time_sql(&sql, from);
	sbuf_printf(&sql, ", " REPORT_CUTOFF_SQL ", (SELECT CASE WHEN count(*) THEN"
		    " printf('+%%.6fs', (" REPORT_CUTOFF_SQL " - min(start_ts)) / 1e9) END"
		    " FROM capture);");
	if (!sql.oom && unknown_query_sql(sql.s, run, ctx, &u) && u.span > 0 &&
	    u.unknown < u.span)
		snprintf(f->cut, sizeof(f->cut), "warning: the window begins before the "
			 "retention cutoff (ts %" PRId64 "%s%s%s): the rows before it "
			 "are deleted, and the answer covers the window from there on "
			 "(-q silences this)", u.span, u.cpus[0] ? ", " : "", u.cpus,
			 u.cpus[0] ? " from the first capture's start" : "");
	sbuf_free(&sql);
}

/* The warning when over 1% of the CPUs' time in the window is in no
 * slice, into f->unknown. */
static void check_unknown(const struct report_time *from,
			  const struct report_time *to, report_run_fn *run,
			  void *ctx, struct losswarn_found *f)
{
	struct unknown_time u;

	/* First the window's total alone (no sort of its slices by CPU,
	 * a third of a `top --last 1s`); its third column says whether the
	 * per-CPU look that names the CPUs is needed: when it warns, when
	 * no CPU count bounds the total (a database without one), or when
	 * the slices cover more than the span (slices of a CPU that
	 * overlap, or of a CPU past the count: the total may hide a CPU's
	 * unknown time then). */
	if (unknown_query(from, to, report_unknown_total_cte,
			  "SELECT span - known, span,\n"
			  "       CASE WHEN (span > 0 AND (span - known) * 100 > span)\n"
			  "              OR (coalesce(span, 0) <= 0 AND known > 0)\n"
			  "              OR known > span\n"
			  "            THEN 'more' END\n"
			  "FROM unknown_total;", run, ctx, &u) &&
	    strcmp(u.cpus, "more") != 0)
		return;
	/* The per-CPU look is top --by cpu's own (cpu_use). */
	if (!unknown_query(from, to, report_cpu_use_cte,
			   "SELECT sum(unknown), sum(span),\n"
			   "       (SELECT group_concat(cpu || ': ' || round(100.0 * unknown"
			   " / span, 1) || '%', ', ')\n"
			   "        FROM cpu_use WHERE span > 0 AND unknown * 100 > span)\n"
			   "FROM cpu_use;", run, ctx, &u) ||
	    u.span <= 0 || u.unknown * 100 <= u.span)
		return;
	snprintf(f->unknown, sizeof(f->unknown), "warning: %.1f%% of the "
		 "CPUs' time in the window is unknown (CPU %s): no recorded "
		 "event says who ran then (a switch the kernel did not trace, "
		 "a loss, before a CPU's first event; commq lost counts "
		 "them); the answer may be incomplete (-q silences this)",
		 100.0 * (double)u.unknown / (double)u.span,
		 u.cpus[0] ? u.cpus : "?");
}

void losswarn_window_find(const struct report_time *from,
			  const struct report_time *to, report_run_fn *run,
			  void *ctx, struct losswarn_found *f)
{
	struct sbuf lo = { 0 }, hi = { 0 };

	*f = (struct losswarn_found){ .loss = "" };
	if (from->set)
		report_time_sql(&lo, from);
	if (to->set)
		report_time_sql(&hi, to);
	if (!lo.oom && !hi.oom)
		check(lo.s, hi.s, run, ctx, f);
	sbuf_free(&lo);
	sbuf_free(&hi);
	check_unknown(from, to, run, ctx, f);
	check_units(run, ctx, f);
	check_cut(from, run, ctx, f);
}

int losswarn_window(const struct report_time *from,
		    const struct report_time *to, report_run_fn *run,
		    void *ctx)
{
	struct losswarn_found f;

	losswarn_window_find(from, to, run, ctx, &f);
	return losswarn_print(&f);
}
