/* store.c — see store.h. */
#include "store.h"
#include "grow.h"
#include "sqlfuncs.h"

#include <errno.h>
#include <time.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <sqlite3.h>


/* Tables written through the event path: one per decode kind, then the
 * derived ones. OR FAIL: an INSERT of many rows that may ABORT halfway (the
 * NOT NULL columns) makes SQLite copy each page it touches to a statement
 * journal first, a temp-file write as large as the WAL's own; with FAIL
 * nothing is rolled back by the statement, so nothing is journalled. A
 * failed statement still fails its batch's transaction (step() reports
 * it), which is rolled back whole. */
enum { TABLE_SCHED = DECODE_KIND_COUNT, TABLE_WAKEUP_LATENCY, TABLE_COUNT };

static const struct { const char *name; int ncols; } event_table[TABLE_COUNT] = {
	[TABLE_SCHED] = { "dv_sched", 9 },
	[TABLE_WAKEUP_LATENCY] = { "dv_wakeup_latency", 5 },
	[DECODE_OTHER] = { "ev_other", 5 },
	/* its own fields, then slice_dur, slice_prio, wake_latency,
	 * wake_hid, waker_hid (schema 004) */
	[DECODE_SCHED_SWITCH] = { "ev_sched_switch", 15 },
	[DECODE_SCHED_WAKEUP] = { "ev_sched_wakeup", 7 },
	[DECODE_SCHED_WAKEUP_NEW] = { "ev_sched_wakeup_new", 7 },
	[DECODE_SCHED_WAKING] = { "ev_sched_waking", 7 },
	[DECODE_SCHED_PROCESS_FORK] = { "ev_sched_process_fork", 7 },
	[DECODE_SCHED_PROCESS_EXEC] = { "ev_sched_process_exec", 6 },
	[DECODE_SCHED_PROCESS_EXIT] = { "ev_sched_process_exit", 6 },
	[DECODE_SCHED_PROCESS_FREE] = { "ev_sched_process_free", 6 },
	[DECODE_SCHED_MIGRATE_TASK] = { "ev_sched_migrate_task", 8 },
	[DECODE_TASK_RENAME] = { "ev_task_rename", 6 },
	[DECODE_TASK_NEWTASK] = { "ev_task_newtask", 6 },
	[DECODE_SCHED_STAT_RUNTIME] = { "ev_sched_stat_runtime", 7 },
};

enum { ST_COMM, ST_HISTORY, ST_HISTORY_UPDATE, ST_TYPE, ST_LOST, ST_STAT,
       ST_CLOCK, ST_BEGIN, ST_COMMIT, ST_COUNT };

/* Names and history rows are plain one-row INSERTs (an interval that
 * changes later is an UPDATE of its row): INSERT OR REPLACE may delete,
 * so SQLite journals every page it touches in a statement journal, a
 * 16 KiB temp-file write per page and row (at every start, seeding a few
 * thousand saved_cmdlines rows wrote 400 MB). */
static const char *const misc_sql[ST_COUNT] = {
	[ST_COMM] = "INSERT INTO comms VALUES (?,?)",
	[ST_HISTORY] = "INSERT INTO comm_history VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)",
	[ST_HISTORY_UPDATE] = ("UPDATE comm_history SET tgid = ?3, comm = ?4, "
			       "start_ts = ?5, end_ts = ?6, source = ?7, life = ?8, "
			       "parent = ?9 WHERE id = ?1"),
	[ST_TYPE] = "INSERT OR REPLACE INTO event_types VALUES (?,?,?)",
	[ST_LOST] = "INSERT INTO lost_events VALUES (?,?,?)",
	[ST_STAT] = "INSERT INTO stats VALUES (?,?,?,?)",
	[ST_CLOCK] = "INSERT INTO clock_map VALUES (?,?,?,?)",
	[ST_BEGIN] = "BEGIN",
	[ST_COMMIT] = "COMMIT",
};

/* Writes go through a writer thread: the caller (decode and resolve)
 * fills a batch of operations while the thread runs the previous one
 * through SQLite, so on two CPUs decoding and storing overlap. An
 * operation copies everything it needs: the record it came from is gone
 * by the time it is written. */
enum op_kind { OP_EVENT, OP_COMM, OP_HISTORY, OP_TYPE, OP_LOST, OP_CLOCK, OP_BEGIN,
	       OP_COMMIT };

struct op {
	uint8_t op;		/* enum op_kind */
	uint8_t kind;		/* OP_EVENT: a decode kind or TABLE_* */
	uint16_t has;		/* OP_EVENT: DECODE_HAS_* */
	int32_t cpu;
	uint64_t ts;
	uint32_t hid;
	uint32_t ids[2];
	uint32_t type;
	int32_t p[2];
	int64_t v[3];
	uint32_t text, text_len;	/* into the batch's text arena */
	uint32_t text2, text2_len;
	/* A sched_switch's derived columns (OP_HAS_SLICE, OP_HAS_WAKE). */
	int64_t slice_dur, wake_latency;
	int32_t slice_prio;
	uint32_t wake_hid, waker_hid;
};

/* op.has bits above decode's DECODE_HAS_*; OP_NEW_ROW: an OP_HISTORY
 * whose row was never written before. */
enum {
	OP_HAS_SLICE = 1 << 8, OP_HAS_SLICE_PRIO = 1 << 9, OP_HAS_WAKE = 1 << 10,
	OP_NEW_ROW = 1 << 11,
};

#define BATCH_OPS 8192
#define ROWS_PER_FLUSH 256

struct pending {
	uint32_t idx[ROWS_PER_FLUSH];	/* ops of the batch being run */
	size_t n;
};

/* Batches queued for the writer, at most this many: enough for the
 * reader to go on through a slow commit (a WAL checkpoint's fsync)
 * instead of leaving the ring buffer unread. */
#define MAX_BATCHES 24

struct batch {
	struct batch *next;
	struct op ops[BATCH_OPS];
	size_t nops;
	size_t start;		/* ops before it are committed */
	char *text;
	size_t text_len, text_cap;
};

struct store;

struct rows_src {
	struct store *s;
	int kind;
};

struct store {
	sqlite3 *db;
	sqlite3_stmt *ins[TABLE_COUNT];
	int ncols[TABLE_COUNT];
	struct rows_src src[TABLE_COUNT];	/* the commd_rows_N modules' */
	const struct batch *cur;		/* whose pending rows they read */
	struct pending pending[TABLE_COUNT];
	sqlite3_stmt *misc[ST_COUNT];
	uint32_t comms_written;		/* comm ids 1..n are queued */
	uint32_t history_written;	/* the highest history row queued */
	/* A database continued by a new capture already has comms, history
	 * rows and event types: the resolver's ids (from 1) are written
	 * shifted past them. */
	uint32_t comm_base, hid_base, type_base;
	char err[512];

	pthread_t writer;
	int threaded;			/* set at open, read-only after */
	/* STORE_LIVE keeps the batches of the open transaction until its
	 * COMMIT succeeds: when a write fails (a full disk, an I/O error,
	 * no memory) the transaction is rolled back, they go back to the
	 * head of the queue and the writer pauses until store_retry. Set
	 * at open, read-only after. */
	int retain;
	struct batch *fill;		/* caller only: it appends here */

	/* Shared by the caller and the writer thread: read and written
	 * under `lock` only (cond: a change of any of them). */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct batch *full, *full_tail;	/* queued for the writer, in order */
	struct batch *spare;		/* written, free for reuse */
	int nbatches;			/* allocated */
	int nspare;			/* on the spare list */
	int spare_low;			/* its fewest since store_trim_spares() */
	int nfull;			/* queued */
	struct batch *held, *held_tail;
	int nheld;			/* on the held list */
	int paused;
	int busy;			/* the writer is running a batch */
	int stop;
	int failed;			/* sticky: the writer hit an error */

