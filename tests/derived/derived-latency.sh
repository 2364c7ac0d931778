#!/usr/bin/env bash
# derived-latency.sh - issue 7 point 1b on every fixture: wakeup_latency has
# the rows reference.awk computes from trace-cmd report (first waking, or
# wakeup/wakeup_new, since the task last switched in or out, to the switch
# that runs it; losses void pending wakeups): same count, p50/p90/p99/max
# and rows; latency >= 0 and every row ends at a matching sched_switch.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

while read -r dat; do
	name=$(basename "$dat" .dat)
	db=$TMPDIR_TEST/$name.db
	import_ok "$dat" "$db" || continue
	reference "$dat" "$TMPDIR_TEST/$name" "$name.dat" || continue
	check_latency "$db" "$TMPDIR_TEST/$name" "$name.dat"
	log "$name.dat: $(wc -l < "$TMPDIR_TEST/$name.wakeups") wakeup latencies"
done < <(fixtures)
finish
