#!/usr/bin/env bash
# derived-latency.sh - issue 7 point 1b on every fixture: wakeup_latency has
# the rows reference.awk computes from trace-cmd report (first waking, or
# wakeup/wakeup_new, since the task last switched in or out, to the switch
# that runs it; losses void pending wakeups): same count, p50/p90/p99/max
# and rows; latency >= 0 and every row ends at a matching sched_switch.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
races=0

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
	# A waking while the task still ran whose sched_wakeup came after its
	# switch-out (the wake list: fired by whoever ran on the task's CPU
	# then, idle often): the wakeup's waker is the waking's, in
	# wakeup_latency and offcpu alike. Straight from the raw events.
	q "$db" "WITH u AS (
		SELECT u.ts, u.target_pid AS pid, u.pid AS fired,
		       (SELECT max(w.ts) FROM sched_waking w WHERE w.target_pid = u.target_pid
			  AND w.ts < u.ts) AS wts
		FROM sched_wakeup u WHERE u.target_pid > 0),
	r AS (
		SELECT u.*, (SELECT w.pid FROM sched_waking w WHERE w.ts = u.wts
			       AND w.target_pid = u.pid) AS waker,
		       (SELECT max(s.ts) FROM sched_switch s WHERE s.prev_pid = u.pid
			  AND s.ts > u.wts AND s.ts < u.ts) AS out_ts
		FROM u WHERE NOT EXISTS (SELECT 1 FROM sched_wakeup x WHERE x.target_pid = u.pid
					 AND x.ts > u.wts AND x.ts < u.ts))
		SELECT r.ts, r.pid, r.waker, r.fired,
		       coalesce((SELECT l.waker_pid FROM wakeup_latency l
				 WHERE l.ts = r.ts AND l.pid = r.pid), 'none'),
		       coalesce((SELECT o.waker_pid FROM offcpu o WHERE o.pid = r.pid
				 AND o.ts = r.out_ts), 'none')
		FROM r WHERE r.out_ts IS NOT NULL AND r.waker <> r.fired
		  AND NOT EXISTS (SELECT 1 FROM lost_events l WHERE l.ts BETWEEN r.wts AND r.ts)" \
		> "$TMPDIR_TEST/$name.races"
	n=$(wc -l < "$TMPDIR_TEST/$name.races")
	races=$((races + n))
	check_eq "$name.dat: wakeups after the switch-out of a task woken while it ran ($n) whose waker is not the waking's" "" \
		"$(awk -F'\t' '$5 != $3 || ($6 != "none" && $6 != $3)' "$TMPDIR_TEST/$name.races" | head -5)" || true
done < <(fixtures)
check_true "fixtures with a wakeup fired after the switch-out, by another than the waker" "> 0" \
	"$races" [ "$races" -gt 0 ] || true
finish