	/* Written by the caller (with __atomic, relaxed), read by the
	 * writer's retention (the same): single words. */
	uint64_t max_bytes;		/* retention: 0 = keep everything */
	uint64_t max_age_ns;		/* retention by age: 0 = keep all */
	int64_t max_wake_latency;	/* the longest stored on a switch */

	/* The writer thread's own (the caller's too before the thread
	 * starts and after it is joined). */
	int64_t wake_saved;		/* as in stats, or -1: none there */
	uint64_t trim_checked;		/* ms_now() of the last size check */
	int64_t trim_target;		/* rows before this ts are to go */
	int trim_pending;		/* some may be left */
	uint64_t ckpt_checked;		/* time() of the last WAL check */
	char wal_path[4096];
};

static int fail(struct store *s, const char *what)
{
	snprintf(s->err, sizeof(s->err), "%s: %s", what,
		 s->db ? sqlite3_errmsg(s->db) : "out of memory");
	return -1;
}

const char *store_errmsg(const struct store *s)
{
	return s->err;
}

int store_schema_version(void)
{
	return commd_schema_count;
}

static int exec(struct store *s, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(s->err, sizeof(s->err), "%s", msg ? msg : sqlite3_errmsg(s->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Applies schema/NNN-*.sql files newer than the file's user_version, in
 * one transaction: an old database is migrated, never rebuilt. */
static int migrate(struct store *s)
{
	sqlite3_stmt *st = NULL;
	char sql[64];
	int version;

	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return fail(s, "reading schema version");
	}
	version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (version > commd_schema_count) {
		snprintf(s->err, sizeof(s->err),
			 "database schema version %d is newer than this commd (%d)",
			 version, commd_schema_count);
		return -1;
	}
	if (version == commd_schema_count)
		return 0;
	if (exec(s, "BEGIN IMMEDIATE"))
		return -1;
	for (int i = version; i < commd_schema_count; i++)
		if (exec(s, commd_schema_sql[i]))
			goto fail;
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", commd_schema_count);
	if (exec(s, sql) || exec(s, "COMMIT"))
		goto fail;
	return 0;
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

static int step(struct store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return fail(s, what);
	return 0;
}

static inline void bind_text(sqlite3_stmt *st, int col, const struct batch *b,
			     uint32_t off, uint32_t len, int present)
{
	/* An empty name (prctl(PR_SET_NAME, "")) is text, not NULL: a batch
	 * whose texts are all empty has no arena at all. */
	if (present)
		sqlite3_bind_text(st, col, len ? b->text + off : "", (int)len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, col);
}

/* Events reach SQLite through a virtual table per event table, not through
 * bound parameters: `INSERT INTO ev_x SELECT * FROM commd_rows_N` reads
 * the batch's pending rows of that table straight from their ops. A
 * multi-row INSERT of bound values pays, per column, a bind call and the
 * VM's copy of it out of the VALUES co-routine; here it is one
 * sqlite3_result_* per column, and one statement runs a few hundred rows.
 * The modules are eponymous (no CREATE VIRTUAL TABLE): nothing of them is
 * in the database file, and only the writer's connection has them. */
enum { V_NULL, V_INT, V_TEXT };

struct val {
	uint8_t t;		/* V_* */
	uint32_t len;
	int64_t i;
	const char *s;
};

#define MAX_COLS 16

struct row {
	struct val c[MAX_COLS];
};

static inline void v_int(struct row *r, int col, int64_t v)
{
	r->c[col].t = V_INT;
	r->c[col].i = v;
}

static inline void v_id(struct row *r, int col, uint32_t id)
{
	r->c[col].t = id ? V_INT : V_NULL;
	r->c[col].i = id;
}

static inline void v_opt(struct row *r, int col, const struct op *o,
			 unsigned bit, int64_t v)
{
	r->c[col].t = (o->has & bit) ? V_INT : V_NULL;
	r->c[col].i = v;
}

static inline void v_text(struct row *r, int col, const struct batch *b,
			  uint32_t off, uint32_t len, int present)
{
	/* An empty name (prctl(PR_SET_NAME, "")) is text, not NULL: a batch
	 * whose texts are all empty has no arena at all. */
	r->c[col].t = present ? V_TEXT : V_NULL;
	r->c[col].s = len ? b->text + off : "";
	r->c[col].len = len;
}

/* One event's columns, in its table's order. */
static void event_row(struct row *r, const struct op *o, const struct batch *b)
{
	v_int(r, 0, (int64_t)o->ts);
	v_int(r, 1, o->cpu);
	v_int(r, 2, o->hid);
	if (o->kind == TABLE_SCHED) {
		/* ts, dur, cpu, hid, prio, end_state, lost, start_err,
		 * end_err (v[2], slice_dur); negative: NULL */
		v_int(r, 1, o->v[0]);
		v_int(r, 2, o->cpu);
		v_int(r, 3, o->hid);
		v_int(r, 4, o->p[0]);
		if (o->p[0] == DERIVE_PRIO_UNKNOWN)
			r->c[4].t = V_NULL;
		v_int(r, 5, o->v[1]);
		if (o->v[1] < 0)
			r->c[5].t = V_NULL;
		v_int(r, 6, o->p[1]);
		v_int(r, 7, o->v[2]);
		if (o->v[2] < 0)
			r->c[7].t = V_NULL;
		v_int(r, 8, o->slice_dur);
		if (o->slice_dur < 0)
			r->c[8].t = V_NULL;
		return;
	}
	if (o->kind == TABLE_WAKEUP_LATENCY) {
		/* ts, cpu, hid, latency, waker_hid */
		v_int(r, 3, o->v[0]);
		v_id(r, 4, o->ids[0]);
		return;
	}
	switch (o->kind) {
	case DECODE_SCHED_SWITCH:
		v_opt(r, 3, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 4, o->ids[0]);
		v_opt(r, 5, o, DECODE_HAS_V0, o->v[0]);
		v_opt(r, 6, o, DECODE_HAS_V1, o->v[1]);
		v_opt(r, 7, o, DECODE_HAS_P1, o->p[1]);
		v_id(r, 8, o->ids[1]);
		v_opt(r, 9, o, DECODE_HAS_V2, o->v[2]);
		v_opt(r, 10, o, OP_HAS_SLICE, o->slice_dur);
		v_opt(r, 11, o, OP_HAS_SLICE_PRIO, o->slice_prio);
		v_opt(r, 12, o, OP_HAS_WAKE, o->wake_latency);
		v_id(r, 13, (o->has & OP_HAS_WAKE) ? o->wake_hid : 0);
		v_id(r, 14, (o->has & OP_HAS_WAKE) ? o->waker_hid : 0);
		break;
	case DECODE_SCHED_WAKEUP:
	case DECODE_SCHED_WAKEUP_NEW:
	case DECODE_SCHED_WAKING:
	case DECODE_SCHED_STAT_RUNTIME:
		v_opt(r, 3, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 4, o->ids[0]);
		v_opt(r, 5, o, DECODE_HAS_V0, o->v[0]);
		v_opt(r, 6, o, DECODE_HAS_V1, o->v[1]);
		break;
	case DECODE_SCHED_PROCESS_FORK:
		v_opt(r, 3, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 4, o->ids[0]);
		v_opt(r, 5, o, DECODE_HAS_P1, o->p[1]);
		v_id(r, 6, o->ids[1]);
		break;
	case DECODE_SCHED_PROCESS_EXEC:
		v_text(r, 3, b, o->text, o->text_len, o->has & DECODE_HAS_STR);
		v_opt(r, 4, o, DECODE_HAS_P0, o->p[0]);
		v_opt(r, 5, o, DECODE_HAS_P1, o->p[1]);
		break;
	case DECODE_SCHED_PROCESS_EXIT:
	case DECODE_SCHED_PROCESS_FREE:
		v_opt(r, 3, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 4, o->ids[0]);
		v_opt(r, 5, o, DECODE_HAS_V0, o->v[0]);
		break;
	case DECODE_SCHED_MIGRATE_TASK:
		v_opt(r, 3, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 4, o->ids[0]);
		v_opt(r, 5, o, DECODE_HAS_V0, o->v[0]);
		v_opt(r, 6, o, DECODE_HAS_V1, o->v[1]);
		v_opt(r, 7, o, DECODE_HAS_V2, o->v[2]);
		break;
	case DECODE_TASK_RENAME:
		v_opt(r, 3, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 4, o->ids[0]);
		v_id(r, 5, o->ids[1]);
		break;
	case DECODE_TASK_NEWTASK:
		v_opt(r, 3, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 4, o->ids[0]);
		v_opt(r, 5, o, DECODE_HAS_V0, o->v[0]);
		break;
	case DECODE_OTHER:
	default:
		v_int(r, 3, o->type);
		v_text(r, 4, b, o->text, o->text_len, o->has & DECODE_HAS_STR);
		break;
	}
}

/* The virtual table of one event table: its rows are the pending ones. */
struct rows_vtab {
	sqlite3_vtab base;
	const struct rows_src *src;
};

struct rows_cursor {
	sqlite3_vtab_cursor base;
	const struct rows_src *src;
	size_t i;
	struct row row;
};

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			sqlite3_vtab **out, char **err)
{
	const struct rows_src *src = aux;
	struct rows_vtab *vt;
	char sql[160];
	int n = 0, rc;

	(void)argc;
	(void)argv;
	(void)err;
	n += snprintf(sql + n, sizeof(sql) - (size_t)n, "CREATE TABLE x(");
	for (int c = 0; c < src->s->ncols[src->kind]; c++)
		n += snprintf(sql + n, sizeof(sql) - (size_t)n, "%sc%d", c ? "," : "", c);
	snprintf(sql + n, sizeof(sql) - (size_t)n, ")");
	rc = sqlite3_declare_vtab(db, sql);
	if (rc != SQLITE_OK)
		return rc;
	vt = sqlite3_malloc(sizeof(*vt));
	if (!vt)
		return SQLITE_NOMEM;
	memset(vt, 0, sizeof(*vt));
	vt->src = src;
	*out = &vt->base;
	return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

static int rows_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	(void)vt;
	info->estimatedCost = 1;
	info->estimatedRows = ROWS_PER_FLUSH;
	return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct rows_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->src = ((struct rows_vtab *)vt)->src;
	*out = &c->base;
	return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

static void rows_load(struct rows_cursor *c)
{
	const struct store *s = c->src->s;
	const struct pending *pd = &s->pending[c->src->kind];

	if (c->i < pd->n)
		event_row(&c->row, &s->cur->ops[pd->idx[c->i]], s->cur);
}

static int rows_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr,
		       int argc, sqlite3_value **argv)
{
	struct rows_cursor *c = (struct rows_cursor *)cur;

	(void)idx;
	(void)idxstr;
	(void)argc;
	(void)argv;
	c->i = 0;
	rows_load(c);
	return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *cur)
{
	struct rows_cursor *c = (struct rows_cursor *)cur;

	c->i++;
	rows_load(c);
	return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *cur)
{
	const struct rows_cursor *c = (const struct rows_cursor *)cur;

	return c->i >= c->src->s->pending[c->src->kind].n;
}

static int rows_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct val *v = &((struct rows_cursor *)cur)->row.c[col];

	if (v->t == V_INT)
		sqlite3_result_int64(ctx, v->i);
	else if (v->t == V_TEXT)
		sqlite3_result_text(ctx, v->s, (int)v->len, SQLITE_STATIC);
	else
		sqlite3_result_null(ctx);
	return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
	*out = (sqlite3_int64)((struct rows_cursor *)cur)->i;
	return SQLITE_OK;
}

static const sqlite3_module rows_module = {
	.iVersion = 0,
	.xCreate = NULL,	/* eponymous only */
	.xConnect = rows_connect,
	.xBestIndex = rows_best_index,
	.xDisconnect = rows_disconnect,
	.xOpen = rows_open,
	.xClose = rows_close,
	.xFilter = rows_filter,
	.xNext = rows_next,
	.xEof = rows_eof,
	.xColumn = rows_column,
	.xRowid = rows_rowid,
};

/* Rows of one table stay in their order. */
static int flush_kind(struct store *s, int kind, const struct batch *b)
{
	struct pending *pd = &s->pending[kind];
	int rc;

	s->cur = b;
	rc = step(s, s->ins[kind], "storing events");
	pd->n = 0;
	return rc;
}

static int flush_events(struct store *s, const struct batch *b)
{
	for (int k = 0; k < TABLE_COUNT; k++)
		if (s->pending[k].n && flush_kind(s, k, b))
			return -1;
	return 0;
}

static void bind_history(sqlite3_stmt *st, const struct op *o,
			 const struct batch *b)
{
	sqlite3_bind_int64(st, 1, o->hid);
	sqlite3_bind_int(st, 2, o->p[0]);	/* unused by the UPDATE */
	if (o->p[1] == RESOLVE_TGID_UNKNOWN)
		sqlite3_bind_null(st, 3);
	else
		sqlite3_bind_int(st, 3, o->p[1]);
	bind_text(st, 4, b, o->text, o->text_len, o->ids[0] != 0);
	sqlite3_bind_int64(st, 5, o->v[0]);
	if ((uint64_t)o->v[1] == RESOLVE_OPEN)
		sqlite3_bind_null(st, 6);
	else
		sqlite3_bind_int64(st, 6, o->v[1]);
	sqlite3_bind_text(st, 7, resolve_source_name(o->type), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, o->ids[1]);
	if (o->v[2] > 0)
		sqlite3_bind_int64(st, 9, o->v[2]);
	else
		sqlite3_bind_null(st, 9);
}

/* A stats row of the database as a whole (capture and cpu NULL), in
 * place of the one before. Inside the caller's transaction. */
static int set_db_stat(struct store *s, const char *name, int64_t value)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "DELETE FROM stats WHERE name = '%s' AND capture IS NULL",
		 name);
	if (exec(s, sql))
		return -1;
	snprintf(sql, sizeof(sql), "INSERT INTO stats VALUES (NULL, '%s', NULL, %lld)",
		 name, (long long)value);
	return exec(s, sql);
}

