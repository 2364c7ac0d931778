/* store.c — see store.h (store_impl.h). */
#include "store_impl.h"

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
	[ST_LOST] = "INSERT INTO lost_events (cpu, ts, count, from_ts) VALUES (?,?,?,?)",
	[ST_STAT] = "INSERT INTO stats VALUES (?,?,?,?)",
	[ST_CLOCK] = "INSERT INTO clock_map VALUES (?,?,?,?)",
	[ST_STACK] = "INSERT OR IGNORE INTO stacks VALUES (?,?)",
	[ST_SWITCH_STACK] = "INSERT OR REPLACE INTO switch_stack VALUES (?,?,?)",
	/* (its key is never taken but by a row a killed capture left: that
	 * one stays) */
	[ST_RUNNING_DROP] = "DELETE FROM dv_sched WHERE ts = ?1 AND cpu = ?2 AND n = ?3",
	[ST_RUNNING] = "INSERT OR IGNORE INTO dv_sched VALUES "
		       "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)",
	[ST_IDLE_DROP] = "DELETE FROM dv_open_idle WHERE ts = ?1 AND cpu = ?2",
	[ST_IDLE] = "INSERT OR IGNORE INTO dv_open_idle VALUES (?1,?2,?3,?4,?5,?6)",
	[ST_CGROUP_END] = "UPDATE cgroup_history SET end_ts = ?2 WHERE pid = ?1 AND end_ts IS NULL",
	[ST_CGROUP_END_MOVED] = "UPDATE cgroup_history SET end_ts = ?2 WHERE pid = ?1 AND end_ts = ?3",
	[ST_CGROUP] = "INSERT INTO cgroup_history (pid, cgroup, path, start_ts, source) "
		      "VALUES (?1, ?3, ?4, ?2, ?5)",
	[ST_BEGIN] = "BEGIN",
	[ST_COMMIT] = "COMMIT",
};

int st_fail(struct store *s, const char *what)
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

