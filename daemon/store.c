/* store.c — see store.h. */
#include "store.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

extern const char *const commd_schema_sql[];
extern const int commd_schema_count;

static const char *const insert_sql[DECODE_KIND_COUNT] = {
	[DECODE_OTHER] = "INSERT INTO ev_other VALUES (?,?,?,?,?)",
	[DECODE_SCHED_SWITCH] = "INSERT INTO ev_sched_switch VALUES (?,?,?,?,?,?,?,?,?,?)",
	[DECODE_SCHED_WAKEUP] = "INSERT INTO ev_sched_wakeup VALUES (?,?,?,?,?,?,?)",
	[DECODE_SCHED_WAKEUP_NEW] = "INSERT INTO ev_sched_wakeup_new VALUES (?,?,?,?,?,?,?)",
	[DECODE_SCHED_WAKING] = "INSERT INTO ev_sched_waking VALUES (?,?,?,?,?,?,?)",
	[DECODE_SCHED_PROCESS_FORK] = "INSERT INTO ev_sched_process_fork VALUES (?,?,?,?,?,?,?)",
	[DECODE_SCHED_PROCESS_EXEC] = "INSERT INTO ev_sched_process_exec VALUES (?,?,?,?,?,?)",
	[DECODE_SCHED_PROCESS_EXIT] = "INSERT INTO ev_sched_process_exit VALUES (?,?,?,?,?,?)",
	[DECODE_SCHED_PROCESS_FREE] = "INSERT INTO ev_sched_process_free VALUES (?,?,?,?,?,?)",
	[DECODE_SCHED_MIGRATE_TASK] = "INSERT INTO ev_sched_migrate_task VALUES (?,?,?,?,?,?,?,?)",
	[DECODE_TASK_RENAME] = "INSERT INTO ev_task_rename VALUES (?,?,?,?,?,?)",
	[DECODE_TASK_NEWTASK] = "INSERT INTO ev_task_newtask VALUES (?,?,?,?,?,?)",
	[DECODE_SCHED_STAT_RUNTIME] = "INSERT INTO ev_sched_stat_runtime VALUES (?,?,?,?,?,?,?)",
};

enum { ST_COMM, ST_HISTORY, ST_TYPE, ST_LOST, ST_STAT, ST_BEGIN, ST_COMMIT,
       ST_COUNT };

static const char *const misc_sql[ST_COUNT] = {
	[ST_COMM] = "INSERT OR REPLACE INTO comms VALUES (?,?)",
	[ST_HISTORY] = "INSERT OR REPLACE INTO comm_history VALUES (?,?,?,?,?,?,?)",
	[ST_TYPE] = "INSERT OR REPLACE INTO event_types VALUES (?,?,?)",
	[ST_LOST] = "INSERT INTO lost_events VALUES (?,?,?)",
	[ST_STAT] = "INSERT INTO stats VALUES (?,?,?,?)",
	[ST_BEGIN] = "BEGIN",
	[ST_COMMIT] = "COMMIT",
};

