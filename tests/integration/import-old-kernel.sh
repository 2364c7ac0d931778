#!/usr/bin/env bash
# import-old-kernel.sh - a trace from a kernel before 4.14 gives the same
# answers as the same trace from today's kernel.
#
# Before 4.14, sched_switch's prev_state was the raw task state: other
# bits (Z 16, X 32, x 64 for a task's last switch-out, P 512, N 1024), the
# preempted mark above the table (2048 on 4.2-4.7, 4096 on 4.8-4.13), a
# kernel thread's
# idle wait as D|N where later kernels say I. No such kernel runs here,
# so the fixture (cases/hotplug-v6.dat: a CPU taken offline and back
# while a messaging load runs, so kernel threads park, idle, are
# preempted and die) is rewritten as 4.4 (R+ at 2048) and 4.9 (R+ at
# 4096) would have written it (tests/data/as-old-kernel.py: their print
# format, every prev_state in their numbering; the same events and times
# otherwise). Each is imported: every derived view and report must be
# today's, the raw states must map one to one and be lettered by the
# file's own table. Last, 5.8-5.17's sleeps shown as R (below).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dat=$TESTDATA/cases/hotplug-v6.dat
today=$TMPDIR_TEST/today.db
import_ok "$dat" "$today" || finish
cq() { "$COMMQ" --db "$1" -q -list "$2"; }

# The fixture has what the test is about: each state older kernels
# number apart.
for s in 'P:64' 'I:128' 'R+:256' 'Z:32' 'S:1' 'D:2'; do
	n=$(q "$today" "select count(*) from sched_switch where prev_state = ${s#*:}")
	check_true "hotplug-v6.dat: switch-outs in state ${s%%:*}" "> 0" "$n" [ "$n" -gt 0 ] || true
