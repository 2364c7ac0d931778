#!/usr/bin/env bash
# derived-cpu-time.sh - issue 7 point 1a on every fixture: per-comm (and
# per-pid/comm) CPU time from `sched` equals the sum of the slices that
# reference.awk builds from trace-cmd report's sched_switch lines, to the
# ns; the slices themselves match, tile each CPU and close at capture.end_ts.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

while read -r dat; do
	name=$(basename "$dat" .dat)
	db=$TMPDIR_TEST/$name.db
	import_ok "$dat" "$db" || continue
	reference "$dat" "$TMPDIR_TEST/$name" "$name.dat" || continue
	check_cpu_time "$db" "$TMPDIR_TEST/$name" "$name.dat"
	log "$name.dat: $REF_SWITCHES switches, $(wc -l < "$TMPDIR_TEST/$name.slices") slices ($REF_BREAKS after a switch-in that was not recorded), $REF_DROPS drop lines"
done < <(fixtures)
finish
