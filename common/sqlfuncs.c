/* sqlfuncs.c — see sqlfuncs.h. */
#include "sqlfuncs.h"

#include <stddef.h>

/* The row whose interval holds ts (the newest where two meet at a
 * rename), else, when ts is before the pid's first row and that row does
 * not begin with the task's birth (it was alive before the capture saw it),
 * that first row. Outside every lifetime (before a birth, after an exit,
 * between two lifetimes): no row. */
static const char comm_at_sql[] =
	"SELECT comm, tgid FROM ("
	" SELECT comm, tgid, 0 AS k, -start_ts AS o, -id AS i FROM comm_history"
	"  WHERE pid = ?1 AND start_ts <= ?2 AND (end_ts IS NULL OR end_ts >= ?2)"
	" UNION ALL"
	" SELECT comm, tgid, 1, start_ts, id FROM ("
	"  SELECT comm, tgid, start_ts, id, source FROM comm_history"
	"   WHERE pid = ?1 ORDER BY start_ts, id LIMIT 1)"
	"  WHERE start_ts > ?2"
	"    AND source NOT IN ('task_newtask', 'sched_process_fork')"
	") ORDER BY k, o, i LIMIT 1";

/* A thread-group leader's name at ts: its row then, else its last one
 * before (a leader that exited while its threads ran on), else its first. */
static const char leader_at_sql[] =
	"SELECT comm, tgid FROM ("
	" SELECT comm, tgid, 0 AS k, -start_ts AS o FROM comm_history"
	"  WHERE pid = ?1 AND start_ts <= ?2"
	" UNION ALL"
	" SELECT comm, tgid, 1, start_ts FROM comm_history"
	"  WHERE pid = ?1 AND start_ts > ?2"
	") ORDER BY k, o LIMIT 1";

static int lookup(sqlite3 *db, const char *sql, sqlite3_int64 pid,
		  sqlite3_int64 ts, sqlite3_stmt **out)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, pid);
	sqlite3_bind_int64(st, 2, ts);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		*out = NULL;
		return 0;
	}
	*out = st;
	return 1;
}

static void comm_at(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_stmt *st;
	int rc;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	rc = lookup(sqlite3_context_db_handle(ctx), comm_at_sql,
		    sqlite3_value_int64(argv[0]), sqlite3_value_int64(argv[1]), &st);
	if (rc < 0) {
		sqlite3_result_error(ctx, "comm_at: comm_history is not readable", -1);
		return;
	}
	if (rc > 0) {
		sqlite3_result_value(ctx, sqlite3_column_value(st, 0));
		sqlite3_finalize(st);
	}
}

static void process_comm(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3 *db = sqlite3_context_db_handle(ctx);
	sqlite3_int64 ts, tgid;
	sqlite3_stmt *st;
	int rc;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	ts = sqlite3_value_int64(argv[1]);
	rc = lookup(db, comm_at_sql, sqlite3_value_int64(argv[0]), ts, &st);
	if (rc <= 0) {
		if (rc < 0)
			sqlite3_result_error(ctx, "process_comm: comm_history is not readable", -1);
		return;
	}
	if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
		sqlite3_finalize(st);
		return;
	}
	tgid = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	if (lookup(db, leader_at_sql, tgid, ts, &st) > 0) {
		sqlite3_result_value(ctx, sqlite3_column_value(st, 0));
		sqlite3_finalize(st);
	}
}

int commd_sql_register(sqlite3 *db)
{
	int rc;

	rc = sqlite3_create_function(db, "comm_at", 2,
				     SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
				     comm_at, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(db, "process_comm", 2,
					     SQLITE_UTF8 | SQLITE_DETERMINISTIC,
					     NULL, process_comm, NULL, NULL);
	return rc;
}