int st_exec(struct store *s, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(s->err, sizeof(s->err), "%s", msg ? msg : sqlite3_errmsg(s->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Whether the file holds no schema object at all (a new database). */
static int schema_empty(struct store *s)
{
	sqlite3_stmt *st = NULL;
	int empty = sqlite3_prepare_v2(s->db, "SELECT 1 FROM sqlite_master LIMIT 1",
				       -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_DONE;

	sqlite3_finalize(st);
	return empty;
}

/* The file's PRAGMA user_version into *version; 0, or -1 (s->err says
 * why, a version newer than this commd's among the reasons). */
static int schema_version(struct store *s, int *version)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return st_fail(s, "reading schema version");
	}
	*version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (*version > commd_schema_count) {
		snprintf(s->err, sizeof(s->err),
			 "database schema version %d is newer than this commd (%d)",
			 *version, commd_schema_count);
		return -1;
	}
	return 0;
}

/* Applies schema/NNN-*.sql files newer than the file's user_version, in
 * one transaction: an old database is migrated, never rebuilt.  A new one
 * gets at once what the files would leave (commd_schema_fresh). */
static int migrate(struct store *s)
{
	char sql[64];
	int version;

	if (schema_version(s, &version))
		return -1;
	if (version == commd_schema_count)
		return 0;
	/* Read again under the write lock: another commd may have
	 * migrated the file (or made it) in between. */
	if (st_exec(s, "BEGIN IMMEDIATE"))
		return -1;
	if (schema_version(s, &version))
		goto fail;
	if (version == commd_schema_count)
		return st_exec(s, "COMMIT");
	if (version == 0 && schema_empty(s)) {
		if (st_exec(s, commd_schema_fresh))
			goto fail;
	} else {
		for (int i = version; i < commd_schema_count; i++)
			if (st_exec(s, commd_schema_sql[i]))
				goto fail;
	}
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", commd_schema_count);
	if (st_exec(s, sql) || st_exec(s, "COMMIT"))
		goto fail;
	return 0;
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int st_step(struct store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return st_fail(s, what);
	return 0;
}

static int max_id(struct store *s, const char *table, int64_t *out)
{
	sqlite3_stmt *st = NULL;
	char sql[96];
	int rc = -1;

	snprintf(sql, sizeof(sql), "SELECT coalesce(max(id), 0) FROM %s", table);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		rc = 0;
	} else {
		st_fail(s, "reading ids");
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
	if (s) {
		s->ship_floor = INT64_MIN;
		s->wake_hold = s->hold_saved = -1;
	}
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->fill = calloc(1, sizeof(*s->fill));
	s->fill_gen = 1;
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
		st_fail(s, "opening database");
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	/* 16 KiB pages (a new file only): a quarter of the WAL writes and
	 * checkpoint copies of 4 KiB pages, and fewer B-tree splits. */
	if (st_exec(s, "PRAGMA page_size = 16384"))
		goto fail;
	if (st_exec(s, mode == STORE_BULK ? bulk_pragmas : live_pragmas))
		goto fail;
	if (migrate(s))
		goto fail;
	for (i = 0; i < TABLE_COUNT; i++)
		if (st_prepare_insert(s, i))
			goto fail;
	for (i = 0; i < ST_COUNT; i++)
		if (sqlite3_prepare_v3(s->db, misc_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
				       &s->misc[i], NULL) != SQLITE_OK) {
			st_fail(s, "preparing statement");
			goto fail;
		}
	if (max_id(s, "comms", &s->comm_base) ||
	    max_id(s, "comm_history", &s->hid_base) ||
	    max_id(s, "event_types", &s->type_base))
		goto fail;
	s->retain = mode == STORE_LIVE;
	if (s->retain)
		st_load_retention(s);
	snprintf(s->wal_path, sizeof(s->wal_path), "%s-wal", path);
	if (pthread_create(&s->writer, NULL, st_writer_main, s) == 0)
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
		sqlite3_finalize(s->patch[i]);
		sqlite3_finalize(s->next_n[i]);
		free(s->seq[i]);
	}
	free(s->running);
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(s->misc[i]);
	if (s->db && sqlite3_close(s->db) != SQLITE_OK)
		rc = -1;
	st_free_batch(s->fill);
	for (struct batch *b = s->spare, *n; b; b = n) {
		n = b->next;
		st_free_batch(b);
	}
	for (struct batch *b = s->full, *n; b; b = n) {
		n = b->next;
		st_free_batch(b);
	}
	for (struct batch *b = s->held, *n; b; b = n) {
		n = b->next;
		st_free_batch(b);
	}
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s);
	return rc;
}

int store_begin(struct store *s)
{
	return st_new_op(s, OP_BEGIN) ? 0 : -1;
}

/* A COMMIT, with the wakeup hold given since the last. */
static int commit_op(struct store *s)
{
	struct op *o = st_new_op(s, OP_COMMIT);

	if (!o)
		return -1;
	o->v[0] = s->wake_hold;
	s->wake_hold = -1;
	return 0;
}

int store_commit(struct store *s)
{
	return commit_op(s) ? -1 : st_drain(s);
}

int store_commit_async(struct store *s)
{
	return commit_op(s) ? -1 : st_submit(s);
}

void store_hold_wakeups(struct store *s, uint64_t ts)
{
	s->wake_hold = ts > INT64_MAX ? INT64_MAX : (int64_t)ts;
}

int store_rollback(struct store *s)
{
	if (st_drain(s) && !s->db)
		return -1;
	if (sqlite3_get_autocommit(s->db))
		return 0;
	return st_exec(s, "ROLLBACK");
}

int store_event(struct store *s, const struct decode_event *ev, uint32_t hid,
		uint32_t next_hid, const uint32_t comm_ids[2], uint32_t type_id,
		const char *json, size_t json_len)
{
	struct op *o = st_new_op(s, OP_EVENT);

	if (!o)
		return -1;
	o->kind = (uint8_t)ev->kind;
	o->has = (uint16_t)ev->has;
	o->cpu = ev->cpu;
	o->ts = ev->ts;
	o->hid = hid + s->hid_base;
	o->next_hid = next_hid ? next_hid + s->hid_base : 0;
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
		o->text = st_add_text(s, json, json_len);
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
	struct op *o = st_new_op(s, OP_TYPE);

	if (!o)
		return -1;
	o->type = id + s->type_base;
	o->text = st_add_text(s, system, strlen(system));
	o->text_len = (uint32_t)strlen(system);
	o->text2 = st_add_text(s, name, strlen(name));
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
		if (!(o = st_new_op(s, OP_COMM)))
			return -1;
		c = resolve_comm(r, id, &len);
		o->hid = id + s->comm_base;
		o->text = st_add_text(s, c, len);
		o->text_len = (uint32_t)len;
		if (o->text == UINT32_MAX)
			return -1;
	}
	s->comms_written = n;
	ndirty = resolve_dirty(r, &hids);
	for (size_t i = 0; i < ndirty; i++) {
		const struct resolve_row *row = resolve_row(r, hids[i]);

		if (!(o = st_new_op(s, OP_HISTORY)))
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
			o->text = st_add_text(s, c, len);
			o->text_len = (uint32_t)len;
			if (o->text == UINT32_MAX)
				return -1;
		}
	}
	resolve_clear_dirty(r);
	return 0;
}

