#!/usr/bin/env bash
# A window's cost with CPUs that are idle or never online (schema 029):
# a report needs each CPU's slice running at the window's start; it was
# found by a step back through the time key to the CPU's last switch,
# which for a CPU with none (a possible CPU never online: nosmt's
# siblings, a VM's spare vCPUs) read every row before the window, and for
# an idle one its whole idle stretch, and the window's read then began
# there for every CPU.
#
# Builds one database: tests/data/sched-drops.dat imported and doubled
# DOUBLINGS times (copies shifted past each other: 2^9 copies make 2.8
# million switches over 53 s), then times `commq -q top --by cpu` over
# the last 1 s (hyperfine) on three versions of it:
#
#   traced   as imported: both CPUs busy;
#   offline  the capture says 4 CPUs, 2 and 3 never traced;
#   idle     as offline, and CPU 1 idle for the 20 s before the window
#            (its slices there deleted, the one before stretched over them);
#
# beside the sqlite3 shell's answer to the same question read the plain
# way (every slice of the sched view clipped to the window: a scan of
# the whole view, the peer). COMMQ may name another build's commq (the
# database is the current commd's import).
#   bench/idle-cpus.sh [DOUBLINGS [RUNS]]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
doublings=${1:-9}
runs=${2:-10}
commd=${COMMD:-$top/build/commd}
commq=${COMMQ:-$top/build/commq}
command -v hyperfine > /dev/null || { echo "hyperfine is missing (scripts/setup installs it)" >&2; exit 1; }
work=$(mktemp -d /tmp/commd-idle-cpus.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
db=$work/traced.db

"$commd" import --no-progress "$top/tests/data/sched-drops.dat" -o "$db" > /dev/null
tables=$(sqlite3 "$db" "select m.name from sqlite_master m where m.type = 'table'
	and m.name <> 'capture' and exists (select 1 from pragma_table_info(m.name) p
	where p.name = 'ts')")
lo=$(sqlite3 "$db" "select start_ts from capture")
declare -A cols
for t in $tables; do
	cols[$t]=$(sqlite3 "$db" "select group_concat(name, ', ') from pragma_table_info('$t') where name <> 'ts'")
done
hi=$(sqlite3 "$db" "select max(end_ts $(for t in $tables; do printf ', (select coalesce(max(ts), 0) from %s)' "$t"; done)) from capture")
for _ in $(seq "$doublings"); do
	span=$((hi - lo + 1000000))
	{
		echo "BEGIN;"
		for t in $tables; do
			echo "INSERT INTO $t (ts, ${cols[$t]}) SELECT ts + $span, ${cols[$t]} FROM $t WHERE ts >= $lo AND ts <= $hi;"
		done
		echo "UPDATE capture SET end_ts = $((hi + span)); COMMIT;"
	} | sqlite3 -bail "$db"
	hi=$((hi + span))
done
switches=$(sqlite3 "$db" "select count(*) from ev_sched_switch")
newest=$(sqlite3 "$db" "select max(ts) from ev_sched_switch")
a=$((newest - 1000000000))

cp "$db" "$work/offline.db"
sqlite3 "$work/offline.db" "update capture set cpus = cpus + 2"
cp "$work/offline.db" "$work/idle.db"
t1=$(sqlite3 "$work/idle.db" "select max(ts) from ev_sched_switch where cpu = 1
	and ts < $a - 20000000000 and slice_dur is not null")
sqlite3 -bail "$work/idle.db" "BEGIN;
	DELETE FROM ev_sched_switch WHERE cpu = 1 AND ts > $t1 AND ts < $a;
	DELETE FROM dv_sched WHERE cpu = 1 AND ts > $t1 AND ts < $a;
	UPDATE ev_sched_switch SET slice_dur = min(
		(SELECT min(ts) FROM ev_sched_switch WHERE cpu = 1 AND ts > $t1),
		coalesce((SELECT min(ts) FROM dv_sched WHERE cpu = 1 AND ts > $t1), 1 << 62)) - ts
	WHERE cpu = 1 AND ts = $t1;
	COMMIT;"

clip="min(ts + dur, $newest) - max(ts, $a)"
peer="select cpu, sum(case when pid <> 0 then $clip else 0 end), sum(case when pid = 0 then $clip else 0 end) from sched where ts < $newest and ts + dur > $a group by cpu"
printf '%-8s %10s | %10s %10s %8s\n' database switches commq sqlite3 ratio
for v in traced offline idle; do
	f=$work/$v.db
	hyperfine -N -w 1 -r "$runs" --export-json "$work/h.json" \
		-n commq "$commq --db $f -q top --by cpu --from $a --to $newest" \
		-n sqlite3 "sqlite3 $f '$peer'" > /dev/null
	python3 - "$work/h.json" "$v" "$switches" <<'PY'
import json, statistics, sys
r = {x["command"]: statistics.median(x["times"]) * 1000 for x in json.load(open(sys.argv[1]))["results"]}
print(f"{sys.argv[2]:8s} {int(sys.argv[3]):10,d} | {r['commq']:8.1f}ms {r['sqlite3']:8.1f}ms {r['sqlite3'] / r['commq']:7.1f}x")
PY
done
