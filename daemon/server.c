/* server.c — see server.h. */
#define _GNU_SOURCE
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <sqlite3.h>

#include "log.h"
#include "memtemp.h"
#include "privs.h"
#include "protocol.h"
#include "sqlfuncs.h"

#define MAX_WORKERS 64
#define SERVER_LIMIT_LENGTH (16 << 20)
#define SERVER_LIMIT_EXPR_DEPTH 200
#define SERVER_LIMIT_COLUMN 500
#define SERVER_LIMIT_COMPOUND_SELECT 100

/* Set when the server is told to stop: running queries are cut off and
 * waits for slow clients end, so stopping takes no longer than a step. */
static volatile int stopping;
#define OUT_HIGH (1u << 20)	/* a worker waits while this much is unsent */
#define OUT_LOW (256u << 10)

/* At most one log line a second for each kind of refusal, with the count
 * of those not logged in between (log_ratelimit). Loop thread only. */
static int ratelimit_ok(struct log_ratelimit *r, unsigned long *quiet)
{
	struct timespec t;
	uint64_t held = 0;

	clock_gettime(CLOCK_MONOTONIC, &t);
	r->interval_ns = 1000000000ull;
	if (!log_ratelimit(r, (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec,
			   &held))
		return 0;
	*quiet = (unsigned long)held;
	return 1;
}

/* ---- SQLite memory per query ---------------------------------------------
 * SQLite's allocations go through these wrappers. A worker runs one query
 * at a time, so what the thread allocates while a query runs (less what it
 * frees) is that query's: past the cap an allocation fails and the query
 * ends with SQLITE_NOMEM. Memory freed on another thread meanwhile is not
 * credited: the count can only be too high, never too low.
 *
 * The process as a whole is bounded here too (MEM_PROCESS_CAP), not by
 * sqlite3_hard_heap_limit64: that needs SQLite's memory statistics, which
 * take one process-wide mutex around every malloc and free (this SQLite
 * has no lookaside: every small object is a malloc), and two queries on
 * two cores then ran no faster together than one after the other. Each
 * thread adds its allocations to the process's count in steps of at most
 * MEM_STEP, so the bound holds to within MEM_STEP a thread. */
#define MEM_PROCESS_CAP (512ll << 20)
#define MEM_STEP (1ll << 20)

static sqlite3_mem_methods mem_base;
static _Atomic int64_t mem_process;	/* every thread's, MEM_STEP at a time */
static __thread int64_t mem_pending;	/* this thread's, not yet in it */
static __thread int64_t mem_used, mem_cap;	/* mem_cap 0: not counted */
static __thread int mem_hit;

/* Whether n more bytes fit the process's bound. */
static bool mem_process_room(int64_t n)
{
	return atomic_load_explicit(&mem_process, memory_order_relaxed) +
	       mem_pending + n <= MEM_PROCESS_CAP;
}

static void mem_process_add(int64_t n)
{
	mem_pending += n;
	if (mem_pending >= MEM_STEP || mem_pending <= -MEM_STEP) {
		atomic_fetch_add_explicit(&mem_process, mem_pending,
					  memory_order_relaxed);
		mem_pending = 0;
	}
}

static void *mem_malloc(int n)
{
	void *p;
	int64_t size;

	if (mem_cap && mem_used + n > mem_cap) {
		mem_hit = 1;
		return NULL;
	}
	if (!mem_process_room(n))
		return NULL;
	p = mem_base.xMalloc(n);
	if (!p)
		return NULL;
	size = mem_base.xSize(p);
	mem_process_add(size);
	if (mem_cap)
		mem_used += size;
	return p;
}

static void mem_free(void *p)
{
	int64_t size;

	if (!p)
		return;
	size = mem_base.xSize(p);
	mem_process_add(-size);
	if (mem_cap)
		mem_used -= size;
	mem_base.xFree(p);
}

static void *mem_realloc(void *p, int n)
{
	int64_t old = p ? mem_base.xSize(p) : 0, size;
	void *q;

	if (mem_cap && mem_used - old + n > mem_cap) {
		mem_hit = 1;
		return NULL;
	}
	if (!mem_process_room(n - old))
		return NULL;
	q = mem_base.xRealloc(p, n);
	if (!q)
		return NULL;
	size = mem_base.xSize(q);
	mem_process_add(size - old);
	if (mem_cap)
		mem_used += size - old;
	return q;
}

static int mem_install(void)
{
	static sqlite3_mem_methods m;

	/* No statistics: they are what takes the global mutex. */
	if (sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) != SQLITE_OK ||
	    sqlite3_config(SQLITE_CONFIG_GETMALLOC, &mem_base) != SQLITE_OK)
		return -1;
	m = mem_base;
	m.xMalloc = mem_malloc;
	m.xFree = mem_free;
	m.xRealloc = mem_realloc;
	return sqlite3_config(SQLITE_CONFIG_MALLOC, &m) == SQLITE_OK ? 0 : -1;
}

static void mem_query_start(uint64_t cap)
{
	mem_used = 0;
	mem_hit = 0;
	mem_cap = (int64_t)cap;
}

static void mem_query_end(void)
{
	mem_cap = 0;
}

/* ---- server side ------------------------------------------------------ */

struct conn;

struct job {
	struct job *next;
	struct conn *conn;
	uint32_t row_limit, timeout_ms;
	size_t sql_len;
	char sql[];
};

struct conn {
	struct server *srv;
	struct bufferevent *bev;
	sqlite3 *db;
	uid_t uid;		/* the peer's, for its quotas */
	int refs;		/* the loop's, and a job's while queued/running */
	int busy;		/* a query is queued or running */
	int closed;		/* the client is gone */
	int closing;		/* close once the output is sent */
	pthread_mutex_t lock;
	pthread_cond_t drained;
	struct proto_buf out;
	uint64_t deadline_ns;
	int timed_out;
	uint64_t sent;		/* bytes of the running query's answer */
};