/* The longest wake latency stored on a switch bounds how far before a
 * kept switch its waker's history row must reach (trim_finish). It is
 * kept in stats, written in the transaction that first stores a longer
 * one, so that a restart on the same database keeps the bound. */
static int64_t one_int(struct store *s, const char *sql, int64_t arg, int *ok);

static void load_max_wake(struct store *s)
{
	int ok;
	int64_t v = one_int(s, "SELECT max(value) FROM stats WHERE name = 'max_wake_latency'"
			    " AND capture IS NULL", 0, &ok);

	if (ok) {
		s->max_wake_latency = s->wake_saved = v;
		return;
	}
	/* A database from before the row: its switches say, once (a scan). */
	v = one_int(s, "SELECT max(wake_latency) FROM ev_sched_switch", 0, &ok);
	s->max_wake_latency = ok && v > 0 ? v : 0;
	s->wake_saved = -1;
}

/* Runs one operation on the connection (writer thread, or the caller
 * when no writer runs). */
static void trim(struct store *s);
static void checkpoint(struct store *s);

static int run_op(struct store *s, const struct op *o, const struct batch *b)
{
	sqlite3_stmt *st;

	switch (o->op) {
	case OP_EVENT: {
		struct pending *pd = &s->pending[o->kind];

		pd->idx[pd->n++] = (uint32_t)(o - b->ops);
		if (pd->n == ROWS_PER_FLUSH)
			return flush_kind(s, o->kind, b);
		return 0;
	}
	case OP_COMM:
		st = s->misc[ST_COMM];
		sqlite3_bind_int64(st, 1, o->hid);
		bind_text(st, 2, b, o->text, o->text_len, 1);
		return step(s, st, "storing comm");
	case OP_HISTORY:
		/* A row that may have been written (in this transaction or
		 * one before) is updated, or inserted when it was not. */
		if (o->has & OP_NEW_ROW) {
			bind_history(s->misc[ST_HISTORY], o, b);
			return step(s, s->misc[ST_HISTORY], "storing comm history");
		}
		bind_history(s->misc[ST_HISTORY_UPDATE], o, b);
		if (step(s, s->misc[ST_HISTORY_UPDATE], "updating comm history"))
			return -1;
		if (sqlite3_changes(s->db))
			return 0;
		bind_history(s->misc[ST_HISTORY], o, b);
		return step(s, s->misc[ST_HISTORY], "storing comm history");
	case OP_TYPE:
		st = s->misc[ST_TYPE];
		sqlite3_bind_int64(st, 1, o->type);
		bind_text(st, 2, b, o->text, o->text_len, 1);
		bind_text(st, 3, b, o->text2, o->text2_len, 1);
		return step(s, st, "storing event type");
	case OP_LOST:
		st = s->misc[ST_LOST];
		sqlite3_bind_int(st, 1, o->cpu);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)o->ts);
		if (o->v[0] < 0)
			sqlite3_bind_null(st, 3);
		else
			sqlite3_bind_int64(st, 3, o->v[0]);
		return step(s, st, "storing lost events");
	case OP_CLOCK:
		st = s->misc[ST_CLOCK];
		sqlite3_bind_int64(st, 1, o->v[0]);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)o->ts);
		sqlite3_bind_int64(st, 3, o->v[1]);
		sqlite3_bind_int64(st, 4, o->v[2]);
		return step(s, st, "storing a clock reading");
	case OP_BEGIN:
		return step(s, s->misc[ST_BEGIN], "BEGIN");
	case OP_COMMIT: {
		int64_t wake = __atomic_load_n(&s->max_wake_latency, __ATOMIC_RELAXED);
		int save = s->retain && wake > s->wake_saved;

		if (flush_events(s, b) ||
		    (save && set_db_stat(s, "max_wake_latency", wake)) ||
		    step(s, s->misc[ST_COMMIT], "COMMIT"))
			return -1;
		if (save)
			s->wake_saved = wake;
		trim(s);
		if (s->retain)
			checkpoint(s);
		return 0;
	}
	}
	return 0;
}

