#!/usr/bin/env bash
# live-clock.sh - the instance's trace clock (--clock):
#
#  - by default commd stamps events with the "local" clock (sched_clock,
#    the cheapest): the instance's trace_clock says [local] while it runs
#    and the log says so;
#  - stored times are that clock's: a marker process (a copy of /bin/sleep)
#    run between two readings of the instance's own clock (per_cpu/cpu0/
#    stats "now ts", to the microsecond) has its exec stored between them;
#    with --clock mono the same holds against CLOCK_MONOTONIC read before
#    and after;
#  - the CPUs are merged in that clock's order under a perf bench load: no
#    wakeup has a negative latency, no slice a negative duration, and the
#    capture's start_ts..end_ts holds every switch;
#  - an unknown clock is a start-up error (live-errors.sh).
#
# Needs root, tracefs and perf (FAILS without them).
. "$(dirname "$0")/lib.sh"

need_live
need_perf
command -v python3 > /dev/null || abort "python3 (CLOCK_MONOTONIC readings)" "in PATH" "missing"

mono_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }
# inst_now INSTANCE: the instance's clock now, in ns (stats' "now ts").
inst_now() {
	awk '/^now ts:/ { split($3, a, "."); printf "%d%06d000\n", a[1], a[2] }' \
		"$T/instances/$1/per_cpu/cpu0/stats"
}

# marker_check WHAT DB LOW HIGH NAME: the exec of $TMP/NAME is stored once,
# at a ts in LOW..HIGH.
marker_check() {
	local what=$1 db=$2 lo=$3 hi=$4 name=$5 got
	got=$(q "$db" "SELECT count(*), coalesce(min(ts), 0) FROM sched_process_exec WHERE filename = '$TMP/$name'")
	check_eq "$what: exec rows of $name" 1 "${got%%|*}"
	check_true "$what: exec of $name stamped between the clock readings before and after it" \
		"$lo <= ts <= $hi" "${got#*|}" test "$lo" -le "${got#*|}" -a "${got#*|}" -le "$hi"
	log "$what: $name at ${got#*|} (readings $lo .. $hi)"
}

# --- default: local -------------------------------------------------------------
in=$(inst local)
db=$TMP/local.db
start_ready "default clock" "$TMP/local.err" "$db" "$in"
check_eq "default clock: the instance's trace_clock" "[local]" \
	"$(grep -o '\[[a-z0-9_-]*\]' "$T/instances/$in/trace_clock")"
check_true "default clock: the log names it" "a line with 'trace clock local'" \
	"$(cat "$TMP/local.err")" grep -q 'trace clock local' "$TMP/local.err"
marker=$(sleeper_copy clock-marker-1)
lo=$(inst_now "$in")
"$marker" 0.01
hi=$(( $(inst_now "$in") + 1000 ))	# "now ts" is rounded down to the µs
perf_messaging "default clock" -g 4 -l 100
stop_commd "$COMMD_PID" TERM
check_eq "default clock: exit status" 0 "$STOP_RC"
marker_check "default clock" "$db" "$lo" "$hi" clock-marker-1
check_eq "default clock: wakeups with a negative latency" 0 \
	"$(q "$db" "SELECT count(*) FROM wakeup_latency WHERE latency < 0")"
check_eq "default clock: slices with a negative duration" 0 \
	"$(q "$db" "SELECT count(*) FROM sched WHERE dur < 0")"
check_eq "default clock: switches outside the capture's start_ts..end_ts" 0 \
	"$(q "$db" "SELECT count(*) FROM ev_sched_switch, capture c WHERE ts < c.start_ts OR ts > c.end_ts")"
check_true "default clock: wakeups measured" "> 1000" \
	"$(q "$db" "SELECT count(*) FROM wakeup_latency")" \
	test "$(q "$db" "SELECT count(*) FROM wakeup_latency")" -gt 1000
check_eq "default clock: instance $in afterwards" absent "$(instance_state "$in")"

# --- --clock mono: CLOCK_MONOTONIC -------------------------------------------------
in=$(inst mono)
db=$TMP/mono.db
start_ready "--clock mono" "$TMP/mono.err" "$db" "$in" --clock mono
check_eq "--clock mono: the instance's trace_clock" "[mono]" \
	"$(grep -o '\[[a-z0-9_-]*\]' "$T/instances/$in/trace_clock")"
marker=$(sleeper_copy clock-marker-2)
lo=$(mono_ns)
"$marker" 0.01
hi=$(mono_ns)
stop_commd "$COMMD_PID" TERM
check_eq "--clock mono: exit status" 0 "$STOP_RC"
marker_check "--clock mono" "$db" "$lo" "$hi" clock-marker-2
check_eq "--clock mono: instance $in afterwards" absent "$(instance_state "$in")"

finish
