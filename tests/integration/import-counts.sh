#!/usr/bin/env bash
# import-counts.sh - every fixture imports with exactly the events, totals and
# ring-buffer losses that `trace-cmd report` shows (tracecmd-counts.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

while read -r dat; do
	name=$(basename "$dat" .dat)
	db=$TMPDIR_TEST/$name.db
	import_ok "$dat" "$db" || continue
	check_counts "$dat" "$db" "$name.dat"
	log "$name.dat: $TOTAL_RECORDS_SEEN records, $DROPPED_LINES_SEEN drop lines checked"
	if [ "$name" = sched-drops ]; then
		check_eq "sched-drops.dat: trace-cmd report shows drops (DROPPED_LINES > 0)" \
			yes "$([ "$DROPPED_LINES_SEEN" -gt 0 ] && echo yes || echo "no ($DROPPED_LINES_SEEN)")" || true
		check_eq "sched-drops.dat: lost_events rows > 0" yes \
			"$([ "$(q "$db" 'select count(*) from lost_events')" -gt 0 ] && echo yes || echo no)" || true
	fi
done < <(fixtures)
check_eq "sched-drops.dat fixture present and checked" yes \
	"$([ -e "$TESTDATA/sched-drops.dat" ] && echo yes || echo no)" || true
finish
