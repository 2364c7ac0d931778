#!/bin/bash
# commq top: the CPU time per comm, per process and per CPU is the sum of
# the sched slices' dur (sqlite3), clipped to --from/--to (awk, from the
# raw slices); switches count the slices; share_pct is each one's part of
# the total and adds up to 100; a process is a thread group lifetime
# named by its leader, a thread a pid lifetime; the socket answers the same as --db.
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

# per process: one row per process (tgid and the lifetime of its leader,
# not the name), named by the leader's last name, the tgid shown; a task
# whose tgid is unknown is a process of its own.  by_process DB: the
# reference rows (no pid is reused in the fixtures: a pid's tgid is the
# one any of its rows has), keyed "tgid/name" as process_rows keys
# commq's.
by_process() {
	ref -separator "$TAB" "$1" "with s as (select s.*, (select max(h.tgid) from comm_history h
		where h.pid = s.pid) as tgid,
		last_value(s.comm) over (partition by s.pid order by s.ts rows between
		unbounded preceding and unbounded following) as lastname from sched s)
	select case when pid = 0 then '0/' || comm when tgid is null then '/' || lastname
		else tgid || '/' || (select l.comm from comm_history l where l.pid = s.tgid
		order by l.start_ts desc limit 1) end as p,
		count(distinct pid), sum(dur), count(*) from s group by p"
}
process_rows() {	# (tasks without a tgid share a key: summed, their
	# rounded shares replaced by the share of the summed time)
	awk -F'\t' -v OFS='\t' '{ k = $1 "/" $2; if (!(k in n)) o[++m] = k
		n[k] += $3; t[k] += $4; p[k] += $5; w[k] += $6; r[k]++; all += $4 }
		END { for (i = 1; i <= m; i++) { k = o[i]
			if (r[k] > 1) p[k] = 100 * t[k] / all
			print k, n[k], t[k], p[k], w[k] } }' "$1"
}
DB=$T/sched-v7.db
commq_ok top_process_plain --db "$DB" -list -separator "$TAB" top --by process
process_rows "$T/got" >"$T/process"
by_process "$DB" >"$T/expected"
check_top "top_by_process: one process per tgid" "$T/process" "$T/expected"
expect_eq "top_by_process: sched-messaging processes (one per tgid)" \
	"$(ref "$DB" "select count(distinct pid) from sched where comm = 'sched-messaging'")" \
	"$(awk -F'\t' '$2 == "sched-messaging"' "$T/got" | wc -l)"
# Give rcu_preempt (pid 15) the tgid of pid 3484 (perf, then
# sched-messaging): its time joins that process, a second thread.
cp "$DB" "$T/threads.db"
ref "$T/threads.db" "update comm_history set tgid = 3484 where pid = 15"
by_process "$T/threads.db" >"$T/expected"
commq_ok top_process_threads --db "$T/threads.db" -list -separator "$TAB" \
	top --by process
process_rows "$T/got" >"$T/process"
check_top "top_by_process with a thread" "$T/process" "$T/expected"
grep -q "^3484${TAB}sched-messaging${TAB}2${TAB}" "$T/got" ||
	fail "top_by_process: process 3484 should have 2 threads: $(grep ^3484 "$T/got")"
# A thread's exec goes on in the same process (de_thread keeps the thread
# group): cases/thread-exec.dat's python3 (tgid 4744) has a thread exec
# sleep, which takes the leader's pid (a lifetime of its own, exec_swap):
# one process row, named sleep, its two threads' time.
mkdir -p "$T/cases"
import cases/thread-exec
commq_ok top_process_thread_exec --db "$T/cases/thread-exec.db" -q -list -separator "$TAB" \
	top --by process
expect_eq "top_by_process: the thread-exec process's rows" 1 "$(grep -c "^4744${TAB}" "$T/got")"
expect_eq "top_by_process: the thread-exec process's name and threads" "sleep${TAB}2" \
	"$(grep "^4744${TAB}" "$T/got" | cut -f2,3)"
want=$(ref "$T/cases/thread-exec.db" "select sum(dur) from sched where pid in
	(select pid from comm_history where tgid = 4744)")
near "top_by_process: the thread-exec process's time (ms)" "$(awk -v n="$want" 'BEGIN { printf "%.3f", n / 1e6 }')" \
	"$(grep "^4744${TAB}" "$T/got" | cut -f4)" 0.0015
# per thread: one row per thread lifetime, with its pid and tgid
commq_ok top_thread --db "$T/threads.db" -list -separator "$TAB" top --by thread
expect_eq "top_by_thread: one row per pid (no pid reused here)" \
	"$(ref "$T/threads.db" "select count(distinct pid) + (select count(distinct comm) - 1 from sched where pid = 0) from sched")" \
	"$(wc -l <"$T/got")"
expect_eq "top_by_thread: rcu_preempt with tgid 3484" "15${TAB}3484${TAB}rcu_preempt" \
	"$(grep "^15${TAB}" "$T/got" | cut -f1-3)"

# the socket answers as the file does
start_fake_server "$T/sched-drops.db"
for by in comm process thread cpu; do
	commq_ok "top_file $by" --db "$T/sched-drops.db" -csv top --by "$by" --from +5ms
	cp "$T/got" "$T/file"
	commq_ok "top_socket $by" --socket "$SOCK" -csv top --by "$by" --from +5ms
	expect_same "top_socket_same_as_file $by" "$T/file" "$T/got"
done

# --by cgroup: a slice that a task's first cgroup_history row begins in
# the middle of (an import's rows begin at its first attach): the part
# before the row is '(unknown)', not in no row of the answer; the rows
# (idle apart) add up to every task's time, in top and in util.
CG=$T/cgroup-mid.db
cp "$T/sched-v7.db" "$CG"
read -r cts cdur cpid <<<"$(ref -separator ' ' "$CG" "select ts, dur, pid from sched
	where pid > 0 order by dur desc limit 1")"
ref -bail "$CG" "INSERT INTO cgroup_history (pid, cgroup, path, start_ts, end_ts, source)
	VALUES ($cpid, 'a', '/a', $cts + $cdur / 2, NULL, 'cgroup_attach_task')"
want=$(ref "$CG" "select printf('%.3f', sum(dur) / 1e6) from sched where pid > 0")
commq_ok "top --by cgroup, a row begun inside a slice" --db "$CG" -q -csv -noheader top --by cgroup
expect_eq "top --by cgroup: a's time is the task's from its row's start on (ms)" \
	"$(ref "$CG" "select printf('%.3f', sum(ts + dur - max(ts, $cts + $cdur / 2)) / 1e6)
		from sched where pid = $cpid and ts + dur > $cts + $cdur / 2")" \
	"$(awk -F, '$1 == "a" { printf "%.3f", $4 }' "$T/got")"
near "top --by cgroup: the rows but idle add up to every task's time (ms)" "$want" \
	"$(awk -F, '$1 != "(idle)" { s += $4 } END { printf "%.3f", s }' "$T/got")" 0.003
commq_ok "util --by cgroup, a row begun inside a slice" --db "$CG" -q -csv -noheader util --by cgroup --interval 1s
near "util --by cgroup: the rows add up to every task's time (ms)" "$want" \
	"$(awk -F, '{ s += $6 } END { printf "%.3f", s }' "$T/got")" 0.01

finish
