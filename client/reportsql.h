/* reportsql.h — what commq's reports share (report.c, timeline.c,
 * export.c, losswarn.c): the reports' arguments, SQL built as text (sbuf),
 * the pieces every report's SQL is made of (the window, times, times of
 * day, CPU use), and running SQL into a sink of callbacks.
 *
 * Every piece is plain SQL: a report's --sql runs as it is in the sqlite3
 * shell.
 */
#ifndef COMMQ_REPORTSQL_H
#define COMMQ_REPORTSQL_H

#include "output.h"
#include "query.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum report_kind {
	REPORT_NONE,
	REPORT_TOP,
	REPORT_LATENCY,
	REPORT_HISTORY,
	REPORT_LOST,
	REPORT_TIMELINE,
	REPORT_EXPORT,
	REPORT_UTIL,
	REPORT_RUNQ,
	REPORT_WAKERS,
	REPORT_OFFCPU,
	REPORT_UI,
};

enum report_by {
	REPORT_BY_COMM, REPORT_BY_PROCESS, REPORT_BY_THREAD, REPORT_BY_CPU,
	REPORT_BY_PID, REPORT_BY_CGROUP, REPORT_BY_HOST
};

/* A time given to --from/--to.  Absolute: ns of the trace clock.
 * Relative ('+'): ns after the capture start, which the SQL looks up.
 * Wall: an ISO 8601 time, ns since the epoch (UTC), which the SQL maps
 * to the trace clock with clock_map.  Last (--last D): ns back from the
 * newest event. */
struct report_time {
	bool set;
	bool relative;
	bool wall;
	bool last;
	int64_t ns;
	const char *text;	/* as given, for messages */
};

struct report_args {
	enum report_kind kind;
	enum report_by by;		/* top --by, util --by */
	bool by_set;			/* --by was given */
	int64_t interval;		/* util --interval, ns; 0: 1 s */
	bool preempt;			/* latency --preempt */
	bool folded;			/* offcpu --folded */
	int64_t only_pid;		/* offcpu --pid; -1: any */
	bool has_only_pid;
	int depth;			/* wakers --depth; 0: the default */
	struct report_time from, to;	/* top, latency, timeline, export */
	const char *comm;		/* latency --comm, offcpu --comm */
	int64_t pid;			/* history PID, wakers PID */
	bool has_pid;
	const char *output;		/* timeline -o FILE ('-': stdout), offcpu -o FILE.svg */
	int width;			/* timeline --width, 0: default */
	const char *chrome_json;	/* export --chrome-json FILE ('-': stdout) */
	const char *listen;		/* ui --listen HOST:PORT */
	const char *clickhouse;		/* --clickhouse URL: the fleet's reports */
	bool print_sql;			/* --sql */
};

/* Runs one batch of SQL, printing its results to out, without logging:
 * returns 0, or -1 with err set. */
typedef int report_run_fn(void *ctx, const char *sql, struct output *out,
			  struct query_error *err);

/* A second connection to what a report_run_fn reaches, for a batch run
 * beside the report's own (the daemon runs a user's queries on threads
 * of their own, and a file has room for readers side by side). */
struct report_beside {
	/* A connection to run on (run's ctx), or NULL when none could be
	 * made: the batch then runs on the report's own, after it. */
	void *(*open)(void *ctx);
	report_run_fn *run;
	/* Closes what open made; what it learned (a --limit cut, say)
	 * goes back to ctx. */
	void (*close)(void *beside, void *ctx);
};

/* A growing NUL-terminated string; on allocation failure it keeps what
 * it had and sets oom. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends s as an SQL string literal ('it''s'). */
void sbuf_sql_string(struct sbuf *b, const char *s);
void sbuf_free(struct sbuf *b);

/* SQL for the capture start: the base of '+' times; for the newest
 * event stored (the base of --last). */
extern const char report_base_sql[];
extern const char report_newest_sql[];
/* Every event table (each keyed by ts), for lists in SQL and in C:
 * REPORT_EVENT_TABLES(X) is X("ev_sched_switch") X(...) ... */
#define REPORT_EVENT_TABLES(X)						\
	X("ev_sched_switch") X("ev_sched_waking") X("ev_sched_wakeup")	\
	X("ev_sched_wakeup_new") X("ev_sched_migrate_task")		\
	X("ev_sched_process_fork") X("ev_sched_process_exec")		\
	X("ev_sched_process_exit") X("ev_sched_process_free")		\
	X("ev_task_rename") X("ev_task_newtask") X("ev_sched_stat_runtime") \
	X("ev_other")

