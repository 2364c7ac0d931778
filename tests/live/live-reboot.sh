#!/usr/bin/env bash
# live-reboot.sh - one database across boots. A trace clock starts again
# at every boot, so after a reboot the always-on daemon's new times would
# fall before an earlier boot's in the same database. Here the earlier
# boot is made from a real capture: its rows copied 10 days into the
# future (the clock of a boot that ran 10 days) and its capture row
# moved with them under another boot id. Then:
#
#  1. a live capture on that database goes on after it: ts_offset > 0,
#     its start at least 1 s after the earlier boot's end and as far
#     after its last clock reading as the time of day moved since (the
#     "reboot" takes 2 s), every row of its own after it (a marker task's
#     slices among them), and the log says so;
#  2. windows back from the newest event (`top --last`, to just before
#     the marker) find the marker, not the earlier boot's rows;
#  3. wall() of the marker's first slice lies between two readings of the
#     time of day around it: the clock readings carry the offset too;
#  4. a restart in the same boot continues after the shifted capture.
#
# Needs root and tracefs (FAILS without them).
. "$(dirname "$0")/lib.sh"

need_live
command -v python3 > /dev/null || abort "python3" "in PATH" "missing"
COMMQ=${COMMQ:-$(dirname "$COMMD")/commq}
DAYS10=864000000000000

db=$TMP/r.db

# capture NAME MARKER: a live capture with a marker task run between two
# readings of the time of day (MARK_PID, MARK_T0, MARK_T1).
capture() {
	start_ready "$1" "$TMP/$1.err" "$db" "$(inst 1)" --commit-ms 100
	sleep 0.3
	marker "$2" 0.2
	stop_commd "$COMMD_PID" TERM
	check_eq "$1: commd stops on SIGTERM" 0 "$STOP_RC"
}

capture first bootmark-a
# The earlier boot: the same rows 10 days on, its capture moved with them.
sqlite3 "$db" "BEGIN;
CREATE TEMP TABLE t AS SELECT * FROM ev_sched_switch;
UPDATE t SET ts = ts + $DAYS10;
INSERT INTO ev_sched_switch SELECT * FROM t;
UPDATE clock_map SET ts = ts + $DAYS10;
UPDATE capture SET start_ts = start_ts + $DAYS10, end_ts = end_ts + $DAYS10,
	boot = 'an-earlier-boot';
COMMIT;" || abort "moving the first capture to an earlier boot" "done" "sqlite3 failed"
old_end=$(q "$db" "SELECT end_ts FROM capture WHERE id = 1")
old_rows=$(q "$db" "SELECT count(*) FROM ev_sched_switch WHERE ts > $old_end - $DAYS10")
old_map=$(q "$db" "SELECT realtime - ts FROM clock_map WHERE capture = 1 ORDER BY ts DESC LIMIT 1")
sleep 2	# the "reboot": longer than the 1 s the new times keep apart at least

capture second bootmark-b
pb=$MARK_PID b0=$MARK_T0 b1=$MARK_T1
off=$(q "$db" "SELECT ts_offset FROM capture WHERE id = 2")
start=$(q "$db" "SELECT start_ts FROM capture WHERE id = 2")
end=$(q "$db" "SELECT end_ts FROM capture WHERE id = 2")
check_true "1. the new capture's ts_offset" "> 0" "$off" test "${off:-0}" -gt 0
check_true "1. it starts at least 1 s after the earlier boot's end ($old_end)" \
	">= $((old_end + 1000000000))" "$start" test "$start" -ge $((old_end + 1000000000))
new_map=$(q "$db" "SELECT realtime - ts FROM clock_map WHERE capture = 2 ORDER BY ts LIMIT 1")
check_true "1. as far after it as the time of day moved (realtime - ts of the two captures' clock readings)" \
	"$old_map within 20 ms" "$new_map" \
	test $((new_map - old_map)) -le 20000000 -a $((old_map - new_map)) -le 20000000
check_true "1. its switches lie after the earlier boot's end" "> 0" \
	"$(q "$db" "SELECT count(*) FROM ev_sched_switch WHERE ts >= $start AND ts <= $end")" \
	test "$(q "$db" "SELECT count(*) FROM ev_sched_switch WHERE ts >= $start AND ts <= $end")" -gt 0
check_eq "1. the marker's slices lie in it" \
	"$(q "$db" "SELECT count(*) FROM sched WHERE pid = $pb")" \
	"$(q "$db" "SELECT count(*) FROM sched WHERE pid = $pb AND ts >= $start AND ts <= $end")"
check_true "1. the marker ran" "> 0 slices" "$(q "$db" "SELECT count(*) FROM sched WHERE pid = $pb")" \
	test "$(q "$db" "SELECT count(*) FROM sched WHERE pid = $pb")" -gt 0
check_match "1. the log says so" "this capture's times are the clock's" \
	"$(cat "$TMP/second.err")"

# last_to PID: a --last window back from the newest event to 50 ms before
# PID's first slice (in ms).
last_to() {
	q "$db" "SELECT (((SELECT max(ts) FROM ev_sched_switch) - min(ts)) / 1000000 + 50) || 'ms'
		FROM sched WHERE pid = $1"
}
# 2. Back from the newest event.
lb=$(last_to "$pb")
got=$("$COMMQ" --db "$db" -q -list -noheader top --last "$lb" 2>&1)
check_match "2. top --last $lb (back from the newest event to just before the marker): the marker" \
	"bootmark-b" "$got"
check_eq "2. top --last $lb: rows of the earlier boot (bootmark-a)" 0 \
	"$(grep -c bootmark-a <<< "$got" || true)"

# 3. The time of day of the marker's first slice.
w=$("$COMMQ" --db "$db" -q -list -noheader "select wall(min(ts)) from sched where pid = $pb")
wn=$(iso_ns "$w")
slack=$(( $(q "$db" "SELECT max(err) FROM clock_map WHERE capture = 2") + 1000000 ))
check_true "3. wall() of the marker's first slice between the readings around it" \
	"$((b0 - slack)) to $((b1 + slack))" "$wn ($w)" \
	test "$wn" != none -a "$wn" -ge $((b0 - slack)) -a "$wn" -le $((b1 + slack))

# 4. A restart in the same boot.
capture third bootmark-c
start3=$(q "$db" "SELECT start_ts FROM capture WHERE id = 3")
check_true "4. a restart starts after the shifted capture's end ($end)" "> $end" "$start3" \
	test "$start3" -gt "$end"
lc=$(last_to "$MARK_PID")
got=$("$COMMQ" --db "$db" -q -list -noheader top --last "$lc" 2>&1)
check_match "4. top --last $lc: its marker" "bootmark-c" "$got"
check_eq "PRAGMA integrity_check" ok "$(q "$db" "PRAGMA integrity_check")"
log "earlier boot: $old_rows switches to $old_end; then ts_offset $off, starts $start, $((start3 - end)) ns between the second and third captures"
finish
