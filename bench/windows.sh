#!/usr/bin/env bash
# Windows cost the window, not the database (schema 010: every table keyed
# by time). Builds databases of about 1, 10 and 40 million events, serves
# each with a running commd, and times through its socket (hyperfine):
#
#   count   select count(*), sum(dur) from sched where ts between A and B
#   top     commq top --last W
#   latency commq latency --last W
#   (each with -q; "+warn": without it, as commq runs by default, with
#   its look for losses and unknown time in the window after the report)
#   task    select * from thread_state where pid = X (the busiest task)
#
# for a 1 s and a 60 s window (W), and beside them the same count run by
# the sqlite3 shell on the file. The 10 M database is an import of the big
# trace (bench/bigtrace.sh, recorded once with trace-cmd); the 1 M one is
# its first tenth (in time; rows past it deleted, then VACUUM); the 40 M
# one is the 10 M one four times over, each copy shifted past the one
# before (every table's rows; names and lifetimes stay those of the
# first copy, which is all a query's cost depends on). Prints a table and
# writes bench/windows.svg (time against database size). The daemon runs
# with --query-max-mem-mb 1024 (see below).
#   bench/windows.sh [RUNS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-10}
"$top/scripts/setup" "$top/build"
. "$top/scripts/tracing-guard.sh"
. "$top/bench/bigtrace.sh"
. "$top/bench/serve.sh"
work=$(mktemp -d /tmp/commd-windows.XXXXXX)
chmod 755 "$work"	# the query server (user commd or nobody) reads the databases
commd_pid=
stop_commd() {
	if [ -n "$commd_pid" ]; then
		kill -TERM "$commd_pid" 2>/dev/null || true
		wait "$commd_pid" 2>/dev/null || true
	fi
	commd_pid=
}
cleanup() {
	stop_commd
	rm -rf "$work"
	restore_tracing
}
trap cleanup EXIT
command -v hyperfine > /dev/null || { echo "hyperfine is missing (scripts/setup installs it)" >&2; exit 1; }
commd=$top/build/commd commq=$top/build/commq

