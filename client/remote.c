/* remote.c — see remote.h. */
#include "remote.h"

#include "protocol.h"
#include "wire.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Bytes asked of the socket per read. */
#define READ_SIZE (64u << 10)

struct remote {
	const char *path;		/* the socket, the caller's string */
	int fd;				/* the connection, -1: none */
	struct wire *wire;		/* reads the answers */
	struct proto_buf query;		/* the 'Q' frame being sent */
	uint8_t *in;			/* READ_SIZE bytes read at a time */

	/* The batch being answered, for the wire callbacks. */
	struct output *out;		/* its formatter */
	bool begun;			/* a result set is open in out */
	bool failed;			/* err holds the server's error */
	struct query_error *err;	/* where failures go */
};

/* Ends the open result set, if any: its rows may still be held back. */
static int end_result(struct remote *r)
{
	if (!r->begun)
		return 0;
	r->begun = false;
	return output_end(r->out);
}

static int print_failed(struct remote *r)
{
	query_error_set(r->err, -1, "printing results: %s", strerror(errno));
	return -1;
}

static int on_columns(void *ctx, const struct output_column *cols, int ncols)
{
	struct remote *r = ctx;

	if (end_result(r) < 0 || output_begin(r->out, cols, ncols) < 0)
		return print_failed(r);
	r->begun = true;
	return 0;
}

static int on_row(void *ctx, const struct output_value *values, int ncols)
{
	struct remote *r = ctx;

	(void)ncols;
	return output_row(r->out, values) < 0 ? print_failed(r) : 0;
}

static int on_end(void *ctx, uint64_t rows, uint64_t elapsed_us,
		  uint8_t flags)
{
	struct remote *r = ctx;

	(void)rows;
	(void)elapsed_us;
	r->err->cut = (flags & PROTO_END_LIMIT_CUT) != 0;
	return end_result(r) < 0 ? print_failed(r) : 0;
}

/* Words for an error the server sent without any. */
static const char *unsaid_error(int32_t code)
{
	static char buf[48];

	switch (code) {
	case PROTO_ERR_FRAME:
		return "the server could not read the request";
	case PROTO_ERR_DENIED:
		return "statement not allowed";
	case PROTO_ERR_TIMEOUT:
		return "query cut off at its deadline";
	case PROTO_ERR_BUSY:
		return "the server is busy";
	default:
		snprintf(buf, sizeof(buf), "error %d from the server", (int)code);
		return buf;
	}
}

static int on_error(void *ctx, int32_t code, int32_t offset, const char *msg)
{
	struct remote *r = ctx;

	/* Rows before a runtime error stay printed, as in --db mode; the
	 * server's word matters more than a failed flush of them. */
	end_result(r);
	if (*msg)
		query_error_set(r->err, offset, "%s", msg);
	else
		query_error_set(r->err, offset, "%s", unsaid_error(code));
	r->err->busy = code == PROTO_ERR_BUSY;
	r->failed = true;
	return 0;
}

static const struct wire_callbacks callbacks = {
	.columns = on_columns,
	.row = on_row,
	.end = on_end,
	.error = on_error,
};

struct remote *remote_new(const char *path, struct query_error *err)
{
	struct remote *r = calloc(1, sizeof(*r));

	if (!r)
		goto fail;
	r->path = path;
	r->fd = -1;
	r->wire = wire_new(&callbacks, r);
	r->in = malloc(READ_SIZE);
	if (!r->wire || !r->in)
		goto fail;
	return r;
fail:
	query_error_set(err, -1, "%s", strerror(ENOMEM));
	remote_free(r);
	return NULL;
}