/* Retention: the oldest events go when the data outgrows max_bytes
 * (enough of the time covered to fall to 90% of the limit, at least a
 * tenth) or when they are older than max_age before the newest event.
 * Either sets a target cutoff; rows before it are deleted table by table
 * in small chunks (TRIM_CHUNK rows of each table per transaction), for
 * TRIM_BUDGET_MS after each commit, so the writer is never long away
 * from the new batches (unless the data is over max_bytes by a quarter:
 * then until it is not); what is left goes after the next commit.
 * Once the cutoff is reached, comm_history intervals that ended before
 * every kept row lose their rows too (a kept row's interval always
 * contains its time, or starts after it: it never ends before it).
 * Freed pages are reused, so the file stops growing; the last cutoff is
 * in stats (retention_cutoff_ts). Checked after commits (at most every
 * TRIM_CHECK_MS: a few cheap queries), by the writer itself. */
static const char *const trimmed_tables[] = {
	"ev_sched_switch", "ev_sched_wakeup", "ev_sched_wakeup_new",
	"ev_sched_waking", "ev_sched_process_fork", "ev_sched_process_exec",
	"ev_sched_process_exit", "ev_sched_process_free", "ev_sched_migrate_task",
	"ev_task_rename", "ev_task_newtask", "ev_sched_stat_runtime", "ev_other",
	"dv_sched", "dv_wakeup_latency", NULL
};

#define TRIM_CHUNK 20000
#define TRIM_BUDGET_MS 250
#define TRIM_CHECK_MS 100
/* History intervals are kept this much longer than strictly needed:
 * rows of different CPUs are stored nearly, not exactly, in time order. */
#define TRIM_HISTORY_SLACK_NS 1000000000ll

static int64_t one_int(struct store *s, const char *sql, int64_t arg, int *ok)
{
	sqlite3_stmt *st = NULL;
	int64_t v = 0;

	*ok = 0;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, arg);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*ok = sqlite3_column_type(st, 0) != SQLITE_NULL;
		v = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return v;
}

/* The oldest and newest event times over the trimmed tables (rows are in
 * time order: the first and last rowids). 0 when there are none. */
static int time_span(struct store *s, int64_t *first, int64_t *last)
{
	char sql[128];
	int any = 0, ok;

	for (int i = 0; trimmed_tables[i]; i++) {
		int64_t f, l;

		snprintf(sql, sizeof(sql), "SELECT ts FROM %s ORDER BY rowid LIMIT 1",
			 trimmed_tables[i]);
		f = one_int(s, sql, 0, &ok);
		if (!ok)
			continue;
		snprintf(sql, sizeof(sql), "SELECT ts FROM %s ORDER BY rowid DESC LIMIT 1",
			 trimmed_tables[i]);
		l = one_int(s, sql, 0, &ok);
		if (!ok)
			continue;
		if (!any || f < *first)
			*first = f;
		if (!any || l > *last)
			*last = l;
		any = 1;
	}
	return any;
}

/* The bytes the data takes: pages in use (freed ones are reused). */
static int64_t data_bytes(struct store *s)
{
	int ok;
	int64_t pages = one_int(s, "PRAGMA page_count", 0, &ok);
	int64_t free_pages = one_int(s, "PRAGMA freelist_count", 0, &ok);
	int64_t psize = one_int(s, "PRAGMA page_size", 0, &ok);

	return (pages - free_pages) * psize;
}

static uint64_t ms_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* One chunk of every table: rows before the cutoff among its first
 * TRIM_CHUNK. Returns 1 when no table has such rows left, 0 when some
 * may, -1 on an error (rolled back). */
static int trim_chunk(struct store *s, int64_t cutoff)
{
	char sql[256];
	int done = 1, ok;

	if (exec(s, "BEGIN"))
		return -1;
	for (int i = 0; trimmed_tables[i]; i++) {
		int64_t lo;

		snprintf(sql, sizeof(sql), "SELECT rowid FROM %s ORDER BY rowid LIMIT 1",
			 trimmed_tables[i]);
		lo = one_int(s, sql, 0, &ok);
		if (!ok)
			continue;
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE rowid < %lld AND ts < %lld",
			 trimmed_tables[i], (long long)lo + TRIM_CHUNK, (long long)cutoff);
		if (exec(s, sql))
			goto fail;
		/* Done with this table when its first row is past the cutoff. */
		snprintf(sql, sizeof(sql), "SELECT ts FROM %s ORDER BY rowid LIMIT 1",
			 trimmed_tables[i]);
		if (one_int(s, sql, 0, &ok) < cutoff && ok)
			done = 0;
	}
	if (exec(s, "COMMIT"))
		goto fail;
	return done;
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* The cutoff is reached: history intervals no kept row needs, and the
 * cutoff in stats. */
