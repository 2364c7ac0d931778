-- 035-untraced-cpus: no wait on the queue of a CPU left out of the
-- recording.
--
-- A recording that leaves CPUs out (`trace-cmd record -M`) shows nothing
-- of what runs there. The slices' own account of a task's time off the
-- CPUs (off_dur, derive.c) already ends where a wakeup queued the task on
-- such a CPU, or a second waking showed it ran and slept again unseen;
-- thread_state reads it. offcpu paired each slice's end with the task's
-- next slice by itself, and runqueue_wait counted waits on the queues of
-- the CPUs left out: a helper's `-M 2` recording had pid 27104 asleep
-- (S) 19.9 ms across three wakings, 19 waits "woken" on CPU 0 ending
-- "migrated" (24.47 ms for pid 27140, which ran and slept on CPU 0 in
-- between), and `commq runq` a mean queue of 2.75 on CPU 0, which had no
-- record at all. offcpu now gives an interval only where the next slice
-- knows the task's time off the CPUs (every interval of every fixture
-- did already); a wait on a CPU an import found no record of (a stats
-- row cpu_untraced, written by imports from this version on) ends
-- unknown. Databases imported before have no such rows: re-import.
DROP VIEW runqueue_wait;
CREATE VIEW runqueue_wait AS
WITH e(ts, cpu, pid, k, o) AS (
	-- k: 0 off CPU asleep (or unknown), 1 off CPU still runnable,
	-- 2 migrated, 3 woken, 4 switched in, 5 off CPU in plain R; o
	-- orders one task's events of one ts: the end of a slice, a
	-- migration, a wakeup, a slice, the end of a slice of no length
	-- (after its own start).
	SELECT ts + dur, cpu, pid,
	       CASE WHEN end_state = 0 THEN 5
		    WHEN end_state & ~(SELECT preempt FROM kernel_states) = 0
		    THEN 1 ELSE 0 END, CASE WHEN dur = 0 THEN 4 ELSE 0 END
	FROM sched WHERE pid > 0
	UNION ALL
	SELECT ts, dest_cpu, target_pid, 2, 1 FROM ev_sched_migrate_task
	WHERE target_pid > 0
	UNION ALL
	SELECT ts, target_cpu, target_pid, 3, 2 FROM ev_sched_wakeup
	WHERE target_pid > 0
	UNION ALL
	SELECT ts, target_cpu, target_pid, 3, 2 FROM ev_sched_wakeup_new
	WHERE target_pid > 0
	UNION ALL
	SELECT ts, cpu, pid, 4, 3 FROM sched WHERE pid > 0
	UNION ALL
	-- a slice still running (a live capture's, its end not stored yet:
	-- sched has no row for it) began at its switch
	SELECT ts, cpu, next_pid, 4, 3 FROM ev_sched_switch
	WHERE slice_dur IS NULL AND next_pid > 0
),
-- The CPUs the newest capture shows switching (read once, and only when
-- a wait may be open).
rec(cpu) AS MATERIALIZED (
	SELECT DISTINCT cpu FROM ev_sched_switch
	WHERE ts >= coalesce((SELECT max(start_ts) FROM capture), -9223372036854775807)
),
-- Times are taken from the earliest row of the tables (b0), so that an
-- edge packs into one integer, (ts - base) * 64 + o * 8 + k, for any
-- trace clock whose times in the database span less than 2^57 (4.5
-- years of ns; as many ticks of a counter clock): the latest by (ts, o)
-- is the largest.
b0(base) AS (
	SELECT min(coalesce((SELECT min(ts) FROM ev_sched_switch), 9223372036854775807),
		   coalesce((SELECT min(ts) FROM dv_sched), 9223372036854775807),
		   coalesce((SELECT min(ts) FROM ev_sched_wakeup), 9223372036854775807),
		   coalesce((SELECT min(ts) FROM ev_sched_wakeup_new), 9223372036854775807),
		   coalesce((SELECT min(ts) FROM ev_sched_migrate_task), 9223372036854775807))
),
-- Before each event: the task's last slice edge ((ts - base) * 64 +
-- o * 8 + k) and its last wakeup (ts - base).
a AS (
	SELECT e.*,
	       max(CASE WHEN k IN (0, 1, 4, 5)
			THEN (ts - (SELECT base FROM b0)) * 64 + o * 8 + k END)
		   OVER p AS io,
	       max(CASE WHEN k = 3 THEN ts - (SELECT base FROM b0) END) OVER p AS lw,
	       lead(k) OVER p AS n1, lead(k, 2) OVER p AS n2
	FROM e
	WINDOW p AS (PARTITION BY pid ORDER BY ts, o
		     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
-- Which events begin a wait: a preemption; the first wakeup after the
-- task went to sleep (or the first of the trace); a migration while the
-- task waits (after a preemption, or after a wakeup since it slept).
-- A switch-out in plain R (5) followed by a wakeup of the task (its next
-- event, or the one after a migration) was a sleep: 5.8-5.17 read the
-- state at the tracepoint, after a waker on another CPU had set it to
-- TASK_WAKING (reported as R); the kernel wakes only a task that is not
-- running, so no wakeup ever follows a real R. Its wait begins at the
-- wakeup, as after any sleep.
b AS (
	SELECT ts, cpu, pid, k, o,
	       CASE k WHEN 1 THEN 1
		      WHEN 5 THEN NOT (coalesce(n1 = 3, 0) OR (coalesce(n1 = 2, 0)
						       AND coalesce(n2 = 3, 0)))
		      WHEN 3 THEN (io IS NULL OR io % 8 IN (0, 5))
				  AND (lw IS NULL OR (io IS NOT NULL AND lw < io / 64))
		      WHEN 2 THEN coalesce(io % 8 = 1, 0)
				  OR (coalesce(io % 8 = 5, 0) AND coalesce(n1 <> 3, 1))
				  OR ((io IS NULL OR io % 8 = 0) AND lw IS NOT NULL
				      AND (io IS NULL OR lw >= io / 64))
		      ELSE 0 END AS start
	FROM a
),
f AS (
	SELECT ts, cpu, pid, k, start,
	       lead(ts) OVER q AS nts, lead(k) OVER q AS nk
	FROM b WHERE start OR k IN (0, 2, 4, 5)
	WINDOW q AS (PARTITION BY pid ORDER BY ts, o)
),
-- A wait on the queue of a CPU the recording left out (trace-cmd record
-- -M: an import stores a stats row cpu_untraced for each CPU with no
-- record) ends unknown: the task may have run there, unseen.
-- A wait whose next event is in a later capture (a capture began in
-- between: what the task did in the gap is unknown), or after a loss's
-- gap began (events lost on any CPU: the task may have run there), ends
-- unknown.
-- A wait with no event of the task after it is still open at the end
-- (the capture's, or a running one's newest event), unless a capture
-- began or events were lost after it began (the task may have run where
-- nothing was traced), or the task was woken or exited after it (the
-- kernel wakes only a task that sleeps, and a task exits running: it ran
-- where nothing showed it, on a CPU left out of the recording, `trace-cmd
-- record -M`), or its CPU switched no task in the newest capture (such a
-- CPU, whose queue a migration names): its end is then unknown. (Each
-- test only once those before it passed: a CASE, which SQLite stops
-- early, where an AND ran every subquery of every wait.)
g AS (
	SELECT f.*, EXISTS (SELECT 1 FROM stats u
			    WHERE u.name = 'cpu_untraced' AND u.cpu = f.cpu)
		    OR EXISTS (SELECT 1 FROM capture c
			    WHERE c.start_ts > f.ts AND c.start_ts <= f.nts)
		    OR EXISTS (SELECT 1 FROM lost_events l
			       WHERE l.ts > f.ts AND l.ts < f.nts + (SELECT coalesce(max(ts - from_ts), 0) + 1 FROM lost_events)
			    AND coalesce(l.from_ts, l.ts - 1) < f.nts) AS cut,
	       CASE WHEN f.nts IS NOT NULL THEN 0
		    WHEN EXISTS (SELECT 1 FROM stats u
				 WHERE u.name = 'cpu_untraced' AND u.cpu = f.cpu) THEN 0
		    WHEN EXISTS (SELECT 1 FROM capture c WHERE c.start_ts > f.ts) THEN 0
		    WHEN EXISTS (SELECT 1 FROM lost_events l WHERE l.ts > f.ts) THEN 0
		    WHEN EXISTS (SELECT 1 FROM ev_sched_waking x
				 WHERE x.ts > f.ts AND x.target_pid = f.pid) THEN 0
		    WHEN EXISTS (SELECT 1 FROM ev_sched_wakeup x
				 WHERE x.ts > f.ts AND x.target_pid = f.pid) THEN 0
		    WHEN EXISTS (SELECT 1 FROM ev_sched_process_exit x
				 WHERE x.ts > f.ts AND x.target_pid = f.pid) THEN 0
		    WHEN EXISTS (SELECT 1 FROM ev_sched_process_free x
				 WHERE x.ts > f.ts AND x.target_pid = f.pid) THEN 0
		    ELSE f.cpu IN (SELECT cpu FROM rec) END AS still
	FROM f WHERE start
)
SELECT ts, CASE WHEN nk IN (2, 4) AND NOT cut THEN nts - ts END AS dur, cpu, pid,
       CASE k WHEN 1 THEN 'preempted' WHEN 5 THEN 'preempted' WHEN 3 THEN 'woken'
	      ELSE 'migrated' END AS reason,
       CASE WHEN still THEN 'open'
	    WHEN NOT cut THEN CASE nk WHEN 4 THEN 'ran' WHEN 2 THEN 'migrated' END END AS ended
FROM g;
