/* fake-server.c — a stand-in for commd's query server in the client tests.
 *
 *   fake-server SOCKET [DATABASE]
 *
 * Listens on SOCKET (the file appears only once it accepts connections)
 * and serves each connection in a process of its own, as the daemon
 * serves them on threads of its own (commq looks for a report's warnings
 * on a second connection while the report runs).  With FAKE_MAX_CONNS=N
 * in the environment, a connection made while N are open answers every
 * query with an error, as the daemon refuses one past a user's share.
 * With FAKE_FAIL_MATCH=TEXT, any SQL holding TEXT fails (an SQLite error).  A query whose SQL starts
 * with "fake:NAME" gets a canned answer, good or deliberately broken (see
 * canned[] below); any other SQL runs on DATABASE, answered the way the
 * protocol says: a 'C' per result set, rows in 'R' batches of about
 * PROTO_ROWS_BATCH_BYTES, then 'E', or 'X' with SQLite's message and the
 * error's offset.  Every query is logged on stderr as
 * "query limit=N timeout=N: SQL" for the tests to check what was sent.
 */
#include "protocol.h"
#include "sqlfuncs.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static sqlite3 *db;
static const char *db_path;
static const char *fail_match;	/* FAKE_FAIL_MATCH: SQL holding it fails */

static void open_db(const char *path)
{
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		fprintf(stderr, "fake-server: %s: %s\n", path,
			sqlite3_errmsg(db));
		exit(1);
	}
}

