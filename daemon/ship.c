/* ship.c — see ship.h.
 *
 * The tables (the same name in SQLite and in ClickHouse):
 *   event views   sched_switch, sched_wakeup, ... , events: every stored
 *                 event with its names resolved, as the views give them
 *   sched, wakeup_latency, lost_events
 *                 the derived rows and the losses
 *   comm_history  every name a task had (its end_ts as known at the round's
 *                 frontier: a row is sent again when its end is known)
 *   capture, stats
 *                 this boot's captures and their counters, sent again every
 *                 round (they change while a capture runs)
 * Each row gets host and boot; the time-keyed ones also time (the wall
 * clock, seconds, for partitions) and n (rows of one ts, in the order the
 * view gives them; sched's rows of one ts and CPU, with the CPU), their
 * key being (host, boot, ts, n).  The columns of
 * each view are read from the database itself (pragma table_info), so the
 * DDL and what is sent follow the schema.
 */
#define _GNU_SOURCE
#include "ship.h"
#include "grow.h"
#include "store.h"
#include "privs.h"
#include "log.h"
#include "sqlfuncs.h"
#include "chttp.h"
#include "numtext.h"
#include "live.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <libdeflate.h>

enum kind { K_TIME, K_SCHED, K_COMM, K_CAPTURE, K_STATS, K_LOST };

static const struct table {
	const char *name;
	enum kind kind;
} tables[] = {
	{ "sched_switch", K_TIME }, { "sched_wakeup", K_TIME },
	{ "sched_wakeup_new", K_TIME }, { "sched_waking", K_TIME },
	{ "sched_process_fork", K_TIME }, { "sched_process_exec", K_TIME },
	{ "sched_process_exit", K_TIME }, { "sched_process_free", K_TIME },
	{ "sched_migrate_task", K_TIME }, { "sched_stat_runtime", K_TIME },
	{ "task_newtask", K_TIME }, { "task_rename", K_TIME }, { "events", K_TIME },
	{ "sched", K_SCHED }, { "wakeup_latency", K_TIME }, { "lost_events", K_LOST },
	{ "comm_history", K_COMM }, { "capture", K_CAPTURE }, { "stats", K_STATS },
};
#define NTABLES (sizeof(tables) / sizeof(*tables))

#define MAX_COLS	32
#define MAX_ROWS	1000000		/* rows in one INSERT */
#define BOOT_MARGIN_NS	(60 * 1000000000LL)	/* comm_history rows before a capture's start */

struct column {
	char name[64];
	enum { C_INT, C_TEXT, C_REAL } type;
	bool key;			/* in the key: never NULL there */
};

struct tstate {
	struct column cols[MAX_COLS];
	int ncols;
	bool have_cursor;
	int64_t cursor;			/* shipped up to this ts */
	int64_t round_to;		/* lost_events (no cursor): this round's
					 * batches sent up to this ts */
	bool held;			/* wakeup_latency: its last round stopped
					 * short of the frontier, at a wakeup
					 * still pending (its cursor is behind) */
};

/* sched, per CPU: a slice's row is stored when it ends, so each CPU's
 * rows are shipped up to the slice it still runs, however long that has
 * been open, and no further; the other CPUs' rows do not wait for it. */
struct cpu_ship {
	int64_t cur;			/* its rows shipped up to this ts */
	int64_t fs;			/* this round: its rows final up to here */
	int64_t last_sw;		/* its newest switch seen (INT64_MIN: none) */
};

struct shipper {
	sqlite3 *db;
	int read_failed;		/* int_of: a read failed this round */
	const char *host, *boot, *database;
	char *auth;			/* "Basic ..." or NULL */
	struct chttp ch;		/* the URL, and the connection */
	struct tstate t[NTABLES];
	int64_t boot_lo;		/* this boot's first capture start */
	int64_t lo_floor;		/* ?3: boot_lo less BOOT_MARGIN_NS, but
					 * after the boot before's last end + 1 */
	int64_t boot_hi;		/* an earlier boot's last capture end;
					 * INT64_MAX for this boot */
	int earlier_done;		/* earlier boots' rows all shipped */
	/* realtime - ts per capture of the boot, from its newest clock
	 * reading (one without: its neighbour's), by start_ts ascending: a
	 * row's time is its capture's (a time-of-day step between two
	 * captures, or a clock of another kind, moves only the later's) */
	struct cap_off { int64_t start, off; } *offs;
	size_t noffs, offs_cap;
	int cpus;
	struct cpu_ship *cs;		/* sched's CPUs, ncs of them */
	int ncs;
	int64_t sw_seen;		/* switches read up to (INT64_MIN: none) */
	uint64_t failures;
	time_t last_warning;
	uint64_t round_ns;		/* CLOCK_REALTIME at the round */
	int gzip;			/* bodies sent gzip'ed (Content-Encoding) */
	struct libdeflate_compressor *zc; /* made at the first gzip'ed body */
	char *rows;			/* the rows' block buffer (struct out), */
	size_t rows_cap;		/* kept from batch to batch */
	int local;			/* -1: not known yet; 1: a cluster's
					 * T_local tables take the rows */
};

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

/* ---- columns ---- */

static int read_columns(sqlite3 *db, const char *table, struct tstate *t)
{
	sqlite3_stmt *st;
	int rc;

	t->ncols = 0;
	if (sqlite3_prepare_v2(db, "SELECT name, type FROM pragma_table_info(?)", -1, &st,
			       NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && t->ncols < MAX_COLS) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);
		struct column *c;

		/* capture's own host and boot: every row has them already;
		 * a loss's from_ts (schema 031) stays local, a cluster made
		 * before it takes the rows as they were */
		if (name && (!strcmp(name, "host") || !strcmp(name, "boot") ||
			     (!strcmp(table, "lost_events") && !strcmp(name, "from_ts"))))
			continue;
		c = &t->cols[t->ncols++];

		snprintf(c->name, sizeof(c->name), "%s", name ? name : "?");
		if (type && !strcasecmp(type, "TEXT"))
			c->type = C_TEXT;
		else if (type && !strcasecmp(type, "REAL"))
			c->type = C_REAL;
		else if (type && *type)
			c->type = C_INT;
		else	/* an expression in a view: comm's coalesce, or a flag */
			c->type = strstr(c->name, "comm") ? C_TEXT : C_INT;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? (t->ncols ? 0 : -1) : -1;
}

/* Keyed by (host, boot, ts, n), with the wall clock's time. */
static bool timed_kind(enum kind k)
{
	return k == K_TIME || k == K_SCHED || k == K_LOST;
}

/* Shipped from a cursor that ClickHouse's data gives. */
static bool cursor_kind(enum kind k)
{
	return k == K_TIME || k == K_SCHED || k == K_COMM;
}

static bool key_column(enum kind k, const char *name)
{
	switch (k) {
	case K_TIME:
	case K_SCHED:
	case K_LOST:
		return !strcmp(name, "ts");
	case K_COMM:
	case K_CAPTURE:
		return !strcmp(name, "id");
	case K_STATS:
		return !strcmp(name, "capture") || !strcmp(name, "name") ||
		       !strcmp(name, "cpu");
	}
	return false;
}

static const char *ch_type(const struct column *c, bool key)
{
	if (key)
		return c->type == C_TEXT ? "String" : "Int64";
	return c->type == C_TEXT ? "Nullable(String)" : c->type == C_REAL ?
	       "Nullable(Float64)" : "Nullable(Int64)";
}

/* ---- DDL ---- */

