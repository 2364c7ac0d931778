/* sqlfuncs.h — SQL functions every commd connection offers:
 *
 *   comm_at(pid, ts)       the name pid had at ts (comm_history); before
 *                          its first row, that row's name when it does not
 *                          begin with a birth (the task was alive before
 *                          the capture saw it); NULL outside every lifetime
 *                          of pid (before its birth, after its exit,
 *                          between two lifetimes) and when nothing named it
 *   process_comm(pid, ts)  the name of the thread-group leader of the task
 *                          pid was at ts (its name then, or its last one
 *                          when the leader exited first); NULL when pid
 *                          was no task then or its tgid is unknown
 *   state_name(state)      a task state (sched.end_state, prev_state) in
 *                          the kernel's letters: R, R+ (preempted), S, D,
 *                          I, T, t, X, Z, P, several joined by "|", as the
 *                          capture's own sched_switch format letters them
 *                          (capture.states), else as recent kernels do
 *   wall(ts)               ts as the time of day: ISO 8601 in UTC to the
 *                          ns ("2026-12-01T17:30:18.123456789Z"), mapped
 *                          with the clock readings of the newest capture
 *                          whose span holds ts (clock_map); NULL when none
 *                          holds it or that capture has no reading
 *
 * They only read comm_history, capture and clock_map, so they work on
 * read-only connections. */
#ifndef COMMD_SQLFUNCS_H
#define COMMD_SQLFUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* Returns SQLITE_OK or an SQLite error code. */
int commd_sql_register(sqlite3 *db);

/* printf() and format() as SQLite's, but a width or precision over the
 * connection's length limit is "string or blob too big" at once (SQLite's
 * own spends seconds on a %c precision of 1e9 inside one VM step, where no
 * interrupt reaches). For the query server. */
int commd_sql_register_bounded(sqlite3 *db);

/* The letters of task state v (R, S, D|W, R+, ...) by map, a
 * capture.states text ("1:S,2:D,...,0:R,+256"; NULL: recent kernels'),
 * written to out (size bytes, at least 4); returns out. */
const char *state_letters(const char *map, uint64_t v, char *out, size_t size);

/* The letters of kernels since 4.14 (their sched_switch table), for a
 * database whose captures do not say. */
#define STATE_LETTERS_TODAY "1:S,2:D,4:T,8:t,16:X,32:Z,64:P,128:I,0:R,+256"

/* The schema's migrations (schema/NNN-*.sql, embedded at build time): a
 * database at PRAGMA user_version < commd_schema_count was written by an
 * older commd and lacks what the later ones add. */
extern const char *const commd_schema_sql[];
extern const int commd_schema_count;

/* ns since the epoch as ISO 8601 in UTC with nanoseconds; returns the
 * length written (0 when size is too small). */
size_t commd_format_wall(sqlite3_int64 ns, char *out, size_t size);

/* Whether the rest of a batch (after a statement's tail) holds more
 * than blanks and semicolons: a statement not run yet. */
bool sql_has_statement(const char *rest);

#endif
