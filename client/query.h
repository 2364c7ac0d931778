/* query.h — what commq's two ways of running SQL share: local.h runs it
 * on a database file, remote.h asks the daemon.  Both take a batch (one or
 * more statements), feed every result to an output.h formatter row by row
 * as it comes, and on failure leave one line saying why in a query_error
 * for the caller to print; neither logs.
 */
#ifndef COMMQ_QUERY_H
#define COMMQ_QUERY_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* What commq asks for each batch; the daemon gets both in its 'Q' frame. */
struct query_limits {
	uint32_t row_limit;	/* rows over the whole batch; 0: no limit */
	uint32_t timeout_ms;	/* deadline of the batch; 0: the default */
};

struct query_error {
	char msg[1024];		/* one line, without the program's name */
	int offset;		/* byte in the batch's SQL the error is at,
				 * -1 when unknown */
	bool cut;		/* not an error: the row limit left rows out
				 * of a batch that succeeded */
	bool busy;		/* the batch did not run: no connection
				 * could be made, or the server was too
				 * busy to take it (it may run elsewhere) */
};

static inline void query_error_set(struct query_error *e, int offset,
				   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void query_error_set(struct query_error *e, int offset,
				   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->offset = offset;
}

#endif