int store_cgroup(struct store *s, int32_t pid, uint64_t ts, int was_in,
		 const char *path, size_t len, const char *name,
		 enum store_cgroup_source source)
{
	struct op *o = st_new_op(s, OP_CGROUP);

	if (!o)
		return -1;
	o->p[0] = pid;
	o->v[0] = was_in;
	o->ts = ts;
	o->type = source;
	o->text_len = o->text2_len = 0;
	o->text = o->text2 = 0;
	o->has = 0;
	if (!path)
		return 0;
	o->text = st_add_text(s, path, len);
	o->text_len = (uint32_t)len;
	o->text2 = st_add_text(s, name, strlen(name));
	o->text2_len = (uint32_t)strlen(name);
	o->has = 1;
	return o->text == UINT32_MAX || o->text2 == UINT32_MAX ? -1 : 0;
}

int store_cgroup_end_moved(struct store *s, int32_t pid, uint64_t from, uint64_t ts)
{
	struct op *o = st_new_op(s, OP_CGROUP);

	if (!o)
		return -1;
	o->p[0] = pid;
	o->v[0] = CG_END_MOVED;
	o->v[1] = (int64_t)from;
	o->ts = ts;
	o->has = 0;
	return 0;
}

int store_stack(struct store *s, int64_t id, const char *frames, size_t len)
{
	struct op *o = st_new_op(s, OP_STACK);

	if (!o)
		return -1;
	o->v[0] = id;
	o->text = st_add_text(s, frames, len);
	o->text_len = (uint32_t)len;
	return o->text == UINT32_MAX ? -1 : 0;
}

int store_switch_stack(struct store *s, uint64_t ts, int cpu, int64_t id)
{
	struct op *o = st_new_op(s, OP_SWITCH_STACK);

	if (!o)
		return -1;
	o->ts = ts;
	o->cpu = cpu;
	o->v[0] = id;
	return 0;
}

int store_lost(struct store *s, int cpu, uint64_t ts, uint64_t from, int64_t count)
{
	struct op *o = st_new_op(s, OP_LOST);

	if (!o)
		return -1;
	o->cpu = cpu;
	o->ts = ts;
	o->v[0] = count;
	o->v[1] = (int64_t)from;
	return 0;
}

int store_clock(struct store *s, int64_t capture, uint64_t ts,
		int64_t realtime, int64_t err)
{
	struct op *o = st_new_op(s, OP_CLOCK);

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

	if (st_drain(s))
		return -1;
	sqlite3_bind_int64(st, 1, capture);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	if (cpu < 0)
		sqlite3_bind_null(st, 3);
	else
		sqlite3_bind_int(st, 3, cpu);
	sqlite3_bind_int64(st, 4, value);
	return st_step(s, st, "storing stat");
}