static void trim_finish(struct store *s, int64_t cutoff)
{
	char sql[256];
	int64_t first = 0, last = 0;

	if (!time_span(s, &first, &last))
		first = cutoff;
	if (first > cutoff)
		first = cutoff;
	if (exec(s, "BEGIN"))
		return;
	/* A kept switch names its wakeup's waker as of the waking, up to
	 * max_wake_latency before it. */
	snprintf(sql, sizeof(sql), "DELETE FROM comm_history WHERE end_ts < %lld",
		 (long long)(first - TRIM_HISTORY_SLACK_NS -
			     __atomic_load_n(&s->max_wake_latency, __ATOMIC_RELAXED)));
	if (exec(s, sql))
		goto fail;
	/* Clock readings before the first row kept, but the one that maps
	 * it (each capture's latest before it). */
	snprintf(sql, sizeof(sql), "DELETE FROM clock_map WHERE ts < (SELECT "
		 "max(m.ts) FROM clock_map m WHERE m.capture = clock_map.capture"
		 " AND m.ts <= %lld)", (long long)first);
	if (exec(s, sql) || set_db_stat(s, "retention_cutoff_ts", cutoff) ||
	    exec(s, "COMMIT"))
		goto fail;
	return;
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

static void trim(struct store *s)
{
	uint64_t max_bytes = __atomic_load_n(&s->max_bytes, __ATOMIC_RELAXED);
	uint64_t max_age = __atomic_load_n(&s->max_age_ns, __ATOMIC_RELAXED);
	uint64_t now = ms_now(), t0;
	int64_t first = 0, last = 0;
	int r;

	if (!max_bytes && !max_age)
		return;
	if (!s->trim_pending && now < s->trim_checked + TRIM_CHECK_MS)
		return;
	if (now >= s->trim_checked + TRIM_CHECK_MS) {
		s->trim_checked = now;
		if (!time_span(s, &first, &last) || last <= first)
			return;
		if (max_bytes) {
			int64_t used = data_bytes(s);

			if (used > (int64_t)max_bytes) {
				double cut = 1.0 - 0.9 * (double)max_bytes / (double)used;
				int64_t c;

				if (cut < 0.1)
					cut = 0.1;
				c = first + (int64_t)((double)(last - first) * cut) + 1;
				if (c > s->trim_target)
					s->trim_target = c;
			}
		}
		if (max_age && last - (int64_t)max_age > first &&
		    last - (int64_t)max_age > s->trim_target)
			s->trim_target = last - (int64_t)max_age;
		if (s->trim_target > first)
			s->trim_pending = 1;
	}
	if (!s->trim_pending)
		return;
	/* Past the budget, deleting goes on while the data is well over
	 * max_bytes: the writer falling behind the reader then costs ring
	 * buffer losses (counted), never a disk past its bound. */
	t0 = ms_now();
	do {
		r = trim_chunk(s, s->trim_target);
	} while (r == 0 && (ms_now() - t0 < TRIM_BUDGET_MS ||
			    (max_bytes && data_bytes(s) > (int64_t)(max_bytes + max_bytes / 4))));
	if (r == 1) {
		s->trim_pending = 0;
		trim_finish(s, s->trim_target);
	}
}

/* SQLite's automatic checkpoints are passive: with readers always
 * somewhere in the WAL (a client querying in a loop), it is never reset
 * and grows without bound. Every second, past its limit (32 MiB, or a
 * quarter of a small max_bytes, at least 4 MiB), the writer waits a
 * moment (300 ms at most) for a gap between readers and truncates it. */
static void checkpoint(struct store *s)
{
	uint64_t now = (uint64_t)time(NULL);
	uint64_t max_bytes = __atomic_load_n(&s->max_bytes, __ATOMIC_RELAXED);
	off_t limit = 32 << 20;
	struct stat st;

	if (now < s->ckpt_checked + 1)
		return;
	s->ckpt_checked = now;
	if (max_bytes && max_bytes / 4 < (uint64_t)limit)
		limit = max_bytes / 4 < (4u << 20) ? (4 << 20) : (off_t)(max_bytes / 4);
	if (stat(s->wal_path, &st) || st.st_size < limit)
		return;
	sqlite3_busy_timeout(s->db, 300);
	sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	sqlite3_busy_timeout(s->db, 5000);
}

static void free_batch(struct batch *b);

/* Written batches are kept for reuse by a live capture: a steady load
 * cycles through the same ones (the open transaction holds every batch
 * until its COMMIT), and fresh ones would cost a page fault per 4 KiB
 * written. Those a whole store_trim_spares() period did not need (a
 * burst's: a retention cut, a checkpoint) go back to the allocator then,
 * so memory follows the load instead of its peak. Called locked. */
#define SPARE_BATCHES 4

static void recycle(struct store *s, struct batch *b)
{
	/* An import frees what exceeds SPARE_BATCHES at once: keeping them
	 * measured 4.5 times slower (bench/derived.sh's big trace: 27 s
	 * against 6 s, all of it in libtracecmd's record bookkeeping, with
	 * the same peak RSS). */
	if (!s->retain && s->nspare >= SPARE_BATCHES) {
		free_batch(b);
		s->nbatches--;
		return;
	}
	b->nops = 0;
	b->start = 0;
	b->text_len = 0;
	b->next = s->spare;
	s->spare = b;
	s->nspare++;
}

static int run_batch(struct store *s, struct batch *b)
{
	for (size_t i = b->start; i < b->nops; i++) {
		if (run_op(s, &b->ops[i], b))
			return -1;
		if (b->ops[i].op == OP_COMMIT && s->retain) {
			/* Durable now: what was held for a retry can go. */
			pthread_mutex_lock(&s->lock);
			while (s->held) {
				struct batch *h = s->held;

				s->held = h->next;
				s->nheld--;
				recycle(s, h);
			}
			s->held_tail = NULL;
			pthread_cond_broadcast(&s->cond);
			pthread_mutex_unlock(&s->lock);
			b->start = i + 1;
		}
	}
	/* The batch's memory is reused: nothing may stay pending. */
	return flush_events(s, b);
}

/* A write failed: undo the transaction and put everything it had back at
 * the head of the queue, to run again on store_retry. Called locked. */
static void rewind_locked(struct store *s, struct batch *b)
{
	for (int k = 0; k < TABLE_COUNT; k++) {
		s->pending[k].n = 0;
		sqlite3_reset(s->ins[k]);
	}
	for (int k = 0; k < ST_COUNT; k++)
		sqlite3_reset(s->misc[k]);
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	b->next = s->full;
	s->full = b;
	if (!s->full_tail)
		s->full_tail = b;
	s->nfull++;
	if (s->held) {
		for (struct batch *h = s->held; h; h = h->next)
			s->nfull++;
		s->held_tail->next = s->full;
		s->full = s->held;
		s->held = s->held_tail = NULL;
		s->nheld = 0;
	}
	s->paused = 1;
}

static void *writer_main(void *arg)
{
	struct store *s = arg;
	struct batch *b;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while ((!s->full || s->paused) && !s->stop)
			pthread_cond_wait(&s->cond, &s->lock);
		if (!s->full || s->paused)
			break;
		b = s->full;
		s->full = b->next;
		if (!s->full)
			s->full_tail = NULL;
		s->nfull--;
		s->busy = 1;
		/* Without retention, nothing more is written after a failure:
		 * the caller sees the error and gives up. */
		int skip = s->failed && !s->retain;

		pthread_mutex_unlock(&s->lock);
		int rc = skip ? 0 : run_batch(s, b);
		pthread_mutex_lock(&s->lock);
		if (rc && s->retain) {
			s->failed = 1;
			rewind_locked(s, b);
		} else {
			if (rc)
				s->failed = 1;
			if (s->retain && b->start < b->nops) {
				/* Part of the open transaction: hold it. */
				b->next = NULL;
				if (s->held_tail)
					s->held_tail->next = b;
				else
					s->held = b;
				s->held_tail = b;
				s->nheld++;
			} else {
				recycle(s, b);
			}
		}
		s->busy = 0;
		pthread_cond_broadcast(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Hands the filled batch to the writer (or runs it here). */
/* Whether the writer failed for good (sticky; under retention a failure
 * pauses instead): read under the lock it is written under. */
static int failed_for_good(struct store *s)
{
	int f;

	if (!s->threaded)
		return s->failed && !s->retain;
	pthread_mutex_lock(&s->lock);
	f = s->failed && !s->retain;
	pthread_mutex_unlock(&s->lock);
	return f;
}

static int submit(struct store *s)
{
	struct batch *b = s->fill;
	int rc = 0;

	if (!b->nops)
		return failed_for_good(s) ? -1 : 0;
	if (!s->threaded) {
		rc = run_batch(s, b);
		b->nops = 0;
		b->start = 0;
		b->text_len = 0;
		if (rc)
			s->failed = 1;
		return rc;
	}
	pthread_mutex_lock(&s->lock);
	/* Batches held for the open transaction come back only after its
	 * COMMIT, which may still be in the caller's hands: so whenever
	 * fewer than MAX_BATCHES wait for the writer (or it is paused), a
	 * new one is made rather than waiting for a spare that would never
	 * come. */
	while (!s->spare) {
		if (s->nfull < MAX_BATCHES || s->paused) {
			struct batch *nb = calloc(1, sizeof(*nb));

			if (nb) {
				s->nbatches++;
				nb->next = s->spare;
				s->spare = nb;
				s->nspare++;
				break;
			}
		}
		pthread_cond_wait(&s->cond, &s->lock);
	}
	b->next = NULL;
	if (s->full_tail)
		s->full_tail->next = b;
	else
		s->full = b;
	s->full_tail = b;
	s->nfull++;
	s->fill = s->spare;
	s->spare = s->fill->next;
	s->fill->next = NULL;
	s->nspare--;
	if (s->nspare < s->spare_low)
		s->spare_low = s->nspare;
	rc = s->failed && !s->retain ? -1 : 0;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void store_trim_spares(struct store *s)
{
	int n;

	pthread_mutex_lock(&s->lock);
	/* Spares that were never all in use since the last call: not
	 * needed by the load; a few stay for the next burst. */
	n = s->spare_low < s->nspare - SPARE_BATCHES ? s->spare_low
						      : s->nspare - SPARE_BATCHES;
	for (; n > 0 && s->spare; n--) {
		struct batch *b = s->spare;

		s->spare = b->next;
		s->nspare--;
		s->nbatches--;
		free_batch(b);
	}
	s->spare_low = s->nspare;
	pthread_mutex_unlock(&s->lock);
}

/* Waits until everything queued is in SQLite. */
static int drain(struct store *s)
{
	if (submit(s))
		return -1;
	if (!s->threaded)
		return s->failed ? -1 : 0;
	int f;

	pthread_mutex_lock(&s->lock);
	while ((s->full || s->busy) && !s->paused)
		pthread_cond_wait(&s->cond, &s->lock);
	f = s->failed;
	pthread_mutex_unlock(&s->lock);
	return f ? -1 : 0;
}

static struct op *new_op(struct store *s, enum op_kind kind)
{
	struct op *o;

	if (s->fill->nops == BATCH_OPS && submit(s))
		return NULL;
	o = &s->fill->ops[s->fill->nops++];
	o->op = (uint8_t)kind;
	return o;
}

/* Copies text into the batch; returns its offset or UINT32_MAX. */
static uint32_t add_text(struct store *s, const char *text, size_t len)
{
	struct batch *b = s->fill;
	uint32_t off;

	if (grow_array(&b->text, &b->text_cap, 1, b->text_len + len, 0)) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		return UINT32_MAX;
	}
	off = (uint32_t)b->text_len;
	if (len)
		memcpy(b->text + off, text, len);
	b->text_len += len;
	return off;
}

/* An event table's INSERT, from its row source. */
static int prepare_insert(struct store *s, int kind)
{
	char name[32], sql[160];

	s->ncols[kind] = event_table[kind].ncols;
	s->src[kind].s = s;
	s->src[kind].kind = kind;
	snprintf(name, sizeof(name), "commd_rows_%d", kind);
	if (sqlite3_create_module(s->db, name, &rows_module, &s->src[kind]) != SQLITE_OK)
		return fail(s, "registering the row source");
	snprintf(sql, sizeof(sql), "INSERT OR FAIL INTO %s SELECT * FROM %s",
		 event_table[kind].name, name);
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &s->ins[kind], NULL) != SQLITE_OK)
		return fail(s, "preparing insert");
	return 0;
}

static void free_batch(struct batch *b)
{
	if (!b)
		return;
	free(b->text);
	free(b);
}

static int max_id(struct store *s, const char *table, uint32_t *out)
{
	sqlite3_stmt *st = NULL;
	char sql[96];
	int rc = -1;

	snprintf(sql, sizeof(sql), "SELECT coalesce(max(id), 0) FROM %s", table);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		*out = (uint32_t)sqlite3_column_int64(st, 0);
		rc = 0;
	} else {
		fail(s, "reading ids");
	}
	sqlite3_finalize(st);
	return rc;
}