static void print_ddl(FILE *f, const char *database, const char *cluster,
		      const struct table *tb, const struct tstate *t)
{
	bool timed = timed_kind(tb->kind);

	fprintf(f, "CREATE TABLE IF NOT EXISTS %s.%s%s (\n  host String,\n  boot String",
		database, tb->name, cluster ? "_local" : "");
	if (timed)
		fprintf(f, ",\n  time DateTime,\n  n UInt32");
	for (int i = 0; i < t->ncols; i++)
		fprintf(f, ",\n  %s %s", t->cols[i].name,
			ch_type(&t->cols[i], key_column(tb->kind, t->cols[i].name)));
	fprintf(f, ",\n  ver UInt64\n) ENGINE = ReplacingMergeTree(ver)\n");
	if (timed)
		fprintf(f, "PARTITION BY toYYYYMMDD(time)\nORDER BY (host, boot, ts, n);\n");
	else if (tb->kind == K_STATS)
		fprintf(f, "PARTITION BY tuple()\nORDER BY (host, boot, capture, name, cpu);\n");
	else
		fprintf(f, "PARTITION BY tuple()\nORDER BY (host, boot, id);\n");
	if (cluster)
		fprintf(f, "CREATE TABLE IF NOT EXISTS %s.%s AS %s.%s_local\n"
			"ENGINE = Distributed(%s, %s, %s_local, cityHash64(host));\n",
			database, tb->name, database, tb->name, cluster, database, tb->name);
	fputc('\n', f);
}

int cmd_clickhouse_schema(int argc, char **argv)
{
	const char *cluster = NULL, *database = "commd";
	sqlite3 *db = NULL;
	int ret = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cluster") && i + 1 < argc)
			cluster = argv[++i];
		else if (!strcmp(argv[i], "--database") && i + 1 < argc)
			database = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: commd clickhouse-schema [--cluster NAME] [--database DB]\n"
			       "\n"
			       "Prints the ClickHouse tables commd --clickhouse ships to, in\n"
			       "database DB (default commd): ReplacingMergeTree tables, read\n"
			       "with FINAL; with --cluster, each table's shard as TABLE_local\n"
			       "and TABLE a Distributed table over cluster NAME (docs/fleet.md).\n");
			return 0;
		} else {
			fprintf(stderr, "usage: commd clickhouse-schema [--cluster NAME] "
				"[--database DB]\n");
			return 2;
		}
	}
	for (const char *p = cluster ? cluster : ""; *p; p++)
		if (!(*p == '_' || (*p >= '0' && *p <= '9') || ((*p | 32) >= 'a' && (*p | 32) <= 'z'))) {
			log_error("--cluster %s: letters, digits and '_' only", cluster);
			return 2;
		}
	for (const char *p = database; *p; p++)
		if (!(*p == '_' || (*p >= '0' && *p <= '9') || ((*p | 32) >= 'a' && (*p | 32) <= 'z'))) {
			log_error("--database %s: letters, digits and '_' only", database);
			return 2;
		}
	/* the columns of this version's schema, from a new database */
	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		goto out;
	if (sqlite3_exec(db, commd_schema_fresh, NULL, NULL, NULL) != SQLITE_OK) {
		log_error("schema: %s", sqlite3_errmsg(db));
		goto out;
	}
	printf("-- commd %d: the tables `commd --clickhouse` ships to (docs/fleet.md).\n"
	       "-- Read them with FINAL: a row sent twice (a retry) is then one row.\n",
	       commd_schema_count);
	printf("CREATE DATABASE IF NOT EXISTS %s;\n\n", database);
	/* what retention cut before it was shipped (max-db-mb forced it) */
	printf("CREATE TABLE IF NOT EXISTS %s.gaps%s (\n  host String,\n  boot String,\n"
	       "  from_ts Int64,\n  to_ts Int64,\n  ver UInt64\n) ENGINE = ReplacingMergeTree(ver)\n"
	       "PARTITION BY tuple()\nORDER BY (host, boot, from_ts);\n", database,
	       cluster ? "_local" : "");
	if (cluster)
		printf("CREATE TABLE IF NOT EXISTS %s.gaps AS %s.gaps_local\n"
		       "ENGINE = Distributed(%s, %s, gaps_local, cityHash64(host));\n",
		       database, database, cluster, database);
	printf("\n");
	for (size_t i = 0; i < NTABLES; i++) {
		struct tstate t;

		if (read_columns(db, tables[i].name, &t) < 0) {
			log_error("%s: no such table or view", tables[i].name);
			goto out;
		}
		print_ddl(stdout, database, cluster, &tables[i], &t);
	}
	ret = fflush(stdout) ? 1 : 0;
out:
	sqlite3_close(db);
	return ret;
}

/* ---- HTTP ---- */

static void url_escape(struct evbuffer *out, const char *s)
{
	char *e = evhttp_encode_uri(s);

	if (e) {
		evbuffer_add(out, e, strlen(e));
		free(e);
	}
}

/* POSTs body (may be NULL; gzipped: a gzip stream, out_begin's) with
 * query sql; the answer into out (NUL terminated).  Returns the HTTP
 * status, 0 when there was none. */
static int ch_post_gz(struct shipper *sh, const char *sql, struct evbuffer *body,
		      bool gzipped, struct evbuffer *out)
{
	struct evbuffer *params = evbuffer_new();
	const char *headers[5];
	size_t nh = 0;
	int status = 0;

	if (!params)
		return 0;
	evbuffer_add_printf(params, "&query=");
	url_escape(params, sql);
	evbuffer_add(params, "", 1);
	if (sh->auth) {
		headers[nh++] = "Authorization";
		headers[nh++] = sh->auth;
	}
	if (body && gzipped) {
		headers[nh++] = "Content-Encoding";
		headers[nh++] = "gzip";
	}
	headers[nh] = NULL;
	status = chttp_post(&sh->ch, (const char *)evbuffer_pullup(params, -1), headers,
			    body, out);
	evbuffer_add(out, "", 1);
	evbuffer_free(params);
	return status;
}

static int ch_post(struct shipper *sh, const char *sql, struct evbuffer *body,
		   struct evbuffer *out)
{
	return ch_post_gz(sh, sql, body, false, out);
}

