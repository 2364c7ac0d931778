#!/usr/bin/env bash
# derived-thread-state.sh - issue 7 point 1 (thread_state) on every
# fixture:
#  - its 'running' rows are exactly the sched slices of tasks (pid > 0);
#  - per task the rows never overlap and no duration is negative;
#  - the time between two runs of a task (its rows other than 'running',
#    a sleep and the runnable part after its waking being contiguous) is
#    exactly the gap reference.awk computes from trace-cmd report's
#    sched_switch lines (switch-out to next switch-in of the pid, to the
#    ns), and the state of its first part is the switch-out's prev_state
#    letter (R, R+ runnable; S sleeping; D uninterruptible; I idle...);
#  - the runnable part after a waking lasts the wakeup_latency row's
#    latency, and is named as it (as at the next slice: a rename while
#    the task slept);
#  - no sleep holds a wakeup of its task (a slice begun by inference
#    ends the sleep at the wakeup too).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

while read -r dat; do
	name=$(basename "$dat" .dat)
	db=$TMPDIR_TEST/$name.db
	p=$TMPDIR_TEST/$name
	import_ok "$dat" "$db" || continue
	reference "$dat" "$p" "$name.dat" || continue

	check_eq "$name.dat: 'running' rows = sched slices of tasks (count, ns)" \
		"$(q "$db" "SELECT count(*), coalesce(sum(dur), 0) FROM sched WHERE pid > 0")" \
		"$(q "$db" "SELECT count(*), coalesce(sum(dur), 0) FROM thread_state WHERE state = 'running'")" || true
	# sched and thread_state (schema 021) take a switch's pid from the
	# switch itself, a task's rows from its own pid: the same as the
	# name row's, and the same rows as the whole view's.
	check_eq "$name.dat: switches whose next_pid is not their next_hid row's pid" 0 \
		"$(q "$db" "SELECT count(*) FROM ev_sched_switch e JOIN comm_history h ON h.id = e.next_hid WHERE e.next_pid IS NOT h.pid")" || true
	busy=$(q "$db" "SELECT pid FROM sched WHERE pid > 0 GROUP BY pid ORDER BY count(*) DESC, pid LIMIT 1")
	for v in thread_state sched; do
		check_eq "$name.dat: $v where pid = $busy = the whole view's rows of it" \
			"$(q "$db" "WITH a AS MATERIALIZED (SELECT * FROM $v) SELECT count(*), sum(dur), sum(ts), group_concat(DISTINCT comm) FROM (SELECT * FROM a WHERE pid = $busy ORDER BY ts, dur)")" \
			"$(q "$db" "SELECT count(*), sum(dur), sum(ts), group_concat(DISTINCT comm) FROM (SELECT * FROM $v WHERE pid = $busy ORDER BY ts, dur)")" || true
	done
	check_eq "$name.dat: rows with a negative duration" 0 \
		"$(q "$db" "SELECT count(*) FROM thread_state WHERE dur < 0")" || true
	check_eq "$name.dat: rows overlapping the task's next row" 0 \
		"$(q "$db" "SELECT count(*) FROM (SELECT ts + dur > lead(ts) OVER (PARTITION BY pid ORDER BY ts, state <> 'running', dur) AS o FROM thread_state) WHERE o")" || true

	# The gaps: contiguous non-running rows of a pid make one (a
	# running row between them, even of 0 ns, parts them).
	q "$db" "SELECT pid, ts, dur, state FROM thread_state ORDER BY pid, ts, state <> 'running', dur" |
		LC_ALL=C awk -F'\t' -v OFS='\t' '
		function out() { if (have) print gp, gs, gd, gst; have = 0 }
		$4 == "running" { out(); next }
		{
			if (have && $1 == gp && $2 == gs + gd) { gd += $3; next }
			out(); have = 1; gp = $1; gs = $2; gd = $3; gst = $4
		}
		END { out() }' | LC_ALL=C sort > "$p.gaps.commd"
	LC_ALL=C awk -F'\t' -v OFS='\t' '$1 == "G" {
		s = $5; sub(/\+$/, "", s)
		st = "state " s
		if (s == "R") st = "runnable"
		else if (s == "S") st = "sleeping"
		else if (s == "D") st = "uninterruptible"
		else if (s == "I") st = "idle"
		# the sched_switch plugin of trace-cmd 3.1 letters prev_state from an
		# old kernel table where 0x80 was "W"; the format of this kernel
		# (events/sched/sched_switch/format) calls 0x80 "I" (idle): the
		# plugin is wrong there, commd follows the kernel.
		else if (s == "W") st = "idle"
		else if (s == "T") st = "stopped"
		else if (s == "t") st = "traced"
		else if (s == "P") st = "parked"
		else if (s == "N") st = "new"
		else if (s == "A") st = "asleep"
		print $2, $3, $4, st }' "$p.ref" | LC_ALL=C sort > "$p.gaps.ref"
	compare_sets "$name.dat: gaps between a task's runs (pid, start, ns, state)" \
		"$p.gaps.ref" "$p.gaps.commd" || true

	check_eq "$name.dat: runnable parts after a waking that differ from the wakeup_latency row" 0 \
		"$(q "$db" "SELECT count(*) FROM thread_state t WHERE t.state = 'runnable'
			AND EXISTS (SELECT 1 FROM wakeup_latency w WHERE w.pid = t.pid AND w.ts = t.ts)
			AND NOT EXISTS (SELECT 1 FROM wakeup_latency w WHERE w.pid = t.pid AND w.ts = t.ts AND w.latency = t.dur)")" || true
	check_eq "$name.dat: runnable parts after a waking not named as the wakeup_latency row" 0 \
		"$(q "$db" "SELECT count(*) FROM thread_state t JOIN wakeup_latency w
			ON w.pid = t.pid AND w.ts = t.ts AND w.latency = t.dur
			WHERE t.state = 'runnable' AND t.comm IS NOT w.comm")" || true
	# A sleep ends at the task's wakeup, whether its next slice begins
	# at a switch or by inference (dv_sched.wake_latency, schema 030):
	# no sleep holds one of its own sched_wakeups (where no loss came
	# after it began: a loss's row is stamped where the CPU's events
	# came back, after the events it cost).
	check_eq "$name.dat: sleeps holding the task's own wakeup" 0 \
		"$(q "$db" "SELECT count(*) FROM thread_state t
			WHERE t.state IN ('sleeping', 'uninterruptible', 'idle', 'asleep')
			  AND EXISTS (SELECT 1 FROM ev_sched_wakeup w WHERE w.target_pid = t.pid
				      AND w.ts > t.ts AND w.ts < t.ts + t.dur)
			  AND NOT EXISTS (SELECT 1 FROM lost_events l WHERE l.ts > t.ts)")" || true
	check_eq "$name.dat: runnable parts after a sleep that begin at no waking or wakeup of the task" 0 \
		"$(q "$db" "SELECT count(*) FROM thread_state t WHERE t.state = 'runnable'
			  AND EXISTS (SELECT 1 FROM thread_state p WHERE p.pid = t.pid AND p.ts + p.dur = t.ts
				      AND p.state NOT IN ('running', 'runnable'))
			  AND NOT EXISTS (SELECT 1 FROM ev_sched_waking k WHERE k.ts = t.ts AND k.target_pid = t.pid)
			  AND NOT EXISTS (SELECT 1 FROM ev_sched_wakeup k WHERE k.ts = t.ts AND k.target_pid = t.pid)
			  AND NOT EXISTS (SELECT 1 FROM ev_sched_wakeup_new k WHERE k.ts = t.ts AND k.target_pid = t.pid)")" || true
	check_eq "$name.dat: slices begun by inference whose wakeup (dv_sched.wake_latency) is none of the task's" 0 \
		"$(q "$db" "SELECT count(*) FROM dv_sched d JOIN comm_history h ON h.id = d.hid
			WHERE d.wake_latency IS NOT NULL
			  AND NOT EXISTS (SELECT 1 FROM ev_sched_waking k WHERE k.ts = d.ts - d.wake_latency AND k.target_pid = h.pid)
			  AND NOT EXISTS (SELECT 1 FROM ev_sched_wakeup k WHERE k.ts = d.ts - d.wake_latency AND k.target_pid = h.pid)
			  AND NOT EXISTS (SELECT 1 FROM ev_sched_wakeup_new k WHERE k.ts = d.ts - d.wake_latency AND k.target_pid = h.pid)")" || true
	check_eq "$name.dat: offcpu intervals holding the task's own wakeup, runnable unknown" 0 \
		"$(q "$db" "SELECT count(*) FROM offcpu o WHERE o.runnable IS NULL
			  AND EXISTS (SELECT 1 FROM ev_sched_wakeup w WHERE w.target_pid = o.pid
				      AND w.ts > o.ts AND w.ts < o.ts + o.dur)
			  AND NOT EXISTS (SELECT 1 FROM lost_events l WHERE l.ts > o.ts)")" || true
	# (the name it left the CPU under: one the switch-out showed first
	# is the task's from there, comm_history's and thread_state's)
	check_eq "$name.dat: offcpu intervals not named as comm_history names the task when it left" 0 \
		"$(q "$db" "SELECT count(*) FROM offcpu o WHERE o.comm IS NOT (SELECT coalesce(h.comm, '<...>')
			  FROM comm_history h WHERE h.pid = o.pid AND h.start_ts <= o.ts
			  AND (h.end_ts IS NULL OR h.end_ts > o.ts) ORDER BY h.start_ts DESC, h.id DESC LIMIT 1)")" || true
	log "$name.dat: $(wc -l < "$p.gaps.ref") gaps; states: $(q "$db" "SELECT group_concat(state || ' ' || n, ', ') FROM (SELECT state, count(*) AS n FROM thread_state GROUP BY state)")"
done < <(fixtures
	# and a recording as 5.8-5.17 would have made it (sleeps shown as R)
	python3 "$TESTDATA/as-old-kernel.py" "$TESTDATA/sched-v6.dat" \
		"$TMPDIR_TEST/sched-v6-5.15.dat" 5.15 > /dev/null &&
		echo "$TMPDIR_TEST/sched-v6-5.15.dat")
finish
