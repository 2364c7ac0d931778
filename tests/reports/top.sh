#!/bin/bash
# commq top: the CPU time per comm, per process and per CPU is the sum of
# the sched slices' dur (sqlite3), clipped to --from/--to (awk, from the
# raw slices); switches count the slices; share_pct is each one's part of
# the total and adds up to 100; a process is named by its thread group
# leader; the socket answers the same as --db.
set -euo pipefail
# shellcheck source=tests/reports/lib.sh
source "$(dirname "$0")/lib.sh"
import sched-v7
import sched-drops
TAB=$'\t'

# check_top NAME GOT EXPECTED — GOT is commq's rows (key, n, time_ms,
# share_pct, switches), EXPECTED the reference's (key, n, ns, switches),
# both tab-separated; every key in both, time within 0.5 µs of the ns,
# shares within rounding of time / total, and adding up to 100.
check_top() {
	local name=$1 got=$2 expected=$3 out
	if [[ ! -s $expected || ! -s $got ]]; then
		fail "$name: no rows to compare"
		return
	fi
	out=$(awk -F'\t' '
		NR == FNR { n[$1] = $2; ns[$1] = $3; sw[$1] = $4; total += $3; next }
		{
			seen[$1] = 1; share += $4
			if (!($1 in ns)) { print "unexpected row " $0; next }
			if ($2 != n[$1]) print $1 ": count " $2 " != " n[$1]
			d = $3 * 1e6 - ns[$1]; if (d < 0) d = -d
			if (d > 500) print $1 ": time_ms " $3 " != " ns[$1] " ns"
			if ($5 != sw[$1]) print $1 ": switches " $5 " != " sw[$1]
			d = $4 - 100 * ns[$1] / total; if (d < 0) d = -d
			if (d > 0.0051) print $1 ": share_pct " $4 " != " 100 * ns[$1] / total
		}
		END {
			for (k in ns) if (!(k in seen)) print "missing row " k
			d = share - 100; if (d < 0) d = -d
			if (d > 0.01 * NR) print "shares add up to " share
		}' "$expected" "$got")
	[[ -z $out ]] || fail "$name: $out"
}

for fixture in sched-v7 sched-drops; do
	DB=$T/$fixture.db

	# per comm, the whole capture
	ref -separator "$TAB" "$DB" "select comm, count(distinct pid), sum(dur),
		count(*) from sched group by comm" >"$T/expected"
	commq_ok "top_by_comm $fixture" --db "$DB" -list -separator "$TAB" top
	check_top "top_by_comm $fixture" "$T/got" "$T/expected"
	# ordered by time, busiest first
	sort -t "$TAB" -k3,3gr "$T/got" | cut -f3 >"$T/sorted"
	cut -f3 "$T/got" | cmp -s - "$T/sorted" ||
		fail "top_by_comm $fixture: rows not ordered by time"
	# the default is --by comm, and column mode has the header
	commq_ok "top_default $fixture" --db "$DB" top
	expect_eq "top_header $fixture" "comm pids time_ms share_pct switches" \
		"$(head -n 1 "$T/got" | tr -s ' ' | sed 's/ $//')"

	# per CPU: busy (pid <> 0), idle and unknown time (in no slice, of
	# the capture's span), slices, tasks
	ref -separator "$TAB" "$DB" "select cpu, sum(dur) filter (where pid <> 0),
		sum(dur) filter (where pid = 0), count(*),
		count(distinct nullif(pid, 0)),
		(select max(end_ts) - min(start_ts) from capture) from sched group by cpu" \
		>"$T/expected"
	commq_ok "top_by_cpu $fixture" --db "$DB" -list -separator "$TAB" top --by cpu
	out=$(awk -F'\t' '
		NR == FNR { b[$1] = $2; i[$1] = $3; n[$1] = $4; k[$1] = $5; sp[$1] = $6; next }
		{
			seen[$1] = 1
			if (!($1 in b)) { print "unexpected cpu " $1; next }
			d = $2 * 1e6 - b[$1]; if (d < 0) d = -d
			if (d > 500) print "cpu " $1 ": busy " $2 " != " b[$1]
			d = $3 * 1e6 - i[$1]; if (d < 0) d = -d
			if (d > 500) print "cpu " $1 ": idle " $3 " != " i[$1]
			u = sp[$1] - b[$1] - i[$1]
			d = $4 * 1e6 - u; if (d < 0) d = -d
			if (d > 500) print "cpu " $1 ": unknown " $4 " != " u
			d = $5 - 100 * b[$1] / sp[$1]; if (d < 0) d = -d
			if (d > 0.0051) print "cpu " $1 ": busy_pct " $5
			d = $6 - 100 * u / sp[$1]; if (d < 0) d = -d
			if (d > 0.0051) print "cpu " $1 ": unknown_pct " $6
			if ($7 != n[$1]) print "cpu " $1 ": switches " $7 " != " n[$1]
			if ($8 != k[$1]) print "cpu " $1 ": tasks " $8 " != " k[$1]
		}
		END { for (c in b) if (!(c in seen)) print "missing cpu " c }' \
		"$T/expected" "$T/got")
	[[ -z $out ]] || fail "top_by_cpu $fixture: $out"

	# a window clips the slices: awk does it from the raw slices
	base=$(ref "$DB" "select min(start_ts) from capture")
	lo=$((base + 10000000)) hi=$((base + 20000000))
	ref -separator "$TAB" "$DB" "select comm, pid, ts, dur from sched" |
		awk -F'\t' -v lo="$lo" -v hi="$hi" '
		{
			s = $3; e = $3 + $4
			if (s < lo) s = lo
			if (e > hi) e = hi
			if (e <= s && !($3 < hi && $3 + $4 > lo)) next
			if (!(($1, $2) in p)) { p[$1, $2] = 1; n[$1]++ }
			t[$1] += e - s; sw[$1]++
		}
		END { for (c in t) printf "%s\t%d\t%.0f\t%d\n", c, n[c], t[c], sw[c] }' \
		>"$T/expected"
	commq_ok "top_window $fixture" --db "$DB" -list -separator "$TAB" \
		top --from +10ms --to +20ms
	check_top "top_window $fixture" "$T/got" "$T/expected"
	# the same window in absolute ns and in seconds
	cp "$T/got" "$T/relative"
	commq_ok "top_window_ns $fixture" --db "$DB" -list -separator "$TAB" \
		top --from "$lo" --to "${hi}ns"
	expect_same "top_window_absolute $fixture" "$T/relative" "$T/got"
	commq_ok "top_window_s $fixture" --db "$DB" -list -separator "$TAB" \
		top --from "$((lo / 1000000000)).$(printf %09d $((lo % 1000000000)))s" \
		--to "$((hi / 1000)).$(printf %03d $((hi % 1000)))us"
	expect_same "top_window_seconds $fixture" "$T/relative" "$T/got"
done

# per process: named by the thread group leader.  No fixture has threads,
# so give rcu_preempt (pid 15) the tgid of pid 3484, which was called
# "perf" when rcu_preempt was first seen: its time becomes perf's.
DB=$T/sched-v7.db
commq_ok top_process_plain --db "$DB" -list -separator "$TAB" top --by process
cp "$T/got" "$T/process"
commq_ok top_comm_plain --db "$DB" -list -separator "$TAB" top
expect_same "top_by_process: one process per comm without threads" \
	"$T/got" "$T/process"
cp "$DB" "$T/threads.db"
ref "$T/threads.db" "update comm_history set tgid = 3484 where pid = 15"
expect_eq "leader name at the thread's start" perf "$(ref "$T/threads.db" \
	"select l.comm from comm_history h join comm_history l on l.pid = 3484
	 and l.start_ts <= h.start_ts and (l.end_ts is null or l.end_ts > h.start_ts)
	 where h.pid = 15")"
ref -separator "$TAB" "$T/threads.db" "select case when comm in ('perf', 'rcu_preempt')
	then 'perf' else comm end as p, count(distinct pid), sum(dur), count(*)
	from sched group by p" >"$T/expected"
commq_ok top_process_threads --db "$T/threads.db" -list -separator "$TAB" \
	top --by process
check_top "top_by_process with a thread" "$T/got" "$T/expected"
grep -q "^perf${TAB}2${TAB}" "$T/got" ||
	fail "top_by_process: perf should have 2 threads: $(grep ^perf "$T/got")"

# the socket answers as the file does
start_fake_server "$T/sched-drops.db"
for by in comm process cpu; do
	commq_ok "top_file $by" --db "$T/sched-drops.db" -csv top --by "$by" --from +5ms
	cp "$T/got" "$T/file"
	commq_ok "top_socket $by" --socket "$SOCK" -csv top --by "$by" --from +5ms
	expect_same "top_socket_same_as_file $by" "$T/file" "$T/got"
done

finish