struct store *store_open(const char *path, enum store_mode mode,
			 char *err, size_t errlen)
{
	static const char bulk_pragmas[] =
		"PRAGMA journal_mode = OFF;"
		"PRAGMA synchronous = OFF;"
		"PRAGMA locking_mode = EXCLUSIVE;"
		"PRAGMA cache_size = -131072;"
		"PRAGMA temp_store = MEMORY;";
	static const char live_pragmas[] =
		"PRAGMA journal_mode = WAL;"
		"PRAGMA synchronous = NORMAL;"
		/* The WAL grows to the largest transaction (a retention cut);
		 * after a checkpoint it is truncated back to this. */
		"PRAGMA journal_size_limit = 16777216;"
		"PRAGMA busy_timeout = 5000;";
	struct store *s;
	int i;

	/* SQLite's memory statistics take a global mutex per allocation;
	 * commd does not read them. Must precede the first connection, and
	 * is refused harmlessly once SQLite is initialised. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->fill = calloc(1, sizeof(*s->fill));
	s->spare = calloc(1, sizeof(*s->spare));
	s->nbatches = 2;
	s->nspare = 1;
	s->spare_low = 1;
	if (!s->fill || !s->spare) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		goto fail;
	}
	/* Root follows no one's link to the database. */
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
			    NULL) != SQLITE_OK) {
		fail(s, "opening database");
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	/* 16 KiB pages (a new file only): a quarter of the WAL writes and
	 * checkpoint copies of 4 KiB pages, and fewer B-tree splits. */
	if (exec(s, "PRAGMA page_size = 16384"))
		goto fail;
	if (exec(s, mode == STORE_BULK ? bulk_pragmas : live_pragmas))
		goto fail;
	if (migrate(s))
		goto fail;
	for (i = 0; i < TABLE_COUNT; i++)
		if (prepare_insert(s, i))
			goto fail;
	for (i = 0; i < ST_COUNT; i++)
		if (sqlite3_prepare_v3(s->db, misc_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
				       &s->misc[i], NULL) != SQLITE_OK) {
			fail(s, "preparing statement");
			goto fail;
		}
	if (max_id(s, "comms", &s->comm_base) ||
	    max_id(s, "comm_history", &s->hid_base) ||
	    max_id(s, "event_types", &s->type_base))
		goto fail;
	s->retain = mode == STORE_LIVE;
	if (s->retain)
		load_max_wake(s);
	snprintf(s->wal_path, sizeof(s->wal_path), "%s-wal", path);
	if (pthread_create(&s->writer, NULL, writer_main, s) == 0)
		s->threaded = 1;	/* else: write in the caller, slower */
	return s;
fail:
	snprintf(err, errlen, "%s", s->err);
	store_close(s);
	return NULL;
}

