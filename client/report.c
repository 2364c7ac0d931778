/* report.c — see report.h.
 *
 * The SQL of each report is built here as text and sent like any other
 * query; --sql prints that same text.  Conventions shared by the reports:
 *
 *   - the window [lo, hi) of --from/--to is a CTE w(lo, hi, since), its
 *     slices and wakeups the CTEs ws and wl (reportsql.h); a time
 *     relative to the capture start ('+2s') is base + offset in the SQL
 *     itself (report_base_sql), so the printed SQL stands alone;
 *   - a slice counts for the part of it inside the window
 *     (min(end, hi) - max(ts, lo));
 *   - durations are shown in ms and latencies in µs, rounded to the ns
 *     they were measured in (3 decimals).
 */
#define _GNU_SOURCE		/* timegm */
#include "report.h"

#include "export.h"
#include "flame.h"
#include "kept.h"
#include "log.h"
#include "timeline.h"
#include "ui.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- names and arguments ---- */

static const char *const kind_names[] = {
	[REPORT_TOP] = "top",
	[REPORT_LATENCY] = "latency",
	[REPORT_HISTORY] = "history",
	[REPORT_LOST] = "lost",
	[REPORT_TIMELINE] = "timeline",
	[REPORT_EXPORT] = "export",
	[REPORT_UTIL] = "util",
	[REPORT_RUNQ] = "runq",
	[REPORT_WAKERS] = "wakers",
	[REPORT_OFFCPU] = "offcpu",
	[REPORT_UI] = "ui",
};

enum report_kind report_kind(const char *name)
{
	for (size_t k = 1; k < sizeof(kind_names) / sizeof(*kind_names); k++)
		if (!strcmp(name, kind_names[k]))
			return (enum report_kind)k;
	return REPORT_NONE;
}

int report_results(const struct report_args *a)
{
	if (a->kind == REPORT_LATENCY)
		return a->by_set ? 1 : 2;
	return a->kind == REPORT_NONE ? 0 : 1;
}

const char *report_name(enum report_kind kind)
{
	return kind > REPORT_NONE && kind <= REPORT_OFFCPU ? kind_names[kind]
							   : "?";
}

int report_parse_by(const char *s, enum report_by *by)
{
	if (!strcmp(s, "comm"))
		*by = REPORT_BY_COMM;
	else if (!strcmp(s, "process"))
		*by = REPORT_BY_PROCESS;
	else if (!strcmp(s, "thread"))
		*by = REPORT_BY_THREAD;
	else if (!strcmp(s, "cpu"))
		*by = REPORT_BY_CPU;
	else if (!strcmp(s, "pid"))
		*by = REPORT_BY_PID;
	else if (!strcmp(s, "cgroup"))
		*by = REPORT_BY_CGROUP;
	else if (!strcmp(s, "host"))
		*by = REPORT_BY_HOST;
	else
		return -1;
	return 0;
}

/* A number with an optional fraction, then an optional unit: s, ms, us
 * (or µs), ns.  Without a unit it is seconds, except an integer of 10 or
 * more digits, which is a timestamp in ns as the ts columns print it.
 * A leading '+' makes it relative to the capture start.  Exact: the
 * digits are scaled as decimals, never through a double. */
/* ISO 8601: YYYY-MM-DD, 'T' or a space, HH:MM[:SS[.fraction]], then Z,
 * +HH[:MM] or -HH[:MM]; without a zone it is the local time. */