tables() {	# DB: the event and derived tables
	sqlite3 "$1" "select name from sqlite_master where type = 'table'
		and (name like 'ev\_%' escape '\' or name like 'dv\_%' escape '\')"
}
events() { sqlite3 "$1" "select sum(c) from (select count(*) c from ev_sched_switch union all
	select count(*) from ev_sched_waking union all select count(*) from ev_sched_wakeup union all
	select count(*) from ev_sched_wakeup_new union all select count(*) from ev_sched_stat_runtime union all
	select count(*) from ev_sched_migrate_task union all select count(*) from ev_other union all
	select count(*) from ev_sched_process_fork union all select count(*) from ev_sched_process_exit union all
	select count(*) from ev_sched_process_free union all select count(*) from ev_task_newtask union all
	select count(*) from ev_task_rename union all select count(*) from ev_sched_process_exec)"; }

dat=$(big_trace)
db10=$work/10m.db db1=$work/1m.db db40=$work/40m.db
/usr/bin/time -f "import of the big trace: %e s, %U s user" \
	"$commd" import --no-progress "$dat" -o "$db10"
lo=$(sqlite3 "$db10" "select start_ts from capture")
hi=$(sqlite3 "$db10" "select end_ts from capture")
span=$((hi - lo))
cp "$db10" "$db1"
{
	echo "BEGIN;"
	for t in $(tables "$db1"); do echo "DELETE FROM $t WHERE ts > $((lo + span / 10));"; done
	echo "UPDATE capture SET end_ts = $((lo + span / 10)); COMMIT; VACUUM;"
} | sqlite3 "$db1"
cp "$db10" "$db40"
# Each copy: every column as it is but ts, shifted (column lists per table).
{
	echo "BEGIN;"
	for k in 1 2 3; do
		for t in $(tables "$db40"); do
			cols=$(sqlite3 "$db40" "select group_concat(name, ', ') from pragma_table_info('$t') where name <> 'ts'")
			echo "INSERT INTO $t (ts, $cols) SELECT ts + $k * $((span + 1000000000)), $cols FROM $t WHERE ts <= $hi;"
		done
	done
	echo "UPDATE capture SET end_ts = $((hi + 3 * (span + 1000000000))); COMMIT;"
} > "$work/grow.sql"
sqlite3 "$db40" < "$work/grow.sql"

busy=$(sqlite3 "$db10" "select h.pid from ev_sched_switch e join comm_history h on h.id = e.next_hid
	where h.pid > 0 group by h.pid order by count(*) desc, h.pid limit 1")
printf '%-6s %12s %10s | %-8s %10s %10s %10s %10s %10s %10s\n' size events "db MiB" window count sqlite3 top latency "top+warn" "lat+warn" > "$work/table"
for size in 1m 10m 40m; do
	db=$work/$size.db
	n=$(events "$db")
	mib=$(( $(stat -c %s "$db") >> 20 ))
	sock=$work/s.sock
	# The reports' GROUP BY sorts a window's slices in memory (the query
	# server spills nothing to disk): a 60 s window of this load needs
	# more than the default 64 MiB a query may take.
	serve "$db" "$sock" "$work/commd.log" --query-max-mem-mb 1024
	newest=$(sqlite3 "$db" "select max(ts) from ev_sched_switch")
	for w in 1 60; do
		a=$((newest - w * 1000000000)) b=$newest
		count="select count(*), sum(dur) from sched where ts between $a and $b"
		got=$("$commq" --socket "$sock" -list -noheader "$count")
		want=$(sqlite3 "$db" "$count")
		[ "$got" = "$want" ] || { echo "commq and sqlite3 disagree: $got / $want" >&2; exit 1; }
		for c in "top --last ${w}s" "latency --last ${w}s"; do
			"$commq" --socket "$sock" -q $c > /dev/null 2> "$work/err" ||
				{ echo "commq $c failed on the $size database: $(cat "$work/err")" >&2; exit 1; }
		done
		hyperfine -N -w 2 -r "$runs" --export-json "$work/h.json" \
			-n count "$commq --socket $sock -list -noheader '$count'" \
			-n sqlite3 "sqlite3 $db '$count'" \
			-n top "$commq --socket $sock -q top --last ${w}s" \
			-n latency "$commq --socket $sock -q latency --last ${w}s" \
			-n topw "$commq --socket $sock top --last ${w}s" \
			-n latencyw "$commq --socket $sock latency --last ${w}s" > /dev/null
		python3 - "$work/h.json" "$size" "$n" "$mib" "${w}s" >> "$work/table" <<'PY'
import json, statistics, sys
r = {x["command"]: statistics.median(x["times"]) * 1000 for x in json.load(open(sys.argv[1]))["results"]}
print(f"{sys.argv[2]:6s} {int(sys.argv[3]):12,d} {int(sys.argv[4]):10d} | {sys.argv[5]:8s} "
      + " ".join(f"{r[k]:8.1f}ms" for k in ("count", "sqlite3", "top", "latency", "topw", "latencyw")))
PY
	done
	# One task's states (issue 17 point 3): its switches are found by
	# reading every switch (there is no index by task), so this grows
	# with the database.
	task="select * from thread_state where pid = $busy"
	rows=$("$commq" --socket "$sock" -list -noheader "$task" | wc -l)
	[ "$rows" = "$(sqlite3 "$db" "$task" | wc -l)" ] ||
		{ echo "commq and sqlite3 disagree on $task" >&2; exit 1; }
	hyperfine -N -w 2 -r "$runs" --export-json "$work/h.json" \
		-n task "$commq --socket $sock -list -noheader '$task'" \
		-n sqlite3 "sqlite3 $db '$task'" > /dev/null
	python3 - "$work/h.json" "$size" "$n" "$rows" >> "$work/tasks" <<'PY'
import json, statistics, sys
r = {x["command"]: statistics.median(x["times"]) * 1000 for x in json.load(open(sys.argv[1]))["results"]}
print(f"{sys.argv[2]:6s} {int(sys.argv[3]):12,d} {int(sys.argv[4]):8,d} rows  commq {r['task']:8.1f}ms  sqlite3 {r['sqlite3']:8.1f}ms")
PY
	stop_commd
done
cat "$work/table"
echo "select * from thread_state where pid = $busy (the busiest task):"
cat "$work/tasks"
python3 - "$work/table" "$top/bench/windows.svg" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if "|" in l and not l.startswith("size")]
# size events mib | window count sqlite3 top latency
pts = {}
for r in rows:
    ev = int(r[1].replace(",", ""))
    for name, v in zip(("count", "top", "latency"), (r[5], r[7], r[8])):
        pts.setdefault((name, r[4]), []).append((ev / 1e6, float(v[:-2])))
W, H, L, B = 640, 360, 60, 40
import math
xmax = max(x for p in pts.values() for x, _ in p) * 1.05
ylo, yhi = 1.0, 10 ** math.ceil(math.log10(max(y for p in pts.values() for _, y in p)))
X = lambda x: L + (W - L - 20) * x / xmax
Y = lambda y: H - B - (H - B - 20) * (math.log10(max(y, ylo)) - math.log10(ylo)) / (math.log10(yhi) - math.log10(ylo))
col = {"count": "#1f77b4", "top": "#d62728", "latency": "#2ca02c"}
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
       f'<rect width="{W}" height="{H}" fill="white"/>',
       f'<line x1="{L}" y1="{H-B}" x2="{W-20}" y2="{H-B}" stroke="black"/>',
       f'<line x1="{L}" y1="{H-B}" x2="{L}" y2="20" stroke="black"/>',
       f'<text x="{W/2}" y="{H-8}" text-anchor="middle">database size (million events)</text>',
       f'<text x="14" y="{H/2}" transform="rotate(-90 14 {H/2})" text-anchor="middle">median time through the socket (ms, log scale)</text>']
