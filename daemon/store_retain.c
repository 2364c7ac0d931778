/* store_retain.c — retention and WAL checkpoints (store_impl.h). */
#include "store_impl.h"
#include "log.h"

static int64_t one_int(struct store *s, const char *sql, int64_t arg, int *ok);

/* A stats row of the database as a whole (capture and cpu NULL), in
 * place of the one before. Inside the caller's transaction. */
int st_set_db_stat(struct store *s, const char *name, int64_t value)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "DELETE FROM stats WHERE name = '%s' AND capture IS NULL",
		 name);
	if (st_exec(s, sql))
		return -1;
	snprintf(sql, sizeof(sql), "INSERT INTO stats VALUES (NULL, '%s', NULL, %lld)",
		 name, (long long)value);
	return st_exec(s, sql);
}

/* The longest wake latency stored on a switch bounds how far before a
 * kept switch its waker's history row must reach (trim_finish). It is
 * kept in stats, written in the transaction that first stores a longer
 * one, so that a restart on the same database keeps the bound. */

/* A cut that did not finish (commd killed inside it) left its target in
 * stats (retention_target_ts): its first chunks may have taken a sparse
 * table's rows up to it already, so the next start goes on to it, and
 * the cutoff it writes is never before what was deleted. */
void st_load_retention(struct store *s)
{
	int ok, ok_cut;
	int64_t v = one_int(s, "SELECT max(value) FROM stats WHERE name = 'max_wake_latency'"
			    " AND capture IS NULL", 0, &ok);
	int64_t cut;

	if (ok) {
		s->max_wake_latency = s->wake_saved = v;
	} else {
		/* A database from before the row: its switches say, once (a scan). */
		v = one_int(s, "SELECT max(latency) FROM dv_wakeup_latency", 0, &ok);
		s->max_wake_latency = ok && v > 0 ? v : 0;
		s->wake_saved = -1;
	}
	v = one_int(s, "SELECT max(value) FROM stats WHERE name = 'retention_target_ts'"
		    " AND capture IS NULL", 0, &ok);
	cut = one_int(s, "SELECT max(value) FROM stats WHERE name = 'retention_cutoff_ts'"
		      " AND capture IS NULL", 0, &ok_cut);
	s->trim_saved = ok ? v : INT64_MIN;
	if (ok && (!ok_cut || v > cut)) {
		s->trim_target = v;
		s->trim_pending = 1;
	}
	__atomic_store_n(&s->retain_below, s->trim_target, __ATOMIC_RELAXED);
	/* What ClickHouse had before the restart: a cut before the shipper
	 * says again where the cluster's data ends counts no switch below
	 * it as cut unshipped. */
	v = one_int(s, "SELECT max(value) FROM stats WHERE name = 'shipped_ts'"
		    " AND capture IS NULL", 0, &ok);
	s->shipped_saved = s->unshipped_counted = ok ? v : 0;
}

/* Runs one operation on the connection (writer thread, or the caller
 * when no writer runs). */

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
 * in stats (retention_cutoff_ts); while a cut is under way its target is
 * there too (retention_target_ts), for a start after a kill to finish it
 * (st_load_retention). Checked after commits (at most every
 * TRIM_CHECK_MS: a few cheap queries), by the writer itself. */
