#!/usr/bin/env bash
# live-wallclock.sh - the time of day of a capture's events (issue 15
# point 5), checked against the system clock read by this script.
#
#  1. live, default clock (local): a marker task runs between two readings
#     of CLOCK_REALTIME; wall() of its first slice lies between them
#     (within the readings' stated error and 1 ms of scheduling);
#  2. live, the time of day stepped by +5 s while commd runs (and back
#     after): a second marker, run inside the stepped time, maps into the
#     stepped readings, so a step is followed (a new clock_map row);
#  3. `commq top --from/--to` in ISO 8601 around the first marker finds
#     it, and a time of day outside the capture is an error;
#  4. import of `trace-cmd record --date`: clock_map holds the file's
#     offset, ts stays the trace clock (the file without --date has the
#     same ts), and wall(ts) of every sched_switch is the time trace-cmd
#     report prints for it (to its microsecond); without --date, no row,
#     and wall() is NULL;
#  5. --date with a clock that does not count ns (x86-tsc): no clock_map
#     row, and a warning.
#
# Needs root, tracefs, trace-cmd and python3 (FAILS without them).
. "$(dirname "$0")/lib.sh"

need_live
command -v python3 > /dev/null || abort "python3" "in PATH" "missing"
command -v trace-cmd > /dev/null || abort "trace-cmd" "in PATH" "missing"
COMMQ=${COMMQ:-$(dirname "$COMMD")/commq}

# step_clock SECONDS: moves CLOCK_REALTIME by SECONDS (to the µs).
step_clock() {
	python3 -c 'import sys, time
time.clock_settime_ns(time.CLOCK_REALTIME, time.clock_gettime_ns(time.CLOCK_REALTIME) + int(sys.argv[1]) * 10**9)' "$1"
}
STEPPED=0
unstep() { [ "$STEPPED" = 0 ] || { step_clock -5; STEPPED=0; }; }
CLEANUP_HOOKS+=("unstep")

db=$TMP/w.db
err=$TMP/commd.err
start_ready "wallclock" "$err" "$db" "$(inst 1)" --commit-ms 100
sleep 0.3

# 1. A marker between two readings of the time of day.
marker wallmark-a
pa=$MARK_PID a0=$MARK_T0 a1=$MARK_T1

# 2. The same, with the time of day stepped by +5 s.
step_clock 5
STEPPED=1
sleep 0.5
marker wallmark-b
pb=$MARK_PID b0=$MARK_T0 b1=$MARK_T1
unstep
sleep 0.3
stop_commd "$COMMD_PID" TERM
check_eq "commd stops on SIGTERM" 0 "$STOP_RC"

# wall_ns PID: the time of day of PID's first slice (a switch-in, or the
# first event it fired on a CPU whose switch-in went untraced), in ns.
first_in() { q "$db" "SELECT min(ts) FROM sched WHERE pid = $1"; }
wall_ns() {
	local w
	w=$("$COMMQ" --db "$db" -q -list -noheader "select wall($(first_in "$1"))")
	iso_ns "$w"
}
within() {	# WHAT LO HI GOT: LO <= GOT <= HI
	if [ "$4" = none ]; then
		fail "$1" "a time of day" "NULL"
		return
	fi
	check_true "$1" "between $2 and $3" "$4 ($(( ($4 - $2) / 1000 )) µs after the first reading)" \
		test "$4" -ge "$2" -a "$4" -le "$3"
}
errmax=$(q "$db" "SELECT max(err) FROM clock_map")
slack=$(( errmax + 1000000 ))
wa=$(wall_ns "$pa")
within "1. marker a's first slice: wall() between the readings around it" \
	$((a0 - slack)) $((a1 + slack)) "$wa"
wb=$(wall_ns "$pb")
within "2. marker b (time of day stepped +5 s): wall() in the stepped time" \
	$((b0 - slack)) $((b1 + slack)) "$wb"
check_true "2. the step made a clock reading of its own" "at least 2 rows" \
	"$(q "$db" "SELECT count(*) FROM clock_map") rows" \
	test "$(q "$db" "SELECT count(*) FROM clock_map")" -ge 2

# 3. ISO 8601 windows.
iso() { date -u -d "@$(( $1 / 1000000000 )).$(printf %09d $(( $1 % 1000000000 )))" +%Y-%m-%dT%H:%M:%S.%NZ; }
got=$("$COMMQ" --db "$db" -q -list -noheader top --from "$(iso "$a0")" --to "$(iso "$a1")" 2>&1 |
	awk -F'|' '$1 == "wallmark-a"' | wc -l)
