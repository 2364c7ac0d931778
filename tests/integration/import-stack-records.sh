#!/usr/bin/env bash
# import-stack-records.sh - a stack record (ftrace's kernel_stack, and
# user_stack) is written right after the event it belongs to, on its CPU
# and in that event's context: its common_pid is that event's. After a
# switch out of idle it is still idle's (the sched_switch tracepoint fires
# before the context switch), and it does not mean idle runs again: the
# task switched in goes on running. cases/stack-trace.dat was recorded
# with `trace-cmd record -T` (a stack after every event):
#
#  - every switch out of idle begins a slice that ends at the task's own
#    recorded switch-out, as trace-cmd report shows it (no end_err, no
#    slice of 0 ns ended by idle's stack);
#  - no slice of the file has an unknown end (the build before this test
#    broke the chain at both switches out of idle);
#  - the stacks after switches into sleep are still those switches'
#    (switch_stack), and the others are events like any other.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dat=$TESTDATA/cases/stack-trace.dat
db=$TMPDIR_TEST/stack.db
report=$(LC_ALL=C trace-cmd report -t -i "$dat" 2> /dev/null)
# "cpu ts next_pid end" for each switch out of idle: end is the ts of
# next's own switch-out on that CPU, the next sched_switch there.
idle_exits=$(LC_ALL=C awk '
	match($0, /\[[0-9]+\] [0-9]+\.[0-9]+: sched_switch: /) {
		m = substr($0, RSTART + 1, RLENGTH - 1)
		cpu = m; sub(/\].*/, "", cpu); cpu += 0
		t = m; sub(/^[0-9]+\] /, "", t); sub(/: sched_switch.*/, "", t); sub(/\./, "", t)
		if (cpu in open) { print cpu, open[cpu], pid[cpu], t; delete open[cpu] }
		if ($0 ~ /sched_switch: +swapper\/[0-9]+:0 /) {
			n = $0; sub(/ \[[0-9]+\]$/, "", n); sub(/.*:/, "", n)
			open[cpu] = t; pid[cpu] = n
		}
	}' <<< "$report")
n=$(printf '%s\n' "$idle_exits" | grep -c . || true)
check_true "the fixture: switches out of idle followed by a switch-out on the CPU" ">= 2" "$n" \
	[ "$n" -ge 2 ] || true
check_true "the fixture: kernel_stack records (trace-cmd record -T)" "> 100" \
	"$(grep -c ' kernel_stack: ' <<< "$report" || true)" \
	[ "$(grep -c ' kernel_stack: ' <<< "$report" || true)" -gt 100 ] || true
if import_ok "$dat" "$db"; then
	while read -r cpu ts pid end; do
		[ -n "$cpu" ] || continue
		check_eq "CPU $cpu: pid $pid switched in out of idle at $ts runs to its switch-out at $end" \
			"$((end - ts))||" \
			"$(q "$db" "select dur || '|' || coalesce(start_err, '') || '|' || coalesce(end_err, '')
				from sched where cpu = $cpu and ts = $ts and pid = $pid")" || true
	done <<< "$idle_exits"
	check_eq "slices with an unknown end (end_err) or across a loss" 0 \
		"$(q "$db" "select count(*) from sched where end_err is not null or lost")" || true
	check_true "stacks of switches into sleep (switch_stack)" "> 10" \
		"$(q "$db" "select count(*) from switch_stack")" \
		[ "$(q "$db" "select count(*) from switch_stack")" -gt 10 ] || true
	check_eq "every kernel_stack record: a switch's stack or an event" \
		"$(grep -c ' kernel_stack: ' <<< "$report" || true)" \
		"$(q "$db" "select (select count(*) from switch_stack) + (select count(*) from events where name = 'kernel_stack')")" || true
fi
finish