static void disconnect(struct remote *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

void remote_free(struct remote *r)
{
	if (!r)
		return;
	disconnect(r);
	wire_free(r->wire);
	proto_buf_free(&r->query);
	free(r->in);
	free(r);
}

static int connect_socket(struct remote *r, struct query_error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(r->path);
	const char *hint = "";
	int fd, e;

	if (n >= sizeof(sa.sun_path)) {
		query_error_set(err, -1, "cannot connect to %s: the path is "
				"longer than a socket's %zu bytes", r->path,
				sizeof(sa.sun_path) - 1);
		return -1;
	}
	memcpy(sa.sun_path, r->path, n + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		r->fd = fd;
		return 0;
	}
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	if (e == ENOENT || e == ECONNREFUSED)
		hint = " (is commd running? --socket or COMMD_SOCKET name "
		       "another socket)";
	else if (e == EACCES || e == EPERM)
		hint = " (the socket is for root and group commd)";
	query_error_set(err, -1, "cannot connect to %s: %s%s", r->path,
			strerror(e), hint);
	err->busy = true;
	return -1;
}

static int send_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Looks at an idle connection before it is used again.  Closed by the
 * server (idle too long, restarted): it is dropped, to connect anew.
 * Holding bytes nobody asked for: the server is out of step, and trusting
 * what follows would print the wrong answer.  Returns 0 or -1. */
static int check_idle(struct remote *r, struct query_error *err)
{
	uint8_t c;
	ssize_t n = recv(r->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	if (n > 0) {
		query_error_set(err, -1, "malformed response from server: "
				"data after the end of an answer");
		disconnect(r);
		return -1;
	}
	if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK &&
		       errno != EINTR))
		disconnect(r);
	return 0;
}

/* What one exchange of a query and its answer came to. */
enum exchange {
	EXCHANGE_OK,		/* the answer came: 'E', or 'X' (r->failed) */
	EXCHANGE_FAILED,	/* err says why; the connection is unusable */
	EXCHANGE_GONE,		/* the connection died before any answer */
};

static enum exchange exchange(struct remote *r, struct query_error *err)
{
	size_t got = 0;

	wire_start(r->wire);
	if (send_all(r->fd, r->query.data, r->query.len) < 0) {
		/* Closed by the server: what it said before closing (a
		 * refusal's error frame) is still there to read. */
		if (errno != EPIPE && errno != ECONNRESET) {
			query_error_set(err, -1, "sending to %s: %s", r->path,
					strerror(errno));
			return EXCHANGE_FAILED;
		}
	}
	for (;;) {
		ssize_t n = read(r->fd, r->in, READ_SIZE);
		int status;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ECONNRESET && !got)
			return EXCHANGE_GONE;
		if (n < 0) {
			query_error_set(err, -1, "reading from %s: %s", r->path,
					strerror(errno));
			return EXCHANGE_FAILED;
		}
		if (n == 0 && !got)
			return EXCHANGE_GONE;
		got += (size_t)n;
		status = n ? wire_feed(r->wire, r->in, (size_t)n)
			   : wire_close(r->wire);
		switch (status) {
		case WIRE_MORE:
			continue;
		case WIRE_DONE:
			return EXCHANGE_OK;
		case WIRE_BAD:
			query_error_set(err, -1, "%s", wire_reason(r->wire));
			return EXCHANGE_FAILED;
		default:	/* WIRE_STOPPED: a callback set err */
			return EXCHANGE_FAILED;
		}
	}
}

int remote_connect(struct remote *r, struct query_error *err)
{
	return r->fd >= 0 ? 0 : connect_socket(r, err);
}

int remote_run(struct remote *r, const char *sql, size_t len,
	       const struct query_limits *lim, struct output *out,
	       struct query_error *err)
{
	enum exchange ex;
	bool fresh;

	proto_buf_reset(&r->query);
	if (proto_put_query(&r->query, lim->row_limit, lim->timeout_ms,
			    sql, len) < 0) {
		if (r->query.oom)
			query_error_set(err, -1, "%s", strerror(ENOMEM));
		else
			query_error_set(err, -1, "the SQL is too long: %zu bytes "
					"in one batch, the limit is about %u",
					len, PROTO_MAX_FRAME - 9);
		return -1;
	}
	r->out = out;
	r->err = err;
	err->busy = false;
	r->begun = false;
	r->failed = false;
	if (r->fd >= 0 && check_idle(r, err) < 0)
		return -1;
	for (;;) {
		fresh = r->fd < 0;
		if (fresh && connect_socket(r, err) < 0)
			return -1;
		ex = exchange(r, err);
		if (ex != EXCHANGE_GONE)
			break;
		disconnect(r);
		/* An idle connection the server has since closed: once more
		 * on a new one.  A new one closed at once is an answer. */
		if (fresh) {
			wire_close(r->wire);
			query_error_set(err, -1, "%s", wire_reason(r->wire));
			err->busy = true;
			ex = EXCHANGE_FAILED;
			break;
		}
	}
	if (ex == EXCHANGE_FAILED) {
		/* Print what came before the failure; the stream is out of
		 * step, so the connection goes. */
		end_result(r);
		disconnect(r);
		return -1;
	}
	return r->failed ? -1 : 0;
}