struct store {
	sqlite3 *db;
	sqlite3_stmt *ins[DECODE_KIND_COUNT];
	sqlite3_stmt *misc[ST_COUNT];
	uint32_t comms_written;		/* comm ids 1..n are in the file */
	char err[512];
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

struct store *store_open(const char *path, enum store_mode mode,
			 char *err, size_t errlen)
{
	static const char bulk_pragmas[] =
		"PRAGMA journal_mode = OFF;"
		"PRAGMA synchronous = OFF;"
		"PRAGMA locking_mode = EXCLUSIVE;"
		"PRAGMA cache_size = -65536;"
		"PRAGMA temp_store = MEMORY;";
	static const char live_pragmas[] =
		"PRAGMA journal_mode = WAL;"
		"PRAGMA synchronous = NORMAL;"
		"PRAGMA busy_timeout = 5000;";
	struct store *s;
	int i;

	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		fail(s, "opening database");
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	if (mode == STORE_BULK && exec(s, "PRAGMA page_size = 16384"))
		goto fail;
	if (exec(s, mode == STORE_BULK ? bulk_pragmas : live_pragmas))
		goto fail;
	if (migrate(s))
		goto fail;
	for (i = 0; i < DECODE_KIND_COUNT; i++)
		if (sqlite3_prepare_v3(s->db, insert_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
				       &s->ins[i], NULL) != SQLITE_OK) {
			fail(s, "preparing insert");
			goto fail;
		}
	for (i = 0; i < ST_COUNT; i++)
		if (sqlite3_prepare_v3(s->db, misc_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
				       &s->misc[i], NULL) != SQLITE_OK) {
			fail(s, "preparing statement");
			goto fail;
		}
	/* Comms already in the file (a live capture continuing). */
	{
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(s->db, "SELECT coalesce(max(id), 0) FROM comms",
				       -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW)
			s->comms_written = (uint32_t)sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
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
	for (int i = 0; i < DECODE_KIND_COUNT; i++)
		sqlite3_finalize(s->ins[i]);
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(s->misc[i]);
	if (s->db && sqlite3_close(s->db) != SQLITE_OK)
		rc = -1;
	free(s);
	return rc;
}

static int step(struct store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return fail(s, what);
	return 0;
}

int store_begin(struct store *s)
{
	return step(s, s->misc[ST_BEGIN], "BEGIN");
}

int store_commit(struct store *s)
{
	return step(s, s->misc[ST_COMMIT], "COMMIT");
}

int store_rollback(struct store *s)
{
	if (sqlite3_get_autocommit(s->db))
		return 0;
	return exec(s, "ROLLBACK");
}

static inline void bind_id(sqlite3_stmt *st, int col, uint32_t id)
{
	if (id)
		sqlite3_bind_int64(st, col, id);
	else
		sqlite3_bind_null(st, col);
}

static inline void bind_opt(sqlite3_stmt *st, int col, const struct decode_event *ev,
			    unsigned bit, int64_t v)
{
	if (ev->has & bit)
		sqlite3_bind_int64(st, col, v);
	else
		sqlite3_bind_null(st, col);
}

int store_event(struct store *s, const struct decode_event *ev, uint32_t hid,
		const uint32_t comm_ids[2], uint32_t type_id,
		const char *json, size_t json_len)
{
	sqlite3_stmt *st = s->ins[ev->kind];

	sqlite3_bind_int64(st, 1, (sqlite3_int64)ev->ts);
	sqlite3_bind_int(st, 2, ev->cpu);
	sqlite3_bind_int64(st, 3, hid);
	switch (ev->kind) {
	case DECODE_SCHED_SWITCH:
		bind_opt(st, 4, ev, DECODE_HAS_P0, ev->p[0]);
		bind_id(st, 5, comm_ids[0]);
		bind_opt(st, 6, ev, DECODE_HAS_V0, ev->v[0]);
		bind_opt(st, 7, ev, DECODE_HAS_V1, ev->v[1]);
		bind_opt(st, 8, ev, DECODE_HAS_P1, ev->p[1]);
		bind_id(st, 9, comm_ids[1]);
		bind_opt(st, 10, ev, DECODE_HAS_V2, ev->v[2]);
		break;
	case DECODE_SCHED_WAKEUP:
	case DECODE_SCHED_WAKEUP_NEW:
	case DECODE_SCHED_WAKING:
		bind_opt(st, 4, ev, DECODE_HAS_P0, ev->p[0]);
		bind_id(st, 5, comm_ids[0]);
		bind_opt(st, 6, ev, DECODE_HAS_V0, ev->v[0]);
		bind_opt(st, 7, ev, DECODE_HAS_V1, ev->v[1]);
		break;
	case DECODE_SCHED_PROCESS_FORK:
		bind_opt(st, 4, ev, DECODE_HAS_P0, ev->p[0]);
		bind_id(st, 5, comm_ids[0]);
		bind_opt(st, 6, ev, DECODE_HAS_P1, ev->p[1]);
		bind_id(st, 7, comm_ids[1]);
		break;
	case DECODE_SCHED_PROCESS_EXEC:
		if (ev->has & DECODE_HAS_STR)
			sqlite3_bind_text(st, 4, ev->str.s, (int)ev->str.len, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 4);
		bind_opt(st, 5, ev, DECODE_HAS_P0, ev->p[0]);
		bind_opt(st, 6, ev, DECODE_HAS_P1, ev->p[1]);
		break;
	case DECODE_SCHED_PROCESS_EXIT:
	case DECODE_SCHED_PROCESS_FREE:
		bind_opt(st, 4, ev, DECODE_HAS_P0, ev->p[0]);
		bind_id(st, 5, comm_ids[0]);
		bind_opt(st, 6, ev, DECODE_HAS_V0, ev->v[0]);
		break;
	case DECODE_SCHED_STAT_RUNTIME:
		bind_opt(st, 4, ev, DECODE_HAS_P0, ev->p[0]);
		bind_id(st, 5, comm_ids[0]);
		bind_opt(st, 6, ev, DECODE_HAS_V0, ev->v[0]);
		bind_opt(st, 7, ev, DECODE_HAS_V1, ev->v[1]);
		break;
	case DECODE_SCHED_MIGRATE_TASK:
		bind_opt(st, 4, ev, DECODE_HAS_P0, ev->p[0]);
		bind_id(st, 5, comm_ids[0]);
		bind_opt(st, 6, ev, DECODE_HAS_V0, ev->v[0]);
		bind_opt(st, 7, ev, DECODE_HAS_V1, ev->v[1]);
		bind_opt(st, 8, ev, DECODE_HAS_V2, ev->v[2]);
		break;
	case DECODE_TASK_RENAME:
		bind_opt(st, 4, ev, DECODE_HAS_P0, ev->p[0]);
		bind_id(st, 5, comm_ids[0]);
		bind_id(st, 6, comm_ids[1]);
		break;
	case DECODE_TASK_NEWTASK:
		bind_opt(st, 4, ev, DECODE_HAS_P0, ev->p[0]);
		bind_id(st, 5, comm_ids[0]);
		bind_opt(st, 6, ev, DECODE_HAS_V0, ev->v[0]);
		break;
	case DECODE_OTHER:
	default:
		sqlite3_bind_int64(st, 4, type_id);
		if (json)
			sqlite3_bind_text(st, 5, json, (int)json_len, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 5);
		break;
	}
	return step(s, st, "storing event");
}

int store_event_type(struct store *s, uint32_t id, const char *system,
		     const char *name)
{
	sqlite3_stmt *st = s->misc[ST_TYPE];

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, system, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
	return step(s, st, "storing event type");
}

int store_sync_names(struct store *s, struct resolve *r)
{
	uint32_t n = resolve_comm_count(r);
	const uint32_t *hids;
	size_t ndirty;

	for (uint32_t id = s->comms_written + 1; id <= n; id++) {
		sqlite3_stmt *st = s->misc[ST_COMM];
		size_t len;
		const char *c = resolve_comm(r, id, &len);

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, c, (int)len, SQLITE_STATIC);
		if (step(s, st, "storing comm"))
			return -1;
	}
	s->comms_written = n;
	ndirty = resolve_dirty(r, &hids);
	for (size_t i = 0; i < ndirty; i++) {
		const struct resolve_row *row = resolve_row(r, hids[i]);
		sqlite3_stmt *st = s->misc[ST_HISTORY];
		const char *c = NULL;
		size_t len = 0;

		sqlite3_bind_int64(st, 1, hids[i]);
		sqlite3_bind_int(st, 2, row->pid);
		if (row->tgid == RESOLVE_TGID_UNKNOWN)
			sqlite3_bind_null(st, 3);
		else
			sqlite3_bind_int(st, 3, row->tgid);
		if (row->comm_id)
			c = resolve_comm(r, row->comm_id, &len);
		if (c)
			sqlite3_bind_text(st, 4, c, (int)len, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 4);
		sqlite3_bind_int64(st, 5, (sqlite3_int64)row->start_ts);
		if (row->end_ts == RESOLVE_OPEN)
			sqlite3_bind_null(st, 6);
		else
			sqlite3_bind_int64(st, 6, (sqlite3_int64)row->end_ts);
		sqlite3_bind_text(st, 7, resolve_source_name(row->source), -1,
				  SQLITE_STATIC);
		if (step(s, st, "storing comm history"))
			return -1;
	}
	resolve_clear_dirty(r);
	return 0;
}

int store_lost(struct store *s, int cpu, uint64_t ts, int64_t count)
{
	sqlite3_stmt *st = s->misc[ST_LOST];

	sqlite3_bind_int(st, 1, cpu);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)ts);
	if (count < 0)
		sqlite3_bind_null(st, 3);
	else
		sqlite3_bind_int64(st, 3, count);
	return step(s, st, "storing lost events");
}