int store_close(struct store *s)
{
	int rc = 0;

	if (!s)
		return 0;
	if (s->threaded) {
		pthread_mutex_lock(&s->lock);
		s->stop = 1;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->writer, NULL);
	}
	for (int i = 0; i < TABLE_COUNT; i++) {
		sqlite3_finalize(s->ins[i]);
	}
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(s->misc[i]);
	if (s->db && sqlite3_close(s->db) != SQLITE_OK)
		rc = -1;
	free_batch(s->fill);
	for (struct batch *b = s->spare, *n; b; b = n) {
		n = b->next;
		free_batch(b);
	}
	for (struct batch *b = s->full, *n; b; b = n) {
		n = b->next;
		free_batch(b);
	}
	for (struct batch *b = s->held, *n; b; b = n) {
		n = b->next;
		free_batch(b);
	}
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s);
	return rc;
}

int store_begin(struct store *s)
{
	return new_op(s, OP_BEGIN) ? 0 : -1;
}

int store_commit(struct store *s)
{
	if (!new_op(s, OP_COMMIT))
		return -1;
	return drain(s);
}

int store_commit_async(struct store *s)
{
	if (!new_op(s, OP_COMMIT))
		return -1;
	return submit(s);
}

int store_rollback(struct store *s)
{
	if (drain(s) && !s->db)
		return -1;
	if (sqlite3_get_autocommit(s->db))
		return 0;
	return exec(s, "ROLLBACK");
}

int store_event(struct store *s, const struct decode_event *ev, uint32_t hid,
		const uint32_t comm_ids[2], uint32_t type_id,
		const char *json, size_t json_len)
{
	struct op *o = new_op(s, OP_EVENT);

	if (!o)
		return -1;
	o->kind = (uint8_t)ev->kind;
	o->has = (uint16_t)ev->has;
	o->cpu = ev->cpu;
	o->ts = ev->ts;
	o->hid = hid + s->hid_base;
	o->ids[0] = comm_ids[0] ? comm_ids[0] + s->comm_base : 0;
	o->ids[1] = comm_ids[1] ? comm_ids[1] + s->comm_base : 0;
	o->type = type_id + s->type_base;
	o->p[0] = ev->p[0];
	o->p[1] = ev->p[1];
	o->v[0] = ev->v[0];
	o->v[1] = ev->v[1];
	o->v[2] = ev->v[2];
	if (ev->kind == DECODE_SCHED_PROCESS_EXEC && (ev->has & DECODE_HAS_STR)) {
		json = ev->str.s;
		json_len = ev->str.len;
	} else if (ev->kind != DECODE_OTHER) {
		json = NULL;
	}
	if (json) {
		o->text = add_text(s, json, json_len);
		o->text_len = (uint32_t)json_len;
		if (o->text == UINT32_MAX)
			return -1;
		o->has |= DECODE_HAS_STR;
	} else if (ev->kind == DECODE_OTHER) {
		o->has &= (uint16_t)~DECODE_HAS_STR;
	}
	return 0;
}

int store_event_type(struct store *s, uint32_t id, const char *system,
		     const char *name)
{
	struct op *o = new_op(s, OP_TYPE);

	if (!o)
		return -1;
	o->type = id + s->type_base;
	o->text = add_text(s, system, strlen(system));
	o->text_len = (uint32_t)strlen(system);
	o->text2 = add_text(s, name, strlen(name));
	o->text2_len = (uint32_t)strlen(name);
	return o->text == UINT32_MAX || o->text2 == UINT32_MAX ? -1 : 0;
}

int store_sync_names(struct store *s, struct resolve *r)
{
	uint32_t n = resolve_comm_count(r);
	const uint32_t *hids;
	size_t ndirty, len;
	const char *c;
	struct op *o;

	for (uint32_t id = s->comms_written + 1; id <= n; id++) {
		if (!(o = new_op(s, OP_COMM)))
			return -1;
		c = resolve_comm(r, id, &len);
		o->hid = id + s->comm_base;
		o->text = add_text(s, c, len);
		o->text_len = (uint32_t)len;
		if (o->text == UINT32_MAX)
			return -1;
	}
	s->comms_written = n;
	ndirty = resolve_dirty(r, &hids);
	for (size_t i = 0; i < ndirty; i++) {
		const struct resolve_row *row = resolve_row(r, hids[i]);

		if (!(o = new_op(s, OP_HISTORY)))
			return -1;
		o->hid = hids[i] + s->hid_base;
		/* Rows are numbered as they are made: one above every row
		 * queued so far is new (one below may be too, if the dirty
		 * list is out of order: the UPDATE then finds no row). */
		o->has = hids[i] > s->history_written ? OP_NEW_ROW : 0;
		if (hids[i] > s->history_written)
			s->history_written = hids[i];
		o->p[0] = row->pid;
		o->p[1] = row->tgid;
		o->ids[0] = row->comm_id;
		o->ids[1] = row->life + s->hid_base;
		o->v[0] = (int64_t)row->start_ts;
		o->v[1] = (int64_t)row->end_ts;
		o->v[2] = row->parent;
		o->type = row->source;
		o->text_len = 0;
		if (row->comm_id) {
			c = resolve_comm(r, row->comm_id, &len);
			o->text = add_text(s, c, len);
			o->text_len = (uint32_t)len;
			if (o->text == UINT32_MAX)
				return -1;
		}
	}
	resolve_clear_dirty(r);
	return 0;
}

int store_lost(struct store *s, int cpu, uint64_t ts, int64_t count)
{
	struct op *o = new_op(s, OP_LOST);

	if (!o)
		return -1;
	o->cpu = cpu;
	o->ts = ts;
	o->v[0] = count;
	return 0;
}

int store_clock(struct store *s, int64_t capture, uint64_t ts,
		int64_t realtime, int64_t err)
{
	struct op *o = new_op(s, OP_CLOCK);

	if (!o)
		return -1;
	o->ts = ts;
	o->v[0] = capture;
	o->v[1] = realtime;
	o->v[2] = err;
	return 0;
}

/* The calls below are rare: they wait for the writer and then use the
 * connection directly. */

int store_stat(struct store *s, int64_t capture, const char *name, int cpu,
	       int64_t value)
{
	sqlite3_stmt *st = s->misc[ST_STAT];

	if (drain(s))
		return -1;
	sqlite3_bind_int64(st, 1, capture);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	if (cpu < 0)
		sqlite3_bind_null(st, 3);
	else
		sqlite3_bind_int(st, 3, cpu);
	sqlite3_bind_int64(st, 4, value);
	return step(s, st, "storing stat");
}

int64_t store_capture_begin(struct store *s, const char *source,
			    const char *kernel, const char *host,
			    uint64_t start_ts, const char *events,
			    const char *clock, const char *buffer)
{
	sqlite3_stmt *st = NULL;
	int64_t id = -1;

	if (drain(s))
		return -1;
	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO capture(source, kernel, host, start_ts, events,"
			       " clock, buffer) VALUES (?,?,?,?,?,?,?)", -1, &st,
			       NULL) != SQLITE_OK) {
		fail(s, "preparing capture");
		return -1;
	}
	sqlite3_bind_text(st, 1, source, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, kernel, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, host, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)start_ts);
	sqlite3_bind_text(st, 5, events, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, clock, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, buffer, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(s->db);
	else
		fail(s, "storing capture");
	sqlite3_finalize(st);
	return id;
}

