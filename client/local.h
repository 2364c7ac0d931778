/* local.h — `commq --db FILE`: SQL run on a database file directly.
 *
 * The file is opened read-only and never created; statements that would
 * write (temp tables included) are refused before they run.  The
 * limits are applied here as the daemon applies them: at most row_limit
 * rows over the batch (the rest of the batch is skipped, without an
 * error), and the batch is cut off with an error at its deadline.
 */
#ifndef COMMQ_LOCAL_H
#define COMMQ_LOCAL_H

#include "output.h"
#include "query.h"

/* Opens path.  Returns NULL with err set when it cannot. */
struct local *local_open(const char *path, struct query_error *err);

/* Runs every statement of sql in order, printing each result to out;
 * stops at the first error.  Returns 0, or -1 with err set. */
int local_run(struct local *l, const char *sql,
	      const struct query_limits *lim, struct output *out,
	      struct query_error *err);

/* Closes the file.  Accepts NULL. */
void local_close(struct local *l);

#endif
