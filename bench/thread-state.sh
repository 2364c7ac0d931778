#!/usr/bin/env bash
# thread_state on the big trace's import (bench/bigtrace.sh, about 10
# million events): the whole view grouped by state, and one task's rows
# (the task with the most switches), through a running commd's socket
# (commq) and in the sqlite3 shell on the same file. hyperfine, medians.
# Issue 17 point 3's targets: the GROUP BY at most 3 s, the task under
# 100 ms.
#   bench/thread-state.sh [RUNS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
"$top/scripts/setup" "$top/build"
. "$top/scripts/tracing-guard.sh"
. "$top/bench/bigtrace.sh"
. "$top/bench/serve.sh"
work=$(mktemp -d /tmp/commd-thread-state.XXXXXX)
chmod 755 "$work"	# the query server (user commd or nobody) reads the database
commd_pid=
cleanup() {
	if [ -n "$commd_pid" ]; then
		kill -TERM "$commd_pid" 2>/dev/null || true
		wait "$commd_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
	restore_tracing
}
trap cleanup EXIT
command -v hyperfine > /dev/null || { echo "hyperfine is missing (scripts/setup installs it)" >&2; exit 1; }
commd=$top/build/commd commq=$top/build/commq

dat=$(big_trace)
db=$work/big.db
"$commd" import --no-progress "$dat" -o "$db"
chmod 644 "$db"
busy=$(sqlite3 "$db" "select next_pid from ev_sched_switch where next_pid > 0
	group by next_pid order by count(*) desc limit 1")
echo "$(sqlite3 "$db" "select value from stats where name = 'events'") events," \
	"$(sqlite3 "$db" "select count(*) from ev_sched_switch") switches;" \
	"the busiest task: pid $busy, $(sqlite3 "$db" "select count(*) from thread_state where pid = $busy") rows"

sock=$work/s.sock
# the whole view's GROUP BY sorts millions of rows in memory: more than
# the default 64 MiB a query may take
serve "$db" "$sock" "$work/commd.log" --query-max-mem-mb 1024

group="select state, count(*), sum(dur) from thread_state group by state"
task="select * from thread_state where pid = $busy"
a=$("$commq" --socket "$sock" -list -noheader "$group")
b=$(sqlite3 "$db" "$group")
[ "$a" = "$b" ] || { echo "commq and sqlite3 disagree on: $group" >&2; exit 1; }
hyperfine -N -w 1 -r "$runs" --export-json "$work/t.json" \
	-n "group by state, commq" "$commq --socket $sock -list -noheader '$group'" \
	-n "group by state, sqlite3" "sqlite3 $db '$group'" \
	-n "task, commq" "$commq --socket $sock -list -noheader '$task'" \
	-n "task, sqlite3" "sqlite3 $db '$task'" > /dev/null
python3 - "$work/t.json" <<'EOF'
import json, statistics, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"{r['command']:26} median {statistics.median(r['times']) * 1e3:9.1f} ms")
EOF
