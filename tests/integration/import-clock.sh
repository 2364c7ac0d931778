#!/usr/bin/env bash
# import-clock.sh - the trace clock is stored (capture.clock) and said: a
# file's clock is the one trace-cmd saved (`trace-cmd dump --options`,
# TRACECLOCK's [bracketed] one) when it is the clock of the buffer read;
# a clock that does not count nanoseconds (counter, x86-tsc, uptime) gets
# one warning saying timestamps, durations and latencies are in its units;
# a buffer whose CPU stats show the file's clock is not its own gets the
# clock left empty and a warning; --buffer all over buffers counting
# different units warns that their timestamps do not compare.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

two=$TESTDATA/cases/two-buffers.dat	# rb_a mono, rb_b counter
tsc=$TESTDATA/cases/clock-x86-tsc.dat	# rb_tsc x86-tsc
v7=$TESTDATA/sched-v7.dat		# top buffer, local

# file_clock DAT: the clock trace-cmd saved in the file.
file_clock() {
	trace-cmd dump --options -i "$1" 2> /dev/null |
		awk '/Option TRACECLOCK/ { getline; if (match($0, /\[[^]]*\]/))
			print substr($0, RSTART + 1, RLENGTH - 2) }'
}

# imported LABEL DAT WANT_CLOCK WARNING_REGEX|- [OPTION...]: imports, then
# checks capture.clock (NULL shown as NULL) and the warnings (stderr
# lines): exactly one matching the regex, or none for "-".
imported() {
	local label=$1 dat=$2 want=$3 warn=$4 db=$TMPDIR_TEST/clock.db
	shift 4
	import_ok "$dat" "$db" "$@" || return 0
	check_eq "$label: capture.clock" "$want" \
		"$(q "$db" "select coalesce(clock, 'NULL') from capture")" || true
	if [ "$warn" = - ]; then
		check_eq "$label: stderr" "" "$(cat "$TMPDIR_TEST/import.err")" || true
	else
		check_eq "$label: stderr lines" 1 "$(grep -c '' "$TMPDIR_TEST/import.err" || true)" || true
		check_match "$label: the warning" "$warn" "$(cat "$TMPDIR_TEST/import.err")" || true
	fi
}

check_eq "sched-v7.dat: the clock trace-cmd saved" local "$(file_clock "$v7")" || true
imported "sched-v7.dat" "$v7" "$(file_clock "$v7")" -

check_eq "clock-x86-tsc.dat: the clock trace-cmd saved" x86-tsc "$(file_clock "$tsc")" || true
imported "clock-x86-tsc.dat" "$tsc" x86-tsc \
	"^commd: .*clock-x86-tsc.dat: the trace clock 'x86-tsc' counts TSC cycles, not nanoseconds: so do timestamps, durations and latencies$"
# The timestamps are the file's, cycles as they are (trace-cmd report -t).
if [ -f "$TMPDIR_TEST/clock.db" ]; then
	check_eq "clock-x86-tsc.dat: sched_process_exec ts vs trace-cmd report -t" \
		"$(trace-cmd report -t -i "$tsc" 2> /dev/null | sed -n 's/.*\] *\([0-9]*\): sched_process_exec:.*/\1/p' | tr '\n' ' ')" \
		"$(q "$TMPDIR_TEST/clock.db" "select ts from sched_process_exec order by ts" | tr '\n' ' ')" || true
fi

# uptime counts jiffies (this kernel's HZ a second): libtracecmd leaves
# its flag for timestamps in nanoseconds set for it, as for every clock it
# prints as seconds, but converts nothing: one warning, and the jiffies as
# they are (trace-cmd report -t prints them as if they were ns).
up=$TESTDATA/cases/clock-uptime.dat
check_eq "clock-uptime.dat: the clock trace-cmd saved" uptime "$(file_clock "$up")" || true
imported "clock-uptime.dat" "$up" uptime \
	"^commd: .*clock-uptime.dat: the trace clock 'uptime' counts jiffies, not nanoseconds: so do timestamps, durations and latencies$"