y = ylo
while y <= yhi:
    out.append(f'<text x="{L-6}" y="{Y(y)+4:.1f}" text-anchor="end">{y:g}</text>')
    out.append(f'<line x1="{L}" y1="{Y(y):.1f}" x2="{W-20}" y2="{Y(y):.1f}" stroke="#ddd"/>')
    y *= 10
out.append(f'<line x1="{L}" y1="{Y(50):.1f}" x2="{W-20}" y2="{Y(50):.1f}" stroke="#999" stroke-dasharray="2,2"/>')
out.append(f'<text x="{W-22}" y="{Y(50)-3:.1f}" text-anchor="end" fill="#666">50 ms</text>')
for x in sorted({x for p in pts.values() for x, _ in p}):
    out.append(f'<text x="{X(x):.1f}" y="{H-B+14}" text-anchor="middle">{x:.1f}</text>')
ly = 30
for (name, w), p in sorted(pts.items()):
    p.sort()
    dash = "" if w == "1s" else ' stroke-dasharray="5,3"'
    out.append(f'<polyline fill="none" stroke="{col[name]}" stroke-width="2"{dash} points="'
               + " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y in p) + '"/>')
    out += [f'<circle cx="{X(x):.1f}" cy="{Y(y):.1f}" r="3" fill="{col[name]}"/>' for x, y in p]
    out.append(f'<line x1="{W-190}" y1="{ly}" x2="{W-160}" y2="{ly}" stroke="{col[name]}" stroke-width="2"{dash}/>')
    out.append(f'<text x="{W-154}" y="{ly+4}">{name}, {w} window</text>')
    ly += 16
out.append("</svg>")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("wrote", sys.argv[2])
PY
