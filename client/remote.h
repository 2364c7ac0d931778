/* remote.h — commq asking commd over its unix socket.
 *
 * One connection serves every batch of a commq run, one 'Q' frame per
 * batch; the answer streams through wire.h into the formatter.  The
 * connection is made at the first batch.  After a failure that leaves it
 * unusable (malformed answer, closed, output error) it is dropped, and the
 * next batch connects again; a connection that was idle and turns out
 * closed by the server is retried once (queries are read-only, so asking
 * twice is harmless).
 */
#ifndef COMMQ_REMOTE_H
#define COMMQ_REMOTE_H

#include "output.h"
#include "query.h"

#include <stddef.h>

/* Returns a client of the socket at path (not connected yet), or NULL
 * with err set.  path must outlive it. */
struct remote *remote_new(const char *path, struct query_error *err);

/* Sends sql (len bytes, one or more statements) and prints every result
 * set of the answer to out.  Returns 0, or -1 with err set: the server's
 * error (with its offset in sql), or why the socket failed. */
int remote_run(struct remote *r, const char *sql, size_t len,
	       const struct query_limits *lim, struct output *out,
	       struct query_error *err);

/* Connects now, when not connected yet (remote_run connects when it
 * needs to): the server takes connections in the order they were made.
 * Returns 0, or -1 with err set. */
int remote_connect(struct remote *r, struct query_error *err);

/* Closes the connection and frees r.  Accepts NULL. */
void remote_free(struct remote *r);

#endif
