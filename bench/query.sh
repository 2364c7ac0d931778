#!/usr/bin/env bash
# Queries through the daemon: (1) a trivial query's round trip over the
# socket, 10,000 times on one connection (bench/roundtrip.c), p50/p99;
# (2) `select comm, count(*) from sched_switch group by comm` on a database
# of at least 10 million events, through commq (over the socket of a
# running commd) against the sqlite3 shell on the same file and against
# `trace-cmd report | awk` computing the same counts from the trace.dat the
# database was imported from. Timed with hyperfine in this one run; also
# checks the three give the same counts.
#   bench/query.sh [RUNS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
"$top/scripts/setup" "$top/build"
. "$top/scripts/tracing-guard.sh"
. "$top/bench/bigtrace.sh"
. "$top/bench/serve.sh"
work=$(mktemp -d /tmp/commd-query.XXXXXX)
chmod 755 "$work"	# the query server (user commd or nobody) reads the database
commd_pid=
cleanup() {
	[ -n "$commd_pid" ] && kill -TERM "$commd_pid" 2>/dev/null && wait "$commd_pid" 2>/dev/null
	rm -rf "$work"
	restore_tracing
}
trap cleanup EXIT
command -v hyperfine > /dev/null || { echo "hyperfine is missing (scripts/setup installs it)" >&2; exit 1; }

dat=$(big_trace)
db=$work/big.db
"$top/build/commd" import --no-progress "$dat" -o "$db"
events=$(sqlite3 "$db" "select value from stats where name = 'events'")
switches=$(sqlite3 "$db" "select count(*) from sched_switch")
echo "trace: $dat ($(du -h "$dat" | cut -f1)), $events events, $switches sched_switch rows; database $(du -h "$db" | cut -f1)"

sock=$work/s.sock
# The daemon serves the imported file (bench/serve.sh: sched_switch stays
# as imported), so the three answers can be compared.
serve "$db" "$sock" "$work/commd.log"

echo
echo "== round trip of 'select 1' over the socket, one connection"
"$top/build/bench/roundtrip" "$sock" 1000 > /dev/null	# warm-up
"$top/build/bench/roundtrip" "$sock" 10000 | tee "$work/rt"
echo "== the same, one commq process per query (connect, query, print), 200 times"
hyperfine -N -w 20 -r 200 "$top/build/commq --socket $sock 'select 1'" --export-json "$work/commq1.json" 2>/dev/null | sed -n 2,3p

sql="select comm, count(*) from sched_switch group by comm"
echo
echo "== $sql ($switches rows)"
"$top/build/commq" --socket "$sock" -csv -noheader "$sql" | sort > "$work/commq.out"
sqlite3 -csv "$db" "$sql" | sort > "$work/sqlite3.out"
LC_ALL=C trace-cmd report "$dat" 2>/dev/null | LC_ALL=C awk "$report_counts_awk" |
	awk -F'|' '{ c = $1; if (c ~ /[",]/) { gsub(/"/, "\"\"", c); c = "\"" c "\"" } print c "," $2 }' |
	sort > "$work/report.out"
same() { cmp -s "$1" "$2" && echo same || echo DIFFERENT; }
echo "commq vs sqlite3: $(same "$work/commq.out" "$work/sqlite3.out") counts; trace-cmd report | awk vs sqlite3: $(same "$work/report.out" "$work/sqlite3.out") counts ($(wc -l < "$work/sqlite3.out") comms)"
if ! cmp -s "$work/report.out" "$work/sqlite3.out"; then
	diff "$work/report.out" "$work/sqlite3.out" | head -10 || true
fi
hyperfine -w 1 -r "$runs" -N --export-json "$work/gb.json" \
	-n commq "$top/build/commq --socket $sock -csv '$sql'" \
	-n sqlite3 "sqlite3 -csv $db '$sql'" > /dev/null
hyperfine -r 2 --export-json "$work/report.json" \
	-n "trace-cmd report | awk" "LC_ALL=C trace-cmd report $dat 2>/dev/null | LC_ALL=C awk '$report_counts_awk' > /dev/null" > /dev/null
python3 - "$work/gb.json" "$work/report.json" "$work/rt" <<'PY'
import json, statistics, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
r.update({x["command"]: x for x in json.load(open(sys.argv[2]))["results"]})
med = {k: statistics.median(v["times"]) for k, v in r.items()}
for k, v in med.items():
    print(f"{k:26s} median {v:8.3f} s  (runs: {', '.join(f'{t:.3f}' for t in r[k]['times'])})")
c, s, t = med["commq"], med["sqlite3"], med["trace-cmd report | awk"]
print(f"commq / sqlite3            {c / s:.3f}  (target: within 10%, i.e. <= 1.10)")
print(f"trace-cmd report|awk / commq {t / c:.1f}x")
PY
echo "commd's log: $(grep -c . "$work/commd.log") lines; query server errors: $(grep -ci error "$work/commd.log" || true)"