/* A query thread and the database connection it runs every query on,
 * opened before the process drops root (the database may be readable by
 * root alone); the watchdog interrupts it at the running query's
 * deadline. */
struct worker {
	struct server *srv;
	sqlite3 *db;
	pthread_mutex_t mu;	/* guards conn: the watchdog reads it */
	struct conn *conn;	/* whose query runs, NULL when idle */
};

/* What one uid holds: its connections and its queries queued or running
 * (s->lock). Root is not counted against a quota. */
struct uid_use {
	uid_t uid;
	int conns, queries;
};

struct server {
	const struct server_opts *o;
	struct uid_use *uses;	/* a few users: searched in order (lock) */
	int nuses;
	struct event_base *base;
	struct evconnlistener *listener;
	pthread_t *threads;
	struct worker *workers;	/* MAX_WORKERS, each with its connection */
	pthread_t watchdog;
	int watchdog_started;
	/* The watchdog ticks only while a query runs (an idle server, the
	 * daemon's usual state, wakes for nothing): running counts them. */
	pthread_mutex_t wd_mu;
	pthread_cond_t wd_cond;
	int running;
	int nthreads;		/* started, at most MAX_WORKERS */
	int idle;		/* waiting for a job */
	int queued;		/* jobs not yet taken */
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct job *head, *tail;
	int stop;
	gid_t group;		/* members may query */
	int nconns;		/* open connections (loop thread only) */
	struct log_ratelimit log_refused, log_full;
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* One member cannot lock the others out: a uid holds at most a quarter
 * of the connections (at least 4) and of the query threads (at least 2);
 * root is never held back, and has 8 connections beyond the limit. */
#define ROOT_EXTRA_CONNS 8
#define IDLE_TIMEOUT_S 60

static int uid_max_conns(const struct server *s)
{
	return s->o->max_conns / 4 > 4 ? s->o->max_conns / 4 : 4;
}

static int uid_max_queries(void)
{
	return MAX_WORKERS / 4 > 2 ? MAX_WORKERS / 4 : 2;
}

/* The uid's entry (s->lock held), made when missing (the loop thread
 * alone makes them); NULL: out of memory. */
static struct uid_use *uid_use(struct server *s, uid_t uid)
{
	struct uid_use *free_slot = NULL, *u;

	for (int i = 0; i < s->nuses; i++) {
		if (s->uses[i].uid == uid)
			return &s->uses[i];
		if (!free_slot && !s->uses[i].conns && !s->uses[i].queries)
			free_slot = &s->uses[i];
	}
	if (free_slot) {
		free_slot->uid = uid;
		return free_slot;
	}
	u = realloc(s->uses, ((size_t)s->nuses + 1) * sizeof(*u));
	if (!u)
		return NULL;
	s->uses = u;
	u = &s->uses[s->nuses++];
	u->uid = uid;
	u->conns = u->queries = 0;
	return u;
}

/* Gives back what uid held (any thread; the entry exists). */
static void uid_release(struct server *s, uid_t uid, int conns, int queries)
{
	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < s->nuses; i++)
		if (s->uses[i].uid == uid) {
			s->uses[i].conns -= conns;
			s->uses[i].queries -= queries;
			break;
		}
	pthread_mutex_unlock(&s->lock);
}

static void conn_free_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	(void)fd;
	(void)what;
	c->srv->nconns--;
	if (c->uid != 0)
		uid_release(c->srv, c->uid, 1, 0);
	if (c->bev)
		bufferevent_free(c->bev);
	proto_buf_free(&c->out);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->drained);
	free(c);
}

/* Drops a reference; the last one frees the connection on the loop. */
static void conn_put(struct conn *c)
{
	int last;

	pthread_mutex_lock(&c->lock);
	last = --c->refs == 0;
	pthread_mutex_unlock(&c->lock);
	if (last)
		event_base_once(c->srv->base, -1, EV_TIMEOUT, conn_free_cb, c, NULL);
}

/* Sends what is in c->out; waits while the client is slow. -1 when it is
 * gone. Worker threads only. */
static int flush_out(struct conn *c)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	int gone;

	if (c->out.oom)
		return -1;
	if (c->out.len) {
		bufferevent_write(c->bev, c->out.data, c->out.len);
		c->sent += c->out.len;
		proto_buf_reset(&c->out);
	}
	/* The output's length is read without c->lock held: the loop's
	 * write callback holds the bufferevent's lock when it takes c->lock,
	 * so taking them the other way round here would deadlock. A wakeup
	 * missed in between costs at most the 100 ms of the timed wait. */
	for (;;) {
		size_t pending = evbuffer_get_length(out);
		struct timespec t;

		pthread_mutex_lock(&c->lock);
		if (c->closed || pending <= OUT_HIGH)
			break;
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 100000000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&c->drained, &c->lock, &t);
		if (now_ns() > c->deadline_ns || stopping) {
			c->timed_out = 1;
			break;
		}
		pthread_mutex_unlock(&c->lock);
	}
	gone = c->closed || c->timed_out;
	pthread_mutex_unlock(&c->lock);
	return gone ? -1 : 0;
}

/* Only reading is allowed: whatever else a statement would do is refused
 * when it is prepared. */