static int parse_iso(const char *s, struct report_time *t, const char **why)
{
	struct tm tm = { 0 };
	const char *p = s;
	int64_t frac = 0, scale = 100000000, zone = 0, sec;
	int n = 0, hh, mm, local = 1;
	time_t secs;

	*why = "a date and time is YYYY-MM-DDTHH:MM[:SS[.fraction]] with Z or "
	       "+HH:MM for the zone (else local time)";
	if (sscanf(p, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &n) != 3 ||
	    n != 10 || (p[n] != 'T' && p[n] != ' '))
		return -1;
	p += n + 1;
	n = 0;
	if (sscanf(p, "%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &n) != 2 || n != 5)
		return -1;
	p += n;
	if (*p == ':') {
		if (!isdigit((unsigned char)p[1]) || !isdigit((unsigned char)p[2]))
			return -1;
		tm.tm_sec = (p[1] - '0') * 10 + (p[2] - '0');
		p += 3;
		if (*p == '.' || *p == ',') {
			if (!isdigit((unsigned char)*++p))
				return -1;
			for (; isdigit((unsigned char)*p); p++) {
				if (!scale && *p != '0') {
					*why = "a time is at most precise to the nanosecond";
					return -1;
				}
				frac += (*p - '0') * scale;
				scale /= 10;
			}
		}
	}
	if (*p == 'Z' || *p == 'z') {
		local = 0;
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p == '-' ? -1 : 1;

		n = 0;
		if (sscanf(p + 1, "%2d%n", &hh, &n) != 1 || n != 2)
			return -1;
		p += 3;
		mm = 0;
		if (*p == ':')
			p++;
		if (isdigit((unsigned char)*p)) {
			if (sscanf(p, "%2d%n", &mm, &n) != 1 || n != 2)
				return -1;
			p += 2;
		}
		zone = sign * (hh * 3600 + mm * 60);
		local = 0;
	}
	if (*p || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	tm.tm_isdst = -1;
	secs = local ? mktime(&tm) : timegm(&tm);
	if (secs == (time_t)-1) {
		*why = "no such time";
		return -1;
	}
	sec = (int64_t)secs - zone;
	t->set = t->wall = true;
	t->ns = sec * 1000000000 + frac;
	return 0;
}

int report_parse_last(const char *s, struct report_time *t, const char **why)
{
	if (*s == '+' || strchr(s, '-') || strchr(s, ':') ||
	    report_parse_time(s, t, why) < 0 || t->wall) {
		*why = "--last takes a duration (10s, 500ms, 2.5s)";
		memset(t, 0, sizeof(*t));
		return -1;
	}
	t->last = true;
	t->text = s;
	return 0;
}

int report_parse_time(const char *s, struct report_time *t, const char **why)
{
	static const struct {
		const char *name;
		int exp;		/* ns = value * 10^exp */
	} units[] = {
		{ "s", 9 }, { "ms", 6 }, { "us", 3 }, { "\xc2\xb5s", 3 },
		{ "ns", 0 },
	};
	const char *p = s, *int_digits, *frac_digits = NULL;
	size_t nint = 0, nfrac = 0;
	int exp = -1;
	uint64_t v = 0;

	*why = "a time is a number with a unit (1.5s, 150ms, 20us, 123ns), "
	       "optionally after '+' (from the capture start), or a date and "
	       "time (2026-12-01T13:02:00Z)";
	memset(t, 0, sizeof(*t));
	t->text = s;
	if (strlen(s) >= 10 && isdigit((unsigned char)s[0]) && s[4] == '-') {
		int r = parse_iso(s, t, why);

		t->text = s;
		return r;
	}
	if (*p == '+') {
		t->relative = true;
		p++;
	}
	int_digits = p;
	while (isdigit((unsigned char)*p))
		p++, nint++;
	if (*p == '.') {
		frac_digits = ++p;
		while (isdigit((unsigned char)*p))
			p++, nfrac++;
	}
	if (!nint && !nfrac)
		return -1;
	if (!*p) {
		exp = !frac_digits && nint >= 10 ? 0 : 9;
	} else {
		for (size_t k = 0; k < sizeof(units) / sizeof(*units); k++)
			if (!strcmp(p, units[k].name))
				exp = units[k].exp;
		if (exp < 0)
			return -1;
	}
	/* integer digits, then as many fraction digits as the unit has
	 * decimal places of ns; the rest must be zeros */
	for (size_t i = 0; i < nint + (size_t)exp; i++) {
		unsigned d = 0;

		if (i < nint)
			d = (unsigned)(int_digits[i] - '0');
		else if (i - nint < nfrac)
			d = (unsigned)(frac_digits[i - nint] - '0');
		if (v > ((uint64_t)INT64_MAX - d) / 10) {
			*why = "the time is too large";
			return -1;
		}
		v = v * 10 + d;
	}
	for (size_t i = (size_t)exp; i < nfrac; i++)
		if (frac_digits[i] != '0') {
			*why = "a time is at most precise to the nanosecond";
			return -1;
		}
	t->set = true;
	t->ns = (int64_t)v;
	return 0;
}

int report_check(const struct report_args *a)
{
	const char *name = report_name(a->kind);

	if (a->clickhouse)	/* chq_report_sql says what the fleet has */
		return 0;
	if (a->by_set && a->by == REPORT_BY_HOST) {
		log_error("--by host is the fleet's: commq --clickhouse URL top|latency --by host");
		return -1;
	}

	if (a->by_set && a->kind != REPORT_TOP && a->kind != REPORT_UTIL &&
	    a->kind != REPORT_LATENCY) {
		log_error("--by is for 'commq top', 'latency' and 'util', not '%s'",
			  name);
		return -1;
	}
	if (a->kind == REPORT_TOP && a->by == REPORT_BY_PID) {
		log_error("'commq top' goes --by comm, process, thread, cpu or "
			  "cgroup (a pid's lifetime: --by thread)");
		return -1;
	}
	if (a->kind == REPORT_LATENCY && a->by_set && a->by != REPORT_BY_PID &&
	    a->by != REPORT_BY_COMM) {
		log_error("'commq latency' goes --by pid or --by comm");
		return -1;
	}
	if (a->kind == REPORT_LATENCY && a->by_set && a->comm) {
		log_error("'commq latency --by' takes no --comm (it has a row per "
			  "comm or pid)");
		return -1;
	}
	if (a->preempt && !(a->kind == REPORT_LATENCY && a->by_set)) {
		log_error("--preempt is for 'commq latency --by pid|comm'");
		return -1;
	}
	if (a->depth && a->kind != REPORT_WAKERS) {
		log_error("--depth is for 'commq wakers', not '%s'", name);
		return -1;
	}
	if (a->kind == REPORT_UTIL && a->by_set && a->by != REPORT_BY_CPU &&
	    a->by != REPORT_BY_COMM && a->by != REPORT_BY_CGROUP) {
		log_error("'commq util' goes --by cpu, comm or cgroup");
		return -1;
	}
	if (a->interval && a->kind != REPORT_UTIL) {
		log_error("--interval is for 'commq util', not '%s'", name);
		return -1;
	}
	if ((a->from.set || a->to.set) && (a->kind == REPORT_HISTORY ||
					   a->kind == REPORT_LOST)) {
		log_error("--from, --to and --last are for top, latency, util, runq, "
			  "wakers, offcpu, timeline and export, not '%s'", name);
		return -1;
	}
	if (a->comm && a->kind != REPORT_LATENCY && a->kind != REPORT_OFFCPU) {
		log_error("--comm is for 'commq latency' and 'commq offcpu', not '%s'", name);
		return -1;
	}
	if ((a->has_only_pid || a->folded) && a->kind != REPORT_OFFCPU) {
		log_error("--pid and --folded are for 'commq offcpu', not '%s'", name);
		return -1;
	}
	if (a->kind == REPORT_OFFCPU && a->output) {
		const char *dot = strrchr(a->output, '.');

		if (!dot || strcmp(dot, ".svg")) {
			log_error("-o %s: 'commq offcpu' draws a flame graph into a .svg file",
				  a->output);
			return -1;
		}
		if (a->folded) {
			log_error("'commq offcpu' writes --folded text or -o FILE.svg, not both");
			return -1;
		}
	}
	if ((a->output && a->kind != REPORT_TIMELINE && a->kind != REPORT_OFFCPU) ||
	    (a->width && a->kind != REPORT_TIMELINE)) {
		log_error("-o and --width are for 'commq timeline' (and -o FILE.svg for "
			  "'commq offcpu'), not '%s'", name);
		return -1;
	}
	if (a->listen && a->kind != REPORT_UI) {
		log_error("--listen is for 'commq ui', not '%s'", name);
		return -1;
	}
	if (a->kind == REPORT_UI && ((a->from.set && !a->from.last) || a->to.set)) {
		log_error("'commq ui' follows the newest events: --last D, not --from/--to");
		return -1;
	}
	if (a->kind == REPORT_UI && a->print_sql) {
		log_error("'commq ui' has no SQL of its own to print: it runs timeline's "
			  "(commq --sql timeline --last D -o x.html)");
		return -1;
	}
	if (a->chrome_json && a->kind != REPORT_EXPORT) {
		log_error("--chrome-json is for 'commq export', not '%s'", name);
		return -1;
	}
	if (a->has_pid && a->kind != REPORT_HISTORY && a->kind != REPORT_WAKERS) {
		log_error("'commq %s' takes no argument", name);
		return -1;
	}
	if ((a->kind == REPORT_HISTORY || a->kind == REPORT_WAKERS) && !a->has_pid) {
		log_error("'commq %s' needs a PID", name);
		return -1;
	}
	if (a->kind == REPORT_TIMELINE && !a->output && !a->print_sql) {
		log_error("'commq timeline' needs -o FILE (.svg, .html, or - "
			  "for SVG on stdout)");
		return -1;
	}
	if (a->kind == REPORT_TIMELINE && a->output &&
	    !timeline_can_write(a->output)) {
		const char *dot = strrchr(a->output, '.');

		if (dot && strchr(dot, '/'))
			dot = NULL;
		log_error("-o %s: 'commq timeline' writes .svg or .html (or SVG "
			  "to stdout with -o -), not %s%s%s", a->output,
			  dot ? "'" : "", dot ? dot : "a file without an extension",
			  dot ? "'" : "");
		return -1;
	}
	if (a->kind == REPORT_EXPORT && !a->chrome_json && !a->print_sql) {
		log_error("'commq export' needs --chrome-json FILE (or - for "
			  "stdout)");
		return -1;
	}
	/* Only times of one kind compare here (a time of day is ns since
	 * 1970, a trace time ns since boot; --last counts back) */
	if (a->from.set && a->to.set && a->from.relative == a->to.relative &&
	    a->from.wall == a->to.wall && a->from.last == a->to.last &&
	    (a->from.last ? a->from.ns <= a->to.ns : a->from.ns >= a->to.ns)) {
		log_error("--from must be before --to");
		return -1;
	}
	return 0;
}

/* The window's slices per comm_history row of their pid at their start
 * (the pid's first row when the slice began before any; none for the
 * idle task): g(hid, pid, comm, t, n, last), last the latest slice's
 * start, read with max() so that comm is the name at the row's last
 * slice. */
/* The tgid of comm_history row h's lifetime: a row made before the
 * thread group was told (an exec, a late snapshot) has none itself. */
#define LIFE_TGID							\
	"coalesce(h.tgid, (SELECT max(x.tgid) FROM comm_history x\n"	\
	"                  WHERE x.pid = h.pid AND x.life = h.life))"

static void slice_rows_sql(struct sbuf *b)
{
	sbuf_printf(b, ",\n"
"s AS (SELECT s.pid, s.comm, s.ts, " CLIPPED " AS t,\n"
"             CASE WHEN s.pid <> 0 THEN coalesce(\n"
"               (SELECT h.id FROM comm_history h\n"
"                WHERE h.pid = s.pid AND h.start_ts <= s.ts\n"
"                ORDER BY h.start_ts DESC LIMIT 1),\n"
"               (SELECT h.id FROM comm_history h WHERE h.pid = s.pid\n"
"                ORDER BY h.start_ts LIMIT 1)) END AS hid\n"
"      FROM ws s WHERE " IN_WINDOW "),\n"
"g AS (SELECT hid, pid, comm, sum(t) AS t, count(*) AS n, max(ts) AS last\n"
"      FROM s GROUP BY hid, pid, comm)");
}

static void top_sql(struct sbuf *b, const struct report_args *a)
{
	report_window_cte(b, a);
	switch (a->by) {
	case REPORT_BY_COMM:
		/* Summed per name row first (an integer key: sorting the
		 * window's slices by name string took 40% of the report),
		 * then per name over the rows' names. */
		sbuf_printf(b, ",\n"
"s AS (SELECT s.hid, " CLIPPED " AS t\n"
"      FROM wt s WHERE " IN_WINDOW "),\n"
"g AS (SELECT hid, sum(t) AS t, count(*) AS n FROM s GROUP BY hid),\n"
"gn AS (SELECT coalesce(h.comm, '<...>') AS comm, h.pid, g.t, g.n\n"
"       FROM g JOIN comm_history h ON h.id = g.hid)\n"
"SELECT comm, count(DISTINCT pid) AS pids,\n"
"       round(sum(t) / 1e6, 3) AS time_ms,\n"
"       round(100.0 * sum(t) / sum(sum(t)) OVER (), 2) AS share_pct,\n"
"       sum(n) AS switches\n"
"FROM gn GROUP BY comm ORDER BY sum(t) DESC, comm;\n");
		break;
	case REPORT_BY_PROCESS:
		/* Each slice to the comm_history row of its pid at its start
		 * (the pid's first row when it began before any), the row to
		 * its process: the lifetime of its thread group's leader at
		 * the row's start (the leader's first lifetime when it was
		 * not seen before; a thread's exec goes on in the same
		 * process: the lifetime it begins under the leader's pid,
		 * exec_swap, is not a process's), named by the leader's last
		 * name there.
		 * A task whose tgid is unknown is a process of its own, and
		 * so is each CPU's idle task. */
		slice_rows_sql(b);
		sbuf_printf(b, ",\n"
"j AS (SELECT g.*, h.life, h.start_ts, " LIFE_TGID " AS tgid\n"
"      FROM g LEFT JOIN comm_history h ON h.id = g.hid),\n"
"k AS (SELECT j.*,\n"
"             CASE WHEN pid <> 0 AND tgid IS NOT NULL THEN coalesce(\n"
"               (SELECT l.life FROM comm_history l\n"
"                WHERE l.pid = j.tgid AND l.start_ts <= j.start_ts\n"
"                  AND l.id = l.life AND l.source <> 'exec_swap'\n"
"                ORDER BY l.start_ts DESC LIMIT 1),\n"
"               (SELECT l.life FROM comm_history l WHERE l.pid = j.tgid\n"
"                ORDER BY l.start_ts LIMIT 1)) END AS plife\n"
"      FROM j),\n"
"p AS (SELECT CASE WHEN pid = 0 THEN 'i' || comm\n"
"                  WHEN tgid IS NULL THEN 't' || coalesce(life, pid)\n"
"                  ELSE 'p' || tgid || ':' || coalesce(plife, '') END AS key,\n"
"             CASE WHEN pid = 0 THEN 0 ELSE tgid END AS tgid, plife,\n"
"             pid, comm, t, n, last,\n"
"             CASE WHEN (SELECT l.source FROM comm_history l WHERE l.id = k.life)\n"
"                       <> 'exec_swap' THEN k.life END AS task FROM k)\n"
"SELECT tgid, process, threads, time_ms, share_pct, switches FROM (\n"
"SELECT tgid,\n"
"       coalesce((SELECT l.comm FROM comm_history l\n"
"                 WHERE l.pid = p.tgid AND l.id >= p.plife\n"
"                   AND l.id < coalesce((SELECT min(n.id) FROM comm_history n\n"
"                                        WHERE n.pid = p.tgid AND n.id > p.plife\n"
"                                          AND n.id = n.life\n"
"                                          AND n.source <> 'exec_swap'),\n"
"                                       9223372036854775807)\n"
"                   AND l.comm IS NOT NULL\n"
"                 ORDER BY l.start_ts DESC LIMIT 1), comm) AS process,\n"
"       max(count(DISTINCT task), count(DISTINCT pid)) AS threads, sum(t) AS ns,\n"
"       round(sum(t) / 1e6, 3) AS time_ms,\n"
"       round(100.0 * sum(t) / sum(sum(t)) OVER (), 2) AS share_pct,\n"
"       sum(n) AS switches, max(last)\n"
"FROM p GROUP BY key)\n"
"ORDER BY ns DESC, process, tgid;\n");
		break;
	case REPORT_BY_THREAD:
	case REPORT_BY_PID:	/* refused by report_check */
	case REPORT_BY_HOST:	/* the fleet's (chq.c) */
		/* One row per thread lifetime (pid 0: per CPU), named by its
		 * name at its last slice in the window. */
		slice_rows_sql(b);
		sbuf_printf(b, "\n"
"SELECT pid, tgid, comm, time_ms, share_pct, switches FROM (\n"
"SELECT g.pid, CASE WHEN g.pid = 0 THEN 0 ELSE " LIFE_TGID " END AS tgid,\n"
"       g.comm, sum(g.t) AS ns, round(sum(g.t) / 1e6, 3) AS time_ms,\n"
"       round(100.0 * sum(g.t) / sum(sum(g.t)) OVER (), 2) AS share_pct,\n"
"       sum(g.n) AS switches, max(g.last)\n"
"FROM g LEFT JOIN comm_history h ON h.id = g.hid\n"
"GROUP BY CASE WHEN g.pid = 0 THEN 'i' || g.comm\n"
"              ELSE 't' || coalesce(h.life, g.pid) END)\n"
"ORDER BY ns DESC, comm, pid;\n");
		break;
	case REPORT_BY_CGROUP:
		/* Each slice's part inside the window, to the cgroup_history
		 * rows of its task it overlaps (a move inside splits it); the
		 * idle task apart, time of a task in no row '(unknown)': the
		 * part of a slice no row covers too (an import's rows begin
		 * at the task's first attach: the time before it was in no
		 * cgroup's and in no row of the answer). */
		sbuf_printf(b, ",\n"
"s AS (SELECT s.pid, s.cpu, max(s.ts, " W_LO ") AS a, min(s.ts + s.dur, " W_HI ") AS b\n"
"      FROM ws s WHERE " IN_WINDOW "),\n"
"jc AS MATERIALIZED (SELECT g.cgroup, g.path, s.pid, s.cpu, s.a, s.b,\n"
"             min(s.b, coalesce(g.end_ts, s.b)) - max(s.a, g.start_ts) AS t\n"
"      FROM s JOIN cgroup_history g ON s.pid > 0 AND g.pid = s.pid\n"
"        AND g.start_ts < s.b AND (g.end_ts IS NULL OR g.end_ts > s.a)),\n"
"jk AS (SELECT pid, cpu, a, b, sum(max(t, 0)) AS t FROM jc GROUP BY pid, cpu, a, b),\n"
"j AS (SELECT cgroup, path, pid, t FROM jc\n"
"      UNION ALL\n"
"      SELECT CASE WHEN s.pid = 0 THEN '(idle)' ELSE '(unknown)' END, '', s.pid,\n"
"             s.b - s.a - coalesce(k.t, 0)\n"
"      FROM s LEFT JOIN jk k ON k.pid = s.pid AND k.cpu = s.cpu AND k.a = s.a AND k.b = s.b)\n"
"SELECT cgroup, path, count(DISTINCT nullif(pid, 0)) AS tasks,\n"
"       round(sum(t) / 1e6, 3) AS time_ms,\n"
"       round(100.0 * sum(t) / sum(sum(t)) OVER (), 2) AS share_pct,\n"
"       count(*) AS slices\n"
"FROM j WHERE t > 0 GROUP BY cgroup, path ORDER BY sum(t) DESC, cgroup;\n");
		break;
	case REPORT_BY_CPU:
		/* busy + idle + unknown = the CPU's part of the window:
		 * time no event attributes is unknown, never idle. */
		report_cpu_use_cte(b);
		sbuf_printf(b, "\n"
"SELECT cpu,\n"
"       round(busy / 1e6, 3) AS busy_ms,\n"
"       round(idle / 1e6, 3) AS idle_ms,\n"
"       round(unknown / 1e6, 3) AS unknown_ms,\n"
"       round(100.0 * busy / nullif(span, 0), 2) AS busy_pct,\n"
"       round(100.0 * unknown / nullif(span, 0), 2) AS unknown_pct,\n"
"       slices AS switches, tasks\n"
"FROM cpu_use ORDER BY cpu;\n");
		break;
	}
}

/* Intervals of a window at most (a row each per CPU). */
#define UTIL_MAX_INTERVALS 1000000

static int64_t util_interval(const struct report_args *a)
{
	return a->interval > 0 ? a->interval : 1000000000;
}

/* util's window, cut into intervals: after the window's CTEs, u(lo, hi,
 * iv) and n(k), the intervals [lo + k iv, min(lo + (k + 1) iv, hi)).
 * The window is its part of the captures; while a capture still runs it
 * ends at the newest slice's end, and each CPU at its own (ue): time a
 * CPU has not reported yet is in no interval of it. */
static void util_intervals_sql(struct sbuf *b, const struct report_args *a)
{
	report_window_cte(b, a);
	report_capture_window_cte(b);
	sbuf_printf(b, ",\n"
"ue0 AS (SELECT cpu, max(ts + dur) AS e FROM wt GROUP BY cpu),\n"
"ue AS (SELECT c.cpu, coalesce((SELECT hi FROM cw), min((SELECT whi FROM cw),\n"
"              coalesce(ue0.e, (SELECT max(e) FROM ue0)))) AS hi\n"
"       FROM (SELECT cpu FROM wp WHERE last IS NOT NULL UNION SELECT cpu FROM ue0) c\n"
"       LEFT JOIN ue0 USING (cpu)),\n"
"u AS (SELECT lo, max(lo, coalesce((SELECT max(hi) FROM ue), lo)) AS hi,\n"
"             %" PRId64 " AS iv FROM cw),\n"
"n(k) AS (SELECT 0 WHERE (SELECT hi > lo FROM u)\n"
"         UNION ALL SELECT k + 1 FROM n\n"
"         WHERE (k + 1) * (SELECT iv FROM u) < (SELECT hi - lo FROM u)\n"
"           AND k + 1 < %d)", util_interval(a), UTIL_MAX_INTERVALS);
}

/* After g(k, KEYS..., t, pids): a row per interval and key, its time and
 * its share of one CPU over the interval's part of the captures (the
 * last interval may be shorter; the time between two captures is in
 * none, as for --by cpu). */
static void util_per_interval(struct sbuf *b, const char *keys, const char *order)
{
	sbuf_printf(b, ",\n"
"x0 AS (SELECT g.*, u.lo + g.k * u.iv AS t0,\n"
"              min(u.iv, u.hi - (u.lo + g.k * u.iv)) AS len FROM g, u),\n"
"x AS (SELECT x0.*, (SELECT coalesce(sum(max(0, min(x0.t0 + x0.len,\n"
"                                                   coalesce(c.hi, x0.t0 + x0.len))\n"
"                                            - max(x0.t0, c.lo))), 0)\n"
"                    FROM cseg c) AS span FROM x0)\n"
"SELECT t0 AS ts, ");
	report_wall_sql(b, "t0");
	sbuf_printf(b, " AS wall, %s, pids,\n"
"       round(t / 1e6, 3) AS time_ms,\n"
"       round(100.0 * t / nullif(span, 0), 2) AS cpu_pct\n"
"FROM x ORDER BY t0, t DESC, %s;\n", keys, order);
}

/* Busy, idle and unknown time per CPU and interval, or CPU time per comm
 * and interval, from the sched slices: each slice's part inside the
 * window is cut at the interval edges (its first and last interval, and
 * whole intervals between them for a long one). A CPU's span in an
 * interval is the interval's part of the captures (cseg): the time
 * between two captures (commd stopped) is in none, not unknown, and an
 * interval wholly inside it has no row. */
static void util_sql(struct sbuf *b, const struct report_args *a)
{
	util_intervals_sql(b, a);
	sbuf_printf(b, ",\n"
"c AS (SELECT s.cpu, s.pid, s.comm, max(s.ts, u.lo) AS a,\n"
"             min(s.ts + s.dur, u.hi) AS b\n"
"      FROM ws s, u WHERE s.ts < u.hi AND s.ts + s.dur > u.lo),\n"
"k AS (SELECT c.*, (a - u.lo) / u.iv AS k0, (b - 1 - u.lo) / u.iv AS k1,\n"
"             u.lo AS lo, u.iv AS iv FROM c, u WHERE b > a),\n"
"p0 AS (SELECT cpu, pid, comm, k0 AS k, a AS pa, min(b, lo + (k0 + 1) * iv) AS pb\n"
"       FROM k\n"
"       UNION ALL\n"
"       SELECT cpu, pid, comm, k1, lo + k1 * iv, b FROM k WHERE k1 > k0\n"
"       UNION ALL\n"
"       SELECT k.cpu, k.pid, k.comm, n.k, k.lo + n.k * k.iv, k.lo + (n.k + 1) * k.iv\n"
"       FROM k JOIN n ON n.k > k.k0 AND n.k < k.k1 WHERE k.k1 > k.k0 + 1),\n"
"p AS (SELECT p0.*, pb - pa AS t FROM p0)");
	if (a->by_set && a->by == REPORT_BY_CGROUP) {
		/* Each piece of a task's slice to the cgroup_history rows of
		 * the task it overlaps (a move inside splits it); idle left
		 * out, time in no row (the piece's part no row covers too)
		 * '(unknown)'. */
		sbuf_printf(b, ",\n"
"jc AS MATERIALIZED (SELECT p.k, g.cgroup, g.path, p.pid, p.cpu, p.pa, p.pb,\n"
"             min(p.pb, coalesce(g.end_ts, p.pb)) - max(p.pa, g.start_ts) AS t\n"
"      FROM p JOIN cgroup_history g ON g.pid = p.pid AND g.start_ts < p.pb\n"
"        AND (g.end_ts IS NULL OR g.end_ts > p.pa)\n"
"      WHERE p.pid <> 0),\n"
"jk AS (SELECT k, pid, cpu, pa, pb, sum(max(t, 0)) AS t FROM jc GROUP BY k, pid, cpu, pa, pb),\n"
"j AS (SELECT k, cgroup, path, pid, t FROM jc\n"
"      UNION ALL\n"
"      SELECT p.k, '(unknown)', '', p.pid, p.pb - p.pa - coalesce(x.t, 0)\n"
"      FROM p LEFT JOIN jk x ON x.k = p.k AND x.pid = p.pid AND x.cpu = p.cpu AND x.pa = p.pa\n"
"        AND x.pb = p.pb\n"
"      WHERE p.pid <> 0),\n"
"g AS (SELECT k, cgroup, path, sum(t) AS t, count(DISTINCT pid) AS pids\n"
"      FROM j WHERE t > 0 GROUP BY k, cgroup, path)");
		util_per_interval(b, "cgroup, path", "cgroup");
		return;
	}
	if (a->by_set && a->by == REPORT_BY_COMM) {
		/* Idle (pid 0) is left out: --by cpu has it. */
		sbuf_printf(b, ",\n"
"g AS (SELECT k, comm, sum(t) AS t, count(DISTINCT pid) AS pids\n"
"      FROM p WHERE pid <> 0 GROUP BY k, comm)");
		util_per_interval(b, "comm", "comm");
		return;
	}
	sbuf_printf(b, ",\n"
"g AS (SELECT cpu, k, sum(CASE WHEN pid <> 0 THEN t ELSE 0 END) AS busy,\n"
"             sum(CASE WHEN pid = 0 THEN t ELSE 0 END) AS idle\n"
"      FROM p GROUP BY cpu, k),\n"
"x AS (SELECT n.k, ue.cpu, u.lo + n.k * u.iv AS t0,\n"
"             (SELECT coalesce(sum(max(0, min(u.lo + (n.k + 1) * u.iv, ue.hi,\n"
"                                             coalesce(g.hi, ue.hi))\n"
"                                      - max(u.lo + n.k * u.iv, g.lo))), 0)\n"
"              FROM cseg g) AS span\n"
"      FROM n, ue, u),\n"
"y AS (SELECT x.t0, x.cpu, x.span, coalesce(g.busy, 0) AS busy,\n"
"             coalesce(g.idle, 0) AS idle\n"
"      FROM x LEFT JOIN g ON g.cpu = x.cpu AND g.k = x.k WHERE x.span > 0)\n"
"SELECT t0 AS ts, ");
	report_wall_sql(b, "t0");
	sbuf_printf(b, " AS wall, cpu,\n"
"       round(busy / 1e6, 3) AS busy_ms,\n"
"       round(idle / 1e6, 3) AS idle_ms,\n"
"       round(max(0, span - busy - idle) / 1e6, 3) AS unknown_ms,\n"
"       round(100.0 * busy / span, 2) AS busy_pct\n"
"FROM y ORDER BY t0, cpu;\n");
}

/* Per CPU, the run queue's length over the window (the runqueue view's
 * steps, each counted for its part inside the window and the captures:
 * a step across the time between two captures, or before the retention
 * cutoff, counts only where something was captured): time-weighted
 * mean, percentiles of the time (the least length the queue was at or
 * under for that share of the time), the maximum, and the waiting it
 * adds up to (the time integral of the length: the CPU's run delay). */
static void runq_sql(struct sbuf *b, const struct report_args *a)
{
	static const int pcts[] = { 50, 90, 99 };

	report_window_cte(b, a);
	report_capture_window_cte(b);
	sbuf_printf(b, ",\n"
"rq AS (SELECT r.cpu, r.nr,\n"
"              min(r.ts + r.dur, coalesce(g.hi, " W_HI ")) - max(r.ts, g.lo) AS t\n"
"       FROM runqueue r JOIN cseg g ON r.ts < coalesce(g.hi, " W_HI ")\n"
"         AND r.ts + r.dur > g.lo\n"
"       WHERE r.dur IS NOT NULL AND r.ts < " W_HI " AND r.ts + r.dur > " W_LO "),\n"
"h AS (SELECT cpu, nr, sum(t) AS t FROM rq GROUP BY cpu, nr),\n"
"c AS (SELECT cpu, nr, t, sum(t) OVER (PARTITION BY cpu ORDER BY nr) AS cum,\n"
"             sum(t) OVER (PARTITION BY cpu) AS span FROM h),\n"
"x AS (SELECT cpu, max(span) AS span, sum(nr * t) AS area, max(nr) AS mx");
	for (size_t i = 0; i < sizeof(pcts) / sizeof(*pcts); i++)
		sbuf_printf(b, ",\n"
"             min(CASE WHEN cum * 100 >= span * %d THEN nr END) AS p%d",
			    pcts[i], pcts[i]);
	sbuf_printf(b, "\n"
"      FROM c GROUP BY cpu)\n"
"SELECT cpu, round(1.0 * area / span, 3) AS mean, p50, p90, p99, mx AS max,\n"
"       round(area / 1e6, 3) AS wait_ms, round(span / 1e6, 3) AS span_ms\n"
"FROM x ORDER BY cpu;\n");
}

/* The end of the capture a wait beginning at p.ts is in (a capture still
 * running: none). */
#define CAP_END "(SELECT coalesce(min(c.end_ts), 9223372036854775807)\n" \
	"                FROM capture c WHERE c.end_ts >= p.ts)"

/* latency --by pid|comm: per task (or comm), as perf sched latency does
 * it: run time and slices in the window, and the waits that begin in it
 * (a wakeup's latency; with --preempt also the time from a slice left
 * runnable to the task's next one, found among the window's slices, or
 * for a wait that outlasts the window by a step forward through the time
 * key from its end, as far as the task's next slice):
 * count, average, maximum and when the longest began. A task's name is
 * its name at its last slice (or wakeup) in the window. */
static void latency_by_sql(struct sbuf *b, const struct report_args *a)
{
	bool by_pid = a->by == REPORT_BY_PID;

	/* a task (--by pid) is a pid's lifetime: a pid reused is another */
	const char *key = by_pid ? "coalesce(h.life, -x.pid)" : "x.comm";

	report_window_cte(b, a);
	sbuf_printf(b, ",\n"
"r AS (SELECT %s AS k, x.pid, x.comm, x.ts, x.t\n"
"      FROM (SELECT s.pid, s.comm, s.ts, s.hid, " CLIPPED " AS t\n"
"            FROM ws s WHERE " IN_WINDOW " AND s.pid > 0) x\n"
"      LEFT JOIN comm_history h ON h.id = x.hid)", key);
	/* A wait past hi ends at the task's next slice, a step forward
	 * through the time key from hi, no further than the end of the
	 * wait's capture; each looked up once (materialized). A plain R
	 * that a wakeup of the task follows was a sleep (preempt_wait,
	 * schema 028). */
	if (a->preempt)
		sbuf_printf(b, ",\n"
"pw AS MATERIALIZED (\n"
"  SELECT p.pid, p.comm, p.ts, p.end_state, p.hid, coalesce(p.nx,\n"
"         (SELECT min(x) FROM (\n"
"            SELECT * FROM (SELECT e.ts AS x FROM ev_sched_switch e\n"
"              WHERE e.ts >= " W_HI " AND e.ts <= " CAP_END " AND e.next_pid = p.pid\n"
"                AND e.slice_dur IS NOT NULL ORDER BY e.ts LIMIT 1)\n"
"            UNION ALL\n"
"            SELECT * FROM (SELECT v.ts FROM dv_sched v\n"
"              WHERE v.ts >= " W_HI " AND v.ts <= " CAP_END " AND v.hid IN (SELECT h.id\n"
"                FROM comm_history h WHERE h.pid = p.pid)\n"
"              ORDER BY v.ts LIMIT 1)))) - p.ts AS d\n"
"  FROM (SELECT pid, comm, ts + dur AS ts, end_state, lost, hid,\n"
"               lead(ts) OVER (PARTITION BY pid ORDER BY ts) AS nx\n"
"        FROM ws WHERE pid > 0) p\n"
"  WHERE p.end_state & ~(SELECT preempt FROM kernel_states) = 0 AND p.lost = 0\n"
"    AND p.ts >= " W_LO " AND p.ts < " W_HI ")");
	sbuf_printf(b, ",\n"
"d0 AS (SELECT pid, comm, ts, latency AS d, hid FROM wl");
	if (a->preempt)
		sbuf_printf(b, "\n"
"      UNION ALL\n"
"      SELECT q.pid, q.comm, q.ts, q.d, q.hid FROM pw q\n"
"      WHERE q.d IS NOT NULL\n"
"        AND NOT (q.end_state = 0 AND coalesce(coalesce((SELECT e.ts - e.wake_latency\n"
"                 FROM ev_sched_switch e WHERE e.ts = q.ts + q.d\n"
"                   AND e.next_pid = q.pid),\n"
"                 (SELECT max(v.ts - v.wake_latency) FROM dv_sched v\n"
"                  JOIN comm_history h ON h.id = v.hid\n"
"                  WHERE v.ts = q.ts + q.d AND h.pid = q.pid)) > q.ts, 0))\n"
"        AND NOT EXISTS (SELECT 1 FROM lost_events l WHERE l.ts > q.ts\n"
"                        AND l.ts < q.ts + q.d + (SELECT coalesce(max(ts - from_ts), 0)\n"
"                                                 + 1 FROM lost_events)\n"
"                        AND coalesce(l.from_ts, l.ts - 1) < q.ts + q.d)\n"
"        AND NOT EXISTS (SELECT 1 FROM capture c\n"
"                        WHERE c.start_ts > q.ts AND c.start_ts <= q.ts + q.d)\n"
"        AND NOT EXISTS (SELECT 1 FROM comm_history b WHERE b.pid = q.pid\n"
"                        AND b.source IN ('task_newtask', 'sched_process_fork')\n"
"                        AND b.start_ts > q.ts AND b.start_ts <= q.ts + q.d)");
	/* (pid and comm read with max(): the last slice's, the longest
	 * wait's) */
	sbuf_printf(b, "),\n"
"d AS (SELECT %s AS k, x.pid, x.comm, x.ts, x.d\n"
"      FROM d0 x LEFT JOIN comm_history h ON h.id = x.hid),\n"
"rr AS (SELECT k, pid, comm, max(ts) AS last, sum(t) AS run, count(*) AS sw\n"
"       FROM r GROUP BY k),\n"
"dd AS (SELECT k, pid, comm, max(d) AS mx, ts AS mx_ts, count(*) AS n,\n"
"              avg(d) AS mean FROM d GROUP BY k),\n"
"k AS (SELECT k, count(DISTINCT pid) AS pids\n"
"      FROM (SELECT k, pid FROM r UNION SELECT k, pid FROM d) GROUP BY k)\n",
		    key);
	if (by_pid)
		sbuf_printf(b,
"SELECT coalesce(rr.pid, dd.pid) AS pid, coalesce(rr.comm, dd.comm) AS comm,\n");
	else
		sbuf_printf(b,
"SELECT k.k AS comm, k.pids AS pids,\n");
	sbuf_printf(b,
"       round(coalesce(rr.run, 0) / 1e6, 3) AS run_ms,\n"
"       coalesce(rr.sw, 0) AS switches, coalesce(dd.n, 0) AS waits,\n"
"       round(dd.mean / 1e3, 3) AS avg_us, round(dd.mx / 1e3, 3) AS max_us,\n"
"       dd.mx_ts AS max_at\n"
"FROM k LEFT JOIN rr ON rr.k = k.k LEFT JOIN dd ON dd.k = k.k\n"
"ORDER BY dd.mx IS NULL, dd.mx DESC, rr.run DESC, k.k;\n");
}

/* wakers PID: each wakeup of PID in the window with its waker, then the
 * waker's own last wakeup before it (the waker's task's: not one of an
 * earlier task under its pid) and its waker, and so on, depth
 * levels deep, as far as the window's wakeups go. A waker of pid 0 (an
 * interrupt on an idle CPU) ends a chain. */
static void wakers_sql(struct sbuf *b, const struct report_args *a)
{
	report_window_cte(b, a);
	sbuf_printf(b, ",\n"
"wk AS MATERIALIZED (SELECT l.ts, l.pid, l.comm, l.latency, l.waker_pid,\n"
"                          l.waker_comm, h.life, k.life AS waker_life\n"
"                   FROM wl l LEFT JOIN comm_history h ON h.id = l.hid\n"
"                   LEFT JOIN comm_history k ON k.id = l.waker_hid),\n"
"c(root, depth, ts, pid, comm, latency, waker_pid, waker_comm, waker_life) AS (\n"
"  SELECT ts, 1, ts, pid, comm, latency, waker_pid, waker_comm, waker_life FROM wk\n"
"  WHERE pid = %" PRId64 "\n"
"  UNION ALL\n"
"  SELECT c.root, c.depth + 1, x.ts, x.pid, x.comm, x.latency, x.waker_pid,\n"
"         x.waker_comm, x.waker_life\n"
"  FROM c JOIN wk x ON x.pid = c.waker_pid AND x.life IS c.waker_life\n"
"   AND x.ts = (SELECT max(y.ts) FROM wk y\n"
"               WHERE y.pid = c.waker_pid AND y.life IS c.waker_life\n"
"                 AND y.ts < c.ts)\n"
"  WHERE c.depth < %d AND c.waker_pid > 0)\n"
"SELECT root AS wakeup_ts, depth, ts AS woken_ts,\n"
"       round((root - ts) / 1e3, 3) AS before_us, pid, comm,\n"
"       round(latency / 1e3, 3) AS latency_us, waker_pid, waker_comm\n"
"FROM c ORDER BY root, depth;\n", a->pid, a->depth ? a->depth : 3);
}

/* offcpu: the time tasks spent asleep (S) or blocked (D), from the
 * offcpu view's intervals that begin in the window, per kernel stack
 * (and state); --folded and -o FILE.svg per comm and stack, in µs. */
static void offcpu_sql(struct sbuf *b, const struct report_args *a)
{
	report_window_cte(b, a);
	sbuf_printf(b, ",\n"
"o AS (SELECT comm, state, frames, dur FROM offcpu\n"
"      WHERE ts >= " W_LO " AND ts < " W_HI);
	if (a->comm) {
		sbuf_printf(b, " AND comm = ");
		sbuf_sql_string(b, a->comm);
	}
	if (a->has_only_pid)
		sbuf_printf(b, " AND pid = %" PRId64, a->only_pid);
	sbuf_printf(b, ")\n");
	if (a->folded || a->output) {
		sbuf_printf(b,
"SELECT replace(replace(replace(comm, ';', ':'), char(10), ' '), char(13), ' ')\n"
"       || ';' || coalesce(frames, '[no stack]') AS stack,\n"
"       sum(dur) / 1000 AS us\n"
"FROM o GROUP BY comm, frames HAVING us > 0 ORDER BY stack;\n");
		return;
	}
	sbuf_printf(b,
"SELECT round(sum(dur) / 1e6, 3) AS blocked_ms, count(*) AS intervals, state,\n"
"       coalesce(frames, '(no stack: capture with commd --stacks)') AS stack\n"
"FROM o GROUP BY state, frames ORDER BY sum(dur) DESC, stack;\n");
}

/* offcpu --folded: "stack value" lines, as flame graph tools read them;
 * offcpu -o FILE.svg: the same drawn (flame.h). */
struct folded {
	struct report_sink_error err;
	struct flame *flame;		/* NULL: print the lines */
	FILE *out;
};

static int folded_begin(void *ctx, const struct output_column *c, int n)
{
	(void)c;
	if (n != 2)
		return report_fail(&((struct folded *)ctx)->err, EPROTO,
				   "offcpu: %d columns, not 2", n);
	return 0;
}

static int folded_row(void *ctx, const struct output_value *v, int n)
{
	struct folded *f = ctx;
	int64_t us = report_int(&v[1], 0);

	(void)n;
	if (v[0].type == OUTPUT_NULL || us <= 0)
		return 0;
	if (f->flame)
		return flame_add(f->flame, v[0].text, v[0].len, (uint64_t)us) ?
		       report_fail(&f->err, ENOMEM, "offcpu: %s", strerror(ENOMEM)) : 0;
	fwrite(v[0].text, 1, v[0].len, f->out);
	fprintf(f->out, " %" PRId64 "\n", us);
	return ferror(f->out) ? report_fail(&f->err, errno, "stdout: %s", strerror(errno)) : 0;
}

static int folded_end(void *ctx)
{
	(void)ctx;
	return 0;
}

static const struct output_sink folded_sink = {
	folded_begin, folded_row, folded_end,
};

static int offcpu_run(const struct report_args *a, report_run_fn *run, void *ctx,
		      const char *sql)
{
	struct folded f = { .out = stdout };
	char *tmp = NULL, title[256];
	FILE *svg = NULL;
	int ret = -1;

	if (!a->output)
		return report_query(run, ctx, sql, &folded_sink, &f, &f.err);
	if (!(f.flame = flame_new()) || !(svg = report_open_temp(a->output, &tmp))) {
		log_error("%s: %s", a->output, strerror(errno));
		goto out;
	}
	if (report_query(run, ctx, sql, &folded_sink, &f, &f.err) < 0)
		goto out;
	snprintf(title, sizeof(title), "Off-CPU time%s%s%s", a->comm ? " of " : "",
		 a->comm ? a->comm : "", a->has_only_pid ? " (one pid)" : "");
	if (flame_write_svg(f.flame, svg, title, "\xc2\xb5s", 1200) || fflush(svg)) {
		log_error("%s: %s", a->output, strerror(errno ? errno : EIO));
		goto out;
	}
	ret = 0;
out:
	if (svg)
		ret = report_close_temp(svg, tmp, a->output, ret);
	else
		free(tmp);
	flame_free(f.flame);
	return ret;
}

/* The wakeups the latency report looks at. */
static void latency_source(struct sbuf *b, const struct report_args *a)
{
	report_window_cte(b, a);
	if (a->comm) {
		sbuf_printf(b, ",\nl AS NOT MATERIALIZED (SELECT l.latency FROM wl l"
			       " WHERE l.comm = ");
		sbuf_sql_string(b, a->comm);
		sbuf_printf(b, ")");
		return;
	}
	/* Every wakeup of the window: its latency alone, no name to look
	 * up (what wl holds, without its joins). */
	sbuf_printf(b, ",\nl AS NOT MATERIALIZED (\n");
	for (size_t i = 0; i < REPORT_NWAKING; i++)
		sbuf_printf(b, "  SELECT latency FROM %s\n"
			       "  WHERE ts >= " W_LO " AND ts < " W_HI
			       " AND latency IS NOT NULL\n  UNION ALL\n",
			    report_waking_tables[i]);
	sbuf_printf(b, "  SELECT latency FROM dv_wakeup_latency\n"
		       "  WHERE ts >= " W_LO " AND ts < " W_HI ")");
}

/* Highest log2 slot of the histogram: 2^40 µs is 12 days. */
#define LATENCY_SLOTS 40

/* log2 buckets of µs as bcc's runqlat: slot 0 holds 0 and 1 µs, slot k
 * holds [2^k, 2^(k+1) - 1].  The slot is counted with comparisons
 * (SQLite's log2() is optional), from slot 0 up to the highest used one. */
/* The slot of latency among slots lo..hi: a binary search of nested
 * CASEs (six comparisons a row, not forty). */
static void slot_sql(struct sbuf *b, int lo, int hi)
{
	int mid = (lo + hi + 1) / 2;

	if (lo == hi) {
		sbuf_printf(b, "%d", lo);
		return;
	}
	sbuf_printf(b, "CASE WHEN latency >= %lld THEN ", (1LL << mid) * 1000);
	slot_sql(b, mid, hi);
	sbuf_printf(b, " ELSE ");
	slot_sql(b, lo, mid - 1);
	sbuf_printf(b, " END");
}

static void histogram_sql(struct sbuf *b, const struct report_args *a)
{
	latency_source(b, a);
	sbuf_printf(b, ",\nb AS (SELECT ");
	slot_sql(b, 0, LATENCY_SLOTS);
	sbuf_printf(b, " AS slot,\n"
"             count(*) AS n FROM l GROUP BY slot),\n"
"r(slot) AS (SELECT 0 WHERE EXISTS (SELECT 1 FROM b)\n"
"            UNION ALL SELECT slot + 1 FROM r\n"
"            WHERE slot < (SELECT max(slot) FROM b))\n"
"SELECT CASE WHEN r.slot = 0 THEN 0 ELSE 1 << r.slot END AS usecs_lo,\n"
"       (1 << (r.slot + 1)) - 1 AS usecs_hi,\n"
"       coalesce(b.n, 0) AS count\n"
"FROM r LEFT JOIN b USING (slot) ORDER BY r.slot;\n");
}

/* Nearest-rank percentiles: the value at rank ceil(p/100 * n), from one
 * ordering of the latencies. */
static void percentiles_sql(struct sbuf *b, const struct report_args *a)
{
	static const int pcts[] = { 50, 90, 99 };

	/* The latencies sorted once (o), each percentile a step into them. */
	latency_source(b, a);
	sbuf_printf(b, ",\n"
"o AS MATERIALIZED (SELECT latency FROM l ORDER BY latency),\n"
"c AS (SELECT count(*) AS n, min(latency) AS lo, avg(latency) AS mean,\n"
"             max(latency) AS hi FROM o)\n"
"SELECT n AS wakeups,\n"
"       round(lo / 1e3, 3) AS min_us,\n"
"       round(mean / 1e3, 3) AS avg_us,\n");
	for (size_t i = 0; i < sizeof(pcts) / sizeof(*pcts); i++)
		sbuf_printf(b,
"       round((SELECT latency FROM o LIMIT 1\n"
"              OFFSET ((SELECT n FROM c) * %d + 99) / 100 - 1) / 1e3, 3) AS p%d_us,\n",
			    pcts[i], pcts[i]);
	sbuf_printf(b, "       round(hi / 1e3, 3) AS max_us\nFROM c;\n");
}

/* Every name of pid, lifetime by lifetime (comm_history.life), with
 * the task that forked each lifetime where a fork showed it, and when
 * each began as the time of day where the capture knows it. */
static void history_sql(struct sbuf *b, const struct report_args *a)
{
	sbuf_printf(b,
"SELECT dense_rank() OVER (ORDER BY life) AS lifetime,\n"
"       pid, tgid, comm, start_ts, end_ts,\n"
"       round((end_ts - start_ts) / 1e6, 3) AS dur_ms, source, parent,\n"
"       ");
	report_wall_sql(b, "start_ts");
	sbuf_printf(b, " AS start_wall\n"
"FROM comm_history WHERE pid = %" PRId64 " ORDER BY start_ts, id;\n",
		    a->pid);
}

/* Per CPU: the loss records and the events they counted (a record with
 * no count is an unknown number), when, the sched slices a loss fell
 * into, the kernel's own counters of a live capture, and apart from the
 * ring buffer's losses the chain breaks (switches no event recorded,
 * inferred from the CPU's events) with the time they leave unknown; then
 * all CPUs. */
static void lost_sql(struct sbuf *b)
{
	sbuf_printf(b,
"WITH l AS (SELECT cpu, count(*) AS records, sum(count) AS events,\n"
"                  sum(count IS NULL) AS unknown, min(ts) AS first_ts,\n"
"                  max(ts) AS last_ts\n"
"           FROM lost_events GROUP BY cpu),\n"
"k AS (SELECT cpu,\n"
"             sum(CASE WHEN name = 'kernel_dropped_events' THEN value END)"
" AS dropped,\n"
"             sum(CASE WHEN name = 'kernel_overrun' THEN value END)"
" AS overrun\n"
"      FROM stats\n"
"      WHERE name IN ('kernel_dropped_events', 'kernel_overrun') AND cpu >= 0\n"
"      GROUP BY cpu),\n"
"x AS (SELECT cpu, count(*) AS n FROM sched WHERE lost GROUP BY cpu),\n"
/* Chain breaks: switches nobody recorded, which the CPU's events show
 * (an inferred edge), and the time they leave in no slice. Of slices
 * that start and end at once (zero-length ones at one ts), the one a
 * break ends goes last: the gap follows it, not the other. */
"g AS (SELECT cpu, end_err,\n"
"             lead(ts) OVER (PARTITION BY cpu ORDER BY ts, dur,\n"
"                            end_err IS NOT NULL) - (ts + dur) AS gap\n"
"      FROM sched),\n"
"b AS (SELECT cpu, count(*) AS breaks, sum(max(coalesce(gap, 0), 0)) AS gap\n"
"      FROM g WHERE end_err IS NOT NULL GROUP BY cpu),\n"
"c AS (SELECT cpu FROM l UNION SELECT cpu FROM k UNION SELECT cpu FROM x\n"
"      UNION SELECT cpu FROM b),\n"
"per AS (SELECT 0 AS o, c.cpu, coalesce(l.records, 0) AS records,\n"
"               coalesce(l.events, 0) AS events_lost,\n"
"               coalesce(l.unknown, 0) AS unknown_count,\n"
"               l.first_ts, l.last_ts, coalesce(x.n, 0) AS lost_slices,\n"
"               k.dropped AS kernel_dropped, k.overrun AS kernel_overrun,\n"
"               coalesce(b.breaks, 0) AS chain_breaks,\n"
"               coalesce(b.gap, 0) AS break_unknown_ns\n"
"        FROM c LEFT JOIN l ON l.cpu IS c.cpu LEFT JOIN k ON k.cpu IS c.cpu\n"
"        LEFT JOIN x ON x.cpu IS c.cpu LEFT JOIN b ON b.cpu IS c.cpu)\n"
"SELECT cpu, records, events_lost, unknown_count, first_ts, last_ts,\n"
"       lost_slices, kernel_dropped, kernel_overrun, chain_breaks,\n"
"       round(break_unknown_ns / 1e6, 3) AS break_unknown_ms\n"
"FROM (SELECT * FROM per\n"
"      UNION ALL\n"
"      SELECT 1, 'all', coalesce(sum(records), 0), coalesce(sum(events_lost), 0),\n"
"             coalesce(sum(unknown_count), 0), min(first_ts), max(last_ts),\n"
"             coalesce(sum(lost_slices), 0), sum(kernel_dropped),\n"
"             sum(kernel_overrun), coalesce(sum(chain_breaks), 0),\n"
"             coalesce(sum(break_unknown_ns), 0)\n"
"      FROM per)\n"
"ORDER BY o, cpu;\n");
}

static int run_tabular(report_run_fn *run, void *ctx, const char *sql,
		       struct output *out)
{
	struct query_error err = { .offset = -1 };

	if (run(ctx, sql, out, &err) < 0) {
		fflush(stdout);
		log_error("%s", err.msg);
		return -1;
	}
	return 0;
}

/* history: the formatter's rows, counted on the way. */
struct counting {
	struct output *out;
	uint64_t rows;
};

static int count_begin(void *ctx, const struct output_column *cols, int n)
{
	return output_begin(((struct counting *)ctx)->out, cols, n);
}

static int count_row(void *ctx, const struct output_value *v, int n)
{
	struct counting *c = ctx;

	(void)n;
	c->rows++;
	return output_row(c->out, v);
}

static int count_end(void *ctx)
{
	return output_end(((struct counting *)ctx)->out);
}

static const struct output_sink counting_sink = {
	count_begin, count_row, count_end,
};

/* latency in column mode: the histogram's rows, kept to be drawn when
 * the next result (the percentiles) begins, which goes to the formatter. */
struct histogram {
	struct report_sink_error err;
	struct output *out;		/* the formatter */
	const char *comm;		/* --comm, for the chart's title */
	int result;			/* 0: the histogram, 1: the rest */
	int n;
	int64_t lo[LATENCY_SLOTS + 2], hi[LATENCY_SLOTS + 2];
	int64_t count[LATENCY_SLOTS + 2];
};

static void print_histogram(const struct histogram *h, const char *comm);

static int hist_begin(void *ctx, const struct output_column *cols, int n)
{
	struct histogram *h = ctx;

	if (h->result++ > 0) {
		if (h->n)
			print_histogram(h, h->comm);
		return output_begin(h->out, cols, n);
	}
	if (n != 3) {
		snprintf(h->err.msg, sizeof(h->err.msg),
			 "latency: the histogram came with %d columns, not 3", n);
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static int hist_row(void *ctx, const struct output_value *v, int n)
{
	struct histogram *h = ctx;

	(void)n;
	if (h->result > 1)
		return output_row(h->out, v);
	if (h->n >= LATENCY_SLOTS + 2) {
		snprintf(h->err.msg, sizeof(h->err.msg),
			 "latency: more histogram rows than slots");
		errno = EPROTO;
		return -1;
	}
	h->lo[h->n] = report_int(&v[0], 0);
	h->hi[h->n] = report_int(&v[1], 0);
	h->count[h->n] = report_int(&v[2], 0);
	h->n++;
	return 0;
}

static int hist_end(void *ctx)
{
	struct histogram *h = ctx;

	return h->result > 1 ? output_end(h->out) : 0;
}

static const struct output_sink histogram_sink = {
	hist_begin, hist_row, hist_end,
};

/* As bcc's print_log2_hist: a 40-character bar scaled to the fullest
 * bucket. */
static void print_histogram(const struct histogram *h, const char *comm)
{
	enum { BAR = 40 };
	int64_t max = 0;

	for (int i = 0; i < h->n; i++)
		if (h->count[i] > max)
			max = h->count[i];
	if (comm)
		printf("comm = %s\n", comm);
	printf("%*s%-*s : count    distribution\n", 5, "", 19, "usecs");
	for (int i = 0; i < h->n; i++) {
		int stars = max ? (int)(h->count[i] * BAR / max) : 0;

		printf("%10" PRId64 " -> %-10" PRId64 " : %-8" PRId64 " |",
		       h->lo[i], h->hi[i], h->count[i]);
		for (int k = 0; k < BAR; k++)
			putchar(k < stars ? '*' : ' ');
		printf("|\n");
	}
	printf("\n");
}

/* The percentiles, run beside the histogram into a keeper. */
struct beside_batch {
	const struct report_beside *ops;
	void *conn;
	const char *sql;
	struct kept *kept;
	struct output *out;		/* into kept */
	struct query_error err;
	int ret;
	pthread_t thread;
};

static void *beside_main(void *arg)
{
	struct beside_batch *b = arg;

	b->ret = b->ops->run(b->conn, b->sql, b->out, &b->err);
	return NULL;
}

/* Starts sql on a connection from ops; returns 0, or -1 when it could
 * not start (nothing is left open then). */
static int beside_start(struct beside_batch *b, const struct report_beside *ops,
			void *ctx, const char *sql)
{
	*b = (struct beside_batch){ .ops = ops, .sql = sql, .err = { .offset = -1 } };
	if (!ops || !(b->kept = kept_new()) || !(b->out = kept_output(b->kept)) ||
	    !(b->conn = ops->open(ctx))) {
		output_free(b->out);
		kept_free(b->kept);
		return -1;
	}
	if (pthread_create(&b->thread, NULL, beside_main, b) == 0)
		return 0;
	ops->close(b->conn, ctx);
	output_free(b->out);
	kept_free(b->kept);
	return -1;
}

/* Waits for the batch; returns 0 with its results in b->kept, or -1
 * (b->kept freed, b->err says why) when it failed there. */
static int beside_join(struct beside_batch *b, void *ctx)
{
	pthread_join(b->thread, NULL);
	b->ops->close(b->conn, ctx);
	output_free(b->out);
	if (b->ret == 0)
		return 0;
	kept_free(b->kept);
	b->kept = NULL;
	return -1;
}

/* Two statements: the histogram, then the percentiles.  With beside, the
 * percentiles (the longer of the two: a sort of every latency) run on a
 * second connection while the histogram runs on the first, and are
 * printed after it as they would have been; where that connection cannot
 * be had (or the server is too busy to take them there), they run after
 * the histogram on the first.  An error of their own (a deadline, the
 * memory cap) is the report's, not a reason to run them twice. */
static int latency_run(const struct report_args *a, report_run_fn *run,
		       void *ctx, const struct report_beside *beside,
		       struct output *out, const struct output_spec *spec,
		       const char *hist, const char *pct)
{
	struct histogram h = { .out = out, .comm = a->comm };
	struct query_error err = { .offset = -1 };
	struct beside_batch b;
	bool started = beside_start(&b, beside, ctx, pct) == 0;
	struct output *o = out;
	int ret = -1;

	if (spec->mode == OUTPUT_COLUMN && !(o = output_new_sink(&histogram_sink, &h))) {
		log_error("%s", strerror(errno));
		if (started)
			kept_free(beside_join(&b, ctx) == 0 ? b.kept : NULL);
		return -1;
	}
	ret = run(ctx, hist, o, &err);
	if (started && beside_join(&b, ctx) == 0) {
		if (ret == 0 && kept_replay(b.kept, o) < 0) {
			snprintf(err.msg, sizeof(err.msg), "printing results: %s",
				 strerror(errno));
			ret = -1;
		}
		kept_free(b.kept);
	} else if (started && !b.err.busy) {
		if (ret == 0) {
			err = b.err;
			ret = -1;
		}
	} else if (ret == 0) {
		ret = run(ctx, pct, o, &err);
	}
	if (o != out)
		output_free(o);
	if (ret < 0) {
		fflush(stdout);
		log_error("%s", h.err.msg[0] ? h.err.msg : err.msg);
	}
	return ret;
}

/* A check's one row of integers (NULL as -1). */
struct int_row {
	int64_t v[4];
	int n;
};

static int int_row_begin(void *ctx, const struct output_column *c, int n)
{
	(void)ctx;
	(void)c;
	(void)n;
	return 0;
}

static int int_row_row(void *ctx, const struct output_value *v, int n)
{
	struct int_row *r = ctx;

	for (int i = 0; i < n && i < 4; i++)
		r->v[i] = report_int(&v[i], -1);
	r->n = n;
	return 0;
}

static int int_row_end(void *ctx)
{
	(void)ctx;
	return 0;
}

static const struct output_sink int_row_sink = {
	int_row_begin, int_row_row, int_row_end,
};

/* A check's statement (sql, freed here) run into r: 0, or -1 (said). */
static int int_row_query(struct sbuf *sql, report_run_fn *run, void *ctx,
			 struct int_row *r)
{
	struct report_sink_error serr;
	int ret = 0;

	if (sql->oom) {
		log_error("%s", strerror(ENOMEM));
		ret = -1;
	} else if (report_query(run, ctx, sql->s, &int_row_sink, r, &serr) < 0) {
		ret = -1;
	}
	free(sql->s);
	return ret;
}

/* util: a window of more intervals than UTIL_MAX_INTERVALS is an error,
 * not a cut answer (the interval count costs no scan of the slices: the
 * window ends at the capture's end or the newest event). */
static int check_intervals(const struct report_args *a, report_run_fn *run,
			   void *ctx)
{
	struct int_row r = { .n = 0 };
	struct sbuf sql = { 0 };

	report_window_cte(&sql, a);
	report_capture_window_cte(&sql);
	sbuf_printf(&sql, "\nSELECT (coalesce(hi, min(whi, %s)) - lo + %" PRId64
		    " - 1) / %" PRId64 " FROM cw;", report_newest_sql,
		    util_interval(a), util_interval(a));
	if (int_row_query(&sql, run, ctx, &r))
		return -1;
	if (r.n == 1 && r.v[0] > UTIL_MAX_INTERVALS) {
		log_error("util: the window holds %" PRId64 " intervals of %" PRId64
			  " ns, more than %d: give a longer --interval or a "
			  "narrower window", r.v[0], util_interval(a),
			  UTIL_MAX_INTERVALS);
		return -1;
	}
	return 0;
}

/* A time given as a timestamp or a time of day must fall inside a
 * capture: outside every one the report would silently answer for
 * nothing (or all). A time of day needs the clock readings to map it. */
static int check_time(const char *opt, const struct report_time *t,
		      report_run_fn *run, void *ctx)
{
	struct int_row r = { .n = 0 };
	struct sbuf sql = { 0 };
	int ret = 0;

	if (!t->set || t->relative || t->last)
		return 0;
	sbuf_printf(&sql, "WITH x(t) AS (SELECT ");
	report_time_sql(&sql, t);
	sbuf_printf(&sql, ")\nSELECT x.t IS NULL, EXISTS (SELECT 1 FROM capture c\n"
		    "  WHERE c.start_ts <= x.t AND (c.end_ts IS NULL OR c.end_ts >= x.t)),\n"
		    "  (SELECT count(*) FROM capture), x.t FROM x;");
	if (int_row_query(&sql, run, ctx, &r))
		ret = -1;
	else if (r.n == 4 && r.v[0] == 1)
		ret = -1, log_error("%s %s: the database has no clock readings to map a "
				    "time of day to the trace clock (a capture imported from "
				    "a file recorded without trace-cmd record --date, or "
				    "written before commd kept them)", opt, t->text);
	else if (r.n == 4 && r.v[1] == 0 && r.v[2] > 0)
		ret = -1, log_error("%s %s: outside every capture (ts %" PRId64 "; "
				    "'commq \"select id, start_ts, end_ts from capture\"' "
				    "lists them, and a leading '+' counts from the start)",
				    opt, t->text, r.v[3]);
	return ret;
}

/* --from and --to of different kinds (a time of day, a trace time, one
 * from the start, --last), once both are trace times: the window must
 * not end before it begins (its slices would count negative time). */
static int check_order(const struct report_args *a, report_run_fn *run, void *ctx)
{
	struct int_row r = { .n = 0 };
	struct sbuf sql = { 0 };

	if (!a->from.set || !a->to.set)
		return 0;
	sbuf_printf(&sql, "SELECT ");
	report_time_sql(&sql, &a->from);
	sbuf_printf(&sql, ", ");
	report_time_sql(&sql, &a->to);
	sbuf_printf(&sql, ";");
	if (int_row_query(&sql, run, ctx, &r))
		return -1;
	if (r.n == 2 && r.v[0] >= 0 && r.v[1] >= 0 && r.v[0] >= r.v[1]) {
		log_error("--from must be before --to (--from %s is ts %" PRId64
			  ", --to %s is ts %" PRId64 ")", a->from.text, r.v[0],
			  a->to.text, r.v[1]);
		return -1;
	}
	return 0;
}

int report_run(const struct report_args *a, report_run_fn *run, void *ctx,
	       struct output *out, const struct output_spec *spec)
{
	return report_run_beside(a, run, ctx, NULL, out, spec);
}

int report_run_beside(const struct report_args *a, report_run_fn *run,
		      void *ctx, const struct report_beside *beside,
		      struct output *out, const struct output_spec *spec)
{
	struct sbuf sql = { 0 };
	size_t hist_len = 0;	/* latency: where the percentiles begin */
	int ret = -1;

	if (!a->print_sql && (check_time("--from", &a->from, run, ctx) ||
			      check_time("--to", &a->to, run, ctx) ||
			      check_order(a, run, ctx)))
		return -1;
	if (a->kind == REPORT_TIMELINE)
		return timeline_run(a, run, ctx);
	if (a->kind == REPORT_UI)
		return ui_run(a, run, ctx);
	if (a->kind == REPORT_EXPORT)
		return export_run(a, run, ctx);
	switch (a->kind) {
	case REPORT_TOP:
		top_sql(&sql, a);
		break;
	case REPORT_LATENCY:
		if (a->by_set) {
			latency_by_sql(&sql, a);
			break;
		}
		histogram_sql(&sql, a);
		hist_len = sql.len;
		percentiles_sql(&sql, a);
		break;
	case REPORT_WAKERS:
		wakers_sql(&sql, a);
		break;
	case REPORT_OFFCPU:
		offcpu_sql(&sql, a);
		break;
	case REPORT_HISTORY:
		history_sql(&sql, a);
		break;
	case REPORT_LOST:
		lost_sql(&sql);
		break;
	case REPORT_UTIL:
		if (!a->print_sql && check_intervals(a, run, ctx))
			return -1;
		util_sql(&sql, a);
		break;
	case REPORT_RUNQ:
		runq_sql(&sql, a);
		break;
	default:
		log_error("no such report");
		return -1;
	}
	if (sql.oom) {
		log_error("%s", strerror(ENOMEM));
		goto out;
	}
	if (a->print_sql) {
		fputs(sql.s, stdout);
		ret = 0;
		goto out;
	}
	switch (a->kind) {
	case REPORT_LATENCY:
		if (a->by_set) {
			ret = run_tabular(run, ctx, sql.s, out);
		} else {
			/* The two statements apart: the histogram's, NUL-ended
			 * where the percentiles' begin. */
			char *pct = strdup(sql.s + hist_len);

			if (!pct) {
				log_error("%s", strerror(ENOMEM));
				break;
			}
			sql.s[hist_len] = '\0';
			ret = latency_run(a, run, ctx, beside, out, spec, sql.s, pct);
			free(pct);
		}
		break;
	case REPORT_OFFCPU:
		if (a->folded || a->output)
			ret = offcpu_run(a, run, ctx, sql.s);
		else
			ret = run_tabular(run, ctx, sql.s, out);
		break;
	case REPORT_HISTORY: {
		struct counting c = { .out = out };
		struct report_sink_error serr;

		ret = report_query(run, ctx, sql.s, &counting_sink, &c, &serr);
		if (ret == 0 && !c.rows) {
			fflush(stdout);
			log_error("pid %" PRId64 ": no comm_history rows",
				  a->pid);
			ret = 1;
		}
		break;
	}
	default:
		ret = run_tabular(run, ctx, sql.s, out);
		break;
	}
out:
	sbuf_free(&sql);
	return ret;
}
