#!/usr/bin/env bash
# Shipping to ClickHouse (docs/fleet.md): what one server takes from one
# commd, what the rows cost on its disk, and what shipping costs the host.
#
#  1. The big trace (bench/bigtrace.sh, perf bench sched messaging) imported
#     into SQLite, then `commd ship --once` sends every table of it to one
#     ClickHouse server (a two-shard cluster on loopback, tests/fleet/
#     clickhouse.sh; the rows go to the first): rows and rows/s, and the
#     time against `clickhouse-client` inserting the same sched_switch rows
#     from a TabSeparated file (the peer: ClickHouse's own client).
#  2. Bytes on ClickHouse's disk per stored event (system.parts, after
#     OPTIMIZE FINAL), against the SQLite file's.
#  3. bench/live-overhead.sh with CLICKHOUSE set (RUNS rounds): commd's CPU
#     per stored event with and without shipping.
# With LIVE_ONLY=1, step 3 alone (no big trace to record).
#   [LIVE_ONLY=1] bench/fleet.sh [RUNS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-3}
"$top/scripts/setup" "$top/build"
. "$top/scripts/tracing-guard.sh"
[ -n "${LIVE_ONLY:-}" ] || . "$top/bench/bigtrace.sh"
work=$(mktemp -d /tmp/commd-fleet.XXXXXX)
. "$top/tests/fleet/clickhouse.sh"
trap 'ch_cluster_stop 2>/dev/null; rm -rf "$work"; restore_tracing' EXIT
chmod 755 "$work"
ch_cluster_start "$work/ch" 21123 21100 21124 21200 bench_fleet
"$top/build/commd" clickhouse-schema --cluster bench_fleet > "$work/ddl.sql"
for p in 21100 21200; do clickhouse-client --port "$p" --multiquery < "$work/ddl.sql"; done

if [ -z "${LIVE_ONLY:-}" ]; then
trace=$(big_trace)
"$top/build/commd" import --no-progress "$trace" -o "$work/big.db" > /dev/null
sqlite3 "$work/big.db" "UPDATE capture SET boot = 'bench'"
events=$(sqlite3 "$work/big.db" "SELECT value FROM stats WHERE name = 'events'")
/usr/bin/time -f "%e %U %S" -o "$work/ship.time" "$top/build/commd" ship --db "$work/big.db" \
	--clickhouse "http://127.0.0.1:21123/?database=commd" --host-name bench --boot bench --once > /dev/null
read -r wall user sys < "$work/ship.time"
rows=$(ch_query 1 "SELECT sum(rows) FROM system.parts WHERE database = 'commd' AND active")
echo "ship: $events events stored -> $rows rows in ClickHouse (all tables) in $wall s wall, $user s user + $sys s sys"
awk -v r="$rows" -v w="$wall" -v e="$events" -v u="$user" -v s="$sys" 'BEGIN {
	printf "  %.0f rows/s, %.0f events/s shipped; commd ship CPU %.3f us/event\n", r / w, e / w, (u + s) * 1e6 / e }'
# the peer: clickhouse-client inserting the sched_switch rows from a file
ch_query 1 "SELECT * FROM commd.sched_switch_local FORMAT TabSeparated" > "$work/ss.tsv"
n=$(wc -l < "$work/ss.tsv")
ch_query 1 "CREATE TABLE commd.peer AS commd.sched_switch_local" > /dev/null
/usr/bin/time -f "%e" -o "$work/peer.time" clickhouse-client --port 21100 \
	--query "INSERT INTO commd.peer FORMAT TabSeparated" < "$work/ss.tsv"
echo "peer: clickhouse-client inserts the $n sched_switch rows from a file in $(cat "$work/peer.time") s"
for t in $(ch_query 1 "SELECT name FROM system.tables WHERE database = 'commd' AND name LIKE '%_local'"); do
	ch_query 1 "OPTIMIZE TABLE commd.$t FINAL" > /dev/null
done
bytes=$(ch_query 1 "SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'commd' AND active AND table != 'peer'")
dbsize=$(stat -c %s "$work/big.db")
awk -v b="$bytes" -v e="$events" -v d="$dbsize" 'BEGIN {
	printf "disk: ClickHouse %.1f bytes/event (%.0f MB), SQLite %.1f bytes/event (%.0f MB)\n", b / e, b / 1e6, d / e, d / 1e6 }'
ch_query 1 "SELECT table, sum(rows) AS table_rows, sum(bytes_on_disk) AS table_bytes, round(table_bytes / table_rows, 1) AS bytes_per_row FROM system.parts WHERE database = 'commd' AND active AND table != 'peer' GROUP BY table ORDER BY table_bytes DESC FORMAT PrettyCompactMonoBlock"
rm -f "$work/big.db"* "$work/ss.tsv"
fi

echo "live: bench/live-overhead.sh $runs with CLICKHOUSE"
CLICKHOUSE="http://127.0.0.1:21123/?database=commd" "$top/bench/live-overhead.sh" "$runs"