static int authorize(void *arg, int action, const char *a1, const char *a2,
		     const char *db, const char *trigger)
{
	(void)arg;
	(void)db;
	(void)trigger;
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_RECURSIVE:
		return SQLITE_OK;
	case SQLITE_FUNCTION:
		/* Loading code, and fts3_tokenizer(), which hands out the
		 * addresses of the process's tokenizer modules. */
		return a2 && (!strcasecmp(a2, "load_extension") ||
			      !strcasecmp(a2, "fts3_tokenizer")) ? SQLITE_DENY : SQLITE_OK;
	case SQLITE_PRAGMA:
		/* Schema introspection without assignment. */
		if (a1 && (!strcasecmp(a1, "table_info") || !strcasecmp(a1, "table_xinfo") ||
			   !strcasecmp(a1, "index_list") || !strcasecmp(a1, "index_info")))
			return SQLITE_OK;
		return SQLITE_DENY;
	default:
		return SQLITE_DENY;
	}
}

static int progress(void *arg)
{
	struct conn *c = arg;

	if (c->closed || stopping)
		return 1;
	if (now_ns() > c->deadline_ns) {
		c->timed_out = 1;
		return 1;
	}
	return 0;
}

/* A read-only connection with every limit the server sets; its progress
 * handler is set per query. NULL when the database cannot be opened. */
static sqlite3 *open_query_db(const char *path)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX |
			    SQLITE_OPEN_NOFOLLOW, MEMTEMP_VFS) != SQLITE_OK) {
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 2000);
	/* Sorts and joins spill to no file on disk: their temporary files
	 * are memory (memtemp.h), counted against the query's cap (538 MB of
	 * /var/tmp was written in 14 s by one cross join once). temp_store
	 * stays FILE: with MEMORY the sorter allocates each record alone. */
	if (sqlite3_exec(db, "PRAGMA temp_store = FILE", NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return NULL;
	}
	/* A first read opens the WAL and its index now, while the files
	 * can still be opened: the connection keeps them. It reads the
	 * schema cookie and parses no schema (64 connections parsing it
	 * took 0.13 s of CPU at every start; a connection's first query
	 * does it), and runs before the authorizer, which refuses PRAGMAs. */
	if (sqlite3_exec(db, "PRAGMA schema_version", NULL, NULL,
			 NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	/* Limits: no attached database, SQL no longer than a frame, no
	 * string or blob over 16 MiB, and SQL that parses into something of a
	 * bounded size (the schema's widest view has far fewer columns). */
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, PROTO_MAX_FRAME);
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, SERVER_LIMIT_LENGTH);
	sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, SERVER_LIMIT_EXPR_DEPTH);
	sqlite3_limit(db, SQLITE_LIMIT_COLUMN, SERVER_LIMIT_COLUMN);
	sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, SERVER_LIMIT_COMPOUND_SELECT);
	sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1000);
	sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER, 100);
	sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
	sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 0);
	sqlite3_set_authorizer(db, authorize, NULL);
	commd_sql_register(db);
	commd_sql_register_bounded(db);
	return db;
}

static void put_value(struct proto_buf *b, sqlite3_stmt *st, int i)
{
	uint64_t bits;
	double d;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		proto_put_u8(b, PROTO_INT);
		proto_put_u64(b, (uint64_t)sqlite3_column_int64(st, i));
		break;
	case SQLITE_FLOAT:
		d = sqlite3_column_double(st, i);
		memcpy(&bits, &d, sizeof(bits));
		proto_put_u8(b, PROTO_REAL);
		proto_put_u64(b, bits);
		break;
	case SQLITE_TEXT:
		proto_put_u8(b, PROTO_TEXT);
		proto_put_str32(b, sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
		break;
	case SQLITE_BLOB:
		proto_put_u8(b, PROTO_BLOB);
		proto_put_str32(b, sqlite3_column_blob(st, i), (size_t)sqlite3_column_bytes(st, i));
		break;
	default:
		proto_put_u8(b, PROTO_NULL);
		break;
	}
}

/* A rows frame whose count is patched when it is closed. */
struct rows_frame {
	size_t at, count_at;
	uint16_t n;
	int open;
};

static void rows_close(struct conn *c, struct rows_frame *f)
{
	if (!f->open)
		return;
	c->out.data[f->count_at] = (uint8_t)(f->n >> 8);
	c->out.data[f->count_at + 1] = (uint8_t)f->n;
	proto_frame_end(&c->out, f->at);
	f->open = 0;
}

/* The last frame of a query is only queued here: the worker sends it
 * after the connection is free for the next query (see worker_main). */
static void send_error(struct conn *c, int code, int offset, const char *msg)
{
	proto_put_error(&c->out, code, offset, msg);
}

/* The error frame for a statement that does not prepare. */
static void prepare_error(struct conn *c, struct job *j, const char *sql, int rc)
{
	int off = sqlite3_error_offset(c->db);
	const char *why = sqlite3_errmsg(c->db);
	char msg[512];

	/* The authorizer's refusals, however SQLite reports them (SQLITE_AUTH,
	 * or SQLITE_SCHEMA/SQLITE_ERROR with "not authorized...") */
	if (rc == SQLITE_AUTH || !strncmp(why, "not authorized", 14)) {
		rc = SQLITE_AUTH;
		if (!strcmp(why, "not authorized"))
			snprintf(msg, sizeof(msg), "not allowed: commd answers reads only");
		else
			snprintf(msg, sizeof(msg), "not allowed: commd answers reads only (%s)", why);
	} else if (mem_hit)
		snprintf(msg, sizeof(msg), "out of memory: the query needs more than %llu MiB "
			 "(the server's limit per query)",
			 (unsigned long long)(c->srv->o->max_query_mem >> 20));
	else
		snprintf(msg, sizeof(msg), "%s", why);
	send_error(c, rc == SQLITE_AUTH ? PROTO_ERR_DENIED : mem_hit ? SQLITE_NOMEM : rc,
		   off >= 0 ? (int)(sql - j->sql) + off : -1, msg);
}

