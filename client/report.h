/* report.h — commq's reports: `commq top|latency|history|lost|timeline`,
 * and `commq export` (export.h).
 *
 * Every report is plain SQL over the views of commd-tables(5), sent
 * the same way as a query typed by hand (--db file or the daemon's
 * socket), so a report works wherever a query does, under the same
 * --limit and --timeout.  With --sql the SQL is printed instead of run; it
 * is complete (no placeholders) and runs as it is in the sqlite3 shell.
 *
 * Tabular results go through the normal formatter (column, csv, json,
 * ...).  Two things are drawn by the client from rows it streams: the
 * latency histogram's bar chart (text, in column mode) and the timeline
 * picture (timeline.h).
 */
#ifndef COMMQ_REPORT_H
#define COMMQ_REPORT_H

#include "reportsql.h"

/* The report named name, or REPORT_NONE. */
enum report_kind report_kind(const char *name);

/* The report's name, for messages. */
const char *report_name(enum report_kind kind);

/* How many results a report prints (in the tabular modes). */
int report_results(const struct report_args *a);

/* Parses a time for --from/--to (the rule is in commq --help).  Returns
 * 0, or -1 with *why saying what is wrong. */
int report_parse_time(const char *s, struct report_time *t, const char **why);

/* Parses --last DURATION (a time without '+', a timestamp or a date). */
int report_parse_last(const char *s, struct report_time *t, const char **why);

/* Parses --by's value.  Returns 0 or -1. */
int report_parse_by(const char *s, enum report_by *by);

/* Checks that the options given suit the report; returns 0, or -1 after
 * logging what does not. */
int report_check(const struct report_args *a);

/* Runs (or with print_sql prints) the report; tabular results go to out,
 * whose spec is given so the report knows the mode.  Logs its errors.
 * Returns 0, -1 on error, or 1 when it found nothing to report where
 * that is worth a non-zero status (history of an unknown pid). */
int report_run(const struct report_args *a, report_run_fn *run, void *ctx,
	       struct output *out, const struct output_spec *spec);

/* The same, with a report of several statements (latency) running them
 * side by side on connections from beside (NULL: one after the other on
 * run's).  The results print in the same order either way. */
int report_run_beside(const struct report_args *a, report_run_fn *run,
		      void *ctx, const struct report_beside *beside,
		      struct output *out, const struct output_spec *spec);

#endif