/* A live capture's boot (schema 016): the kernel's boot_id. */
static void set_capture_boot(struct store *s, int64_t id)
{
	char boot[64] = "";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	sqlite3_stmt *st = NULL;

	if (!f)
		return;
	if (!fgets(boot, sizeof(boot), f))
		boot[0] = '\0';
	fclose(f);
	boot[strcspn(boot, "\n")] = '\0';
	if (!*boot || sqlite3_prepare_v2(s->db, "UPDATE capture SET boot = ? WHERE id = ?",
					 -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, boot, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		st_fail(s, "storing the capture's boot");
	sqlite3_finalize(st);
}

int64_t store_capture_begin(struct store *s, const char *source,
			    const char *kernel, const char *host,
			    uint64_t start_ts, const char *events,
			    const char *clock, const char *buffer)
{
	sqlite3_stmt *st = NULL;
	int64_t id = -1;

	if (st_drain(s))
		return -1;
	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO capture(source, kernel, host, start_ts, events,"
			       " clock, buffer) VALUES (?,?,?,?,?,?,?)", -1, &st,
			       NULL) != SQLITE_OK) {
		st_fail(s, "preparing capture");
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
		st_fail(s, "storing capture");
	sqlite3_finalize(st);
	if (id >= 0 && !strcmp(source, "live"))
		set_capture_boot(s, id);
	return id;
}

static int update_capture(struct store *s, const char *sql, int64_t id,
			  int nargs, const int64_t *args, const char *text);

int store_capture_boot(struct store *s, int64_t id, const char *boot)
{
	return update_capture(s, "UPDATE capture SET boot = ? WHERE id = ?", id, 0, NULL, boot);
}

static int update_capture(struct store *s, const char *sql, int64_t id,
			  int nargs, const int64_t *args, const char *text)
{
	sqlite3_stmt *st = NULL;
	int rc = 0, col = 1;

	if (st_drain(s))
		return -1;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return st_fail(s, "preparing capture");
	if (text)
		sqlite3_bind_text(st, col++, text, -1, SQLITE_STATIC);
	for (int i = 0; i < nargs; i++)
		sqlite3_bind_int64(st, col++, args[i]);
	sqlite3_bind_int64(st, col, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = st_fail(s, "storing capture");
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

int store_capture_cpus(struct store *s, int64_t id, int ncpus)
{
	int64_t n = ncpus;

	return update_capture(s, "UPDATE capture SET cpus = ? WHERE id = ?",
			      id, 1, &n, NULL);
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

	if (st_drain(s))
		return -1;
	/* The cgroups too: a new capture's snapshot says where tasks are.
	 * What is known ends with the last capture (its end_ts: its last
	 * event when it was killed), not at ts: nothing was captured in
	 * between. */
	for (int i = 0; i < 2 && !rc; i++) {
		if (sqlite3_prepare_v2(s->db, i ? "UPDATE cgroup_history SET end_ts = "
				       "max(start_ts, min(?1, coalesce((SELECT max(end_ts) "
				       "FROM capture), ?1))) WHERE end_ts IS NULL" :
				       "UPDATE comm_history SET end_ts = max(start_ts, "
				       "min(?1, coalesce((SELECT max(end_ts) FROM capture), ?1)))"
				       " WHERE end_ts IS NULL", -1, &st, NULL) != SQLITE_OK)
			return st_fail(s, "preparing history update");
		sqlite3_bind_int64(st, 1, (sqlite3_int64)ts);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = st_fail(s, "closing history");
		sqlite3_finalize(st);
	}
	return rc;
}

/* A slice's time off the CPUs before it (off_hid 0: as the row's own,
 * hid). */
static void off_before(const struct store *s, struct op *o,
		       const struct derive_slice *d, uint32_t hid)
{
	o->off_dur = d->off_dur;
	o->off_state = (int32_t)d->off_state;
	o->off_cpu = d->off_cpu;
	o->off_hid = d->off_dur >= 0 && d->off_hid != hid ? d->off_hid + s->hid_base : 0;
}

/* o as the dv_sched row of slice d. */
static void slice_row(struct store *s, struct op *o, const struct derive_slice *d)
{
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
	o->wake_latency = d->wake_dur;	/* likewise */
	off_before(s, o, d, d->hid);
}

int store_slice(struct store *s, const struct derive_slice *d)
{
	struct op *o = st_new_op(s, OP_EVENT);

	if (!o)
		return -1;
	slice_row(s, o, d);
	return 0;
}

/* cpu's running row, and whether one is shown (NULL: none, or no memory
 * for one when grow is set). */
static struct running_row *running_of(struct store *s, int cpu, int grow)
{
	size_t i = (size_t)cpu;

	if (cpu < 0)
		return NULL;
	if (i >= s->nrunning &&
	    (!grow || grow_array(&s->running, &s->nrunning, sizeof(*s->running), i + 1, 1)))
		return NULL;
	return &s->running[i];
}

int store_show_running(struct store *s, const struct derive_slice *d)
{
	struct running_row *r = running_of(s, d->cpu, 1);
	struct op *o;

	if (!r)
		return -1;
	/* Begun before retention's cutoff (its switch, its CPU's rows of
	 * then are cut): not written there again at every commit for each
	 * cut to delete (the oldest row, it held the size limit's measure
	 * back: the cuts deleted it alone). */
	if ((int64_t)d->ts < __atomic_load_n(&s->retain_below, __ATOMIC_RELAXED))
		return store_drop_running(s, d->cpu);
	if (!(o = st_new_op(s, OP_RUNNING)))
		return -1;
	slice_row(s, o, d);
	o->has = OP_NEW_ROW;
	if (d->pid == 0)
		o->has |= OP_IDLE_NEW;
	if (r->on) {
		o->has |= OP_DROP_OLD;
		if (r->idle)
			o->has |= OP_IDLE_OLD;
		o->ids[0] = (int64_t)r->ts;
	}
	r->on = 1;
	r->idle = d->pid == 0;
	r->ts = d->ts;
	r->round = s->running_round;
	return 0;
}

int store_drop_running(struct store *s, int cpu)
{
	struct running_row *r = running_of(s, cpu, 0);
	struct op *o;

	if (!r || !r->on)
		return 0;
	if (!(o = st_new_op(s, OP_RUNNING)))
		return -1;
	o->kind = TABLE_SCHED;
	o->cpu = cpu;
	o->has = OP_DROP_OLD;
	if (r->idle)
		o->has |= OP_IDLE_OLD;
	o->ids[0] = (int64_t)r->ts;
	r->on = 0;
	return 0;
}

void store_running_round(struct store *s)
{
	s->running_round++;
}

int store_running_done(struct store *s)
{
	for (size_t i = 0; i < s->nrunning; i++)
		if (s->running[i].on && s->running[i].round != s->running_round &&
		    store_drop_running(s, (int)i))
			return -1;
	return 0;
}

/* The op of ref when it is still in the batch being filled (it can
 * still be changed there), else NULL: its row is written, or will be by
 * the batches before this one. */
static struct op *ref_op(struct store *s, uint64_t ref, int kind, uint64_t ts)
{
	size_t i = (size_t)(ref & (BATCH_OPS - 1));
	struct op *o;

	if (ref >> BATCH_OPS_SHIFT != s->fill_gen || i >= s->fill->nops)
		return NULL;
	o = &s->fill->ops[i];
	return o->op == OP_EVENT && o->kind == kind && o->ts == ts ? o : NULL;
}

int store_switch_wake(struct store *s, uint64_t ts, int64_t latency)
{
	struct op *o = ref_op(s, store_last_ref(s), DECODE_SCHED_SWITCH, ts);

	if (!o)
		return -1;	/* not right after store_event(that switch) */
	o->has |= OP_HAS_SWITCH_WAKE;
	o->wake_latency = latency;
	return 0;
}

uint64_t store_last_ref(const struct store *s)
{
	return s->fill_gen << BATCH_OPS_SHIFT | (uint64_t)(s->fill->nops - 1);
}

void store_rehid_recent(struct store *s, uint32_t from_hid, uint32_t to_hid,
			uint64_t before, uint64_t window)
{
	int64_t from = from_hid + s->hid_base;

	/* newest first; the ops are in time order but for the few ns CPUs
	 * differ by: the scan stops a window past the one wanted */
	for (size_t i = s->fill->nops; i-- > s->fill->start;) {
		struct op *o = &s->fill->ops[i];

		/* only the events come in time order (derived rows carry
		 * their start, other ops no time) */
		if (o->op != OP_EVENT || o->kind >= DECODE_KIND_COUNT)
			continue;
		if (o->ts + 2 * window < before)
			break;
		if (o->hid == from && o->ts < before && o->ts + window >= before)
			o->hid = to_hid + s->hid_base;
	}
}

/* The switch row of slice d: its op still in the batch being filled,
 * else a patch of the row (an UPDATE by its ts, cpu and next_pid: the
 * pid that switch switched in, which a thread's exec may have changed
 * since in the slice, d->pid). */
static struct op *switch_row(struct store *s, const struct derive_slice *d, int *filling)
{
	struct op *o = ref_op(s, d->ref, DECODE_SCHED_SWITCH, d->ts);

	*filling = o != NULL;
	if (o || !(o = st_new_op(s, OP_PATCH)))
		return o;
	o->kind = DECODE_SCHED_SWITCH;
	o->ts = d->ts;
	o->cpu = d->cpu;
	o->p[0] = d->ref_pid;
	return o;
}

int store_slice_at(struct store *s, const struct derive_slice *d)
{
	int filling;
	struct op *o = switch_row(s, d, &filling);

	if (!o)
		return -1;
	if (filling)
		o->has |= OP_HAS_SLICE;
	o->slice_dur = (int64_t)d->dur;
	o->slice_state = d->end_state;
	off_before(s, o, d, d->ref_hid);
	return 0;
}

int store_slice_unshow(struct store *s, const struct derive_slice *d)
{
	int filling;
	struct op *o = switch_row(s, d, &filling);

	if (!o)
		return -1;
	if (filling) {
		o->has &= ~OP_HAS_SLICE;
		return 0;
	}
	o->slice_dur = -1;	/* NULL, and the rest with it */
	o->slice_state = -1;
	o->off_dur = -1;
	return 0;
}

int store_wakeup_at(struct store *s, uint64_t ref, int kind, uint64_t ts,
		    int cpu, int32_t pid, const struct derive_wakeup *w)
{
	struct op *o = ref_op(s, ref, kind, ts);

	if (o) {
		o->has |= OP_HAS_WAKE;
	} else {
		if (!(o = st_new_op(s, OP_PATCH)))
			return -1;
		o->kind = (uint8_t)kind;
		o->ts = ts;
		o->cpu = cpu;
		o->p[0] = pid;
	}
	o->latency = (int64_t)w->latency;
	o->run_cpu = w->cpu;
	o->run_hid = w->hid + s->hid_base;
	/* Its waker's history row is kept by retention as long as the
	 * wakeups it names (see trim_finish). */
	if ((int64_t)w->latency > s->max_wake_latency)
		__atomic_store_n(&s->max_wake_latency, (int64_t)w->latency,
				 __ATOMIC_RELAXED);
	return 0;
}

int store_wakeup(struct store *s, const struct derive_wakeup *w)
{
	struct op *o = st_new_op(s, OP_EVENT);

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

/* The newest event stored, of any event table (each by its key; -1 when
 * there is none): a killed capture ends there, and no name or membership
 * known in it may end after (its last commit may end on an exit, a
 * rename, a migration). */
static int64_t last_event_ts(struct store *s)
{
	sqlite3_stmt *st = NULL;
	int64_t last = -1;
	char sql[80];

	for (int k = 0; k < TABLE_COUNT; k++) {
		const char *t = st_table_name(k);

		if (!t || strncmp(t, "ev_", 3))
			continue;
		snprintf(sql, sizeof(sql), "SELECT max(ts) FROM %s", t);
		if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW &&
		    sqlite3_column_type(st, 0) != SQLITE_NULL &&
		    sqlite3_column_int64(st, 0) > last)
			last = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return last;
}

int store_live_last_ts(struct store *s, int64_t *last)
{
	sqlite3_stmt *st = NULL;
	int open = 0;

	*last = -1;
	if (st_drain(s))
		return -1;
	if (sqlite3_prepare_v2(s->db, "SELECT max(max(coalesce(start_ts, -1), coalesce(end_ts, -1))),"
			       " sum(end_ts IS NULL) FROM capture WHERE source = 'live'",
			       -1, &st, NULL) != SQLITE_OK)
		return st_fail(s, "reading captures");
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*last = sqlite3_column_int64(st, 0);
		open = sqlite3_column_int(st, 1) > 0;
	}
	sqlite3_finalize(st);
	/* one that was killed has no end: its events say how far it got */
	if (open) {
		int64_t e = last_event_ts(s);

		if (e > *last)
			*last = e;
	}
	return 0;
}

int store_last_clock(struct store *s, int64_t *ts, int64_t *realtime)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (sqlite3_prepare_v2(s->db, "SELECT m.ts, m.realtime FROM clock_map m JOIN capture c "
			       "ON c.id = m.capture WHERE c.source = 'live' ORDER BY m.ts DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return st_fail(s, "reading clock readings");
	if (sqlite3_step(st) == SQLITE_ROW) {
		*ts = sqlite3_column_int64(st, 0);
		*realtime = sqlite3_column_int64(st, 1);
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

int store_capture_ts_offset(struct store *s, int64_t id, uint64_t offset)
{
	int64_t v = (int64_t)offset;

	return update_capture(s, "UPDATE capture SET ts_offset = ? WHERE id = ?",
			      id, 1, &v, NULL);
}

int store_unknown_before(struct store *s, uint64_t ts)
{
	static const char *const sql[] = {
		"UPDATE ev_sched_waking SET latency = NULL, run_cpu = NULL, run_hid = NULL"
		" WHERE ts < %llu AND latency IS NOT NULL",
		"UPDATE ev_sched_wakeup SET latency = NULL, run_cpu = NULL, run_hid = NULL"
		" WHERE ts < %llu AND latency IS NOT NULL",
		"UPDATE ev_sched_wakeup_new SET latency = NULL, run_cpu = NULL, run_hid = NULL"
		" WHERE ts < %llu AND latency IS NOT NULL",
		"DELETE FROM dv_wakeup_latency WHERE ts < %llu",
		"UPDATE ev_sched_switch SET wake_latency = NULL"
		" WHERE wake_latency IS NOT NULL AND ts - wake_latency < %llu",
		"UPDATE ev_sched_switch SET off_dur = NULL, off_state = NULL, off_cpu = NULL,"
		" off_hid = NULL WHERE off_dur IS NOT NULL AND ts - off_dur < %llu",
		"UPDATE dv_sched SET wake_latency = NULL"
		" WHERE wake_latency IS NOT NULL AND ts - wake_latency < %llu",
		"UPDATE dv_sched SET off_dur = NULL, off_state = NULL, off_cpu = NULL,"
		" off_hid = NULL WHERE off_dur IS NOT NULL AND ts - off_dur < %llu",
	};
	char q[256];

	if (st_drain(s))
		return -1;
	for (size_t i = 0; i < sizeof(sql) / sizeof(*sql); i++) {
		snprintf(q, sizeof(q), sql[i], (unsigned long long)ts);
		if (st_exec(s, q))
			return -1;
	}
	return 0;
}

int store_mark_unclean(struct store *s, uint64_t now, int ncpus, int64_t *marked)
{
	sqlite3_stmt *st = NULL;
	int64_t last = -1, id = -1, start = -1;
	char sql[160];

	*marked = 0;
	if (st_drain(s))
		return -1;
	/* A capture without an end was killed. */
	if (sqlite3_prepare_v2(s->db, "SELECT id, start_ts FROM capture WHERE end_ts IS NULL"
			       " ORDER BY id DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return st_fail(s, "reading captures");
	if (sqlite3_step(st) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		start = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (id < 0)
		return 0;
	last = last_event_ts(s);
	/* No event of its own stored: it ended where it started (the last
	 * event found may be an older capture's). */
	if (last < start)
		last = start;
	if (st_exec(s, "BEGIN"))
		return -1;
	snprintf(sql, sizeof(sql), "UPDATE capture SET end_ts = %lld WHERE id = %lld",
		 (long long)last, (long long)id);
	if (st_exec(s, sql))
		goto fail;
	/* The window between the last stored event and this start is lost
	 * on every CPU, by an unknown count. */
	for (int cpu = 0; cpu < ncpus; cpu++) {
		snprintf(sql, sizeof(sql), "INSERT INTO lost_events (cpu, ts, count) "
			 "VALUES (%d, %lld, NULL)", cpu, (long long)now);
		if (st_exec(s, sql))
			goto fail;
	}
	snprintf(sql, sizeof(sql), "INSERT INTO stats VALUES (%lld, 'unclean_stop_gap_ns', NULL, %lld)",
		 (long long)id, (long long)((int64_t)now - last));
	if (st_exec(s, sql) || st_exec(s, "COMMIT"))
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

void store_set_ship_floor(struct store *s, int64_t ts)
{
	__atomic_store_n(&s->ship_floor, ts < 0 ? INT64_MIN + 1 : ts, __ATOMIC_RELAXED);
}

void store_set_max_age(struct store *s, uint64_t max_age_ns)
{
	__atomic_store_n(&s->max_age_ns, max_age_ns, __ATOMIC_RELAXED);
}
