/* ship.h — shipping what commd stores to a ClickHouse cluster
 * (docs/fleet.md).
 *
 * `commd ship` is a process of its own, started and watched by the
 * daemon when --clickhouse is set: it opens the database read-only (as
 * root, then becomes the query server's user), and once a second sends
 * each table's new rows to ClickHouse over HTTP (libevent's evhttp), one
 * INSERT per table, rows in TabSeparated with every name byte for byte.
 * It keeps no state of its own: where a table's shipping resumes is asked
 * of ClickHouse (the newest ts it holds for this host and boot), so a
 * restart of either side, a network error or a SIGKILL leaves no row
 * missing, and the ReplacingMergeTree tables (read with FINAL) no row
 * twice.  A row is shipped once it is final: SHIP_SETTLE_NS older than the
 * newest event, and for `sched` its CPU's slice closed (each CPU's rows
 * from a cursor of their own, so one CPU's open slice holds back no
 * other's), and for `wakeup_latency` older than the oldest wakeup still
 * pending (wake_pending_ts in stats, which the daemon writes at each
 * commit), for at most SHIP_WAKE_HOLD_NS.  After each
 * successful round it writes "shipped TS\n" to its standard
 * output (the daemon's pipe): the ts every table is shipped up to.
 */
#ifndef COMMD_SHIP_H
#define COMMD_SHIP_H

#include <stdint.h>
#include <stdio.h>

#define SHIP_SETTLE_NS	(2 * 1000000000LL)
#define SHIP_WAKE_HOLD_NS	(600 * 1000000000LL)
#define SHIP_LAST_NS	(20 * 1000000000ull)	/* a failed last round is tried
						 * again for this long (the daemon
						 * waits 30 s), if one shipped as
						 * long before the stop */
#define SHIP_HOST_MAX	255	/* bytes of a host name (--host-name, host-name) */

/* `commd ship --db FILE --clickhouse URL --host-name NAME [--boot ID]
 * [--user U] [--password-file F] [--interval-s N] [--gzip yes|no] [--once]`:
 * a round every N seconds (default 1), bodies gzip'ed unless --gzip no.
 * Returns the exit status. */
int cmd_ship(int argc, char **argv);

/* `commd clickhouse-schema [--cluster NAME] [--database DB]`: the DDL of
 * the shipped tables (and Distributed tables over the cluster). */
int cmd_clickhouse_schema(int argc, char **argv);

#endif