if [ -f "$TMPDIR_TEST/clock.db" ]; then
	check_eq "clock-uptime.dat: sched_process_exec ts vs trace-cmd report -t" \
		"$(trace-cmd report -t -i "$up" 2> /dev/null | sed -n 's/.*\] *\([0-9]*\)\.\([0-9]*\): sched_process_exec:.*/\1\2/p' | awk '{ print $0 + 0 }' | tr '\n' ' ')" \
		"$(q "$TMPDIR_TEST/clock.db" "select ts from sched_process_exec order by ts" | tr '\n' ' ')" || true
fi

# tsc2nsec: trace-cmd record --tsc2nsec records TSC cycles and saves how
# to turn them into nanoseconds (a TSC2NSEC option: mult, shift, offset),
# and libtracecmd turns every timestamp into ns = cycles * mult >> shift.
# This VM's trace-cmd cannot record it ("TSC to nanosecond is not
# supported"), so add-tsc2nsec.py adds the option to a version 6 x86-tsc
# recording. That file names the top buffer's clock, `local`, and its rb_tn
# counts cycles: the clock is left empty (one warning), and without the
# option the timestamps are cycles (a second warning); with it they are
# trace-cmd report's nanoseconds, and no warning says otherwise.
tsc6=$TESTDATA/cases/clock-x86-tsc-v6.dat
tn=$TMPDIR_TEST/tsc2nsec.dat
mult=6710886 shift=24		# 0.4 ns a cycle: a 2.5 GHz TSC
report_ns() {			# DAT: sched_process_exec times, s.ns as ns
	trace-cmd report -t -i "$1" 2> /dev/null |
		sed -n 's/.*\] *\([0-9]*\)\.\([0-9]\{9\}\): sched_process_exec:.*/\1\2/p' | tr '\n' ' '
}
mismatch="the file's trace clock 'local' is not buffer rb_tn's \(its CPU stats count in other units\): capture.clock left empty"
if import_ok "$tsc6" "$TMPDIR_TEST/tsc6.db"; then
	raw=$(q "$TMPDIR_TEST/tsc6.db" "select ts from sched_process_exec order by ts" | tr '\n' ' ')
	check_eq "clock-x86-tsc-v6.dat: sched_process_exec rows" 3 "$(wc -w <<< "$raw")" || true
	check_eq "clock-x86-tsc-v6.dat: stderr lines" 2 "$(grep -c '' "$TMPDIR_TEST/import.err" || true)" || true
	check_match "clock-x86-tsc-v6.dat: the clock's warning" "$mismatch" "$(cat "$TMPDIR_TEST/import.err")" || true
	check_match "clock-x86-tsc-v6.dat: the units' warning" "not nanoseconds" "$(cat "$TMPDIR_TEST/import.err")" || true
	if python3 "$INTEG_DIR/add-tsc2nsec.py" "$tsc6" "$tn" "$mult" "$shift" 0 2> "$TMPDIR_TEST/craft.err"; then
		check_match "tsc2nsec.dat: trace-cmd dump sees the option" "$mult $shift 0 \[multiplier, shift, offset\]" \
			"$(trace-cmd dump --options -i "$tn" 2>&1)" || true
		if import_ok "$tn" "$TMPDIR_TEST/tn.db"; then
			got=$(q "$TMPDIR_TEST/tn.db" "select ts from sched_process_exec order by ts" | tr '\n' ' ')
			# shellcheck disable=SC2086
			check_eq "tsc2nsec.dat: ts = cycles * mult >> shift" \
				"$(python3 -c 'import sys; m, s = int(sys.argv[1]), int(sys.argv[2]); print(" ".join(str(int(c) * m >> s) for c in sys.argv[3:]), end=" ")' "$mult" "$shift" $raw)" "$got" || true
			check_eq "tsc2nsec.dat: ts vs trace-cmd report" "$(report_ns "$tn")" "$got" || true
			check_eq "tsc2nsec.dat: capture.clock" NULL "$(q "$TMPDIR_TEST/tn.db" "select coalesce(clock, 'NULL') from capture")" || true
			check_eq "tsc2nsec.dat: stderr lines" 1 "$(grep -c '' "$TMPDIR_TEST/import.err" || true)" || true
			check_match "tsc2nsec.dat: the clock's warning, and no other" "^commd: .*: $mismatch$" "$(cat "$TMPDIR_TEST/import.err")" || true
		fi
	else
		fail "add-tsc2nsec.py $(basename "$tsc6")" "exit 0" "$(cat "$TMPDIR_TEST/craft.err")"
	fi
