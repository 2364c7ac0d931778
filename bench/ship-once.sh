#!/usr/bin/env bash
# What `commd ship` costs per stored event, two builds side by side: one
# recording imported by each build (its own schema), then `commd ship
# --once` of all of it to one ClickHouse server (tests/fleet/clickhouse.sh,
# on loopback), A and B interleaved RUNS times, each under a host name of
# its own (so each sends everything); user+sys CPU from /usr/bin/time per
# stored event, and the medians.
#   bench/ship-once.sh TRACE.dat COMMD_A COMMD_B [RUNS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
trace=$1 a=$2 b=$3 runs=${4:-5}
work=$(mktemp -d /tmp/commd-ship-once.XXXXXX)
chmod 755 "$work"
. "$top/tests/fleet/clickhouse.sh"
trap 'ch_cluster_stop 2>/dev/null; rm -rf "$work"' EXIT
ch_cluster_start "$work/ch" 21323 21300 21324 21400 ship_once > /dev/null
"$b" clickhouse-schema > "$work/ddl.sql"
clickhouse-client --port 21300 --multiquery < "$work/ddl.sql"
for v in a b; do
	bin=${!v}
	"$bin" import --no-progress "$trace" -o "$work/$v.db" > /dev/null
	sqlite3 "$work/$v.db" "UPDATE capture SET boot = 'bench'"
done
events=$(sqlite3 "$work/a.db" "SELECT value FROM stats WHERE name = 'events' AND cpu IS NULL LIMIT 1")
echo "$events events stored; commd ship --once, $runs rounds, A and B interleaved"
for r in $(seq "$runs"); do
	for v in a b; do
		bin=${!v}
		/usr/bin/time -f "%e %U %S" -o "$work/t" "$bin" ship --db "$work/$v.db" \
			--clickhouse "http://127.0.0.1:21323/?database=commd" --host-name "$v$r" \
			--boot bench --once > /dev/null
		read -r w u s < "$work/t"
		awk -v v="$v" -v w="$w" -v u="$u" -v s="$s" -v e="$events" \
			'BEGIN { printf "%s %.3f\n", v, (u + s) * 1e6 / e }' >> "$work/cpu"
		echo "  $v: wall $w s, user $u s, sys $s s"
	done
done
for v in a b; do
	awk -v v="$v" '$1 == v { print $2 }' "$work/cpu" | sort -n |
		awk -v v="$v" '{ x[NR] = $1 } END { printf "%s: median %.3f us of CPU per stored event (min %.3f, max %.3f)\n", toupper(v), x[int((NR + 1) / 2)], x[1], x[NR] }'
done