int store_stat(struct store *s, int64_t capture, const char *name, int cpu,
	       int64_t value)
{
	sqlite3_stmt *st = s->misc[ST_STAT];

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
			    uint64_t start_ts, const char *events)
{
	sqlite3_stmt *st = NULL;
	int64_t id = -1;

	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO capture(source, kernel, host, start_ts, events)"
			       " VALUES (?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
		fail(s, "preparing capture");
		return -1;
	}
	sqlite3_bind_text(st, 1, source, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, kernel, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, host, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)start_ts);
	sqlite3_bind_text(st, 5, events, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(s->db);
	else
		fail(s, "storing capture");
	sqlite3_finalize(st);
	return id;
}

int store_capture_end(struct store *s, int64_t id, uint64_t start_ts,
		      uint64_t end_ts)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;

	if (sqlite3_prepare_v2(s->db, "UPDATE capture SET start_ts = ?, end_ts = ?"
			       " WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return fail(s, "preparing capture");
	sqlite3_bind_int64(st, 1, (sqlite3_int64)start_ts);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)end_ts);
	sqlite3_bind_int64(st, 3, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = fail(s, "storing capture");
	sqlite3_finalize(st);
	return rc;
}

int store_capture_events(struct store *s, int64_t id, const char *events)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;

	if (sqlite3_prepare_v2(s->db, "UPDATE capture SET events = ? WHERE id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return fail(s, "preparing capture");
	sqlite3_bind_text(st, 1, events, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = fail(s, "storing capture");
	sqlite3_finalize(st);
	return rc;
}