static int update_capture(struct store *s, const char *sql, int64_t id,
			  int nargs, const int64_t *args, const char *text)
{
	sqlite3_stmt *st = NULL;
	int rc = 0, col = 1;

	if (drain(s))
		return -1;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail(s, "preparing capture");
	if (text)
		sqlite3_bind_text(st, col++, text, -1, SQLITE_STATIC);
	for (int i = 0; i < nargs; i++)
		sqlite3_bind_int64(st, col++, args[i]);
	sqlite3_bind_int64(st, col, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = fail(s, "storing capture");
	sqlite3_finalize(st);
	return rc;
}

int store_capture_end(struct store *s, int64_t id, uint64_t start_ts,
		      uint64_t end_ts)
{
	int64_t args[2] = { (int64_t)start_ts, (int64_t)end_ts };

	return update_capture(s, "UPDATE capture SET start_ts = ?, end_ts = ?"
			      " WHERE id = ?", id, 2, args, NULL);
}

int store_capture_states(struct store *s, int64_t id, const char *states)
{
	return update_capture(s, "UPDATE capture SET states = ? WHERE id = ?",
			      id, 0, NULL, states);
}

int store_capture_events(struct store *s, int64_t id, const char *events)
{
	return update_capture(s, "UPDATE capture SET events = ? WHERE id = ?",
			      id, 0, NULL, events);
}

int store_close_open_history(struct store *s, uint64_t ts)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;

	if (drain(s))
		return -1;
	if (sqlite3_prepare_v2(s->db, "UPDATE comm_history SET end_ts = max(start_ts, ?)"
			       " WHERE end_ts IS NULL", -1, &st, NULL) != SQLITE_OK)
		return fail(s, "preparing history update");
	sqlite3_bind_int64(st, 1, (sqlite3_int64)ts);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = fail(s, "closing history");
	sqlite3_finalize(st);
	return rc;
}

int store_slice(struct store *s, const struct derive_slice *d)
{
	struct op *o = new_op(s, OP_EVENT);

	if (!o)
		return -1;
	o->kind = TABLE_SCHED;
	o->ts = d->ts;
	o->cpu = d->cpu;
	o->hid = d->hid + s->hid_base;
	o->v[0] = (int64_t)d->dur;
	o->v[1] = d->end_state;
	o->p[0] = d->prio;
	o->p[1] = d->lost;
	o->v[2] = d->start_err;
	o->slice_dur = d->end_err;	/* not a switch: the field is free */
	return 0;
}

int store_switch_derived(struct store *s, const struct derive_slice *sl,
			 const struct derive_wakeup *w)
{
	struct batch *b = s->fill;
	struct op *o = b->nops ? &b->ops[b->nops - 1] : NULL;

	if (!o || o->op != OP_EVENT || o->kind != DECODE_SCHED_SWITCH)
		return -1;	/* not right after store_event(a switch) */
	if (sl) {
		o->has |= OP_HAS_SLICE;
		o->slice_dur = (int64_t)sl->dur;
		if (!(o->has & DECODE_HAS_V0) || sl->prio != (int32_t)o->v[0]) {
			o->has |= OP_HAS_SLICE_PRIO;
			o->slice_prio = sl->prio;
		}
	}
	if (w) {
		o->has |= OP_HAS_WAKE;
		o->wake_latency = (int64_t)w->latency;
		o->wake_hid = w->hid + s->hid_base;
		o->waker_hid = w->waker_hid ? w->waker_hid + s->hid_base : 0;
		/* Its waker's history row is kept by retention as long as
		 * the waking it names (see trim_finish). */
		if ((int64_t)w->latency > s->max_wake_latency)
			__atomic_store_n(&s->max_wake_latency, (int64_t)w->latency,
					 __ATOMIC_RELAXED);
	}
	return 0;
}

int store_wakeup(struct store *s, const struct derive_wakeup *w)
{
	struct op *o = new_op(s, OP_EVENT);

	if (!o)
		return -1;
	o->kind = TABLE_WAKEUP_LATENCY;
	o->ts = w->ts;
	o->cpu = w->cpu;
	o->hid = w->hid + s->hid_base;
	o->v[0] = (int64_t)w->latency;
	o->ids[0] = w->waker_hid ? w->waker_hid + s->hid_base : 0;
	return 0;
}

int store_mark_unclean(struct store *s, uint64_t now, int ncpus, int64_t *marked)
{
	static const char *const tables[] = {
		"ev_sched_switch", "ev_sched_waking", "ev_sched_wakeup",
		"ev_sched_stat_runtime", "ev_other", NULL
	};
	sqlite3_stmt *st = NULL;
	int64_t last = -1, id = -1, start = -1;
	char sql[160];

	*marked = 0;
	if (drain(s))
		return -1;
	/* A capture without an end was killed. */
	if (sqlite3_prepare_v2(s->db, "SELECT id, start_ts FROM capture WHERE end_ts IS NULL"
			       " ORDER BY id DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return fail(s, "reading captures");
	if (sqlite3_step(st) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		start = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (id < 0)
		return 0;
	/* Its last stored event: rows go in time order, so the last rowid
	 * of each busy table is enough. */
	for (int i = 0; tables[i]; i++) {
		snprintf(sql, sizeof(sql), "SELECT ts FROM %s ORDER BY rowid DESC LIMIT 1",
			 tables[i]);
		if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > last)
			last = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	/* No event of its own stored: it ended where it started (the last
	 * event found may be an older capture's). */
	if (last < start)
		last = start;
	if (exec(s, "BEGIN"))
		return -1;
	snprintf(sql, sizeof(sql), "UPDATE capture SET end_ts = %lld WHERE id = %lld",
		 (long long)last, (long long)id);
	if (exec(s, sql))
		goto fail;
	/* The window between the last stored event and this start is lost
	 * on every CPU, by an unknown count. */
	for (int cpu = 0; cpu < ncpus; cpu++) {
		snprintf(sql, sizeof(sql), "INSERT INTO lost_events VALUES (%d, %lld, NULL)",
			 cpu, (long long)now);
		if (exec(s, sql))
			goto fail;
	}
	snprintf(sql, sizeof(sql), "INSERT INTO stats VALUES (%lld, 'unclean_stop_gap_ns', NULL, %lld)",
		 (long long)id, (long long)((int64_t)now - last));
	if (exec(s, sql) || exec(s, "COMMIT"))
		goto fail;
	*marked = (int64_t)now - last;
	return 0;
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int store_uncommitted_batches(struct store *s)
{
	int n;

	pthread_mutex_lock(&s->lock);
	n = s->nheld + s->nfull;
	pthread_mutex_unlock(&s->lock);
	return n;
}

int store_paused(struct store *s)
{
	int p;

	pthread_mutex_lock(&s->lock);
	p = s->paused;
	pthread_mutex_unlock(&s->lock);
	return p;
}

void store_retry(struct store *s)
{
	pthread_mutex_lock(&s->lock);
	if (s->paused) {
		s->paused = 0;
		s->failed = 0;
		pthread_cond_broadcast(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
}

int store_busy(struct store *s)
{
	int b;

	pthread_mutex_lock(&s->lock);
	b = s->busy || s->full;
	pthread_mutex_unlock(&s->lock);
	return b;
}

void store_set_max_bytes(struct store *s, uint64_t max_bytes)
{
	__atomic_store_n(&s->max_bytes, max_bytes, __ATOMIC_RELAXED);
}

void store_set_max_age(struct store *s, uint64_t max_age_ns)
{
	__atomic_store_n(&s->max_age_ns, max_age_ns, __ATOMIC_RELAXED);
}
