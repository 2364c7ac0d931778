/* sqlfuncs.h — SQL functions every commd connection offers:
 *
 *   comm_at(pid, ts)       the name pid had at ts (comm_history), the
 *                          lifetime's first name before its first sighting,
 *                          NULL when nothing ever named pid
 *   process_comm(pid, ts)  the name of pid's thread-group leader at ts
 *                          (NULL when the tgid is unknown)
 *
 * They only read comm_history, so they work on read-only connections. */
#ifndef COMMD_SQLFUNCS_H
#define COMMD_SQLFUNCS_H

#include <sqlite3.h>

/* Returns SQLITE_OK or an SQLite error code. */
int commd_sql_register(sqlite3 *db);

#endif