static void die(const char *what)
{
	fprintf(stderr, "fake-server: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int write_all(int fd, const void *data, size_t n)
{
	const uint8_t *p = data;

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

static int flush(int fd, struct proto_buf *b)
{
	int ret = write_all(fd, b->data, b->len);

	proto_buf_reset(b);
	return ret;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* ---- building frames ---- */

static void put_columns(struct proto_buf *b, int n, const char *const *names,
			const char *const *types)
{
	size_t f = proto_frame_begin(b, PROTO_COLUMNS);

	proto_put_u16(b, (uint16_t)n);
	for (int i = 0; i < n; i++) {
		proto_put_str16(b, names[i], strlen(names[i]));
		proto_put_str16(b, types[i], strlen(types[i]));
	}
	proto_frame_end(b, f);
}

static void put_int(struct proto_buf *b, int64_t v)
{
	proto_put_u8(b, PROTO_INT);
	proto_put_u64(b, (uint64_t)v);
}

static void put_real(struct proto_buf *b, double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	proto_put_u8(b, PROTO_REAL);
	proto_put_u64(b, bits);
}

static void put_text(struct proto_buf *b, int tag, const void *s, size_t n)
{
	proto_put_u8(b, (uint8_t)tag);
	proto_put_str32(b, s, n);
}

static void put_raw_header(struct proto_buf *b, uint32_t len, uint8_t type)
{
	proto_put_u32(b, len);
	proto_put_u8(b, type);
}

/* ---- canned answers ---- */

static const char *const echo_names[] = { "row_limit", "timeout_ms", "sql" };
static const char *const echo_types[] = { "INTEGER", "INTEGER", "TEXT" };

static int fake_echo(int fd, struct proto_buf *b, uint32_t limit,
		     uint32_t timeout, const char *sql, size_t len)
{
	size_t f;

	put_columns(b, 3, echo_names, echo_types);
	f = proto_frame_begin(b, PROTO_ROWS);
	proto_put_u16(b, 1);
	put_int(b, limit);
	put_int(b, timeout);
	put_text(b, PROTO_TEXT, sql, len);
	proto_frame_end(b, f);
	proto_put_end(b, 1, 7, 0);
	return flush(fd, b);
}

static const char *const types_names[] = { "i", "r", "t", "b", "n" };
static const char *const types_types[] = { "INTEGER", "REAL", "TEXT", "BLOB", "" };

/* Every value type, over three 'R' batches, then a second result set. */
static void types_answer(struct proto_buf *b)
{
	static const char *const second[] = { "second" };
	static const char *const none[] = { "" };
	size_t f;

	put_columns(b, 5, types_names, types_types);

	f = proto_frame_begin(b, PROTO_ROWS);
	proto_put_u16(b, 2);
	put_int(b, 42);
	put_real(b, 0.5);
	put_text(b, PROTO_TEXT, "h\xc3\xa9llo", 6);
	put_text(b, PROTO_BLOB, "ABC", 3);
	proto_put_u8(b, PROTO_NULL);
	put_int(b, INT64_MIN);
	put_real(b, 1e20);
	put_text(b, PROTO_TEXT, "a,b \"q\"", 7);
	put_text(b, PROTO_BLOB, "", 0);
	proto_put_u8(b, PROTO_NULL);
	proto_frame_end(b, f);

	f = proto_frame_begin(b, PROTO_ROWS);	/* an empty batch is fine */
	proto_put_u16(b, 0);
	proto_frame_end(b, f);

	f = proto_frame_begin(b, PROTO_ROWS);
	proto_put_u16(b, 2);
	put_int(b, INT64_MAX);
	put_real(b, 1.0 / 3);
	put_text(b, PROTO_TEXT, "", 0);
	put_text(b, PROTO_BLOB, "\0x", 2);
	proto_put_u8(b, PROTO_NULL);
	put_int(b, -1);
	put_real(b, INFINITY);
	put_text(b, PROTO_TEXT, "two\nlines", 9);
	put_text(b, PROTO_BLOB, "z", 1);
	put_text(b, PROTO_TEXT, "not null", 8);
	proto_frame_end(b, f);

	put_columns(b, 1, second, none);
	f = proto_frame_begin(b, PROTO_ROWS);
	proto_put_u16(b, 1);
	put_real(b, -0.25);
	proto_frame_end(b, f);
	proto_put_end(b, 5, 1234, 0);
}

/* Rows 1..n in batches of about PROTO_ROWS_BATCH_BYTES. */
static int fake_many(int fd, struct proto_buf *b, int n)
{
	static const char *const names[] = { "n", "s" };
	static const char *const types[] = { "INTEGER", "TEXT" };
	size_t f = 0;
	int in_frame = 0;

	put_columns(b, 2, names, types);
	for (int i = 1; i <= n; i++) {
		char s[32];

		if (!in_frame) {
			f = proto_frame_begin(b, PROTO_ROWS);
			proto_put_u16(b, 0);
		}
		snprintf(s, sizeof(s), "row %d", i);
		put_int(b, i);
		put_text(b, PROTO_TEXT, s, strlen(s));
		in_frame++;
		if (b->len - f > PROTO_ROWS_BATCH_BYTES || i == n) {
			b->data[f + 5] = (uint8_t)(in_frame >> 8);
			b->data[f + 6] = (uint8_t)in_frame;
			proto_frame_end(b, f);
			in_frame = 0;
			if (flush(fd, b) < 0)
				return -1;
		}
	}
	proto_put_end(b, (uint64_t)n, 99, 0);
	return flush(fd, b);
}

/* One column, one row: the start of most broken answers. */
static void one_row(struct proto_buf *b)
{
	static const char *const names[] = { "x" };
	static const char *const types[] = { "" };
	size_t f;

	put_columns(b, 1, names, types);
	f = proto_frame_begin(b, PROTO_ROWS);
	proto_put_u16(b, 1);
	put_int(b, 1);
	proto_frame_end(b, f);
}

/* Waits for the client to hang up (an answer it must give up on). */
static void wait_hangup(int fd)
{
	char c[256];

	while (read(fd, c, sizeof(c)) > 0)
		;
}

/* Answers a canned query; returns 0 to keep the connection, -1 to close
 * it. */
static int canned(int fd, struct proto_buf *b, const char *name,
		  uint32_t limit, uint32_t timeout, const char *sql, size_t len)
{
	size_t f;

#define IS(s) (!strncmp(name, s, strlen(s)))
	if (IS("echo")) {
		return fake_echo(fd, b, limit, timeout, sql, len);
	} else if (IS("slow")) {
		sleep_ms(300);
		return fake_echo(fd, b, limit, timeout, sql, len);
	} else if (IS("types")) {
		types_answer(b);
		return flush(fd, b);
	} else if (IS("bytewise")) {
		/* The same answer, one byte per write. */
		types_answer(b);
		for (size_t i = 0; i < b->len; i++)
			if (write_all(fd, b->data + i, 1) < 0)
				return -1;
		proto_buf_reset(b);
		return 0;
	} else if (IS("many")) {
		return fake_many(fd, b, 100000);
	} else if (IS("huge")) {
		/* A text value filling a frame to nearly the limit. */
		static const char *const names[] = { "len" };
		static const char *const types[] = { "" };
		size_t n = PROTO_MAX_FRAME - 16;
		char *s = malloc(n);

		memset(s, 'x', n);
		put_columns(b, 1, names, types);
		f = proto_frame_begin(b, PROTO_ROWS);
		proto_put_u16(b, 1);
		put_text(b, PROTO_TEXT, s, n);
		free(s);
		if (proto_frame_end(b, f) < 0)
			return -1;
		proto_put_end(b, 1, 0, 0);
		return flush(fd, b);
	} else if (IS("error-control")) {
		proto_put_error(b, 1, -1, "bad\nthing \x1b[31mred");
		return flush(fd, b);
	} else if (IS("error-empty")) {
		proto_put_error(b, PROTO_ERR_DENIED, -1, "");
		return flush(fd, b);
	} else if (IS("midresult-error")) {
		one_row(b);
		proto_put_error(b, PROTO_ERR_TIMEOUT, -1,
				"query cut off at its deadline");
		return flush(fd, b);
	} else if (IS("badtag")) {
		put_columns(b, 1, echo_names, echo_types);
		f = proto_frame_begin(b, PROTO_ROWS);
		proto_put_u16(b, 2);
		put_int(b, 1);
		proto_put_u8(b, 9);
		proto_frame_end(b, f);
		proto_put_end(b, 2, 0, 0);
	} else if (IS("badtype")) {
		one_row(b);
		put_raw_header(b, 1, 'Z');
	} else if (IS("oversized")) {
		one_row(b);
		put_raw_header(b, 0xffffffffu, 'R');
		flush(fd, b);
		wait_hangup(fd);
		return -1;
	} else if (IS("emptyframe")) {
		proto_put_u32(b, 0);
	} else if (IS("short-rows")) {
		put_columns(b, 1, echo_names, echo_types);
		f = proto_frame_begin(b, PROTO_ROWS);
		proto_put_u16(b, 3);
		put_int(b, 1);
		proto_frame_end(b, f);
		proto_put_end(b, 3, 0, 0);
	} else if (IS("stray")) {
		one_row(b);
		f = proto_frame_begin(b, PROTO_ROWS);
		proto_put_u16(b, 1);
		put_int(b, 2);
		proto_put_u8(b, 0);
		proto_frame_end(b, f);
		proto_put_end(b, 2, 0, 0);
	} else if (IS("rows-first")) {
		f = proto_frame_begin(b, PROTO_ROWS);
		proto_put_u16(b, 1);
		put_int(b, 1);
		proto_frame_end(b, f);
		proto_put_end(b, 1, 0, 0);
	} else if (IS("no-columns")) {
		f = proto_frame_begin(b, PROTO_COLUMNS);
		proto_put_u16(b, 0);
		proto_frame_end(b, f);
		proto_put_end(b, 0, 0, 0);
	} else if (IS("bad-end")) {
		one_row(b);
		f = proto_frame_begin(b, PROTO_END);
		proto_put_u64(b, 1);
		proto_put_u32(b, 0);
		proto_frame_end(b, f);
	} else if (IS("after-end")) {
		one_row(b);
		proto_put_end(b, 1, 0, 0);
		proto_put_end(b, 1, 0, 0);
	} else if (IS("close-mid-result")) {
		one_row(b);
		flush(fd, b);
		return -1;
	} else if (IS("close-mid-frame")) {
		one_row(b);
		put_raw_header(b, 100, 'R');
		flush(fd, b);
		return -1;
	} else if (IS("close-now")) {
		return -1;
	} else {
		proto_put_error(b, 1, -1, "fake-server: no such canned answer");
		return flush(fd, b);
	}
#undef IS
	/* A broken answer: what the real server would do next is close. */
	flush(fd, b);
	return -1;
}

/* ---- real answers, from the database ---- */

static void put_row(struct proto_buf *b, sqlite3_stmt *stmt, int ncols)
{
	for (int i = 0; i < ncols; i++) {
		switch (sqlite3_column_type(stmt, i)) {
		case SQLITE_INTEGER:
			put_int(b, sqlite3_column_int64(stmt, i));
			break;
		case SQLITE_FLOAT:
			put_real(b, sqlite3_column_double(stmt, i));
			break;
		case SQLITE_TEXT:
			put_text(b, PROTO_TEXT, sqlite3_column_text(stmt, i),
				 (size_t)sqlite3_column_bytes(stmt, i));
			break;
		case SQLITE_BLOB:
			put_text(b, PROTO_BLOB, sqlite3_column_blob(stmt, i),
				 (size_t)sqlite3_column_bytes(stmt, i));
			break;
		default:
			proto_put_u8(b, PROTO_NULL);
			break;
		}
	}
}

/* Runs one statement; rows go out in batches.  Returns 0, or -1 after
 * putting an 'X'. */
static int limit_cut;	/* the batch's row limit left rows unsent */

static int run_statement(int fd, struct proto_buf *b, sqlite3_stmt *stmt,
			 int stmt_offset, uint32_t limit, uint64_t *rows)
{
	int ncols = sqlite3_column_count(stmt);
	size_t f = 0;
	unsigned in_frame = 0;
	int rc = SQLITE_DONE;

	if (ncols > 0) {
		size_t c = proto_frame_begin(b, PROTO_COLUMNS);

		proto_put_u16(b, (uint16_t)ncols);
		for (int i = 0; i < ncols; i++) {
			const char *name = sqlite3_column_name(stmt, i);
			const char *type = sqlite3_column_decltype(stmt, i);

			proto_put_str16(b, name, strlen(name));
			proto_put_str16(b, type ? type : "", type ? strlen(type) : 0);
		}
		proto_frame_end(b, c);
	}
	while ((!limit || *rows < limit) &&
	       (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (!in_frame) {
			f = proto_frame_begin(b, PROTO_ROWS);
			proto_put_u16(b, 0);
		}
		put_row(b, stmt, ncols);
		in_frame++;
		++*rows;
		if (b->len - f > PROTO_ROWS_BATCH_BYTES || in_frame == 0xffff) {
			b->data[f + 5] = (uint8_t)(in_frame >> 8);
			b->data[f + 6] = (uint8_t)in_frame;
			proto_frame_end(b, f);
			in_frame = 0;
			flush(fd, b);
		}
	}
	if (in_frame) {
		b->data[f + 5] = (uint8_t)(in_frame >> 8);
		b->data[f + 6] = (uint8_t)in_frame;
		proto_frame_end(b, f);
	}
	if (limit && *rows >= limit) {
		limit_cut = sqlite3_step(stmt) == SQLITE_ROW;
		return 1;
	}
	if (rc != SQLITE_DONE) {
		int off = sqlite3_error_offset(db);

		proto_put_error(b, sqlite3_errcode(db),
				off < 0 ? -1 : off + stmt_offset,
				sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

static void run_sql(int fd, struct proto_buf *b, const char *sql,
		    uint32_t limit)
{
	const char *p = sql;
	uint64_t rows = 0;

	limit_cut = 0;
	while (*p) {
		sqlite3_stmt *stmt = NULL;
		const char *tail = NULL;
		int ret;

		if (!db) {
			proto_put_error(b, PROTO_ERR_BUSY, -1,
					"fake-server: no database");
			goto out;
		}
		if (sqlite3_prepare_v2(db, p, -1, &stmt, &tail) != SQLITE_OK) {
			int off = sqlite3_error_offset(db);

			proto_put_error(b, sqlite3_errcode(db),
					off < 0 ? -1 : off + (int)(p - sql),
					sqlite3_errmsg(db));
			goto out;
		}
		if (!stmt) {
			if (tail == p)
				break;
			p = tail;
			continue;
		}
		ret = run_statement(fd, b, stmt, (int)(p - sql), limit, &rows);
		sqlite3_finalize(stmt);
		if (ret < 0)
			goto out;
		if (ret > 0) {
			limit_cut = limit_cut || sql_has_statement(tail);
			break;
		}
		p = tail;
	}
	proto_put_end(b, rows, 1, limit_cut ? PROTO_END_LIMIT_CUT : 0);
out:
	flush(fd, b);
}

/* ---- connections ---- */

/* Serves one connection until the client or a canned answer ends it. */
static void serve(int fd)
{
	struct proto_buf out = { 0 };
	uint8_t *in = malloc(PROTO_MAX_FRAME + 4);
	size_t have = 0;

	for (;;) {
		const uint8_t *payload;
		size_t plen, flen;
		uint8_t type;
		int r = proto_frame_peek(in, have, &type, &payload, &plen, &flen);

		if (r < 0 || (r == 0 && type != PROTO_QUERY)) {
			proto_put_error(&out, PROTO_ERR_FRAME, -1, "bad frame");
			flush(fd, &out);
			break;
		}
		if (r == 0) {
			struct proto_reader rd;
			uint32_t limit, timeout;
			const char *sql;
			size_t len;
			char *text;
			int keep = 0;

			proto_reader_init(&rd, payload, plen);
			limit = proto_get_u32(&rd);
			timeout = proto_get_u32(&rd);
			proto_get_rest(&rd, &sql, &len);
			text = strndup(sql, len);
			fprintf(stderr, "query limit=%u timeout=%u: %s\n", limit,
				timeout, text);
			if (!strncmp(text, "fake:", 5)) {
				keep = canned(fd, &out, text + 5, limit, timeout,
					      sql, len) == 0;
			} else if (fail_match && db && strstr(text, fail_match)) {
				/* FAKE_FAIL_MATCH: as a statement that
				 * failed where it ran (a deadline, say) */
				proto_put_error(&out, SQLITE_ERROR, -1,
						"fake-server: FAKE_FAIL_MATCH");
				flush(fd, &out);
				keep = 1;
			} else {
				run_sql(fd, &out, text, limit);
				keep = 1;
			}
			free(text);
			if (!keep)
				break;
			memmove(in, in + flen, have - flen);
			have -= flen;
			continue;
		}
		ssize_t n = read(fd, in + have, PROTO_MAX_FRAME + 4 - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	proto_buf_free(&out);
	free(in);
	close(fd);
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char tmp[sizeof(sa.sun_path)];
	int lfd, max_conns, open_conns = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: fake-server SOCKET [DATABASE]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	max_conns = getenv("FAKE_MAX_CONNS") ? atoi(getenv("FAKE_MAX_CONNS")) : 0;
	fail_match = getenv("FAKE_FAIL_MATCH");
	if (fail_match && !*fail_match)
		fail_match = NULL;
	if (argc == 3) {
		db_path = argv[2];
		open_db(db_path);	/* fails here, not per connection */
		sqlite3_close(db);
		db = NULL;
	}
	/* Bound under a temporary name and renamed once listening, so a
	 * test that sees the socket can connect at once. */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]) >= sizeof(tmp)) {
		fprintf(stderr, "fake-server: socket path too long\n");
		return 2;
	}
	memcpy(sa.sun_path, tmp, strlen(tmp) + 1);
	unlink(tmp);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		die("socket");
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("bind");
	if (listen(lfd, 16) < 0)
		die("listen");
	if (rename(tmp, argv[1]) < 0)
		die("rename");
	for (;;) {
		int fd = accept(lfd, NULL, NULL);
		bool over;

		if (fd < 0 && errno == EINTR)
			continue;
		if (fd < 0)
			die("accept");
		fprintf(stderr, "connection\n");
		while (waitpid(-1, NULL, WNOHANG) > 0)	/* the ones that ended */
			open_conns--;
		over = max_conns > 0 && open_conns >= max_conns;
		/* A client that just left may have a child still on its way
		 * out: given 200 ms, it is not counted against the next. */
		for (int i = 0; over && i < 20; i++) {
			usleep(10000);
			while (waitpid(-1, NULL, WNOHANG) > 0)
				open_conns--;
			over = open_conns >= max_conns;
		}
		if (over)	/* its queries: "no database" */
			fprintf(stderr, "over FAKE_MAX_CONNS\n");
		open_conns++;
		switch (fork()) {
		case -1:
			die("fork");
			break;
		case 0:
			/* not left behind by a test that stops the server */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(lfd);
			/* a connection of its own, not the parent's */
			if (db_path && !over)
				open_db(db_path);
			serve(fd);
			_exit(0);
		default:
			close(fd);
		}
	}
}