/* Every statement of a request is prepared and checked before any runs:
 * one that is not allowed refuses the request whole (nothing of
 * "select 1; drop table x" runs). 0 when all may run. */
static int check_request(struct conn *c, struct job *j)
{
	const char *sql = j->sql, *tail, *end = j->sql + j->sql_len;
	sqlite3_stmt *st = NULL;
	int rc, ro;

	while (sql < end) {
		rc = sqlite3_prepare_v2(c->db, sql, (int)(end - sql), &st, &tail);
		if (rc != SQLITE_OK) {
			prepare_error(c, j, sql, rc);
			return -1;
		}
		if (!st) {		/* blank, a comment, or a NUL byte */
			if (tail <= sql)
				break;
			sql = tail;
			continue;
		}
		ro = sqlite3_stmt_readonly(st);
		sqlite3_finalize(st);
		if (!ro) {
			send_error(c, PROTO_ERR_DENIED, (int)(sql - j->sql),
				   "not allowed: commd answers reads only");
			return -1;
		}
		sql = tail;
	}
	return 0;
}

/* Bytes the current row takes in a rows frame. */
static size_t row_size(sqlite3_stmt *st, int ncols)
{
	size_t n = 0;

	for (int i = 0; i < ncols; i++) {
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_INTEGER:
		case SQLITE_FLOAT:
			n += 9;
			break;
		case SQLITE_TEXT:
		case SQLITE_BLOB:
			n += 5 + (size_t)sqlite3_column_bytes(st, i);
			break;
		default:
			n += 1;
			break;
		}
	}
	return n;
}

/* Appends the current row to the open rows frame, starting one when
 * needed; a row that would make the frame longer than a frame may be goes
 * into a frame of its own. 0, -1 when the client is gone, 1 when the row
 * alone is too big for a frame (nothing appended). */
static int put_row(struct conn *c, struct rows_frame *f, sqlite3_stmt *st, int ncols)
{
	size_t need = row_size(st, ncols);

	if (need + 3 > PROTO_MAX_FRAME)		/* type, count, the row */
		return 1;
	if (f->open && c->out.len - f->at - 4 + need > PROTO_MAX_FRAME) {
		rows_close(c, f);
		if (flush_out(c))
			return -1;
	}
	if (!f->open) {
		f->at = proto_frame_begin(&c->out, PROTO_ROWS);
		f->count_at = c->out.len;
		proto_put_u16(&c->out, 0);
		f->n = 0;
		f->open = 1;
	}
	for (int i = 0; i < ncols; i++)
		put_value(&c->out, st, i);
	f->n++;
	return 0;
}

