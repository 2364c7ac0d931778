#!/usr/bin/env bash
# import-old-kernel.sh - a trace from a kernel before 4.14 gives the same
# answers as the same trace from today's kernel.
#
# Before 4.14, sched_switch's prev_state was the raw task state: other
# bits (Z 16, X 32, x 64 for a task's last switch-out, P 512, N 1024), the
# preempted mark above the table (4096 on 4.8-4.13), a kernel thread's
# idle wait as D|N where later kernels say I. No such kernel runs here,
# so the fixture (cases/hotplug-v6.dat: a CPU taken offline and back
# while a messaging load runs, so kernel threads park, idle, are
# preempted and die) is rewritten as 4.9 would have written it
# (tests/data/as-kernel-4.9.py: its print format, every prev_state in its
# numbering; the same events and times otherwise). Both are imported:
# every derived view and report must be the same, the raw states must
# map one to one and be lettered by 4.9's table.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dat=$TESTDATA/cases/hotplug-v6.dat
old=$TMPDIR_TEST/as-4.9.dat
if ! out=$(python3 "$TESTDATA/as-kernel-4.9.py" "$dat" "$old" 2>&1); then
	abort "as-kernel-4.9.py $dat" "exit 0" "$out"
fi
log "$out"
import_ok "$dat" "$TMPDIR_TEST/today.db" || finish
import_ok "$old" "$TMPDIR_TEST/4.9.db" || finish
cq() { "$COMMQ" --db "$1" -q -list "$2"; }

# The fixture has what the test is about: each state 4.9 numbers apart.
for s in 'P:64' 'I:128' 'R+:256' 'Z:32' 'S:1' 'D:2'; do
	n=$(q "$TMPDIR_TEST/today.db" "select count(*) from sched_switch where prev_state = ${s#*:}")
	check_true "hotplug-v6.dat: switch-outs in state ${s%%:*}" "> 0" "$n" [ "$n" -gt 0 ] || true
done

# The raw states: 4.9's value of each of today's (as-kernel-4.9.py's map),
# lettered by the file's own table.
check_eq "sched_switch rows, today's and 4.9's, with prev_state not 4.9's value of today's" 0 \
	"$(q "$TMPDIR_TEST/4.9.db" "attach '$TMPDIR_TEST/today.db' as t;
		select count(*) from sched_switch o join t.sched_switch n
		  on n.ts = o.ts and n.cpu = o.cpu and n.next_pid = o.next_pid
		where o.prev_state is not (case n.prev_state when 16 then 64 when 32 then 64
			when 64 then 512 when 128 then 1026 when 256 then 4096 else n.prev_state end)")" || true
check_eq "sched_switch rows in both" "$(q "$TMPDIR_TEST/today.db" "select count(*) from sched_switch")" \
	"$(q "$TMPDIR_TEST/4.9.db" "attach '$TMPDIR_TEST/today.db' as t;
		select count(*) from sched_switch o join t.sched_switch n
		  on n.ts = o.ts and n.cpu = o.cpu and n.next_pid = o.next_pid")" || true
check_eq "4.9: state_name() of its states" "0:R|1:S|2:D|64:x|512:P|1026:D|N|4096:R+" \
	"$(cq "$TMPDIR_TEST/4.9.db" "select group_concat(s || ':' || state_name(s), '|')
		from (select distinct prev_state as s from sched_switch order by s)")" || true
# trace-cmd report's sched_switch plugin letters prev_state by a table of
# its own (S D T t Z X x W, R for no bit): it prints this file's P (512)
# and R+ (4096) as R and D|N as D. The file's own print format, which
# `trace-cmd report -N` runs, says what commd says.
check_eq "4.9: state_name() of every switch-out against trace-cmd report -N (the format's letters)" \
	"$(LC_ALL=C trace-cmd report -N -t -i "$old" 2> /dev/null | grep -o ' prev_state=[^ ]*' |
		sed 's/.*=//' | LC_ALL=C sort | uniq -c | awk '{ print $2 "|" $1 }' | LC_ALL=C sort |
		paste -sd' ')" \
	"$(cq "$TMPDIR_TEST/4.9.db" "select l || '|' || n from (select state_name(prev_state) as l,
		count(*) as n from sched_switch group by 1)" | LC_ALL=C sort | paste -sd' ')" || true
check_eq "kernel_states, today's" "256|0" "$(q "$TMPDIR_TEST/today.db" "select preempt, noload from kernel_states")" || true
check_eq "kernel_states, 4.9's" "4096|1024" "$(q "$TMPDIR_TEST/4.9.db" "select preempt, noload from kernel_states")" || true

# Every derived answer is the same. sched without its raw end_state
# (compared above, through sched_switch).
for t in "sched:ts, dur, cpu, pid, comm, prio, lost" thread_state runqueue_wait runqueue \
	 preempt_wait offcpu wakeup_latency comm_history; do
	v=${t%%:*} cols='*'
	[ "$v" = "$t" ] || cols=${t#*:}
	a=$(q "$TMPDIR_TEST/today.db" "select $cols from $v order by 1, 2, 3, 4" | md5sum)
	b=$(q "$TMPDIR_TEST/4.9.db" "select $cols from $v order by 1, 2, 3, 4" | md5sum)
	n=$(q "$TMPDIR_TEST/today.db" "select count(*) from $v")
	check_eq "$v ($n rows): 4.9's rows are today's" "$a" "$b" || true
done
# What 4.9's numbering read as today's would get wrong is in the file: a
# parked thread that ran again (R+ to end_state & 255 = 0) and idle waits
# (D|N to end_state & 3).
n=$(q "$TMPDIR_TEST/today.db" "select count(*) from sched s where end_state = 64
	and exists (select 1 from sched x where x.pid = s.pid and x.ts > s.ts)")
check_true "parked slices whose task ran again" "> 0" "$n" [ "$n" -gt 0 ] || true
n=$(q "$TMPDIR_TEST/4.9.db" "select count(*) from sched s where end_state = 1026
	and exists (select 1 from sched x where x.pid = s.pid and x.ts > s.ts)")
check_true "4.9: idle waits (D|N) whose task ran again" "> 0" "$n" [ "$n" -gt 0 ] || true
for r in "top" "top --by thread" "latency --by pid --preempt" "offcpu"; do
	# shellcheck disable=SC2086
	a=$("$COMMQ" --db "$TMPDIR_TEST/today.db" $r 2>&1 | md5sum)
	# shellcheck disable=SC2086
	b=$("$COMMQ" --db "$TMPDIR_TEST/4.9.db" $r 2>&1 | md5sum)
	check_eq "commq $r: 4.9's answer is today's" "$a" "$b" || true
done

# The timeline page reads every end state in today's numbering.
"$COMMQ" --db "$TMPDIR_TEST/4.9.db" timeline -o "$TMPDIR_TEST/4.9.html" > /dev/null 2>&1 ||
	fail "commq timeline of the 4.9 file" "exit 0" "failed"
today=$(grep -o '"today":{[^}]*}' "$TMPDIR_TEST/4.9.html" || true)
for kv in 0:0 1:1 2:2 4096:256 512:64 1026:128 64:16; do
	check_true "4.9's timeline page: end state ${kv%%:*} read as today's ${kv#*:}" "\"${kv%%:*}\":${kv#*:}" \
		"$today" grep -q "\"${kv%%:*}\":${kv#*:}[,}]" <<< "$today" || true
done
finish
