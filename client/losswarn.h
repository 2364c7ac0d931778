/* losswarn.h — commq's warning that an answer may be incomplete because
 * the ring buffer lost events in the time it covers.
 *
 * The rule, as commq(1) documents it:
 *
 *   - a batch is looked at only when its SQL names (as a word outside
 *     string literals and comments) an event or derived table: sched,
 *     events, wakeup_latency, or a name starting with sched_, task_, ev_
 *     or dv_.  Queries of lost_events, stats, capture, comm_history,
 *     process_comm or sqlite_schema alone never warn;
 *   - the time the answer covers is taken from the rows printed: the
 *     smallest and largest integer value of every column named ts or
 *     ending in _ts (plus dur, when the result has a dur column: a
 *     slice ends at ts + dur).  A result without such a column, or with
 *     no integer in it, cannot tell: then it is the whole capture;
 *   - a loss record (lost_events: cpu, ts, count) counts when its ts lies
 *     in that range, ends included (the same rule as the timeline's
 *     hatching; the kernel stamps a loss with the time it was noticed);
 *   - the reports use their own window: --from/--to, else the whole
 *     capture; history the lifetimes it printed; lost never warns.
 *
 * The warning costs one small query of lost_events, sent the same way as
 * the batch (the same file, or the same connection); when that query
 * fails (an old database, a server that refuses it), nothing is said.
 * A report's window is looked at on a second connection while the report
 * runs (commq.c: losswarn_window_find on a thread of its own), and the
 * lines printed after its rows.
 */
#ifndef COMMQ_LOSSWARN_H
#define COMMQ_LOSSWARN_H

#include "output.h"
#include "reportsql.h"

#include <stdbool.h>
#include <stdint.h>

/* Whether sql names an event or derived table (the rule above). */
bool losswarn_reads_events(const char *sql);

/* Watches the time columns of results on their way to a formatter. */
struct losswarn_tracker {
	struct output *sink;		/* hand this to the query */
	struct output *out;		/* the formatter rows go on to */
	bool *is_ts;			/* per column of the current result */
	int dur_col;			/* its dur column, -1: none */
	int end_col;			/* its end_ts column, -1: none */
	bool open_end;			/* a row's end_ts was NULL: open
					 * (a lifetime still going on) */
	int ncols;
	bool results;			/* a result began */
	bool unknown;			/* a result that cannot tell */
	bool result_seen;		/* the current result had a time */
	bool seen;			/* lo and hi hold something */
	int64_t lo, hi;			/* the range so far */
};

/* Starts tracking rows bound for out.  Returns 0, or -1 with errno set
 * (then there is nothing to free). */
int losswarn_track(struct losswarn_tracker *t, struct output *out);

/* Frees what losswarn_track made. */
void losswarn_track_free(struct losswarn_tracker *t);

/* After a successful batch run through t->sink: looks up the losses in
 * the range the rows covered (the whole capture when they cannot tell)
 * with run and ctx, and prints the warning on stderr if there are any,
 * after flushing stdout.  Returns 0, or -1 with errno set when that flush
 * failed (the rows were not all written); a failed look-up is 0. */
int losswarn_tracked(const struct losswarn_tracker *t, report_run_fn *run,
		     void *ctx);

/* The warnings found, each a line ("" when none). */
struct losswarn_found {
	char loss[800];			/* events lost in the range */
	char unknown[640];		/* over 1% of the CPUs' time unknown */
	char units[640];		/* a trace clock that counts no ns */
	char cut[640];			/* a window begun before the cutoff */
};

/* Flushes stdout and prints f's warnings on stderr, when it has any.
 * Returns 0, or -1 with errno set when that flush failed. */
int losswarn_print(const struct losswarn_found *f);

/* The same as losswarn_tracked for a window [from, to] of a report (an
 * unset end is the capture's), with the look for unknown time in it. */
int losswarn_window(const struct report_time *from,
		    const struct report_time *to, report_run_fn *run,
		    void *ctx);

/* losswarn_window's look-ups alone: what it would print, into f.  It
 * prints nothing and touches nothing but ctx (through run) and f, so it
 * may run on a thread of its own, on a connection of its own, while the
 * report runs. */
void losswarn_window_find(const struct report_time *from,
			  const struct report_time *to, report_run_fn *run,
			  void *ctx, struct losswarn_found *f);

#endif