static const char *const trimmed_tables[] = {
	"ev_sched_switch", "ev_sched_wakeup", "ev_sched_wakeup_new",
	"ev_sched_waking", "ev_sched_process_fork", "ev_sched_process_exec",
	"ev_sched_process_exit", "ev_sched_process_free", "ev_sched_migrate_task",
	"ev_task_rename", "ev_task_newtask", "ev_sched_stat_runtime", "ev_other",
	"dv_sched", "dv_wakeup_latency", "dv_open_idle", "switch_stack", NULL
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

/* The oldest and newest event times over the trimmed tables (the first
 * and last rows: their key begins with ts). 0 when there are none. */
static int time_span(struct store *s, int64_t *first, int64_t *last)
{
	char sql[128];
	int any = 0, ok;

	for (int i = 0; trimmed_tables[i]; i++) {
		int64_t f, l;

		snprintf(sql, sizeof(sql), "SELECT min(ts) FROM %s", trimmed_tables[i]);
		f = one_int(s, sql, 0, &ok);
		if (!ok)
			continue;
		snprintf(sql, sizeof(sql), "SELECT max(ts) FROM %s", trimmed_tables[i]);
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

/* One chunk of every table: its first TRIM_CHUNK rows (in key order, the
 * oldest) that are before the cutoff. Returns 1 when no table has such
 * rows left, 0 when some may, -1 on an error (rolled back). */
static int trim_chunk(struct store *s, int64_t cutoff)
{
	char sql[256];
	int done = 1, ok;

	if (st_exec(s, "BEGIN"))
		return -1;
	if (cutoff != s->trim_saved && st_set_db_stat(s, "retention_target_ts", cutoff))
		goto fail;
	for (int i = 0; trimmed_tables[i]; i++) {
		int64_t lo, upto;

		snprintf(sql, sizeof(sql), "SELECT min(ts) FROM %s", trimmed_tables[i]);
		lo = one_int(s, sql, 0, &ok);
		if (!ok || lo >= cutoff)
			continue;
		/* Up to the chunk's last ts (all of it when many rows share
		 * the first one), never past the cutoff. */
		snprintf(sql, sizeof(sql), "SELECT ts FROM %s ORDER BY ts LIMIT 1 OFFSET %d",
			 trimmed_tables[i], TRIM_CHUNK);
		upto = one_int(s, sql, 0, &ok);
		if (!ok || upto > cutoff)
			upto = cutoff;
		if (upto <= lo)
			upto = lo + 1;
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE ts < %lld",
			 trimmed_tables[i], (long long)upto);
		if (st_exec(s, sql))
			goto fail;
		/* Done with this table when its first row is past the cutoff. */
		snprintf(sql, sizeof(sql), "SELECT min(ts) FROM %s", trimmed_tables[i]);
		if (one_int(s, sql, 0, &ok) < cutoff && ok)
			done = 0;
	}
	if (st_exec(s, "COMMIT"))
		goto fail;
	s->trim_saved = cutoff;
	return done;
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* The cutoff is reached: history intervals no kept row needs, and the
 * cutoff in stats. 0, or -1 when it failed (rolled back: tried again). */
static int trim_finish(struct store *s, int64_t cutoff)
{
	char sql[512];
	int64_t first = 0, last = 0;

	if (!time_span(s, &first, &last))
		first = cutoff;
	if (first > cutoff)
		first = cutoff;
	if (st_exec(s, "BEGIN"))
		return -1;
	/* A kept switch names its wakeup's waker as of the waking, up to
	 * max_wake_latency before it. A lifetime's first row (its id the
	 * lifetime's) stays while later rows of it do: it says when the
	 * task began (thread and process start there, and count the
	 * threads begun since; a leader renamed since lost its threads). */
	int64_t x = first - TRIM_HISTORY_SLACK_NS -
		    __atomic_load_n(&s->max_wake_latency, __ATOMIC_RELAXED);

	snprintf(sql, sizeof(sql), "DELETE FROM comm_history WHERE end_ts < %lld AND "
		 "id IS NOT life", (long long)x);
	if (st_exec(s, sql))
		goto fail;
	/* (then a first row goes unless the pid's next row left, one index
	 * step on, is of its lifetime) */
	snprintf(sql, sizeof(sql), "DELETE FROM comm_history WHERE end_ts < %lld AND id IS life "
		 "AND (SELECT n.life FROM comm_history n WHERE n.pid = comm_history.pid AND "
		 "n.start_ts >= comm_history.start_ts AND n.id > comm_history.id ORDER BY "
		 "n.start_ts, n.id LIMIT 1) IS NOT comm_history.id", (long long)x);
	if (st_exec(s, sql))
		goto fail;
	snprintf(sql, sizeof(sql), "DELETE FROM cgroup_history WHERE end_ts < %lld",
		 (long long)(first - TRIM_HISTORY_SLACK_NS));
	if (st_exec(s, sql))
		goto fail;
	/* Clock readings before the first row kept, but the one that maps
	 * it (each capture's latest before it). */
	snprintf(sql, sizeof(sql), "DELETE FROM clock_map WHERE ts < (SELECT "
		 "max(m.ts) FROM clock_map m WHERE m.capture = clock_map.capture"
		 " AND m.ts <= %lld)", (long long)first);
	if (st_exec(s, sql))
		goto fail;
	/* Losses before the cutoff: what they left unknown is gone (a
	 * report's window, an SQL answer's warning, begin there). */
	snprintf(sql, sizeof(sql), "DELETE FROM lost_events WHERE ts < %lld", (long long)cutoff);
	if (st_exec(s, sql) || st_set_db_stat(s, "retention_cutoff_ts", cutoff) ||
	    st_exec(s, "DELETE FROM stats WHERE name = 'retention_target_ts' AND "
		    "capture IS NULL") ||
	    st_exec(s, "COMMIT"))
		goto fail;
	s->trim_saved = INT64_MIN;
	return 0;
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* A cut by size past what was shipped: the switches it takes that
 * ClickHouse never got, added to stats (capture NULL) unshipped_cut. */
static void count_unshipped(struct store *s, int64_t floor, int64_t target)
{
	int64_t lo = floor > s->unshipped_counted ? floor : s->unshipped_counted;
	sqlite3_stmt *st = NULL;
	int64_t n = 0;

	if (target <= lo + 1)
		return;
	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM ev_sched_switch WHERE ts > ? "
			       "AND ts < ?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, lo);
		sqlite3_bind_int64(st, 2, target);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	s->unshipped_counted = target - 1;
	if (n <= 0)
		return;
	log_warning("retention: the database is past max-db-mb; cutting %lld switches "
		    "not yet shipped to ClickHouse (stats unshipped_cut)", (long long)n);
	/* Added to the row there is, in one statement each: the row is
	 * never gone between two (a DELETE, then an INSERT that read the
	 * old value once the DELETE had run, kept only the last cut's). */
	if (sqlite3_prepare_v2(s->db, "UPDATE stats SET value = value + ? WHERE capture IS "
			       "NULL AND name = 'unshipped_cut'", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, n);
		if (sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(s->db) == 0) {
			sqlite3_finalize(st);
			st = NULL;
			if (sqlite3_prepare_v2(s->db, "INSERT INTO stats(capture, name, cpu, value) "
					       "VALUES (NULL, 'unshipped_cut', NULL, ?)", -1, &st,
					       NULL) == SQLITE_OK) {
				sqlite3_bind_int64(st, 1, n);
				sqlite3_step(st);
			}
		}
	}
	sqlite3_finalize(st);
}

void st_trim(struct store *s)
{
	int64_t floor = __atomic_load_n(&s->ship_floor, __ATOMIC_RELAXED);
	uint64_t max_bytes = __atomic_load_n(&s->max_bytes, __ATOMIC_RELAXED);
	uint64_t max_age = __atomic_load_n(&s->max_age_ns, __ATOMIC_RELAXED);
	uint64_t now = ms_now(), t0;
	int64_t first = 0, last = 0;
	int r;

	/* (a cut a kill left unfinished goes on with no limit set) */
	if (!max_bytes && !max_age && !s->trim_pending)
		return;
	if (!s->trim_pending && now < s->trim_checked + TRIM_CHECK_MS)
		return;
	if (now >= s->trim_checked + TRIM_CHECK_MS) {
		s->trim_checked = now;
		if (floor > s->shipped_saved && floor > INT64_MIN + 1 && st_exec(s, "BEGIN") == 0) {
			if (st_set_db_stat(s, "shipped_ts", floor) == 0 && st_exec(s, "COMMIT") == 0)
				s->shipped_saved = floor;
			else
				sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		}
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
		if (max_age && last - (int64_t)max_age > first) {
			int64_t c = last - (int64_t)max_age;

			/* by age, nothing not yet shipped goes */
			if (floor != INT64_MIN && c > floor + 1)
				c = floor + 1;
			if (c > s->trim_target)
				s->trim_target = c;
		}
		__atomic_store_n(&s->retain_below, s->trim_target, __ATOMIC_RELAXED);
		if (s->trim_target > first) {
			s->trim_pending = 1;
			if (floor != INT64_MIN && s->trim_target > floor + 1)
				count_unshipped(s, floor, s->trim_target);
		}
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
	/* (a finish that failed, a full disk, is tried again at the next
	 * commit: until then the reports' cutoff is the one before) */
	if (r == 1 && trim_finish(s, s->trim_target) == 0)
		s->trim_pending = 0;
}

/* SQLite's automatic checkpoints are passive: with readers always
 * somewhere in the WAL (a client querying in a loop), it is never reset
 * and grows without bound. After every commit, past its limit (32 MiB,
 * or a quarter of a small max_bytes, at least 4 MiB), the writer
 * truncates it: waiting a moment (300 ms at most) for a gap between
 * readers once a second, else trying without waiting (a long query must
 * not hold the writer back at each commit). It looked only once a
 * second after a truncation that worked: under a heavy load a second of
 * commits carried the WAL from 4 MiB to 17 MiB (live_retention, past
 * its 16 MiB journal_size_limit). */
void st_checkpoint(struct store *s)
{
	uint64_t now = (uint64_t)time(NULL);
	uint64_t max_bytes = __atomic_load_n(&s->max_bytes, __ATOMIC_RELAXED);
	off_t limit = 32 << 20;
	int wait_ms;
	struct stat st;

	if (max_bytes && max_bytes / 4 < (uint64_t)limit)
		limit = max_bytes / 4 < (4u << 20) ? (4 << 20) : (off_t)(max_bytes / 4);
	if (stat(s->wal_path, &st) || st.st_size < limit)
		return;
	wait_ms = now >= s->ckpt_checked + 1 ? 300 : 0;
	if (wait_ms)
		s->ckpt_checked = now;
	sqlite3_busy_timeout(s->db, wait_ms);
	/* (busy: readers throughout; tried again at the next commit) */
	sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	sqlite3_busy_timeout(s->db, 5000);
}