static void ship_warn(struct shipper *sh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The captures' clock offsets of the boot (struct cap_off). 0, or -1. */
static int read_offsets(struct shipper *sh)
{
	sqlite3_stmt *st = NULL;
	size_t known = 0;
	int rc;

	sh->noffs = 0;
	if (sqlite3_prepare_v2(sh->db, "SELECT c.start_ts, (SELECT m.realtime - m.ts FROM clock_map m"
			       " WHERE m.capture = c.id ORDER BY m.ts DESC LIMIT 1)"
			       " FROM capture c WHERE c.boot = ?1 ORDER BY c.start_ts, c.id",
			       -1, &st, NULL) != SQLITE_OK) {
		ship_warn(sh, "reading the captures' clocks: %s", sqlite3_errmsg(sh->db));
		return -1;
	}
	sqlite3_bind_text(st, 1, sh->boot, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cap_off *o;

		if (grow_array(&sh->offs, &sh->offs_cap, sizeof(*sh->offs), sh->noffs + 1, 8))
			break;
		o = &sh->offs[sh->noffs++];
		o->start = sqlite3_column_int64(st, 0);
		/* none: the one before's (forward), or after (below) */
		if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
			o->off = sqlite3_column_int64(st, 1);
			if (!known++)
				for (size_t i = 0; i + 1 < sh->noffs; i++)
					sh->offs[i].off = o->off;
		} else {
			o->off = sh->noffs > 1 ? sh->offs[sh->noffs - 2].off : 0;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		ship_warn(sh, "reading the captures' clocks: %s", rc == SQLITE_ROW ?
			  "out of memory" : sqlite3_errmsg(sh->db));
		return -1;
	}
	return 0;
}

/* The offset of the capture ts is in: the last begun at or before it (a
 * row before the first, its names read at the start: the first's). */
static int64_t offset_at(const struct shipper *sh, int64_t ts)
{
	size_t i = sh->noffs;

	if (!i)
		return 0;
	while (i > 1 && sh->offs[i - 1].start > ts)
		i--;
	return sh->offs[i - 1].off;
}

/* The boot to ship when --boot does not say (into boot, len bytes): an
 * import's own (capture.boot: the recording's, see import.c) when the
 * database holds no live capture, else this machine's boot_id, that of
 * the captures commd makes now. 0, or -1 (logged). */
static int ship_default_boot(sqlite3 *db, const char *dbpath, char *boot, size_t len)
{
	sqlite3_stmt *st = NULL;
	int live = 1, rc = 0;
	FILE *f;

	if (sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM capture WHERE source = 'live'),"
			       " (SELECT count(*) FROM capture),"
			       " (SELECT boot FROM capture ORDER BY id DESC LIMIT 1)", -1, &st,
			       NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_int64(st, 0) == 0 && sqlite3_column_int64(st, 1) > 0) {
		const unsigned char *b = sqlite3_column_text(st, 2);

		live = 0;
		if (b)
			snprintf(boot, len, "%s", (const char *)b);
		else {
			log_error("%s: its newest capture has no boot (an import made before "
				  "imports recorded theirs): `commd import` the file again, or set "
				  "capture.boot and give it as --boot", dbpath);
			rc = -1;
		}
	}
	sqlite3_finalize(st);
	if (!live || rc)
		return rc;
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (!f || !fgets(boot, len, f)) {
		log_error("/proc/sys/kernel/random/boot_id: %s", strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	boot[strcspn(boot, "\n")] = '\0';
	return 0;
}

/* A failure, logged at most once a minute (with how many since). */
static void ship_warn(struct shipper *sh, const char *fmt, ...)
{
	time_t now = time(NULL);
	char msg[512];
	va_list ap;

	sh->failures++;
	if (!stopping && sh->last_warning && now - sh->last_warning < 60)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warning("clickhouse: %s (%" PRIu64 " failure%s in all; retrying)", msg,
		    sh->failures, sh->failures == 1 ? "" : "s");
	sh->last_warning = now;
}

/* One line of ClickHouse's answer, for a message. */
static const char *first_line(struct evbuffer *b)
{
	char *s = (char *)evbuffer_pullup(b, -1);

	if (!s)
		return "";
	s[strcspn(s, "\n")] = '\0';
	return s;
}

/* ---- TabSeparated ----
 *
 * Rows are written into a plain buffer (no printf, no evbuffer call a
 * value) and handed to the body's evbuffer in blocks, each block gzip'ed
 * on its own when the bodies are: a gzip stream may be several members
 * one after the other, which decompress to the blocks' bytes end to end
 * (RFC 1952 2.2; ClickHouse reads them so, rows cut across members
 * included, tests/fleet). The uncompressed body of a batch (up to
 * MAX_ROWS rows, some 150 MB) is never built, copied or made contiguous.
 * libdeflate compresses a whole block in one call: on a million
 * sched_switch rows 0.43 s against zlib's streaming deflate's 1.03 s (both
 * level 1), 27.7 against 30.7 MB; in `commd ship`, 2/3 of zlib's time.
 * The compressor and the block buffer are the shipper's, made once. */

#define OUT_BLOCK (64u << 10)		/* a plain body's blocks */
#define OUT_ZIP_BLOCK (1u << 20)	/* a gzip member's rows */

struct out {
	char *p;
	size_t len, cap;
	uint64_t raw;			/* bytes of rows written */
	struct evbuffer *body;
	bool oom;
	bool zip;			/* blocks gzip'ed (c), one member each */
	struct libdeflate_compressor *c;
};

/* o->p[0, len) into the body as one gzip member. */
static void out_deflate(struct out *o)
{
	size_t bound = libdeflate_gzip_compress_bound(o->c, o->len), n;
	struct evbuffer_iovec v;

	if (evbuffer_reserve_space(o->body, (ev_ssize_t)bound, &v, 1) < 1 || v.iov_len < bound) {
		o->oom = true;
		return;
	}
	n = libdeflate_gzip_compress(o->c, o->p, o->len, v.iov_base, v.iov_len);
	v.iov_len = n;
	if (!n || evbuffer_commit_space(o->body, &v, 1) < 0)
		o->oom = true;
}

static void out_flush(struct out *o)
{
	if (o->len && o->zip)
		out_deflate(o);
	else if (o->len && evbuffer_add(o->body, o->p, o->len) < 0)
		o->oom = true;
	o->raw += o->len;
	o->len = 0;
}

/* The body takes the rows (gzip'ed when sh->gzip: level 1, TabSeparated
 * rows shrink about tenfold at a small cost), written in sh's buffer
 * (out_done gives it back). */
static void out_begin(struct out *o, struct evbuffer *body, struct shipper *sh)
{
	size_t cap = OUT_BLOCK;

	if (sh->gzip && !sh->zc)
		sh->zc = libdeflate_alloc_compressor(1);
	o->body = body;
	o->c = sh->gzip ? sh->zc : NULL;
	o->zip = o->c != NULL;
	o->p = sh->rows;
	o->cap = sh->rows_cap;
	if (o->zip)
		cap = OUT_ZIP_BLOCK;
	if (o->cap < cap) {
		char *p = realloc(o->p, cap);

		if (p) {
			o->p = p;
			o->cap = cap;
		}
	}
}

/* The buffer back to sh, for the next batch (when out_begin lent it). */
static void out_done(struct out *o, struct shipper *sh)
{
	if (o->p) {
		sh->rows = o->p;
		sh->rows_cap = o->cap;
	}
}

static char *out_room(struct out *o, size_t n)
{
	if (o->len + n > o->cap) {
		out_flush(o);
		if (n > o->cap) {
			char *p = realloc(o->p, n + 65536);

			if (!p) {
				o->oom = true;
				return NULL;
			}
			o->p = p;
			o->cap = n + 65536;
		}
	}
	return o->p + o->len;
}

/* A row is written at a pointer into the block (put_*), after out_room
 * made room for what follows: ROW_COL bytes a column (a number, \N, a
 * time; a text asks for its own room).  The pointer's end becomes o->len
 * (out_at) before anything else writes. */
#define ROW_COL 32

static void out_at(struct out *o, char *d)
{
	o->len = (size_t)(d - o->p);
}

static char *put_mem(char *d, const void *s, size_t n)
{
	memcpy(d, s, n);
	return d + n;
}

static char *put_int(char *d, long long v)
{
	char buf[NUMTEXT_MAX], *e = buf + sizeof(buf), *q = numtext_i64(e, v);

	return put_mem(d, q, (size_t)(e - q));
}

/* A DateTime as seconds since the epoch in ten digits, zeros in front:
 * ClickHouse 18.16 reads a number of 5 to 10 digits there, but one of
 * fewer than 5 only while 19 bytes of its read buffer follow (else
 * "Cannot parse datetime"). A capture without a wall clock (an imported
 * trace.dat) has the ts in seconds there, a few hundred: such rows failed
 * wherever a buffer ended on them. */
static char *put_wall(char *d, int64_t wall)
{
	uint64_t u = wall > 0 ? (uint64_t)wall : 0;

	if (u > 4294967295ull)
		u = 4294967295ull;	/* DateTime's last second (2106) */
	for (int i = 9; i >= 0; i--, u /= 10)
		d[i] = (char)('0' + u % 10);
	return d + 10;
}

/* The bytes TabSeparated escapes, and the letter after the backslash. */
static const char tsv_escape[256] = {
	['\\'] = '\\', ['\t'] = 't', ['\n'] = 'n', ['\r'] = 'r', ['\0'] = '0',
};

/* Text as TabSeparated escapes it; o->len is d's, and ROW_COL bytes a
 * column for the rest of the row (more columns) follow.  The pointer to
 * write on at, or NULL (no memory). */
static char *put_text(struct out *o, char *d, const unsigned char *s, int n, int more)
{
	out_at(o, d);
	d = out_room(o, 2 * (size_t)n + ROW_COL * (size_t)more);
	if (!d)
		return NULL;
	for (int i = 0; i < n; i++) {
		unsigned char c = s[i];
		char e = tsv_escape[c];

		if (!e) {
			*d++ = (char)c;
		} else {
			*d++ = '\\';
			*d++ = e;
		}
	}
	return d;
}

/* Column i of st's row (read as a value: one call into SQLite, not one a
 * question); NULL when there was no memory. */
static char *put_value(struct out *o, char *d, sqlite3_stmt *st, int i, bool key, int more)
{
	sqlite3_value *v = sqlite3_column_value(st, i);

	switch (sqlite3_value_type(v)) {
	case SQLITE_NULL:
		return key ? put_mem(d, "-1", 2) : put_mem(d, "\\N", 2);
	case SQLITE_INTEGER:
		return put_int(d, (long long)sqlite3_value_int64(v));
	case SQLITE_FLOAT: {
		char buf[ROW_COL];
		int n = snprintf(buf, sizeof(buf), "%.17g", sqlite3_value_double(v));

		return put_mem(d, buf, (size_t)n);
	}
	default: {
		const unsigned char *s = sqlite3_value_blob(v);

		return put_text(o, d, s, sqlite3_value_bytes(v), more);
	}
	}
}

/* ---- the database ---- */

/* One integer (def for none, NULL or an error); a read that failed (a
 * lock held past the busy timeout, an I/O error, no memory) sets
 * sh->read_failed: the round's frontier and holds are not to be guessed
 * from a default. */
static int64_t int_of(struct shipper *sh, const char *sql, int64_t a, const char *text,
		      int64_t def)
{
	sqlite3_stmt *st;
	int64_t v = def;
	int rc;

	if (sqlite3_prepare_v2(sh->db, sql, -1, &st, NULL) != SQLITE_OK) {
		sh->read_failed = 1;
		return def;
	}
	for (int i = 1; i <= sqlite3_bind_parameter_count(st); i++) {
		const char *name = sqlite3_bind_parameter_name(st, i);

		if (name && !strcmp(name, "?2") && text)
			sqlite3_bind_text(st, i, text, -1, SQLITE_STATIC);
		else
			sqlite3_bind_int64(st, i, a);
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		sh->read_failed = 1;
	sqlite3_finalize(st);
	return v;
}

/* The frontier: rows up to it are final.  A running capture: the newest
 * event less the settling time; an ended one: everything, to 1 ns past
 * its end (a rename's new name begins 1 ns after its event, so a rename
 * as a capture's last event begins after the capture's end: the last
 * round stopped at the end, the new name was never sent and the old one
 * stayed open in ClickHouse; the names still open end with the capture,
 * and nothing else is stored past its end). */
static int64_t frontier(struct shipper *sh, bool *running)
{
	int64_t newest = int_of(sh, "SELECT max(ts) FROM ev_sched_switch WHERE ts >= ?1",
				sh->boot_lo, NULL, INT64_MIN);
	int64_t end = int_of(sh, "SELECT max(end_ts) FROM capture WHERE boot = ?2", 0,
			     sh->boot, INT64_MIN);

	/* (a capture that died leaves end_ts NULL: only the newest counts) */
	*running = int_of(sh, "SELECT end_ts IS NULL FROM capture WHERE boot = ?2 "
			  "ORDER BY id DESC LIMIT 1", 0, sh->boot, 0) > 0;
	if (*running)
		return newest == INT64_MIN ? sh->boot_lo - 1 : newest - SHIP_SETTLE_NS;
	/* (an ended capture with no switch, as an import of a trace
	 * recorded without them: everything, to its end) */
	if (end != INT64_MIN && (newest == INT64_MIN || end + 1 > newest))
		newest = end + 1;
	return newest == INT64_MIN ? sh->boot_lo - 1 : newest;
}

/* sched's per-CPU state covers CPUs 0..n-1 (new ones: nothing shipped
 * of this boot).  0, or -1 (no memory). */
static int cpu_ship_grow(struct shipper *sh, int n)
{
	struct cpu_ship *cs;

	if (n <= sh->ncs)
		return 0;
	if (!(cs = realloc(sh->cs, (size_t)n * sizeof(*cs))))
		return -1;
	for (int c = sh->ncs; c < n; c++)
		cs[c] = (struct cpu_ship){ .cur = sh->boot_lo - 1, .fs = sh->boot_lo - 1,
					   .last_sw = INT64_MIN };
	sh->cs = cs;
	sh->ncs = n;
	return 0;
}

/* sched's frontier of each CPU: while the capture runs, its rows up to
 * its newest switch (the slice that switch began is still open, and
 * the rows after it on that CPU, parts of that slice renamed or begun by
 * inference, wait for the next); a CPU without a switch since its cursor
 * has nothing new that is final.  The switches are read once, each round
 * those since the last (a CPU idle for an hour costs nothing a round). */
static int sched_frontier(struct shipper *sh, int64_t f, bool running)
{
	sqlite3_stmt *st;
	int64_t lo = INT64_MAX;

	/* (a capture that does not say its CPUs: CPU 0's cursor stands for
	 * them all, as one cursor did before) */
	if (cpu_ship_grow(sh, sh->cpus > 0 ? sh->cpus : 1) < 0)
		return -1;
	for (int c = 0; c < sh->ncs; c++) {
		sh->cs[c].fs = f;
		if (sh->cs[c].cur < lo)
			lo = sh->cs[c].cur;
	}
	if (!running || sh->boot_hi != INT64_MAX)
		return 0;
	if (sh->sw_seen != INT64_MIN && sh->sw_seen > lo)
		lo = sh->sw_seen;
	if (lo < f) {
		if (sqlite3_prepare_v2(sh->db, "SELECT cpu, max(ts) FROM ev_sched_switch WHERE "
				       "ts > ?1 AND ts <= ?2 GROUP BY cpu", -1, &st,
				       NULL) != SQLITE_OK)
			return -1;
		sqlite3_bind_int64(st, 1, lo);
		sqlite3_bind_int64(st, 2, f);
		while (sqlite3_step(st) == SQLITE_ROW) {
			int c = sqlite3_column_int(st, 0);

			if (c < 0 || c > 65535 || cpu_ship_grow(sh, c + 1) < 0)
				continue;
			sh->cs[c].last_sw = sqlite3_column_int64(st, 1);
		}
		if (sqlite3_finalize(st) != SQLITE_OK)
			return -1;
		sh->sw_seen = f;
	}
	for (int c = 0; c < sh->ncs; c++) {
		struct cpu_ship *x = &sh->cs[c];

		x->fs = x->last_sw == INT64_MIN ? x->cur :
			x->last_sw - 1 < f ? x->last_sw - 1 : f;
	}
	return 0;
}

/* ---- a table's round ---- */

/* With the cluster's DDL, T is a Distributed table and T_local holds this
 * server's shard: rows go there (an INSERT into a Distributed table is
 * forwarded later, out of sight), and a host's rows stay on one shard. */
static const char *suffix(struct shipper *sh)
{
	if (sh->local < 0) {
		struct evbuffer *out = evbuffer_new();

		if (out && ch_post(sh, "EXISTS TABLE sched_switch_local FORMAT TabSeparated",
				   NULL, out) == 200)
			sh->local = !strcmp(first_line(out), "1");
		if (out)
			evbuffer_free(out);
	}
	return sh->local > 0 ? "_local" : "";
}

/* sched's cursor of each CPU: where its rows in ClickHouse end. */
static int ch_cpu_cursors(struct shipper *sh, size_t i)
{
	struct evbuffer *out = evbuffer_new();
	char sql[512], *line, *save = NULL;
	int status;

	if (!out || cpu_ship_grow(sh, sh->cpus > 0 ? sh->cpus : 1) < 0) {
		if (out)
			evbuffer_free(out);
		return -1;
	}
	snprintf(sql, sizeof(sql), "SELECT cpu, max(ts) FROM %s%s WHERE host = '%s' AND boot = '%s' "
		 "AND cpu IS NOT NULL GROUP BY cpu FORMAT TabSeparated", tables[i].name,
		 suffix(sh), sh->host, sh->boot);
	status = ch_post(sh, sql, NULL, out);
	if (status != 200) {
		ship_warn(sh, "reading where %s ends: %s %s", tables[i].name,
			  status ? "HTTP" : "no answer", status ? first_line(out) : "");
		evbuffer_free(out);
		sh->t[i].have_cursor = false;
		return -1;
	}
	for (int c = 0; c < sh->ncs; c++)
		sh->cs[c].cur = sh->boot_lo - 1;
	for (line = strtok_r((char *)evbuffer_pullup(out, -1), "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		long long c, max;

		if (sscanf(line, "%lld\t%lld", &c, &max) == 2 && c >= 0 && c <= 65535 &&
		    cpu_ship_grow(sh, (int)c + 1) == 0)
			sh->cs[c].cur = max;
	}
	evbuffer_free(out);
	sh->sw_seen = INT64_MIN;	/* each CPU's newest switch: read again */
	for (int c = 0; c < sh->ncs; c++)
		sh->cs[c].last_sw = INT64_MIN;
	return 0;
}

static int ch_cursor(struct shipper *sh, size_t i)
{
	struct evbuffer *out = evbuffer_new();
	char sql[512];
	const char *what = tables[i].kind == K_COMM ?
		"greatest(start_ts, ifNull(end_ts, 0))" : "ts";
	long long count = 0, max = 0;
	int status;

	if (!out)
		return -1;
	snprintf(sql, sizeof(sql), "SELECT count(), ifNull(max(%s), 0) FROM %s%s WHERE host = '%s' "
		 "AND boot = '%s' FORMAT TabSeparated", what, tables[i].name, suffix(sh),
		 sh->host, sh->boot);
	status = ch_post(sh, sql, NULL, out);
	if (status != 200 || sscanf(first_line(out), "%lld\t%lld", &count, &max) != 2) {
		ship_warn(sh, "reading where %s ends: %s %s", tables[i].name,
			  status ? "HTTP" : "no answer", status ? first_line(out) : "");
		evbuffer_free(out);
		return -1;
	}
	evbuffer_free(out);
	sh->t[i].cursor = count ? max : sh->boot_lo - 1;
	sh->t[i].have_cursor = true;
	return tables[i].kind == K_SCHED ? ch_cpu_cursors(sh, i) : 0;
}

/* Builds the SELECT of table i for rows in (lo, hi]. */
static void select_sql(struct shipper *sh, size_t i, char *sql, size_t size)
{
	const struct table *tb = &tables[i];
	int n = snprintf(sql, size, "SELECT ");

	for (int c = 0; c < sh->t[i].ncols; c++)
		n += snprintf(sql + n, size - n, "%s\"%s\"", c ? ", " : "", sh->t[i].cols[c].name);
	switch (tb->kind) {
	case K_TIME:
	case K_SCHED:
		/* in time order, and each ts's rows in an order that reading
		 * them again gives again (their n): the order of the tables'
		 * keys (ts, cpu, n) or indexes; wakeup_latency's cpu is that
		 * of the run, not of its key, and ordering by it too would
		 * have SQLite sort every ts's rows apart (a temporary b-tree
		 * cleared for each: a third of the view's cost).  No LIMIT:
		 * the batch ends at the first new ts after MAX_ROWS rows sent
		 * (ship_table), and a LIMIT there ended it too, at a row
		 * whose ts went on or after rows skipped as sent, as if the
		 * table were done: the rows after it were never sent. */
		snprintf(sql + n, size - n, " FROM \"%s\" WHERE ts > ?1 AND ts <= ?2 "
			 "ORDER BY ts%s", tb->name,
			 strcmp(tb->name, "wakeup_latency") ? ", cpu" : "");
		break;
	case K_COMM:
		snprintf(sql + n, size - n, " FROM comm_history WHERE start_ts >= ?3 AND "
			 "((start_ts > ?1 AND start_ts <= ?2) OR (end_ts > ?1 AND end_ts <= ?2))");
		break;
	case K_LOST:	/* few, and stored late too (the span a crash lost) */
		snprintf(sql + n, size - n, " FROM lost_events WHERE ts >= ?3 AND ts <= ?2 "
			 "ORDER BY ts, cpu");
		break;
	case K_CAPTURE:
		snprintf(sql + n, size - n, " FROM capture WHERE boot = ?4");
		break;
	case K_STATS:
		snprintf(sql + n, size - n, " FROM stats WHERE capture IS NULL OR capture IN "
			 "(SELECT id FROM capture WHERE boot = ?4)");
		break;
	}
}

/* Sends table i's rows up to f.  Returns 0 (cursor moved), -1. */
static int ship_table(struct shipper *sh, size_t i, int64_t f, uint64_t *sent)
{
	const struct table *tb = &tables[i];
	struct tstate *t = &sh->t[i];
	bool timed = timed_kind(tb->kind);
	char sql[4096], ins[256];
	sqlite3_stmt *st;
	struct evbuffer *body = evbuffer_new(), *out = evbuffer_new();
	int64_t prev_ts = INT64_MIN, last_ts = INT64_MIN, cut = INT64_MAX;
	int64_t rows = 0, end_col = -1, ts_col = 0, cpu_col = -1, lo = t->cursor;
	int64_t prev_cpu = -1;
	uint32_t n = 0;
	int rc, status, ret = -1;
	bool per_cpu = tb->kind == K_SCHED;
	struct out o = { 0 };
	char prefix[SHIP_HOST_MAX + 80], *d;
	size_t plen;

	if (!body || !out)
		goto out;
	if (per_cpu) {
		/* from the oldest cursor of a CPU with rows to ship, to the
		 * newest frontier; each row against its own CPU's */
		lo = INT64_MAX;
		f = INT64_MIN;
		for (int c = 0; c < sh->ncs; c++)
			if (sh->cs[c].fs > sh->cs[c].cur) {
				lo = sh->cs[c].cur < lo ? sh->cs[c].cur : lo;
				f = sh->cs[c].fs > f ? sh->cs[c].fs : f;
			}
		if (lo == INT64_MAX) {	/* nothing new is final */
			for (int c = 0; c < sh->ncs; c++)
				if (sh->cs[c].fs > t->cursor)
					t->cursor = sh->cs[c].fs;
			ret = 0;
			goto out;
		}
	} else if (cursor_kind(tb->kind) && timed && f <= t->cursor) {
		ret = 0;
		goto out;
	}
	select_sql(sh, i, sql, sizeof(sql));
	if (sqlite3_prepare_v2(sh->db, sql, -1, &st, NULL) != SQLITE_OK) {
		ship_warn(sh, "%s: %s", tb->name, sqlite3_errmsg(sh->db));
		goto out;
	}
	out_begin(&o, body, sh);
	/* every row's first two columns */
	plen = (size_t)snprintf(prefix, sizeof(prefix), "%s\t%s", sh->host, sh->boot);
	if (plen >= sizeof(prefix)) {
		ship_warn(sh, "host and boot: longer than %zu bytes", sizeof(prefix) - 1);
		sqlite3_finalize(st);
		goto out;
	}
	for (int p = 1; p <= sqlite3_bind_parameter_count(st); p++) {
		const char *name = sqlite3_bind_parameter_name(st, p);

		if (!name)
			continue;
		if (!strcmp(name, "?1"))
			sqlite3_bind_int64(st, p, lo);
		else if (!strcmp(name, "?2"))
			sqlite3_bind_int64(st, p, f);
		else if (!strcmp(name, "?3"))
			/* a capture's start_ts becomes its first event's when it
			 * ends; the names read from /proc are from before that.
			 * lost_events, read whole each round, goes on after
			 * this round's full batches (it asked the same rows
			 * again for ever past MAX_ROWS of them) */
			sqlite3_bind_int64(st, p, tb->kind == K_LOST && t->round_to != INT64_MIN &&
					   t->round_to + 1 > sh->lo_floor ? t->round_to + 1 : sh->lo_floor);
		else
			sqlite3_bind_text(st, p, sh->boot, -1, SQLITE_STATIC);
	}
	for (int c = 0; c < t->ncols; c++) {
		if (!strcmp(t->cols[c].name, "end_ts"))
			end_col = c;
		if (!strcmp(t->cols[c].name, "ts"))
			ts_col = c;	/* lost_events has it second */
		if (!strcmp(t->cols[c].name, "cpu"))
			cpu_col = c;
	}
	if (per_cpu && cpu_col < 0) {
		ship_warn(sh, "%s: no column cpu", tb->name);
		sqlite3_finalize(st);
		goto out;
	}
	/* a full batch ends where ts changes: the rest waits for the next */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t ts = timed ? sqlite3_column_int64(st, (int)ts_col) : 0;
		int end_null = end_col >= 0 ? sqlite3_column_type(st, (int)end_col) == SQLITE_NULL : 1;
		int64_t end = end_null ? 0 : sqlite3_column_int64(st, (int)end_col);
		int64_t cpu = -1;

		if (per_cpu) {
			cpu = sqlite3_column_int64(st, (int)cpu_col);
			/* a CPU outside the capture's count: shipped, never
			 * lost (again the same key when read again) */
			if (cpu >= 0 && cpu < sh->ncs &&
			    (ts <= sh->cs[cpu].cur || ts > sh->cs[cpu].fs))
				continue;
		}
		if (timed && ++rows > MAX_ROWS && ts != last_ts) {
			cut = last_ts;
			break;
		}
		last_ts = ts;
		/* room for the row but its texts (each asks for its own) */
		if (!(d = out_room(&o, plen + ROW_COL * (size_t)(t->ncols + 3))))
			break;
		d = put_mem(d, prefix, plen);
		if (timed) {
			int64_t wall = (ts + offset_at(sh, ts)) / 1000000000;

			if (per_cpu) {
				/* rows of one ts and CPU: one round ships them
				 * all, in the view's order; their CPU in n, so
				 * that each CPU's rows can go in a round of
				 * their own (and clear of the n that shippers
				 * before gave: rows of one ts, from 0) */
				n = ts == prev_ts && cpu == prev_cpu ? n + 1 :
				    0x80000000u | (uint32_t)(cpu & 0x7fff) << 16;
				prev_cpu = cpu;
			} else {
				n = ts == prev_ts ? n + 1 : 0;
			}
			prev_ts = ts;
			*d++ = '\t';
			d = put_wall(d, wall);
			*d++ = '\t';
			d = put_int(d, n);
		}
		for (int c = 0; c < t->ncols && d; c++) {
			*d++ = '\t';
			/* a name's end comes as known at the frontier */
			if (c == end_col && !end_null && end > f)
				d = put_mem(d, "\\N", 2);
			else
				d = put_value(&o, d, st, c, t->cols[c].key, t->ncols - c + 2);
		}
		if (!d)
			break;
		*d++ = '\t';
		d = put_int(d, tb->kind == K_COMM ? (!end_null && end <= f ? end : 0) :
			    timed ? 0 : (long long)sh->round_ns);
		*d++ = '\n';
		out_at(&o, d);
	}
	sqlite3_finalize(st);
	out_flush(&o);	/* the rest of the rows into the body */
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		ship_warn(sh, "%s: reading: %s", tb->name, sqlite3_errmsg(sh->db));
		goto out;
	}
	if (o.oom) {
		ship_warn(sh, "%s: %s", tb->name, strerror(ENOMEM));
		goto out;
	}
	if (cut != INT64_MAX)
		f = cut;	/* shipped up to there; the caller asks again */
	if (o.raw) {
		snprintf(ins, sizeof(ins), "INSERT INTO %s%s FORMAT TabSeparated", tb->name,
			 suffix(sh));
		status = ch_post_gz(sh, ins, body, o.zip, out);
		if (status != 200) {
			ship_warn(sh, "inserting into %s: %s %s", tb->name,
				  status ? "HTTP" : "no answer", status ? first_line(out) : "");
			t->have_cursor = false;	/* it may have landed: ask again */
			goto out;
		}
		*sent += o.raw;
	}
	if (per_cpu) {
		for (int c = 0; c < sh->ncs; c++)
			if (sh->cs[c].fs > sh->cs[c].cur)
				sh->cs[c].cur = sh->cs[c].fs < f ? sh->cs[c].fs : f;
	}
	if (cursor_kind(tb->kind))
		t->cursor = f;
	if (tb->kind == K_LOST && cut != INT64_MAX)
		t->round_to = cut;
	ret = cut != INT64_MAX ? 1 : 0;
out:
	out_done(&o, sh);
	if (body)
		evbuffer_free(body);
	if (out)
		evbuffer_free(out);
	return ret;
}

/* Rows retention cut before they were shipped (max-db-mb forced it: the
 * daemon counts them in stats unshipped_cut): the switches' cursor lies
 * before the oldest switch left.  A row in gaps says which span of ts is
 * missing; every table's cursor then starts after it. */
static int ship_gap(struct shipper *sh)
{
	struct tstate *t = &sh->t[0];	/* sched_switch */
	int64_t first, cut, cutoff, lo;
	struct evbuffer *body, *out;
	int status;

	if (!t->have_cursor && ch_cursor(sh, 0) < 0)
		return -1;
	cut = int_of(sh, "SELECT value FROM stats WHERE capture IS NULL AND "
		     "name = 'unshipped_cut'", 0, NULL, 0);
	first = int_of(sh, "SELECT min(ts) FROM ev_sched_switch WHERE ts >= ?1",
		       sh->boot_lo, NULL, INT64_MIN);
	/* Cut rows lay below retention's cutoff (or the target of a cut
	 * still going on): a boot's first switch after its capture's
	 * start, with nothing in the cluster yet, is no gap (the count is
	 * the database's, every boot's). */
	cutoff = int_of(sh, "SELECT max(value) FROM stats WHERE capture IS NULL AND "
			"name IN ('retention_cutoff_ts', 'retention_target_ts')", 0, NULL,
			INT64_MIN);
	if (sh->read_failed)
		return -1;
	if (cutoff != INT64_MIN && cutoff < first)
		first = cutoff;
	/* From where the switches end in the cluster, or wakeup_latency,
	 * held behind them by a wakeup still pending (its rows in between,
	 * cut, were lost as well; a table that merely had no rows since is
	 * no measure) */
	lo = t->cursor;
	for (size_t i = 0; i < NTABLES; i++)
		if (sh->t[i].held && sh->t[i].have_cursor && sh->t[i].cursor < lo)
			lo = sh->t[i].cursor;
	if (cut <= 0 || first == INT64_MIN || cutoff == INT64_MIN || lo + 1 >= first)
		return 0;
	body = evbuffer_new();
	out = evbuffer_new();
	if (!body || !out) {
		if (body)
			evbuffer_free(body);
		if (out)
			evbuffer_free(out);
		return -1;
	}
	evbuffer_add_printf(body, "%s\t%s\t%lld\t%lld\t%" PRIu64 "\n", sh->host, sh->boot,
			    (long long)lo + 1, (long long)first - 1, sh->round_ns);
	{
		char ins[128];

		snprintf(ins, sizeof(ins), "INSERT INTO gaps%s FORMAT TabSeparated", suffix(sh));
		status = ch_post(sh, ins, body, out);
	}
	if (status != 200)
		ship_warn(sh, "inserting into gaps: %s", status ? first_line(out) : "no answer");
	else {
		log_warning("clickhouse: retention cut ts %lld..%lld before it was shipped "
			    "(a row in gaps says so)", (long long)lo + 1, (long long)first - 1);
		/* (comm_history's names kept for the rows left are still
		 * to be sent) */
		for (size_t i = 0; i < NTABLES; i++)
			if (sh->t[i].have_cursor && tables[i].kind != K_COMM &&
			    sh->t[i].cursor < first - 1)
				sh->t[i].cursor = first - 1;
		for (int c = 0; c < sh->ncs; c++)
			if (sh->cs[c].cur < first - 1)
				sh->cs[c].cur = first - 1;
	}
	evbuffer_free(body);
	evbuffer_free(out);
	return status == 200 ? 0 : -1;
}

/* One round: every table up to the frontier.  Returns 0 when every table
 * is shipped up to it (*shipped), -1 otherwise. */
static int ship_round(struct shipper *sh, int64_t *shipped)
{
	bool running = false;
	int64_t f, wf;
	uint64_t sent = 0;
	struct timespec now;
	int failed = 0, r;

	sh->read_failed = 0;
	sh->boot_lo = int_of(sh, "SELECT min(start_ts) FROM capture WHERE boot = ?2", 0,
			     sh->boot, INT64_MIN);
	if (sh->read_failed) {
		ship_warn(sh, "reading this boot's captures: %s", sqlite3_errmsg(sh->db));
		return -1;
	}
	if (sh->boot_lo == INT64_MIN)
		return 0;	/* nothing of this boot yet */
	/* The rows stored just before this boot's first capture began (its
	 * names read from /proc, an unclean stop's loss) are its own; those
	 * of the boot before it, a reboot of less than BOOT_MARGIN_NS
	 * earlier in ts, are that boot's, shipped under it (and sent
	 * again under this one, lost_events was twice in FINAL). */
	sh->lo_floor = int_of(sh, "SELECT max(end_ts) FROM capture WHERE source = 'live' AND "
			   "boot IS NOT NULL AND boot <> ?2 AND end_ts < ?1", sh->boot_lo,
			   sh->boot, INT64_MIN);
	if (sh->lo_floor == INT64_MIN || sh->lo_floor < sh->boot_lo - BOOT_MARGIN_NS)
		sh->lo_floor = sh->boot_lo - BOOT_MARGIN_NS;
	else
		sh->lo_floor += 2;	/* its end + 1 is still its own (below) */
	sh->cpus = (int)int_of(sh, "SELECT max(cpus) FROM capture WHERE boot = ?2", 0,
			       sh->boot, 0);
	if (read_offsets(sh))
		return -1;
	clock_gettime(CLOCK_REALTIME, &now);
	sh->round_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	/* An earlier boot: all of it, to 1 ns past its last end, as an
	 * ended capture's last round (frontier: a rename as its last event
	 * begins its name there). A later boot's times begin at least 1 s
	 * after it (capture.ts_offset). */
	if (sh->boot_hi != INT64_MAX)
		f = sh->boot_hi + 1;
	else
		f = frontier(sh, &running);
	*shipped = f;
	wf = f;
	if (running) {
		/* A wakeup still pending has its row stored when its task
		 * runs: wakeup_latency waits for it, for at most
		 * SHIP_WAKE_HOLD_NS (read after f: a newer hold only moves
		 * on from the rows f saw) */
		int64_t hold = int_of(sh, "SELECT value FROM stats WHERE "
				      "name = 'wake_pending_ts' AND capture IS NULL", 0, NULL, 0);

		if (hold > 0 && hold <= wf && hold > f - SHIP_WAKE_HOLD_NS)
			wf = hold - 1;
	}
	if (sh->read_failed) {
		ship_warn(sh, "reading where this round ends: %s", sqlite3_errmsg(sh->db));
		return -1;
	}
	/* Where rows go (T_local, or T where there is no cluster) must be
	 * known: an EXISTS that failed (a server too busy to answer) sent
	 * rows through the Distributed table to whichever shard, and later
	 * rounds sent them again to this one, twice in FINAL. */
	if (sh->local < 0 && (suffix(sh), sh->local < 0)) {
		ship_warn(sh, "%s", "asking whether the server holds a shard (sched_switch_local): "
			  "no answer; shipping waits");
		return -1;
	}
	if (sh->boot_hi == INT64_MAX && ship_gap(sh) < 0)
		return -1;
	for (size_t i = 0; i < NTABLES; i++)
		sh->t[i].round_to = INT64_MIN;
	for (size_t i = 0; i < NTABLES; i++) {
		if (!sh->t[i].have_cursor && cursor_kind(tables[i].kind) && ch_cursor(sh, i) < 0) {
			failed = 1;
			break;
		}
		if (tables[i].kind == K_SCHED && sched_frontier(sh, f, running) < 0) {
			ship_warn(sh, "sched: reading the switches: %s", sqlite3_errmsg(sh->db));
			failed = 1;
			break;
		}
		do
			r = ship_table(sh, i, strcmp(tables[i].name, "wakeup_latency") ? f : wf, &sent);
		while (r == 1);	/* a full batch: the rest of the table */
		/* (a round that failed leaves the cursor, and whether it
		 * is held, as they were) */
		if (r == 0)
			sh->t[i].held = !strcmp(tables[i].name, "wakeup_latency") && wf < f;
		if (r < 0) {
			failed = 1;
			break;
		}
		if ((tables[i].kind == K_TIME || tables[i].kind == K_SCHED) &&
		    sh->t[i].cursor < *shipped)
			*shipped = sh->t[i].cursor;
	}
	if (!failed && sh->failures && sent) {
		log_notice("clickhouse: shipping again after %" PRIu64 " failure%s", sh->failures,
			   sh->failures == 1 ? "" : "s");
		sh->failures = 0;
		sh->last_warning = 0;
	}
	return failed ? -1 : 0;
}

static void forget_cursors(struct shipper *sh)
{
	for (size_t i = 0; i < NTABLES; i++)
		sh->t[i].have_cursor = false;
}

/* What earlier boots' live captures stored and did not ship before the
 * reboot (ClickHouse away, the daemon stopped with a backlog), each
 * under its own boot: every boot whose captures all ended before this
 * boot's first began (since schema 019 a database keeps the boots one
 * after the other in ts), to 1 ns past its last end, from where the
 * cluster's data of that host and boot ends.  Returns 0 when all are
 * shipped. */
static int ship_earlier(struct shipper *sh)
{
	const char *cur = sh->boot;
	int64_t lo_now;
	sqlite3_stmt *st;
	int failed = 0, rc = SQLITE_DONE;

	sh->read_failed = 0;
	lo_now = int_of(sh, "SELECT min(start_ts) FROM capture WHERE boot = ?2", 0, cur,
			INT64_MAX);
	if (sh->read_failed) {
		ship_warn(sh, "reading this boot's start: %s", sqlite3_errmsg(sh->db));
		sh->read_failed = 0;
		return -1;
	}
	if (sqlite3_prepare_v2(sh->db, "SELECT boot, max(end_ts) FROM capture WHERE "
			       "source = 'live' AND boot IS NOT NULL AND boot <> ?1 GROUP BY boot "
			       "HAVING count(end_ts) = count(*) AND max(end_ts) < ?2 "
			       "ORDER BY min(start_ts)", -1, &st, NULL) != SQLITE_OK) {
		ship_warn(sh, "reading earlier boots: %s", sqlite3_errmsg(sh->db));
		return -1;
	}
	sqlite3_bind_text(st, 1, cur, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, lo_now);
	while (!failed && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		char boot[64];
		int64_t shipped;

		snprintf(boot, sizeof(boot), "%s", (const char *)sqlite3_column_text(st, 0));
		sh->boot = boot;
		sh->boot_hi = sqlite3_column_int64(st, 1);
		forget_cursors(sh);
		failed = ship_round(sh, &shipped) < 0;
	}
	if (!failed && rc != SQLITE_DONE) {
		ship_warn(sh, "reading earlier boots: %s", sqlite3_errmsg(sh->db));
		failed = 1;
	}
	sqlite3_finalize(st);
	sh->boot = cur;
	sh->boot_hi = INT64_MAX;
	forget_cursors(sh);
	return failed ? -1 : 0;
}

/* ---- start-up ---- */

static int parse_url(struct shipper *sh, const char *url)
{
	if (chttp_open(&sh->ch, url, 60) == 0) {
		sh->database = sh->ch.database;
		return 0;
	}
	if (errno == ENOMEM)
		log_error("--clickhouse %s: %s", url, strerror(errno));
	else
		log_error("--clickhouse %s: expected http://HOST[:PORT]/[?database=DB]", url);
	return -1;
}

static char *basic_auth(const char *user, const char *password)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(user) + 1 + strlen(password), o = 0;
	unsigned char *in = malloc(n + 1);
	char *out = malloc(6 + 4 * (n + 2) / 3 + 4);

	if (!in || !out) {
		free(in);
		free(out);
		return NULL;
	}
	snprintf((char *)in, n + 1, "%s:%s", user, password);
	o = (size_t)sprintf(out, "Basic ");
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? in[i + 2] : 0);

		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? b64[v & 63] : '=';
	}
	out[o] = '\0';
	explicit_bzero(in, n);
	free(in);
	return out;
}