check_eq "3. top --from/--to the readings around marker a: it is there" 1 "$got"
out=$("$COMMQ" --db "$db" -q top --from "$(iso $((a0 - 86400000000000)))" 2>&1) && rc=0 || rc=$?
check_eq "3. a time of day a day before the capture: exit status" 1 "$rc"
check_match "3. ... and says so" "outside every capture" "$out"

# 4. Import, with and without --date.
record() {	# NAME DATE-ARG
	local in=commd-test-$$-rec
	(cd "$TMP" && timeout 120 trace-cmd record -d --no-filter $2 -B "$in" \
		-e sched:sched_switch -o "$1.dat" sleep 0.2) > "$TMP/$1.rec" 2>&1 || true
	rmdir "$T/instances/$in" 2> /dev/null || true
	[ -s "$TMP/$1.dat" ] || abort "trace-cmd record $2" "a file" "$(tail -c 500 "$TMP/$1.rec")"
	"$COMMD" import "$TMP/$1.dat" -o "$TMP/$1.db" --force --no-progress 2> "$TMP/$1.err" ||
		abort "commd import $1.dat" "exit 0" "$(cat "$TMP/$1.err")"
}
record dated --date
record plain ""
check_eq "4. --date: one clock reading" 1 "$(q "$TMP/dated.db" "SELECT count(*) FROM clock_map")"
check_eq "4. without --date: none" 0 "$(q "$TMP/plain.db" "SELECT count(*) FROM clock_map")"
check_eq "4. without --date: wall() is NULL" "NULL" \
	"$("$COMMQ" --db "$TMP/plain.db" -q -list -noheader "select quote(wall(min(ts))) from sched_switch")"
up=$(cut -d' ' -f1 /proc/uptime | cut -d. -f1)
check_true "4. --date: ts stays the trace clock (local: about the uptime, not the epoch)" \
	"under $((up + 10)) s" "$(q "$TMP/dated.db" "SELECT min(ts) / 1000000000 FROM sched_switch") s" \
	test "$(q "$TMP/dated.db" "SELECT min(ts) / 1000000000 FROM sched_switch")" -le $((up + 10))
# trace-cmd report prints the --date times rounded to the µs: the same,
# row for row
trace-cmd report -i "$TMP/dated.dat" 2> /dev/null | awk '/sched_switch:/ {
	for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(":", "", $i); print $i; break } }' |
	sort > "$TMP/tc.times"
"$COMMQ" --db "$TMP/dated.db" -q -list -noheader \
	"select wall(ts) from sched_switch order by ts" |
	python3 -c 'import sys, calendar, time
for l in sys.stdin:
    l = l.strip(); s = calendar.timegm(time.strptime(l[:19], "%Y-%m-%dT%H:%M:%S"))
    us = (s * 10**9 + int(l[20:29]) + 500) // 1000    # rounded, as trace-cmd prints
    print("%d.%06d" % (us // 10**6, us % 10**6))' | sort > "$TMP/commd.times"
check_eq "4. --date: sched_switch rows" "$(wc -l < "$TMP/tc.times")" "$(wc -l < "$TMP/commd.times")"
check_eq "4. --date: wall(ts) = trace-cmd report's time, every switch (differing lines)" 0 \
	"$(diff "$TMP/tc.times" "$TMP/commd.times" | grep -c '^[<>]' || true)"
# 5. --date with a clock that does not count ns (x86-tsc: cycles): the
# offset trace-cmd saved is ns, cycles plus it are no time of day, so no
# clock_map row, and a warning says why.
record tscdated "--date -C x86-tsc"
check_eq "5. --date -C x86-tsc: no clock reading" 0 "$(q "$TMP/tscdated.db" "SELECT count(*) FROM clock_map")"
check_match "5. --date -C x86-tsc: the warning" \
	"tscdated.dat: the file's time of day \(record --date\) is left out \(no clock_map row\): its timestamps are not nanoseconds" \
	"$(cat "$TMP/tscdated.err")"
log "marker a: $(( (wa - a0) / 1000 )) µs after the reading before it; b: $(( (wb - b0) / 1000 )) µs; readings: $(q "$db" "SELECT count(*) FROM clock_map"), err ≤ $errmax ns; $(wc -l < "$TMP/tc.times") switches of the --date file match trace-cmd report"
finish
