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

dat=$TMPDIR_TEST/live.dat
record_fresh derived "$dat" perf bench sched messaging -g 2 -l 20

db=$TMPDIR_TEST/live.db
import_ok "$dat" "$db" || finish
reference "$dat" "$TMPDIR_TEST/live" "fresh trace" || finish
check_cpu_time "$db" "$TMPDIR_TEST/live" "fresh trace"
check_latency "$db" "$TMPDIR_TEST/live" "fresh trace"
check_losses "$db" "fresh trace"
log "fresh trace: $REF_SWITCHES switches ($REF_BREAKS after a switch-in that was not recorded), $(wc -l < "$TMPDIR_TEST/live.wakeups") wakeup latencies, $REF_DROPS drop lines"
finish