/* The password: the file's first line (owned by root, not readable by
 * others: it is a secret). */
static char *read_password(const char *path)
{
	char buf[512];
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	ssize_t n;

	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		log_error("clickhouse-password-file %s: %s", path,
			  fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (sb.st_uid != 0 || (sb.st_mode & 0077)) {
		log_error("clickhouse-password-file %s: must be owned by root and readable "
			  "by no one else (chmod 600)", path);
		close(fd);
		return NULL;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return strdup(buf);
}

static int drop(void)
{
	const char *user = getpwnam("commd") ? "commd" : "nobody";
	uid_t uid;
	gid_t gid;
	char err[256];

	if (geteuid() != 0)
		return 0;
	if (privs_user(user, &uid, &gid) || privs_drop(uid, gid, &gid, 1, err, sizeof(err))) {
		log_error("ship: becoming %s: %s", user, privs_user(user, &uid, &gid) ?
			  "no such user" : err);
		return -1;
	}
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: commd ship --db FILE --clickhouse URL --host-name NAME "
		"[--boot ID] [--user U] [--password-file F] [--interval-s N] "
		"[--gzip yes|no] [--once]\n");
}

int cmd_ship(int argc, char **argv)
{
	struct shipper sh = { .local = -1, .gzip = 1, .boot_hi = INT64_MAX, .sw_seen = INT64_MIN };
	const char *dbpath = NULL, *url = NULL, *user = NULL, *pwfile = NULL;
	char boot[64] = "";
	bool once = false;
	int ret = 1, interval_s = 1, r = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--once")) {
			once = true;
			continue;
		}
		if (!v) {
			usage();
			return 2;
		}
		i++;
		if (!strcmp(a, "--db"))
			dbpath = v;
		else if (!strcmp(a, "--clickhouse"))
			url = v;
		else if (!strcmp(a, "--host-name"))
			sh.host = v;
		else if (!strcmp(a, "--boot"))
			snprintf(boot, sizeof(boot), "%s", v);
		else if (!strcmp(a, "--user"))
			user = v;
		else if (!strcmp(a, "--password-file"))
			pwfile = v;
		else if (!strcmp(a, "--interval-s"))
			interval_s = atoi(v) > 0 && atoi(v) <= 3600 ? atoi(v) : 1;
		else if (!strcmp(a, "--gzip"))
			sh.gzip = !strcmp(v, "yes");
		else {
			usage();
			return 2;
		}
	}
	if (!dbpath || !url || !sh.host) {
		usage();
		return 2;
	}
	if (strlen(sh.host) > SHIP_HOST_MAX) {
		log_error("--host-name: at most %d bytes", SHIP_HOST_MAX);
		return 2;
	}
	for (const char *p = sh.host; *p; p++)
		if (*p == '\'' || *p == '\\' || *p == '\t' || *p == '\n' || (unsigned char)*p < 32) {
			log_error("--host-name: no quotes, backslashes or control characters");
			return 2;
		}
	if (parse_url(&sh, url) < 0)
		return 2;
	if (user || pwfile) {
		char *pw = pwfile ? read_password(pwfile) : strdup("");

		if (!pw)
			return 1;
		sh.auth = basic_auth(user ? user : "default", pw);
		explicit_bzero(pw, strlen(pw));
		free(pw);
	}
	if (sqlite3_open_v2(dbpath, &sh.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW |
			    SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		log_error("%s: %s", dbpath, sqlite3_errmsg(sh.db));
		goto out;
	}
	sqlite3_busy_timeout(sh.db, 5000);
	if (!*boot && ship_default_boot(sh.db, dbpath, boot, sizeof(boot)))
		goto out;
	sh.boot = boot;
	/* --once ships a recorded trace's import: none of its captures of
	 * this boot means nothing would be shipped, and that is no success */
	if (once && int_of(&sh, "SELECT count(*) FROM capture WHERE boot = ?2", 0, boot, 0) == 0) {
		log_error("%s: no capture of boot %s to ship (capture.boot says which "
			  "boot each capture is of)", dbpath, boot);
		goto out;
	}
	for (size_t i = 0; i < NTABLES; i++) {
		if (read_columns(sh.db, tables[i].name, &sh.t[i]) < 0) {
			log_error("%s: no table or view %s (an older schema? commd migrates it)",
				  dbpath, tables[i].name);
			goto out;
		}
		for (int c = 0; c < sh.t[i].ncols; c++)
			sh.t[i].cols[c].key = key_column(tables[i].kind, sh.t[i].cols[c].name);
	}
	if (drop() < 0)
		goto out;
	/* started by a capture (shipctl): it goes when the capture does, after
	 * a last round (the setting does not survive the change of user, so
	 * it is made here) */
	if (getppid() != 1)
		prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGPIPE, SIG_IGN);
	for (uint64_t last_ok = 0, last_from = 0;;) {
		int64_t shipped = 0;
		bool last = stopping;
		uint64_t now = live_now();

		sqlite3_exec(sh.db, "BEGIN", NULL, NULL, NULL);
		if (!sh.earlier_done && ship_earlier(&sh) == 0)
			sh.earlier_done = 1;
		r = ship_round(&sh, &shipped);
		/* An earlier boot's rows not all shipped lie below this
		 * boot's: no floor (retention would cut them unshipped and
		 * uncounted, as shipped), and the round has not shipped
		 * everything. */
		if (!r && !sh.earlier_done)
			r = 1;
		sqlite3_exec(sh.db, "COMMIT", NULL, NULL, NULL);
		if (r == 0) {
			printf("shipped %" PRId64 "\n", shipped);
			fflush(stdout);
		}
		/* The capture's end: a last round.  Where a round shipped in
		 * the SHIP_LAST_NS before the stop, one that fails (ClickHouse
		 * away for a moment) is tried again every 2 s for SHIP_LAST_NS
		 * while the daemon waits (shipctl_stop: 30 s); before, one
		 * failed last round left the rest for commd's next start.
		 * Shipping that failed already leaves it so at once. */
		if (!r)
			last_ok = now;
		if (last && !last_from)
			last_from = now;
		if (once || (last && (!r || !last_ok || last_from - last_ok > SHIP_LAST_NS ||
				      live_now() - last_from >= SHIP_LAST_NS)))
			break;
		/* a round every interval_s; after a failure, every 2 s */
		for (int i = 0; i < (r ? 20 : 10 * interval_s) && (last || !stopping); i++)
			usleep(100000);
	}
	/* --once: an exit status that says whether all was shipped */
	ret = once && r ? 1 : 0;
	if (ret)
		log_error("ship: the round did not ship everything (the warnings above say why)");
	else if (r)
		log_warning("clickhouse: the last round did not ship everything; "
			    "the rest goes with the next start");
out:
	chttp_close(&sh.ch);
	sqlite3_close(sh.db);
	free(sh.auth);
	free(sh.cs);
	free(sh.offs);
	free(sh.rows);
	if (sh.zc)
		libdeflate_free_compressor(sh.zc);
	return ret;
}
