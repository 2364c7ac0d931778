#!/usr/bin/env bash
# live-hotplug.sh - a CPU going offline and coming back during a capture
# (what kernel engineers do to their test machines) loses nothing and stops
# nothing: commd captures while `perf bench sched messaging` runs, the
# highest-numbered CPU is taken offline, the load runs on the others, the
# CPU comes back and a marker pinned to it (taskset) runs there. Then:
#
#  - commd was running all along; SIGTERM: exit 0, instance gone;
#  - the events stored equal the kernel's read events (stats), no
#    lost_events rows;
#  - the marker's exec is stored with the CPU it was pinned to (the CPU's
#    ring buffer is read again after it came back), and that CPU has
#    switches after the marker started;
#  - PRAGMA integrity_check ok.
#
# Then a CPU offline when commd starts (no ring buffer for it until it
# comes online: reading it says ENODEV): commd starts, captures, and reads
# the CPU once it is back (a marker pinned to it is stored there); top
# --by cpu counts its offline time unknown. And a CPU offline when commd
# stops: its last slice ends at its last event before it went (before a
# marker run after the offline), the rest unknown (end_err), not run on
# to the capture's end.
#
# The CPU is put back online at exit whatever happens. Needs root, tracefs
# (FAILS without them) and a CPU that can go offline (exit 77, skipped, on
# a machine with one CPU or without CPU hotplug).
. "$(dirname "$0")/lib.sh"
need_live
need_perf

cpu=
for c in $(seq "$(($(nproc --all) - 1))" -1 1); do
	f=/sys/devices/system/cpu/cpu$c/online
	if [ -w "$f" ] && [ "$(cat "$f")" = 1 ]; then
		cpu=$c
		break
	fi
done
if [ -z "$cpu" ]; then
	echo "$TEST_NAME: no CPU here can go offline (one CPU, or no CPU hotplug): skipped" >&2
	exit 77
fi
online=/sys/devices/system/cpu/cpu$cpu/online
_cpu_back() { echo 1 > "$online" 2> /dev/null || true; }
CLEANUP_HOOKS=(_cpu_back "${CLEANUP_HOOKS[@]}")

# pinned_then_stop NAME LABEL LOOPS: a marker called NAME pinned to the
# CPU (taskset) beside perf bench sched messaging (LABEL, LOOPS loops),
# then commd is stopped (SIGTERM). Sets marker.
pinned_then_stop() {
	marker=$(sleeper_copy "$1")
	taskset -c "$cpu" "$marker" 0.2 &
	HELPER_PIDS+=("$!")
	perf_messaging "$2" -g 2 -l "$3"
	wait "${HELPER_PIDS[-1]}" || true
	sleep 0.5
	stop_commd "$COMMD_PID" TERM
}

in=$(inst 1)
db=$TMP/hp.db
start_ready "hotplug" "$TMP/commd.err" "$db" "$in" --commit-ms 200
perf_messaging "both CPUs" -g 2 -l 100

echo 0 > "$online"
check_eq "cpu$cpu offline" 0 "$(cat "$online")"
perf_messaging "cpu$cpu offline" -g 2 -l 100
sleep 0.5
check_true "commd still running with cpu$cpu offline" running \
	"$(_alive "$COMMD_PID" && echo running || echo gone)" _alive "$COMMD_PID"

echo 1 > "$online"
check_eq "cpu$cpu online again" 1 "$(cat "$online")"
pinned_then_stop hp-marker "cpu$cpu back" 100

check_eq "exit status after SIGTERM" 0 "$STOP_RC"
check_eq "instance removed" absent "$(instance_state "$in")"
check_eq "stored events equal the kernel's read events" \
	"$(stat "$db" kernel_read_events)" "$(stat "$db" events)"
check_eq "no lost_events rows" 0 "$(q "$db" "SELECT count(*) FROM lost_events")"
got=$(q "$db" "SELECT group_concat(DISTINCT cpu) FROM ev_sched_process_exec WHERE filename = '$marker'")
check_eq "the marker's exec, pinned to cpu$cpu after it came back, is stored on it" "$cpu" "$got"
got=$(q "$db" "SELECT count(*) FROM ev_sched_switch WHERE cpu = $cpu AND ts > (SELECT min(ts) FROM ev_sched_process_exec WHERE filename = '$marker')")
check_true "cpu$cpu has switches after the marker started" "> 0" "$got" test "${got:-0}" -gt 0
check_integrity "after hotplug" "$db"
log "cpu$cpu offline and back; $(grep -E 'stopped after' "$TMP/commd.err")"

# --- offline at the start ------------------------------------------------
in=$(inst 2)
db=$TMP/start.db
echo 0 > "$online"
start_ready "started with cpu$cpu offline" "$TMP/start.err" "$db" "$in" --commit-ms 200
perf_messaging "cpu$cpu offline from the start" -g 2 -l 50
sleep 0.5
check_true "commd running, cpu$cpu offline since before its start" running \
	"$(_alive "$COMMD_PID" && echo running || echo "gone: $(tail -n 2 "$TMP/start.err")")" \
	_alive "$COMMD_PID"
echo 1 > "$online"
sleep 0.2
pinned_then_stop hp-start "cpu$cpu online after the start" 50
check_eq "started with cpu$cpu offline: exit status after SIGTERM" 0 "$STOP_RC"
check_eq "started with cpu$cpu offline: stored events equal the kernel's read events" \
	"$(stat "$db" kernel_read_events)" "$(stat "$db" events)"
got=$(q "$db" "SELECT group_concat(DISTINCT cpu) FROM ev_sched_process_exec WHERE filename = '$marker'")
check_eq "the marker pinned to cpu$cpu once it came online is stored on it" "$cpu" "$got"
got=$("$COMMQ" --db "$db" -q -csv -noheader top --by cpu | awk -F, -v c="$cpu" '$1 == c { print ($4 > 0) }')
check_eq "top --by cpu: cpu$cpu's time offline is unknown" 1 "$got"
check_integrity "after a start with cpu$cpu offline" "$db"

# --- offline at the stop -------------------------------------------------
in=$(inst 3)
db=$TMP/stop.db
start_ready "stopped with cpu$cpu offline" "$TMP/stop.err" "$db" "$in" --commit-ms 200
perf_messaging "before cpu$cpu goes" -g 2 -l 50
echo 0 > "$online"
marker=$(sleeper_copy hp-gone)
"$marker" 0.01
sleep 1
stop_commd "$COMMD_PID" TERM
echo 1 > "$online"
check_eq "stopped with cpu$cpu offline: exit status after SIGTERM" 0 "$STOP_RC"
gone=$(q "$db" "SELECT min(ts) FROM ev_sched_process_exec WHERE filename = '$marker'")
read -r end err <<<"$(q "$db" "SELECT ts + dur, coalesce(end_err, 'none') FROM sched
	WHERE cpu = $cpu ORDER BY ts DESC, dur DESC LIMIT 1" | tr '|' ' ')"
check_true "cpu$cpu's last slice ends before it went offline (a marker after)" "<= ${gone:-?}" \
	"${end:-none}" test "${end:-0}" -gt 0 -a "${end:-0}" -le "${gone:-0}"
check_true "... and the time after it is unknown (end_err)" "a gap" "${err:-none}" \
	test "${err:-none}" != none
check_integrity "after a stop with cpu$cpu offline" "$db"
finish
