#!/usr/bin/env bash
# derived-live.sh - issue 7 points 1a-1c on a trace recorded now on this
# kernel: trace-cmd records `perf bench sched messaging` into a private
# tracefs instance, commd imports it, and `sched` / `wakeup_latency` must
# equal reference.awk's computation from trace-cmd report, to the ns.
# Needs root, tracefs, trace-cmd and perf: it FAILS (does not skip) without
# them. Removes the instance (trace-cmd leaves it); writes no global
# tracing file (trace-cmd record -B with no top-level events leaves them).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

T=/sys/kernel/tracing
RECORD_TIMEOUT=300

check_eq "running as root (uid)" 0 "$(id -u)" || finish
command -v perf > /dev/null || abort "perf in PATH" "found" "missing"
if [ ! -w "$T/tracing_on" ] || [ ! -d "$T/instances" ]; then
	abort "tracefs usable at $T" "tracing_on writable, instances/ present" "not usable"
fi

INSTANCE=commd-derived-$$
[ ! -e "$T/instances/$INSTANCE" ] || abort "instance $INSTANCE unused" "absent" "present"
restore_tracefs() {
	local ok=0
	if [ -d "$T/instances/$INSTANCE" ]; then
		rmdir "$T/instances/$INSTANCE" || ok=1
	fi
	return $ok
}
CLEANUP_HOOKS+=("restore_tracefs")

dat=$TMPDIR_TEST/live.dat
rc=0
# trace-cmd exits 1 from a harmless EPERM (set_ftrace_filter) after the
# file is written; the file is judged by trace-cmd report below.
(cd "$TMPDIR_TEST" && timeout "$RECORD_TIMEOUT" trace-cmd record -d --no-filter \
	-B "$INSTANCE" -e sched -e task -o "$dat" \
	perf bench sched messaging -g 2 -l 20) \
	> "$TMPDIR_TEST/record.out" 2> "$TMPDIR_TEST/record.err" || rc=$?
restore_tracefs || fail "restore tracefs after trace-cmd record" "instance removed" "failed"
CHECKS=$((CHECKS + 1))
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] || [ ! -s "$dat" ]; then
	abort "trace-cmd record" "exit 0 or 1 and $dat written" \
		"exit $rc, stderr: $(tail -c 2000 "$TMPDIR_TEST/record.err")"
fi
check_eq "instance $INSTANCE removed after the record" absent \
	"$([ -d "$T/instances/$INSTANCE" ] && echo present || echo absent)" || true

db=$TMPDIR_TEST/live.db
import_ok "$dat" "$db" || finish
reference "$dat" "$TMPDIR_TEST/live" "fresh trace" || finish
check_cpu_time "$db" "$TMPDIR_TEST/live" "fresh trace"
check_latency "$db" "$TMPDIR_TEST/live" "fresh trace"
check_losses "$db" "fresh trace"
log "fresh trace: $REF_SWITCHES switches ($REF_BREAKS after a switch-in that was not recorded), $(wc -l < "$TMPDIR_TEST/live.wakeups") wakeup latencies, $REF_DROPS drop lines"
finish