static void run_job(struct worker *w, struct job *j)
{
	struct conn *c = j->conn;
	const struct server_opts *o = c->srv->o;
	const char *sql = j->sql, *tail, *end = j->sql + j->sql_len;
	uint64_t start = now_ns(), rows = 0;
	uint32_t timeout = j->timeout_ms ? j->timeout_ms : (uint32_t)o->default_timeout_ms;
	sqlite3_stmt *st = NULL;
	int rc, cut = 0, too_big = 0, limit_cut = 0;
	char msg[512];

	/* A client may shorten the deadline, never lengthen it past the
	 * configured one. */
	if (timeout > (uint32_t)o->default_timeout_ms)
		timeout = (uint32_t)o->default_timeout_ms;
	c->deadline_ns = start + (uint64_t)timeout * 1000000;
	c->timed_out = 0;
	c->sent = 0;
	c->db = w->db;
	sqlite3_progress_handler(c->db, 1000, progress, c);
	pthread_mutex_lock(&w->mu);
	w->conn = c;			/* the watchdog may interrupt it now */
	pthread_mutex_unlock(&w->mu);
	pthread_mutex_lock(&w->srv->wd_mu);
	if (!w->srv->running++)
		pthread_cond_signal(&w->srv->wd_cond);
	pthread_mutex_unlock(&w->srv->wd_mu);
	proto_buf_reset(&c->out);
	if (check_request(c, j))
		return;
	while (sql < end) {
		struct rows_frame f = { 0 };
		int ncols;

		/* The deadline holds across the request's statements. */
		if (c->timed_out || now_ns() > c->deadline_ns) {
			c->timed_out = 1;
			send_error(c, PROTO_ERR_TIMEOUT, -1, "query timed out");
			return;
		}

		rc = sqlite3_prepare_v2(c->db, sql, (int)(end - sql), &st, &tail);
		if (rc != SQLITE_OK) {
			prepare_error(c, j, sql, rc);
			return;
		}
		if (!st) {		/* blank, a comment, or a NUL byte */
			if (tail <= sql)
				break;	/* no progress: the rest is not SQL */
			sql = tail;
			continue;
		}
		if (!sqlite3_stmt_readonly(st)) {
			sqlite3_finalize(st);
			send_error(c, PROTO_ERR_DENIED, (int)(sql - j->sql),
				   "not allowed: commd answers reads only");
			return;
		}
		ncols = sqlite3_column_count(st);
		if (ncols > 0) {
			size_t fr = proto_frame_begin(&c->out, PROTO_COLUMNS);

			proto_put_u16(&c->out, (uint16_t)ncols);
			for (int i = 0; i < ncols; i++) {
				const char *n = sqlite3_column_name(st, i);
				const char *t = sqlite3_column_decltype(st, i);

				proto_put_str16(&c->out, n ? n : "", n ? strlen(n) : 0);
				proto_put_str16(&c->out, t ? t : "", t ? strlen(t) : 0);
			}
			proto_frame_end(&c->out, fr);
		}
		while ((!j->row_limit || rows < j->row_limit) &&
		       (rc = sqlite3_step(st)) == SQLITE_ROW) {
			int pr;

			/* The cap on the answer's bytes: checked before each
			 * row, so at most one row more goes out. */
			if (o->max_result_bytes && c->sent + c->out.len >= o->max_result_bytes) {
				cut = 1;
				break;
			}
			pr = put_row(c, &f, st, ncols);
			if (pr > 0) {
				too_big = 1;
				break;
			}
			if (pr < 0)
				break;
			rows++;
			if (c->out.len >= PROTO_ROWS_BATCH_BYTES || f.n == 0xffff) {
				rows_close(c, &f);
				if (flush_out(c))
					break;
			}
		}
		rows_close(c, &f);
		if (c->closed)
			break;
		if (cut || too_big) {
			sqlite3_finalize(st);
			if (cut)
				snprintf(msg, sizeof(msg), "result cut off after %llu rows, %llu bytes: "
					 "the server sends at most %llu MiB per query",
					 (unsigned long long)rows,
					 (unsigned long long)(c->sent + c->out.len),
					 (unsigned long long)(o->max_result_bytes >> 20));
			else
				snprintf(msg, sizeof(msg), "row %llu is larger than a frame (%u bytes); "
					 "%llu rows sent before it", (unsigned long long)rows + 1,
					 PROTO_MAX_FRAME, (unsigned long long)rows);
			send_error(c, PROTO_ERR_LIMIT, -1, msg);
			return;
		}
		if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
			if (c->timed_out)
				snprintf(msg, sizeof(msg), "query timed out");
			else if (mem_hit)
				snprintf(msg, sizeof(msg), "out of memory: the query needs more than "
					 "%llu MiB (the server's limit per query)",
					 (unsigned long long)(o->max_query_mem >> 20));
			else
				snprintf(msg, sizeof(msg), "%s", sqlite3_errmsg(c->db));
			sqlite3_finalize(st);
			send_error(c, c->timed_out ? PROTO_ERR_TIMEOUT : mem_hit ? SQLITE_NOMEM : rc,
				   -1, msg);
			return;
		}
		if (c->timed_out) {
			sqlite3_finalize(st);
			send_error(c, PROTO_ERR_TIMEOUT, -1, "query timed out");
			return;
		}
		if (j->row_limit && rows >= j->row_limit) {
			/* Cut if a row was left: this statement's next,
			 * or a statement after it not run. */
			limit_cut = sqlite3_step(st) == SQLITE_ROW ||
				    sql_has_statement(tail);
			break;
		}
		sqlite3_finalize(st);
		st = NULL;
		sql = tail;
		if (c->out.len >= PROTO_ROWS_BATCH_BYTES && flush_out(c))
			break;
	}
	sqlite3_finalize(st);
	proto_put_end(&c->out, rows, (now_ns() - start) / 1000,
		      limit_cut ? PROTO_END_LIMIT_CUT : 0);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct server *s = w->srv;
	struct job *j;

	for (;;) {
		pthread_mutex_lock(&s->lock);
		s->idle++;
		while (!s->head && !s->stop)
			pthread_cond_wait(&s->work, &s->lock);
		s->idle--;
		if (!s->head) {
			pthread_mutex_unlock(&s->lock);
			return NULL;
		}
		j = s->head;
		s->head = j->next;
		if (!s->head)
			s->tail = NULL;
		s->queued--;
		pthread_mutex_unlock(&s->lock);

		struct proto_buf last = { 0 };

		if (!j->conn->closed) {
			mem_query_start(s->o->max_query_mem);
			run_job(w, j);
			mem_query_end();
			pthread_mutex_lock(&w->mu);
			if (w->conn) {
				pthread_mutex_lock(&s->wd_mu);
				s->running--;
				pthread_mutex_unlock(&s->wd_mu);
			}
			w->conn = NULL;
			pthread_mutex_unlock(&w->mu);
			sqlite3_progress_handler(w->db, 0, NULL, NULL);
			j->conn->db = NULL;
		}
		/* Free before the final frame goes out (a client may send its
		 * next query the moment it reads the 'E'), and the frame taken
		 * out of the connection's buffer, which the next query owns. */
		if (j->conn->uid != 0)
			uid_release(s, j->conn->uid, 0, 1);
		last = j->conn->out;
		memset(&j->conn->out, 0, sizeof(j->conn->out));
		pthread_mutex_lock(&j->conn->lock);
		j->conn->busy = 0;
		pthread_mutex_unlock(&j->conn->lock);
		if (!j->conn->closed && !last.oom && last.len)
			bufferevent_write(j->conn->bev, last.data, last.len);
		proto_buf_free(&last);
		conn_put(j->conn);
		free(j);
	}
}

/* An error answer to a request that is refused (the connection stays). */
static void send_busy(struct conn *c, const char *msg)
{
	struct proto_buf b = { 0 };

	proto_put_error(&b, PROTO_ERR_BUSY, -1, msg);
	if (!b.oom)
		bufferevent_write(c->bev, b.data, b.len);
	proto_buf_free(&b);
}

static void protocol_error(struct conn *c, const char *msg)
{
	struct proto_buf b = { 0 };

	proto_put_error(&b, PROTO_ERR_FRAME, -1, msg);
	if (!b.oom)
		bufferevent_write(c->bev, b.data, b.len);
	proto_buf_free(&b);
	c->closing = 1;
	bufferevent_disable(c->bev, EV_READ);
}

