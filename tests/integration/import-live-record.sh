#!/usr/bin/env bash
# import-live-record.sh - record a fresh trace.dat with trace-cmd on this
# kernel, import it, and check the same per-event counts as import-counts.sh.
# Needs root and tracefs: it FAILS (does not skip) without them. It always
# puts back tracing_on = 1 and the global buffer size, and checks that
# set_event is left empty.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

T=/sys/kernel/tracing
RECORD_TIMEOUT=300

check_eq "running as root (uid)" 0 "$(id -u)" || finish
command -v trace-cmd > /dev/null || abort "trace-cmd in PATH" "found" "missing"
command -v perf > /dev/null || abort "perf in PATH" "found" "missing"

if [ ! -e "$T/tracing_on" ]; then
	mkdir -p "$T" 2> /dev/null || true
	mount -t tracefs nodev "$T" 2> "$TMPDIR_TEST/mount.err" || true
fi
if ! { [ -w "$T/tracing_on" ] && [ -r "$T/buffer_size_kb" ] && [ -e "$T/set_event" ]; }; then
	abort "tracefs usable at $T" "tracing_on, buffer_size_kb, set_event present" \
		"not usable (mount: $(cat "$TMPDIR_TEST/mount.err" 2> /dev/null))"
fi

# --- state to restore ----------------------------------------------------
# buffer_size_kb is "N", "N (expanded: M)" before the buffer was first used
# (then M is what it becomes on first use, and writing N would shrink it to
# the tiny pre-expansion size), or "X" when the CPUs differ.
read_buffer_size() {
	local s
	s=$(cat "$T/buffer_size_kb")
	if [[ $s =~ ^([0-9]+)\ \(expanded:\ ([0-9]+)\) ]]; then
		echo "${BASH_REMATCH[2]}"
	elif [[ $s =~ ^([0-9]+) ]]; then
		echo "${BASH_REMATCH[1]}"
	else
		echo X
	fi
}
BUF_KB=$(read_buffer_size)
declare -A CPU_KB=()
for f in "$T"/per_cpu/cpu*/buffer_size_kb; do
	[ -e "$f" ] || continue
	v=$(cat "$f"); [[ $v =~ ^([0-9]+) ]] && CPU_KB[$f]=${BASH_REMATCH[1]}
done
SET_EVENT_BEFORE=$(cat "$T/set_event")
log "before: buffer_size_kb '$(cat "$T/buffer_size_kb")', tracing_on $(cat "$T/tracing_on"), set_event ${SET_EVENT_BEFORE:-empty}"

# Recorded into a private instance, never the global buffer.
INSTANCE=commd-test-$$
RESTORED=0
restore_tracefs() {
	[ "$RESTORED" = 1 ] && return 0
	RESTORED=1
	local f ok=0
	echo 1 > "$T/tracing_on" || ok=1
	if [ "$BUF_KB" != X ]; then
		echo "$BUF_KB" > "$T/buffer_size_kb" || ok=1
	else
		for f in "${!CPU_KB[@]}"; do echo "${CPU_KB[$f]}" > "$f" || ok=1; done
	fi
	# trace-cmd -B leaves its instance behind
	if [ -d "$T/instances/$INSTANCE" ]; then
		rmdir "$T/instances/$INSTANCE" || ok=1
	fi
	# leave no events enabled that were not enabled before
	if [ -z "$SET_EVENT_BEFORE" ] && [ -n "$(cat "$T/set_event")" ]; then
		: > "$T/set_event" || ok=1
	fi
	return $ok
}
CLEANUP_HOOKS+=("restore_tracefs")

# --- record ----------------------------------------------------------------
dat=$TMPDIR_TEST/t.dat
rc=0
(cd "$TMPDIR_TEST" && timeout "$RECORD_TIMEOUT" trace-cmd record -d --no-filter -B "$INSTANCE" -e sched -e task \
	-o "$dat" perf bench sched messaging -g 2 -l 20) \
	> "$TMPDIR_TEST/record.out" 2> "$TMPDIR_TEST/record.err" || rc=$?
# trace-cmd exits 1 from EPERM on set_ftrace_filter while cleaning up, after
# the file is complete (tests/data/README.md).
CHECKS=$((CHECKS + 1))
if ! { [ "$rc" = 0 ] || [ "$rc" = 1 ]; } || [ ! -s "$dat" ]; then
	fail "trace-cmd record" "exit 0 or 1 and a non-empty $dat" \
		"exit $rc, file $( [ -s "$dat" ] && echo present || echo missing), stderr: $(tail -c 2000 "$TMPDIR_TEST/record.err")"
fi
if [ "$rc" = 1 ] && ! grep -q 'set_ftrace_filter' "$TMPDIR_TEST/record.err"; then
	log "note: trace-cmd record exited 1 without mentioning set_ftrace_filter: $(tail -c 500 "$TMPDIR_TEST/record.err")"
fi
# The other checks of the tracefs state: right after trace-cmd is done.
check_eq "set_event after trace-cmd record (was '${SET_EVENT_BEFORE}' before)" "" "$(cat "$T/set_event")" || true

# --- import and compare ---------------------------------------------------
if [ -s "$dat" ]; then
	log "recorded $(stat -c %s "$dat") bytes"
	db=$TMPDIR_TEST/t.db
	if import_ok "$dat" "$db"; then
		check_counts "$dat" "$db" "live t.dat"
		got=$(sqlite3 -readonly "$db" "pragma integrity_check")
		check_eq "live t.dat: PRAGMA integrity_check" ok "$got" || true
		n=$(q "$db" "select count(*) from sched_switch")
		check_eq "live t.dat: sched_switch rows > 0" yes "$([ "$n" -gt 0 ] && echo yes || echo "no ($n)")" || true
		n=$(q "$db" "select count(*) from sched_switch where comm is not prev_comm or pid is not prev_pid")
		check_eq "live t.dat: sched_switch rows with comm != prev_comm or pid != prev_pid" 0 "$n" || true
		log "live t.dat: $TOTAL_RECORDS_SEEN records, $DROPPED_LINES_SEEN drop lines"
	fi
fi

# --- restore and verify --------------------------------------------------
restore_tracefs || fail "restoring tracefs state" "all writes succeed" "a write failed"
check_eq "tracing_on after the test" 1 "$(cat "$T/tracing_on")" || true
if [ "$BUF_KB" != X ]; then
	check_eq "buffer_size_kb after the test" "$BUF_KB" "$(read_buffer_size)" || true
else
	for f in "${!CPU_KB[@]}"; do
		check_eq "$f after the test" "${CPU_KB[$f]}" "$(cat "$f")" || true
	done
fi
check_eq "set_event after the test" "$SET_EVENT_BEFORE" "$(cat "$T/set_event")" || true
finish
