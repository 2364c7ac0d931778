#!/usr/bin/env bash
# Import speed and size against trace-cmd, on one file, in one run.
#
#   bench/import.sh [TRACE.dat]
#
# Without a file, records `perf bench sched messaging -g 20 -l 1000` with
# `trace-cmd record -e sched -e task` (about 1.1 M events) first. Times
# `commd import` and `trace-cmd report > /dev/null` with hyperfine, and
# prints events/s, the ratio, bytes per sched_switch row and the database
# size against the trace's uncompressed event data (measured by converting
# the file to an uncompressed version 6 with trace-cmd convert).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup" "$top/build"
command -v hyperfine >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine >/dev/null
work=$(mktemp -d /tmp/commd-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

trace=${1:-}
if [ -z "$trace" ]; then
	"$top/bench/messaging-trace.sh" "$work/trace.dat"
	trace=$work/trace.dat
fi

commd=$top/build/commd
db=$work/out.db
"$commd" import "$trace" -o "$db" --force --no-progress
events=$(sqlite3 "$db" "select value from stats where name='events'")
switches=$(sqlite3 "$db" "select count(*) from ev_sched_switch")
switch_bytes=$(sqlite3 "$db" "select sum(pgsize) from dbstat where name='ev_sched_switch'")
db_bytes=$(stat -c %s "$db")
trace-cmd convert -i "$trace" -o "$work/v6.dat" --file-version 6 --compression none >/dev/null 2>&1
raw_bytes=$(trace-cmd dump -i "$work/v6.dat" --flyrecord 2>/dev/null |
	awk '/size of cpu/ { s += $2 } END { print s + 0 }')

hyperfine -N --warmup 1 --runs 5 --export-csv "$work/times.csv" \
	-n "commd import" "$commd import $trace -o $db --force --no-progress" \
	-n "trace-cmd report" "sh -c 'trace-cmd report -i $trace > /dev/null'" >&2

commd_s=$(awk -F, '$1 == "commd import" { print $4 }' "$work/times.csv")
report_s=$(awk -F, '$1 == "trace-cmd report" { print $4 }' "$work/times.csv")
awk -v ev="$events" -v c="$commd_s" -v r="$report_s" -v sw="$switches" \
    -v swb="$switch_bytes" -v db="$db_bytes" -v raw="$raw_bytes" -v f="$trace" 'BEGIN {
	printf "file                      %s\n", f
	printf "events                    %d\n", ev
	printf "commd import (median)     %.3f s  %.0f events/s\n", c, ev / c
	printf "trace-cmd report (median) %.3f s  %.0f events/s\n", r, ev / r
	printf "ratio report/import       %.2fx\n", r / c
	printf "sched_switch rows         %d, %.1f bytes/row\n", sw, swb / sw
	printf "database                  %d bytes (%.2f of the %d bytes of uncompressed event data)\n", db, db / raw, raw
}'