static void on_read(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	while (!c->closing) {
		size_t have = evbuffer_get_length(in);
		struct proto_request q;
		uint8_t hdr[4], *data;
		struct job *j;
		int rc;

		if (have < 4)
			return;
		evbuffer_copyout(in, hdr, 4);
		rc = proto_parse_request(hdr, 4, &q);
		if (rc < 0) {
			protocol_error(c, q.error);
			return;
		}
		if (have < q.frame_len)
			return;
		data = evbuffer_pullup(in, (ssize_t)q.frame_len);
		rc = data ? proto_parse_request(data, q.frame_len, &q) : 1;
		if (rc) {
			protocol_error(c, rc < 0 ? q.error : "bad frame");
			return;
		}
		pthread_mutex_lock(&c->lock);
		if (c->busy) {
			pthread_mutex_unlock(&c->lock);
			protocol_error(c, "one query at a time per connection");
			return;
		}
		/* New work is refused, clearly, when its user already has
		 * its share of the query threads, or when every thread is
		 * taken and as many wait (counted when it is queued, below;
		 * only this loop thread adds to the counts). */
		{
			struct uid_use *u = NULL;
			char msg[200];

			msg[0] = '\0';
			pthread_mutex_lock(&c->srv->lock);
			if (c->uid != 0)
				u = uid_use(c->srv, c->uid);
			if (u && u->queries >= uid_max_queries())
				snprintf(msg, sizeof(msg), "busy: uid %ld has %d queries running "
					 "or waiting, a user's share; try again when one is done",
					 (long)c->uid, uid_max_queries());
			else if (c->srv->queued >= MAX_WORKERS)
				snprintf(msg, sizeof(msg), "busy: the server is full (%d queries "
					 "waiting); try again later", MAX_WORKERS);
			pthread_mutex_unlock(&c->srv->lock);
			if (msg[0]) {
				pthread_mutex_unlock(&c->lock);
				evbuffer_drain(in, q.frame_len);
				send_busy(c, msg);
				continue;
			}
		}
		j = malloc(sizeof(*j) + q.sql_len + 1);
		if (!j) {
			pthread_mutex_unlock(&c->lock);
			protocol_error(c, "out of memory");
			return;
		}
		c->busy = 1;
		c->refs++;
		pthread_mutex_unlock(&c->lock);
		j->next = NULL;
		j->conn = c;
		j->row_limit = q.row_limit;
		j->timeout_ms = q.timeout_ms;
		j->sql_len = q.sql_len;
		memcpy(j->sql, q.sql, q.sql_len);
		j->sql[q.sql_len] = '\0';
		evbuffer_drain(in, q.frame_len);

		pthread_mutex_lock(&c->srv->lock);
		if (c->srv->tail)
			c->srv->tail->next = j;
		else
			c->srv->head = j;
		c->srv->tail = j;
		if (c->uid != 0) {
			struct uid_use *u = uid_use(c->srv, c->uid);

			if (u)
				u->queries++;	/* the worker takes it back */
		}
		/* A worker stuck on a client that does not read (until its
		 * deadline) must not make others wait: when none is idle,
		 * one more is started, up to MAX_WORKERS. */
		c->srv->queued++;
		/* Idle workers already woken but not yet running count as
		 * idle until they take a job: compare with the jobs queued. */
		if (c->srv->queued > c->srv->idle && c->srv->nthreads < MAX_WORKERS &&
		    pthread_create(&c->srv->threads[c->srv->nthreads], NULL,
				   worker_main, &c->srv->workers[c->srv->nthreads]) == 0)
			c->srv->nthreads++;
		pthread_cond_signal(&c->srv->work);
		pthread_mutex_unlock(&c->srv->lock);
	}
}

static void conn_gone(struct conn *c)
{
	pthread_mutex_lock(&c->lock);
	c->closed = 1;
	pthread_cond_broadcast(&c->drained);
	pthread_mutex_unlock(&c->lock);
	bufferevent_disable(c->bev, EV_READ | EV_WRITE);
	conn_put(c);	/* the loop's reference */
}

static void on_write(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;

	pthread_mutex_lock(&c->lock);
	pthread_cond_broadcast(&c->drained);
	pthread_mutex_unlock(&c->lock);
	if (c->closing && evbuffer_get_length(bufferevent_get_output(bev)) == 0 &&
	    !c->closed)
		conn_gone(c);
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;

	if ((what & BEV_EVENT_TIMEOUT) && !c->closed) {
		int busy;

		pthread_mutex_lock(&c->lock);
		busy = c->busy;
		pthread_mutex_unlock(&c->lock);
		if (busy) {		/* its query runs: not idle */
			bufferevent_enable(bev, EV_READ);
			return;
		}
		log_debug("serve: closing a connection of uid %ld idle for %d s",
			  (long)c->uid, IDLE_TIMEOUT_S);
		conn_gone(c);
		return;
	}
	if ((what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) && !c->closed)
		conn_gone(c);
}

/* Root and the members of group commd may query, nobody else: not the
 * user the server runs as (nobody, where there is no user commd, is every
 * unprivileged daemon's user), not its group when it is not commd's. The
 * socket's mode says so too, this says it again. */