/* SQL for the time of day of trace-clock time ts (an SQL expression) as
 * ISO 8601 in UTC, NULL where the captures hold no clock reading for it:
 * what wall(ts) gives, in plain SQL. */
void report_wall_sql(struct sbuf *b, const char *ts);
/* Appends the SQL value of t (a literal, base + offset, a time of day
 * mapped with clock_map, or back from the newest event). */
void report_time_sql(struct sbuf *b, const struct report_time *t);

/* The window's bounds, as values: a query over ws or wl that joined w
 * would have SQLite store the whole window's rows first. */
/* The first slice's start: a look at each part of the sched view by its
 * time key (min over the view itself reads it whole). */
#define SCHED_MIN_TS "(SELECT min(ts) FROM (SELECT min(ts) AS ts FROM ev_sched_switch " \
	"WHERE slice_dur IS NOT NULL UNION ALL SELECT min(ts) FROM dv_sched))"

/* The retention cutoff (0: none): rows before it are deleted, or while a
 * cut is under way (chunk by chunk, each table at its own pace) being
 * deleted, its target the cutoff then (daemon/store_retain.c). */
#define REPORT_CUTOFF_SQL "(SELECT coalesce(max(value), 0) FROM stats " \
	"WHERE name IN ('retention_cutoff_ts', 'retention_target_ts') AND capture IS NULL)"
#define W_LO "(SELECT lo FROM w)"
#define W_HI "(SELECT hi FROM w)"

/* The part of slice s inside window w (CASE, not min() and max(): those
 * are function calls, a tenth of a window's `top`); and the slices that
 * have one. */
#define CLIPPED "(s.dur - CASE WHEN s.ts < " W_LO " THEN " W_LO " - s.ts ELSE 0 END\n" \
	"  - CASE WHEN s.ts + s.dur > " W_HI " THEN s.ts + s.dur - " W_HI " ELSE 0 END)"
#define IN_WINDOW "s.ts < " W_HI " AND s.ts + s.dur > " W_LO

/* Runs sql through run into a sink built from cb and ctx; logs an error
 * (the sink's own message when it set one).  Returns 0 or -1. */
struct report_sink_error {
	char msg[256];			/* set by a callback that fails */
};
int report_query(report_run_fn *run, void *run_ctx, const char *sql,
		 const struct output_sink *cb, void *ctx,
		 struct report_sink_error *serr);

/* A sink callback's failure: the message into e, errno = err; returns -1. */
int report_fail(struct report_sink_error *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* WITH w(lo, hi, since), ws, wt, wl: the window of --from/--to (the whole
 * time line when they are not given), the slices that may overlap it
 * (starting in [since, hi)) and the wakeups that begin in it, both with
 * the columns of the views sched and wakeup_latency (wt: the slices' ts,
 * dur, cpu and hid alone), read through the tables' time key (reportsql.c
 * says how). */
void report_window_cte(struct sbuf *b, const struct report_args *a);
/* The same for a window [from, to] (NULL or unset: unbounded). */
void report_window_cte_range(struct sbuf *b, const struct report_time *from,
			     const struct report_time *to);
/* The tables whose rows carry the wakeups they began (schema 010). */
#define REPORT_NWAKING 3
extern const char *const report_waking_tables[REPORT_NWAKING];

/* Only the CTEs after w0(lo, hi), which the caller wrote. */
void report_window_rows_cte(struct sbuf *b);
/* After one of those: cw(lo, hi, whi), the window's part of the captures
 * (hi NULL while a capture is still running; whi the window's own end). */
void report_capture_window_cte(struct sbuf *b);
/* After one of those: the CTE cpu_use(cpu, busy, idle, unknown, span,
 * slices, tasks), ns per CPU of the window (report.c says how). */
void report_cpu_use_cte(struct sbuf *b);
/* After one of those: unknown_total(span, known), the CPUs' span in the
 * window and the time their slices cover there, in one pass over the
 * window (span - known is cpu_use's sum of unknown, and span its sum of
 * span, as long as no two slices of a CPU overlap). */
void report_unknown_total_cte(struct sbuf *b);

/* A new file beside path, to be renamed over it when complete; its mode
 * is what fopen would give.  Returns the stream, or NULL with errno. */
FILE *report_open_temp(const char *path, char **tmp);
/* Closes f and, when ret is 0 (the file is complete), renames tmp over
 * path; else (or when that fails) removes tmp. Logs what fails; frees
 * tmp. Returns ret, or -1 when closing or renaming failed. */
int report_close_temp(FILE *f, char *tmp, const char *path, int ret);

/* The value of an integer column, or def when NULL. */
int64_t report_int(const struct output_value *v, int64_t def);

#endif
