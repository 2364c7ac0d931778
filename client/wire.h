/* wire.h — commq's reader of the server's side of the wire protocol.
 *
 * Bytes from the socket are fed in as they arrive, in pieces of any size.
 * The reader cuts them into frames (protocol.h), checks each frame whole
 * before trusting it, and hands out what the frames carry through
 * callbacks: a result set's columns, its rows one at a time as output.h
 * values, then the query's end or its error.  It keeps nothing but the
 * frame being assembled (at most PROTO_MAX_FRAME bytes), so a result of
 * any size streams.
 *
 * The input is untrusted: for any bytes at all, the reader gives the
 * callbacks of the well-formed frames before the first bad one, then
 * WIRE_BAD and a reason, and never reads outside what it was given
 * (tests/client/wire-fuzz.c throws random and mutated streams at it).
 * Library code: it does not log.
 */
#ifndef COMMQ_WIRE_H
#define COMMQ_WIRE_H

#include "output.h"

#include <stddef.h>
#include <stdint.h>

enum wire_status {
	WIRE_MORE = 0,		/* the answer is not complete: feed more */
	WIRE_DONE = 1,		/* its 'E' or 'X' frame has arrived */
	WIRE_BAD = -1,		/* malformed, or no memory: wire_reason() */
	WIRE_STOPPED = -2,	/* a callback returned -1 */
};

/* Each returns 0 to go on, or -1 to stop the reader (WIRE_STOPPED).
 * What they are given is valid for the call only. */
struct wire_callbacks {
	/* A result set starts ('C'): ncols >= 1 columns, names and declared
	 * types NUL-terminated (decl_type NULL when the server sent ""). */
	int (*columns)(void *ctx, const struct output_column *cols,
		       int ncols);
	/* One row of the current result set: ncols values.  Texts are
	 * NUL-terminated; integers and reals come as the text SQLite gives
	 * them (sqlite3_column_text), so they print as in --db mode. */
	int (*row)(void *ctx, const struct output_value *values, int ncols);
	/* The query succeeded ('E'); rows counted over all its statements. */
	int (*end)(void *ctx, uint64_t rows, uint64_t elapsed_us,
		   uint8_t flags);
	/* The query failed ('X'): SQLite's result code or a PROTO_ERR_*,
	 * the byte offset in the SQL (-1: unknown), and the message, cut to
	 * one printable line. */
	int (*error)(void *ctx, int32_t code, int32_t offset, const char *msg);
};

/* Returns a reader calling cb with ctx, or NULL (ENOMEM).  cb is copied;
 * any callback may be NULL. */
struct wire *wire_new(const struct wire_callbacks *cb, void *ctx);

/* Frees the reader.  Accepts NULL. */
void wire_free(struct wire *w);

/* Readies the reader for the answer to the next query. */
void wire_start(struct wire *w);

/* Feeds len more bytes of the answer.  Returns WIRE_MORE until the
 * answer's last frame, then WIRE_DONE; a byte past that last frame is
 * WIRE_BAD (the client has not asked anything yet).  Once it has returned
 * WIRE_BAD or WIRE_STOPPED it keeps returning that until wire_start(). */
int wire_feed(struct wire *w, const void *data, size_t len);

/* Tells the reader the peer closed the connection: WIRE_DONE when the
 * answer was complete, else WIRE_BAD (or the earlier failure). */
int wire_close(struct wire *w);

/* Why the reader returned WIRE_BAD: one line, such as "malformed response
 * from server: unknown frame type 0x5a". */
const char *wire_reason(const struct wire *w);

#endif