fi

# clock-x86-tsc-runtime.dat: sched_stat_runtime's runtime counts ns, the
# timestamps TSC cycles: ts - runtime is no time at all, and places no
# slice's start nor splits a slice of a task that ran on (the build
# before this check split 101 of 2,400 slices so, each at cycles less ns).
rt=$TESTDATA/cases/clock-x86-tsc-runtime.dat
if import_ok "$rt" "$TMPDIR_TEST/rt.db"; then
	check_eq "clock-x86-tsc-runtime.dat: capture.clock" x86-tsc \
		"$(q "$TMPDIR_TEST/rt.db" "select clock from capture")" || true
	check_true "clock-x86-tsc-runtime.dat: sched_stat_runtime events" "> 1000" \
		"$(q "$TMPDIR_TEST/rt.db" "select count(*) from sched_stat_runtime")" \
		[ "$(q "$TMPDIR_TEST/rt.db" "select count(*) from sched_stat_runtime")" -gt 1000 ] || true
	check_eq "clock-x86-tsc-runtime.dat: slices with an inferred end (a restart at ts - runtime, or a break)" 0 \
		"$(q "$TMPDIR_TEST/rt.db" "select count(*) from sched where end_err is not null")" || true
	check_eq "clock-x86-tsc-runtime.dat: slices with an inferred start but each CPU's first" 0 \
		"$(q "$TMPDIR_TEST/rt.db" "select count(*) from sched s where start_err is not null
			and exists (select 1 from sched p where p.cpu = s.cpu and p.ts < s.ts)")" || true
	# a report's times are cycles read as ns: it says so (and only then)
	"$COMMQ" --db "$TMPDIR_TEST/rt.db" top > /dev/null 2> "$TMPDIR_TEST/top.err" || true
	check_match "clock-x86-tsc-runtime.dat: commq top warns of the clock's units" \
		"^commq: warning: the trace clock \(x86-tsc\) counts no nanoseconds" "$(cat "$TMPDIR_TEST/top.err")" || true
	"$COMMQ" --db "$TMPDIR_TEST/rt.db" -q latency > /dev/null 2> "$TMPDIR_TEST/top.err" || true
	check_eq "clock-x86-tsc-runtime.dat: commq -q latency: no warning" "" "$(cat "$TMPDIR_TEST/top.err")" || true
fi

# two-buffers.dat: trace-cmd saved rb_b's clock for the whole file.
check_eq "two-buffers.dat: the clock trace-cmd saved" counter "$(file_clock "$two")" || true
imported "two-buffers.dat --buffer rb_b" "$two" counter \
	"^commd: .*two-buffers.dat: the trace clock 'counter' counts events, not nanoseconds: so do timestamps, durations and latencies$" \
	--buffer rb_b
imported "two-buffers.dat --buffer rb_a" "$two" NULL \
	"^commd: .*two-buffers.dat: the file's trace clock 'counter' is not buffer rb_a's \(its CPU stats count in other units\): capture.clock left empty$" \
	--buffer rb_a
imported "two-buffers.dat --buffer all" "$two" NULL \
	"^commd: .*two-buffers.dat: the buffers merged count time in different units \(nanoseconds: rb_a; other: rb_b\): their timestamps do not compare \(--buffer NAME imports one\)$" \
	--buffer all
finish
