#!/usr/bin/env bash
# derived-losses.sh - issue 7 point 1c: on sched-drops.dat (ring-buffer
# losses on both CPUs) every slice spanning a lost_events ts on its CPU has
# lost = 1 and no wakeup_latency row spans a loss; the same invariants hold
# on every other fixture (where they must not flag anything either).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

drops=$TESTDATA/sched-drops.dat
check_eq "fixture sched-drops.dat present" yes "$([ -e "$drops" ] && echo yes || echo no)" || finish
while read -r dat; do
	name=$(basename "$dat" .dat)
	db=$TMPDIR_TEST/$name.db
	import_ok "$dat" "$db" || continue
	check_losses "$db" "$name.dat"
	[ "$name" = sched-drops ] || continue
	# not vacuous: there are losses, slices spanning them, wakeups near them
	n=$(q "$db" "select count(*) from lost_events")
	check_eq "sched-drops.dat: lost_events rows (trace-cmd report DROPPED lines)" 6 "$n" || true
	n=$(q "$db" "select count(*) from sched s where exists (select 1 from lost_events l
		where l.cpu = s.cpu and l.ts > s.ts and l.ts <= s.ts + s.dur)")
	CHECKS=$((CHECKS + 1))
	[ "$n" -gt 0 ] || fail "sched-drops.dat: slices spanning a loss" "> 0" "$n"
	# A loss is known from its CPU's record before it (the next record
	# says so): in the gap no task's time off the CPUs and no wakeup's
	# wait is known (pid 3736 ran in CPU 0's 17.7 ms gap; the build
	# before had it asleep for 8.5 ms across it, and 321 wakeup_latency
	# rows across the gaps)
	g=$(q "$db" "with $GAPS_CTE select count(*) from thread_state t, gap g
		where t.state <> 'running' and g.lo < t.ts + t.dur and g.hi > t.ts")
	check_eq "sched-drops.dat: thread_state rows off the CPUs across a loss's gap" 0 "$g" || true
	g=$(q "$db" "with $GAPS_CTE select count(*) from wakeup_latency w, gap g
		where g.lo < w.ts + w.latency and g.hi > w.ts")
	check_eq "sched-drops.dat: wakeup_latency rows across a loss's gap" 0 "$g" || true
	# the views computed when read know the gaps too (schema 031:
	# lost_events.from_ts; before, only the loss's stamp: 119 of 1,816
	# preempt_wait, 461 of 3,286 offcpu, 516 of 5,219 runqueue_wait rows
	# crossed a gap)
	for v in preempt_wait offcpu runqueue_wait; do
		g=$(q "$db" "with $GAPS_CTE select count(*) from $v w, gap g
			where w.dur is not null and g.lo < w.ts + w.dur and g.hi > w.ts")
		check_eq "sched-drops.dat: $v rows across a loss's gap" 0 "$g" || true
	done
	g=$(q "$db" "with $GAPS_CTE select count(*) from lost_events l join gap g
		on g.cpu = l.cpu and g.hi = l.ts where l.from_ts is g.lo")
	check_eq "sched-drops.dat: lost_events.from_ts, each loss's CPU's last record before it" 6 "$g" || true
	g=$(q "$db" "with $GAPS_CTE select count(*), sum(hi - lo > 10000000) from gap")
	check_eq "sched-drops.dat: gaps (and those over 10 ms)" $'6\t1' "$g" || true
	# the reference computation voids wakeups and flags slices the same way
	reference "$dat" "$TMPDIR_TEST/$name" "$name.dat" || continue
	check_eq "sched-drops.dat: DROPPED lines seen by reference.awk" 6 "$REF_DROPS" || true
	q "$db" "select cpu, pid, comm, ts, dur, lost from sched where lost = 1" |
		LC_ALL=C sort > "$TMPDIR_TEST/db.lost"
	awk -F'\t' '$6 == 1' "$TMPDIR_TEST/$name.slices" > "$TMPDIR_TEST/ref.lost"
	compare_sets "sched-drops.dat: slices with lost = 1 vs reference.awk" \
		"$TMPDIR_TEST/ref.lost" "$TMPDIR_TEST/db.lost" || true
	log "sched-drops.dat: $n slices span a loss, $(wc -l < "$TMPDIR_TEST/db.lost") have lost = 1"
done < <(fixtures)
finish
