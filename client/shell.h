/* shell.h — where commq's SQL comes from, and the dot commands.
 *
 * SQL comes from the command line (one batch, as given), from a file or
 * stdin read line by line, or from a person at a `commq> ` prompt with
 * line editing and history (libedit).  Lines gather into a batch until the
 * batch ends a statement (sqlite3_complete: a ';' outside quotes and
 * comments), as in the sqlite3 shell; a line starting with '.' where a
 * statement would start is a dot command (.tables, .schema, .mode,
 * .headers, .help, .quit), at the prompt and in files alike.
 *
 * Read from a file or stdin, the first error stops everything; at the
 * prompt it is printed and the next statement is read.
 */
#ifndef COMMQ_SHELL_H
#define COMMQ_SHELL_H

#include "output.h"

#include <stdbool.h>
#include <stdio.h>

/* Runs one batch (NUL-terminated SQL, one or more statements), printing
 * its results to out, and reports its own errors.  Returns 0 or -1. */
typedef int shell_run_fn(void *ctx, const char *sql, struct output *out);

struct shell {
	shell_run_fn *run;		/* runs SQL on the database */
	void *ctx;			/* run's first argument */
	struct output_spec spec;	/* the formatter's, .mode changes it */
	int header;			/* 1 on, 0 off, -1 the mode's default */
	struct output *out;		/* the formatter, rebuilt by .mode */
	bool quit;			/* .quit or .exit was read */
};

/* Sets up sh with its formatter.  header: 1, 0, or -1 for the mode's
 * default (on in column mode only, as sqlite3).  Returns 0, or -1 with
 * errno set. */
int shell_init(struct shell *sh, shell_run_fn *run, void *ctx,
	       const struct output_spec *spec, int header);

/* Frees what shell_init made.  The stream stays open. */
void shell_free(struct shell *sh);

/* Runs text given on the command line: a dot command, or one batch of
 * SQL sent as it is.  Returns 0 or -1. */
int shell_run_text(struct shell *sh, const char *text);

/* Runs every line of in (named name in messages); stops at the first
 * error or at .quit.  Returns 0 or -1. */
int shell_run_file(struct shell *sh, FILE *in, const char *name);

/* The prompt, reading the terminal on stdin until EOF or .quit; history
 * is kept in history_path (NULL: none).  Returns 0. */
int shell_interactive(struct shell *sh, const char *history_path);

#endif
