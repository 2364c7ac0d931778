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
	# Schema 020: each wakeup table's partial index holds exactly its
	# rows with a latency, and a window's latencies are read from it.
	for t in ev_sched_wakeup ev_sched_wakeup_new; do
		check_eq "$name.dat: $t: the rows with a latency, through ${t}_latency = the table's" \
			"$(q "$db" "SELECT count(*), total(latency), total(ts) FROM $t NOT INDEXED
				WHERE latency IS NOT NULL")" \
			"$(q "$db" "SELECT count(*), total(latency), total(ts) FROM $t INDEXED BY ${t}_latency
				WHERE ts >= -9e18 AND latency IS NOT NULL")" || true
		check_match "$name.dat: $t: a window's latencies read from ${t}_latency" \
			"SEARCH $t USING COVERING INDEX ${t}_latency" \
			"$(q "$db" "EXPLAIN QUERY PLAN SELECT latency FROM $t
				WHERE ts >= 0 AND ts < 1000000000000 AND latency IS NOT NULL")" || true
	done
	log "$name.dat: $(wc -l < "$TMPDIR_TEST/$name.wakeups") wakeup latencies"
done < <(fixtures)
finish