static int peer_allowed(struct server *s, int fd, struct ucred *peer)
{
	struct ucred cred = { .pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1 };
	socklen_t len = sizeof(cred);
	struct passwd *pw;
	gid_t groups[256];
	int n = 256;

	*peer = cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return 0;
	*peer = cred;
	if (cred.uid == 0)
		return 1;
	if (s->group == (gid_t)-1)
		return 0;		/* no group commd: root alone */
	if (cred.gid == s->group)
		return 1;
	pw = getpwuid(cred.uid);
	if (!pw || getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (groups[i] == s->group)
			return 1;
	return 0;
}

/* One error frame that says why, if the socket takes it at once; then
 * the connection is closed. */
static void refuse(int fd, int code, const char *msg)
{
	struct proto_buf b = { 0 };

	proto_put_error(&b, code, -1, msg);
	if (!b.oom && send(fd, b.data, b.len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		log_debug("serve: refused peer: %s", strerror(errno));
	proto_buf_free(&b);
	close(fd);
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd,
		      struct sockaddr *sa, int socklen, void *arg)
{
	struct server *s = arg;
	struct ucred peer;
	unsigned long quiet;
	struct conn *c;
	char msg[160];

	(void)l;
	(void)sa;
	(void)socklen;
	if (!peer_allowed(s, fd, &peer)) {
		if (ratelimit_ok(&s->log_refused, &quiet))
			log_warning("refused a connection from uid %ld gid %ld (pid %ld): "
				    "not root, nor a member of group commd%s (%lu more refused since the last such line)",
				    peer.uid == (uid_t)-1 ? -1L : (long)peer.uid,
				    peer.gid == (gid_t)-1 ? -1L : (long)peer.gid, (long)peer.pid,
				    s->group == (gid_t)-1 ? " (there is none: root alone)" : "", quiet);
		refuse(fd, PROTO_ERR_DENIED,
		       "permission denied: not root, nor a member of group commd");
		return;
	}
	if (peer.uid != 0) {
		struct uid_use *u;
		int over;

		pthread_mutex_lock(&s->lock);
		u = uid_use(s, peer.uid);
		over = !u || u->conns >= uid_max_conns(s);	/* !u: out of memory */
		pthread_mutex_unlock(&s->lock);
		if (over) {
			if (ratelimit_ok(&s->log_full, &quiet))
				log_warning("refused a connection from uid %ld (pid %ld): it has "
					    "%d open, a user's share (%lu more refused since the "
					    "last such line)", (long)peer.uid, (long)peer.pid,
					    uid_max_conns(s), quiet);
			snprintf(msg, sizeof(msg), "too many connections from uid %ld: a user "
				 "may hold %d at a time; close some, or try again later",
				 (long)peer.uid, uid_max_conns(s));
			refuse(fd, PROTO_ERR_BUSY, msg);
			return;
		}
	}
	if (s->nconns >= s->o->max_conns + (peer.uid == 0 ? ROOT_EXTRA_CONNS : 0)) {
		if (ratelimit_ok(&s->log_full, &quiet))
			log_warning("refused a connection from uid %ld (pid %ld): %d "
				    "connections open, the limit (%lu more refused since the last such line)",
				    (long)peer.uid, (long)peer.pid, s->nconns, quiet);
		snprintf(msg, sizeof(msg), "too many connections: the server takes %d at a time; "
			 "try again later", s->o->max_conns);
		refuse(fd, PROTO_ERR_BUSY, msg);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return;
	}
	s->nconns++;
	c->srv = s;
	c->refs = 1;
	c->uid = peer.uid;
	if (peer.uid != 0) {	/* its entry exists: checked above */
		pthread_mutex_lock(&s->lock);
		uid_use(s, peer.uid)->conns++;
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->drained, NULL);
	c->bev = bufferevent_socket_new(s->base, fd, BEV_OPT_CLOSE_ON_FREE | BEV_OPT_THREADSAFE);
	if (!c->bev) {
		close(fd);
		conn_free_cb(-1, 0, c);
		return;
	}
	bufferevent_setcb(c->bev, on_read, on_write, on_event, c);
	bufferevent_setwatermark(c->bev, EV_WRITE, OUT_LOW, 0);
	{
		/* A connection that sends nothing for a minute is closed. */
		struct timeval idle = { IDLE_TIMEOUT_S, 0 };

		bufferevent_set_timeouts(c->bev, &idle, NULL);
	}
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
}

/* The deadline is the deadline: a query running past it is interrupted
 * within a few ms, whatever it does (the progress handler alone looks
 * only every 1000 VM steps, and one step can take seconds). */
static void *watchdog_main(void *arg)
{
	struct server *s = arg;
	const struct timespec tick = { 0, 5000000 };

	while (!stopping) {
		uint64_t now;
		int n;

		pthread_mutex_lock(&s->wd_mu);
		while (!s->running && !stopping)
			pthread_cond_wait(&s->wd_cond, &s->wd_mu);
		pthread_mutex_unlock(&s->wd_mu);
		now = now_ns();

		pthread_mutex_lock(&s->lock);
		n = s->nthreads;
		pthread_mutex_unlock(&s->lock);
		for (int i = 0; i < n; i++) {
			struct worker *w = &s->workers[i];

			pthread_mutex_lock(&w->mu);
			if (w->conn && now > w->conn->deadline_ns) {
				w->conn->timed_out = 1;
				sqlite3_interrupt(w->db);
			}
			pthread_mutex_unlock(&w->mu);
		}
		nanosleep(&tick, NULL);
	}
	return NULL;
}

static void close_workers(struct server *s)
{
	if (!s->workers)
		return;
	for (int i = 0; i < MAX_WORKERS; i++) {
		sqlite3_close(s->workers[i].db);
		pthread_mutex_destroy(&s->workers[i].mu);
	}
	free(s->workers);
	s->workers = NULL;
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	event_base_loopexit(arg, NULL);
}

/* Root becomes the server user: supplementary groups, gid, uid, no
 * capability in any set and no way back (no new privileges).  When a group
 * commd exists (the socket's and the shared database's group) the server
 * is in it whatever its user:
 * with a group but no user commd it runs as nobody with gid commd, so it
 * can still read the database and let the socket's group in. */
static int drop_privileges(const char *name, gid_t *group)
{
	const char *user = name;
	struct group *gr = getgrnam("commd");
	gid_t groups[2];
	int ngroups = 1;
	char err[256];
	uid_t uid;
	gid_t gid;

	if (!user)
		user = getpwnam("commd") ? "commd" : "nobody";
	if (privs_user(user, &uid, &gid)) {
		log_error("serve: no user %s", user);
		return -1;
	}
	if (gr && !name && strcmp(user, "nobody") == 0)
		gid = gr->gr_gid;
	groups[0] = gid;
	if (gr && gr->gr_gid != gid)
		groups[ngroups++] = gr->gr_gid;
	*group = gr ? gr->gr_gid : (gid_t)-1;	/* who may query besides root */
	if (privs_drop(uid, gid, groups, ngroups, err, sizeof(err))) {
		log_error("serve: becoming %s: %s", user, err);
		return -1;
	}
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* Queries run at normal priority: the capture side's nice -10 (the
	 * reader must keep up) is not theirs.  Raising nice needs nothing. */
	errno = 0;
	if (getpriority(PRIO_PROCESS, 0) < 0 && errno == 0)
		setpriority(PRIO_PROCESS, 0, 0);
	return 0;
}

int server_run(const struct server_opts *o)
{
	struct server s = { .o = o };
	struct event *sigterm = NULL, *sigint = NULL;
	int rc = 1;

	pid_t parent = o->parent > 0 ? o->parent : getppid();

	log_set_program("commd serve");
	sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
	if (mem_install()) {
		log_error("serve: cannot count SQLite's memory");
		return 1;
	}
	if (memtemp_register() != SQLITE_OK) {
		log_error("serve: cannot register the in-memory temporary files");
		return 1;
	}
	/* Every connection a query will ever run on is opened now, as root:
	 * the database need not be readable by the user the server becomes
	 * (0600 without a group commd). */
	s.workers = calloc(MAX_WORKERS, sizeof(*s.workers));
	if (!s.workers)
		return 1;
	for (int i = 0; i < MAX_WORKERS; i++) {
		s.workers[i].srv = &s;
		pthread_mutex_init(&s.workers[i].mu, NULL);
		s.workers[i].db = open_query_db(o->db);
		if (!s.workers[i].db) {
			log_error("serve: %s: cannot open the database", o->db);
			close_workers(&s);
			return 1;
		}
	}
	if (drop_privileges(o->user, &s.group)) {
		close_workers(&s);
		return 1;
	}
	/* Go when the capture side goes, even by SIGKILL (set after the
	 * credentials changed: that clears it). */
	prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
	if (getppid() != parent)
		return 0;
	signal(SIGPIPE, SIG_IGN);
	/* The query process writes no file (temporary data is memory): a
	 * file it would grow past 16 MiB fails with EFBIG, not a signal. */
	{
		struct rlimit fsize = { 16 << 20, 16 << 20 };

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &fsize);
	}
	/* Room for every connection's socket, and the workers' databases. */
	struct rlimit nofile;

	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 &&
	    nofile.rlim_cur < (rlim_t)o->max_conns * 3 + 64) {
		nofile.rlim_cur = (rlim_t)o->max_conns * 3 + 64;
		if (nofile.rlim_max != RLIM_INFINITY && nofile.rlim_cur > nofile.rlim_max)
			nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	if (evthread_use_pthreads()) {
		log_error("serve: libevent without threads");
		return 1;
	}
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.work, NULL);
	pthread_mutex_init(&s.wd_mu, NULL);
	pthread_cond_init(&s.wd_cond, NULL);
	s.base = event_base_new();
	if (!s.base)
		goto out;
	evutil_make_socket_nonblocking(o->listen_fd);
	s.listener = evconnlistener_new(s.base, on_accept, &s,
					LEV_OPT_CLOSE_ON_FREE | LEV_OPT_THREADSAFE,
					-1, o->listen_fd);
	sigterm = evsignal_new(s.base, SIGTERM, on_signal, s.base);
	sigint = evsignal_new(s.base, SIGINT, on_signal, s.base);
	if (!s.listener || !sigterm || !sigint || evsignal_add(sigterm, NULL) ||
	    evsignal_add(sigint, NULL)) {
		log_error("serve: cannot set up the event loop");
		goto out;
	}
	s.threads = calloc(MAX_WORKERS, sizeof(*s.threads));
	if (!s.threads)
		goto out;
	for (int i = 0, n = o->workers > 0 ? o->workers : 4; i < n && i < MAX_WORKERS; i++) {
		if (pthread_create(&s.threads[i], NULL, worker_main, &s.workers[i]))
			goto out;
		s.nthreads = i + 1;
	}
	if (pthread_create(&s.watchdog, NULL, watchdog_main, &s))
		goto out;
	s.watchdog_started = 1;
	event_base_dispatch(s.base);
	rc = 0;
out:
	/* The socket goes first: a commd started right after this one's
	 * capture died finds it stale while the workers still finish. */
	if (s.listener) {
		evconnlistener_free(s.listener);
		s.listener = NULL;
	}
	pthread_mutex_lock(&s.wd_mu);
	stopping = 1;
	pthread_cond_broadcast(&s.wd_cond);
	pthread_mutex_unlock(&s.wd_mu);
	pthread_mutex_lock(&s.lock);
	s.stop = 1;
	pthread_cond_broadcast(&s.work);
	pthread_mutex_unlock(&s.lock);
	for (int i = 0; i < s.nthreads; i++)
		pthread_join(s.threads[i], NULL);
	if (s.watchdog_started)
		pthread_join(s.watchdog, NULL);
	close_workers(&s);
	free(s.uses);
	free(s.threads);
	if (s.listener)
		evconnlistener_free(s.listener);
	if (sigterm)
		event_free(sigterm);
	if (sigint)
		event_free(sigint);
	if (s.base)
		event_base_free(s.base);
	return rc;
}