done
# What an old kernel's numbering read as today's gets wrong is in it: a
# parked thread that ran again (P, 512, to end_state & 255 = 0) and idle
# waits (D|N to end_state & 3).
n=$(q "$today" "select count(*) from sched s where end_state = 64
	and exists (select 1 from sched x where x.pid = s.pid and x.ts > s.ts)")
check_true "parked slices whose task ran again" "> 0" "$n" [ "$n" -gt 0 ] || true
n=$(q "$today" "select count(*) from sched s where end_state = 128
	and exists (select 1 from sched x where x.pid = s.pid and x.ts > s.ts)")
check_true "idle waits whose task ran again" "> 0" "$n" [ "$n" -gt 0 ] || true
check_eq "kernel_states, today's" "256|0" "$(q "$today" "select preempt, noload from kernel_states")" || true

for k in 4.4:2048 4.9:4096; do
	mark=${k#*:} k=${k%%:*}
	old=$TMPDIR_TEST/as-$k.dat db=$TMPDIR_TEST/$k.db
	if ! out=$(python3 "$TESTDATA/as-old-kernel.py" "$dat" "$old" "$k" 2>&1); then
		fail "as-old-kernel.py $dat $old $k" "exit 0" "$out"
		continue
	fi
	log "$k: $out"
	import_ok "$old" "$db" || continue

	# The raw states: the old kernel's value of each of today's
	# (as-old-kernel.py's map), lettered by the file's own table.
	check_eq "$k: sched_switch rows with prev_state not $k's value of today's" 0 \
		"$(q "$db" "attach '$today' as t;
			select count(*) from sched_switch o join t.sched_switch n
			  on n.ts = o.ts and n.cpu = o.cpu and n.next_pid = o.next_pid
			where o.prev_state is not (case n.prev_state when 16 then 64 when 32 then 64
				when 64 then 512 when 128 then 1026 when 256 then $mark
				else n.prev_state end)")" || true
	check_eq "$k: sched_switch rows in both" "$(q "$today" "select count(*) from sched_switch")" \
		"$(q "$db" "attach '$today' as t;
			select count(*) from sched_switch o join t.sched_switch n
			  on n.ts = o.ts and n.cpu = o.cpu and n.next_pid = o.next_pid")" || true
	check_eq "$k: state_name() of its states" "0:R|1:S|2:D|64:x|512:P|1026:D|N|$mark:R+" \
		"$(cq "$db" "select group_concat(s || ':' || state_name(s), '|')
			from (select distinct prev_state as s from sched_switch order by s)")" || true
	# trace-cmd report's sched_switch plugin letters prev_state by a
	# table of its own (S D T t Z X x W, R for no bit): it prints this
	# file's P (512) and R+ as R and D|N as D. The file's own print
	# format, which `trace-cmd report -N` runs, says what commd says.
	check_eq "$k: state_name() of every switch-out against trace-cmd report -N (the format's letters)" \
		"$(LC_ALL=C trace-cmd report -N -t -i "$old" 2> /dev/null | grep -o ' prev_state=[^ ]*' |
			sed 's/.*=//' | LC_ALL=C sort | uniq -c | awk '{ print $2 "|" $1 }' | LC_ALL=C sort |
			paste -sd' ')" \
		"$(cq "$db" "select l || '|' || n from (select state_name(prev_state) as l,
			count(*) as n from sched_switch group by 1)" | LC_ALL=C sort | paste -sd' ')" || true
	check_eq "$k: kernel_states" "$mark|1024" "$(q "$db" "select preempt, noload from kernel_states")" || true

	# Every derived answer is today's. sched without its raw end_state
	# (compared above, through sched_switch).
	for t in "sched:ts, dur, cpu, pid, comm, prio, lost" thread_state runqueue_wait runqueue \
		 preempt_wait offcpu wakeup_latency comm_history; do
		v=${t%%:*} cols='*'
		[ "$v" = "$t" ] || cols=${t#*:}
		a=$(q "$today" "select $cols from $v order by 1, 2, 3, 4" | md5sum)
		b=$(q "$db" "select $cols from $v order by 1, 2, 3, 4" | md5sum)
		n=$(q "$today" "select count(*) from $v")
		check_eq "$k: $v ($n rows) is today's" "$a" "$b" || true
	done
	for r in "top" "top --by thread" "latency --by pid --preempt" "offcpu"; do
		# shellcheck disable=SC2086
		a=$("$COMMQ" --db "$today" $r 2>&1 | md5sum)
		# shellcheck disable=SC2086
		b=$("$COMMQ" --db "$db" $r 2>&1 | md5sum)
		check_eq "$k: commq $r is today's" "$a" "$b" || true
	done

	# The timeline page reads every end state in today's numbering.
	"$COMMQ" --db "$db" timeline -o "$TMPDIR_TEST/$k.html" > /dev/null 2>&1 ||
		fail "$k: commq timeline" "exit 0" "failed"
	map=$(grep -o '"today":{[^}]*}' "$TMPDIR_TEST/$k.html" || true)
	for kv in 0:0 1:1 2:2 "$mark:256" 512:64 1026:128 64:16; do
		check_true "$k: the timeline page reads end state ${kv%%:*} as today's ${kv#*:}" \
			"\"${kv%%:*}\":${kv#*:}" "$map" grep -q "\"${kv%%:*}\":${kv#*:}[,}]" <<< "$map" || true
	done
done

# 5.8-5.17: today's numbering, but sched_switch read prev's state at the
# tracepoint, after a waker on another CPU may have set it to TASK_WAKING
# (given as R): a task that slept shows R when its waking came while it
# ran and its sched_wakeup after the switch. as-old-kernel.py 5.15 writes
# R for those switch-outs of two recordings (their S and D otherwise
# kept). A plain R that a wakeup follows was a sleep (schema 028): every
# wait, latency and report is today's; thread_state says the time off
# the CPUs was asleep (S or D: the letter is lost), offcpu S|D.
for src in "$TESTDATA/sched-v6.dat" "$dat"; do
	name=$(basename "$src" .dat)
	old=$TMPDIR_TEST/$name-5.15.dat now=$TMPDIR_TEST/$name.db db=$TMPDIR_TEST/$name-5.15.db
	if ! out=$(python3 "$TESTDATA/as-old-kernel.py" "$src" "$old" 5.15 2>&1); then
		fail "as-old-kernel.py $src $old 5.15" "exit 0" "$out"
		continue
	fi
	log "5.15 $name: $out"
	import_ok "$src" "$now" || continue
	import_ok "$old" "$db" || continue
	n=$(q "$db" "attach '$now' as t; select count(*) from sched_switch o join t.sched_switch n
		on n.ts = o.ts and n.cpu = o.cpu and n.next_pid = o.next_pid
		where o.prev_state = 0 and n.prev_state in (1, 2)")
	check_true "5.15 $name: switch-outs into a sleep shown as R" "> 0" "$n" [ "$n" -gt 0 ] || true
	check_eq "5.15 $name: switch-outs otherwise as today's" 0 \
		"$(q "$db" "attach '$now' as t; select count(*) from sched_switch o join t.sched_switch n
			on n.ts = o.ts and n.cpu = o.cpu and n.next_pid = o.next_pid
			where o.prev_state <> n.prev_state and not (o.prev_state = 0 and n.prev_state in (1, 2))")" || true
	for t in "sched:ts, dur, cpu, pid, comm, prio, lost" runqueue_wait runqueue preempt_wait \
		 wakeup_latency comm_history \
		 "thread_state:ts, dur, pid, comm, cpu, replace(replace(state, 'uninterruptible', 'asleep'), 'sleeping', 'asleep')" \
		 "offcpu:ts, dur, cpu, pid, comm, runnable, stack, waker_pid, waker_comm"; do
		v=${t%%:*} cols='*'
		[ "$v" = "$t" ] || cols=${t#*:}
		a=$(q "$now" "select $cols from $v order by 1, 2, 3, 4" | md5sum)
		b=$(q "$db" "select $cols from $v order by 1, 2, 3, 4" | md5sum)
		check_eq "5.15 $name: $v ($(q "$now" "select count(*) from $v") rows) is today's" "$a" "$b" || true
	done
	check_eq "5.15 $name: thread_state's asleep rows are the sleeps shown as R" "$n" \
		"$(q "$db" "select count(*) from thread_state where state = 'asleep'")" || true
	check_eq "5.15 $name: offcpu's S|D rows are the sleeps shown as R" "$n" \
		"$(q "$db" "select count(*) from offcpu where state = 'S|D'")" || true
	for r in "top" "latency" "latency --by pid --preempt" "runq"; do
		# shellcheck disable=SC2086
		a=$("$COMMQ" --db "$now" $r 2>&1 | md5sum)
		# shellcheck disable=SC2086
		b=$("$COMMQ" --db "$db" $r 2>&1 | md5sum)
		check_eq "5.15 $name: commq $r is today's" "$a" "$b" || true
	done
done
finish
