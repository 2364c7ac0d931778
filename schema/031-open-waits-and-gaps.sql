-- 031-open-waits-and-gaps: the waits still open at the end, each CPU's last
-- run-queue step, and the gaps of the losses in the views read.
--
-- runqueue_wait gave a wait that no event of its task followed (the task
-- still queued when the capture stopped, or at a running capture's
-- newest event) no end, as one whose end is unknown, and runqueue left
-- it out: `commq runq --last 1s` on a running daemon missed the tasks
-- queued right now, and each CPU's last step (dur NULL) was not counted,
-- the queue's mean taken over less than the capture. Such a wait now
-- ends 'open' (dur still NULL: it is not over), unless a capture began
-- or events were lost (any CPU) after it began, the task perhaps run
-- where nothing was traced, or the task was woken or exited after it,
-- or its CPU shows no switch in the newest capture (one left out of the
-- recording). runqueue counts an open wait up to the end: the newest
-- capture's end_ts, else (still running, or stopped by a crash no start
-- has marked yet) the newest event a wait is read from; and each CPU's
-- last step lasts to that end.
--
-- A loss is known from its CPU's last record before it (since schema
-- 026's time the reader looks ahead): the events lost came after that
-- record, not only at the loss's stamp (the first record after, or the
-- page's time). lost_events keeps it, from_ts (NULL: not known, the
-- stamp alone, as for a loss the kernel only counted), and preempt_wait,
-- offcpu and runqueue_wait no longer give a wait or a sleep that a gap
-- (from_ts, ts] overlaps: the task may have run in it (sched-drops.dat:
-- 119 of 1,816 preemption waits, 461 of 3,286 sleeps and 516 of 5,219
-- run-queue waits crossed one; thread_state and wakeup_latency, derived
-- at capture, had left them out since the gaps were known). Rows stored
-- before get from_ts from the events: the CPU's last one before the
-- loss, in the capture that holds it (NULL for one between captures, as
-- an unclean stop's: the capture's start bounds what is known). The
-- views find the gaps that overlap a wait (a, b) through the index on ts,
-- from a to b plus the widest gap, not through every loss after a.
ALTER TABLE lost_events ADD COLUMN from_ts INTEGER;
UPDATE lost_events SET from_ts = max(
	coalesce((SELECT max(ts) FROM ev_sched_switch e
			 WHERE e.cpu = lost_events.cpu AND e.ts < lost_events.ts), -1),
	coalesce((SELECT max(ts) FROM ev_sched_waking e
			 WHERE e.cpu = lost_events.cpu AND e.ts < lost_events.ts), -1),
	coalesce((SELECT max(ts) FROM ev_sched_wakeup e
			 WHERE e.cpu = lost_events.cpu AND e.ts < lost_events.ts), -1),
	coalesce((SELECT max(ts) FROM ev_sched_wakeup_new e
			 WHERE e.cpu = lost_events.cpu AND e.ts < lost_events.ts), -1),
	coalesce((SELECT max(ts) FROM ev_sched_stat_runtime e
			 WHERE e.cpu = lost_events.cpu AND e.ts < lost_events.ts), -1),
	coalesce((SELECT max(ts) FROM ev_sched_migrate_task e
			 WHERE e.cpu = lost_events.cpu AND e.ts < lost_events.ts), -1),
	coalesce((SELECT max(ts) FROM ev_sched_process_fork e
			 WHERE e.cpu = lost_events.cpu AND e.ts < lost_events.ts), -1),
	coalesce((SELECT max(ts) FROM ev_sched_process_exec e
			 WHERE e.cpu = lost_events.cpu AND e.ts < lost_events.ts), -1),
	coalesce((SELECT max(ts) FROM ev_sched_process_exit e
			 WHERE e.cpu = lost_events.cpu AND e.ts < lost_events.ts), -1),
	coalesce((SELECT max(ts) FROM ev_sched_process_free e
			 WHERE e.cpu = lost_events.cpu AND e.ts < lost_events.ts), -1),
	coalesce((SELECT max(ts) FROM ev_task_rename e
			 WHERE e.cpu = lost_events.cpu AND e.ts < lost_events.ts), -1),
	coalesce((SELECT max(ts) FROM ev_task_newtask e
			 WHERE e.cpu = lost_events.cpu AND e.ts < lost_events.ts), -1),
	coalesce((SELECT max(ts) FROM ev_other e
			 WHERE e.cpu = lost_events.cpu AND e.ts < lost_events.ts), -1));
UPDATE lost_events SET from_ts = (
	SELECT CASE WHEN max(coalesce(c.start_ts, -1), lost_events.from_ts) < lost_events.ts
		    THEN max(coalesce(c.start_ts, -1), lost_events.from_ts) END
	FROM capture c
	WHERE coalesce(c.start_ts, -1) <= lost_events.ts
	  AND (c.end_ts IS NULL OR c.end_ts >= lost_events.ts)
	ORDER BY c.start_ts DESC LIMIT 1)
WHERE EXISTS (SELECT 1 FROM capture);
UPDATE lost_events SET from_ts = NULL WHERE from_ts < 0;
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
	SELECT f.*, EXISTS (SELECT 1 FROM capture c
			    WHERE c.start_ts > f.ts AND c.start_ts <= f.nts)
		    OR EXISTS (SELECT 1 FROM lost_events l
			       WHERE l.ts > f.ts AND l.ts < f.nts + (SELECT coalesce(max(ts - from_ts), 0) + 1 FROM lost_events)
			    AND coalesce(l.from_ts, l.ts - 1) < f.nts) AS cut,
	       CASE WHEN f.nts IS NOT NULL THEN 0
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

DROP VIEW runqueue;
CREATE VIEW runqueue AS
WITH cend(t) AS (
	SELECT coalesce(
		(SELECT end_ts FROM capture ORDER BY start_ts DESC LIMIT 1),
		max(coalesce((SELECT max(ts) FROM ev_sched_switch), 0),
		    coalesce((SELECT max(ts) FROM dv_sched), 0),
		    coalesce((SELECT max(ts) FROM ev_sched_wakeup), 0),
		    coalesce((SELECT max(ts) FROM ev_sched_wakeup_new), 0),
		    coalesce((SELECT max(ts) FROM ev_sched_migrate_task), 0)))
),
w AS MATERIALIZED (
	SELECT ts, coalesce(dur, max(0, (SELECT t FROM cend) - ts)) AS dur, cpu
	FROM runqueue_wait WHERE dur IS NOT NULL OR ended = 'open'
),
d(cpu, ts, x) AS (
	SELECT cpu, ts, 1 FROM w
	UNION ALL
	SELECT cpu, ts + dur, -1 FROM w
),
c AS (SELECT cpu, ts, sum(x) AS x FROM d GROUP BY cpu, ts)
SELECT ts, coalesce(lead(ts) OVER r,
		    CASE WHEN ts < (SELECT t FROM cend) THEN (SELECT t FROM cend) END) - ts AS dur,
       cpu, sum(x) OVER r AS nr
FROM c
WINDOW r AS (PARTITION BY cpu ORDER BY ts);
DROP VIEW preempt_wait;
CREATE VIEW preempt_wait AS
WITH s AS (
	SELECT ts + dur AS ts, cpu, pid, end_state, lost,
	       lead(ts) OVER w AS next_ts, lead(cpu) OVER w AS next_cpu
	FROM sched WHERE pid > 0
	WINDOW w AS (PARTITION BY pid ORDER BY ts)
)
SELECT ts, next_ts - ts AS dur, cpu, pid, next_cpu AS run_cpu
FROM s
WHERE end_state & ~(SELECT preempt FROM kernel_states) = 0
  AND next_ts IS NOT NULL AND lost = 0
  AND NOT (end_state = 0 AND coalesce(coalesce((SELECT e.ts - e.wake_latency FROM ev_sched_switch e
					  WHERE e.ts = s.next_ts AND e.cpu = s.next_cpu
					    AND e.next_pid = s.pid),
					 (SELECT d.ts - d.wake_latency FROM dv_sched d
					  JOIN comm_history h ON h.id = d.hid
					  WHERE d.ts = s.next_ts AND d.cpu = s.next_cpu
					    AND h.pid = s.pid)) > s.ts, 0))
  AND NOT EXISTS (SELECT 1 FROM lost_events l
		  WHERE l.ts > s.ts AND l.ts < s.next_ts + (SELECT coalesce(max(ts - from_ts), 0) + 1 FROM lost_events)
			    AND coalesce(l.from_ts, l.ts - 1) < s.next_ts)
  AND NOT EXISTS (SELECT 1 FROM capture c WHERE c.start_ts > s.ts AND c.start_ts <= s.next_ts)
  AND NOT EXISTS (SELECT 1 FROM comm_history b
		  WHERE b.pid = s.pid AND b.source IN ('task_newtask', 'sched_process_fork')
		    AND b.start_ts > s.ts AND b.start_ts <= s.next_ts);
DROP VIEW offcpu;
CREATE VIEW offcpu AS
WITH s AS (
	SELECT ts + dur AS ts, cpu, pid, comm, end_state, lost,
	       lead(ts) OVER w AS next_ts, lead(cpu) OVER w AS next_cpu
	FROM sched WHERE pid > 0
	WINDOW w AS (PARTITION BY pid ORDER BY ts)
),
sw AS (
	SELECT s.*,
	       coalesce((SELECT e.ts - e.wake_latency FROM ev_sched_switch e
			 WHERE e.ts = s.next_ts AND e.cpu = s.next_cpu AND e.next_pid = s.pid),
			(SELECT d.ts - d.wake_latency FROM dv_sched d
			 JOIN comm_history h ON h.id = d.hid
			 WHERE d.ts = s.next_ts AND d.cpu = s.next_cpu AND h.pid = s.pid)) AS woke
	FROM s
),
o AS (
	SELECT s.*, k.stack
	FROM sw s LEFT JOIN switch_stack k ON k.ts = s.ts AND k.cpu = s.cpu
	WHERE (s.end_state & 3 <> 0 OR (s.end_state = 0 AND coalesce(s.woke > s.ts, 0)))
	  AND s.end_state & (SELECT noload FROM kernel_states) = 0
	  AND s.next_ts IS NOT NULL AND s.lost = 0
	  AND NOT EXISTS (SELECT 1 FROM lost_events l
			  WHERE l.ts > s.ts AND l.ts < s.next_ts + (SELECT coalesce(max(ts - from_ts), 0) + 1 FROM lost_events)
			    AND coalesce(l.from_ts, l.ts - 1) < s.next_ts)
	AND NOT EXISTS (SELECT 1 FROM capture c WHERE c.start_ts > s.ts AND c.start_ts <= s.next_ts)
	  AND NOT EXISTS (SELECT 1 FROM comm_history b
			  WHERE b.pid = s.pid AND b.source IN ('task_newtask', 'sched_process_fork')
			    AND b.start_ts > s.ts AND b.start_ts <= s.next_ts)
)
SELECT o.ts, o.next_ts - o.ts AS dur, o.cpu, o.pid, o.comm,
       CASE WHEN o.end_state & 2 THEN 'D' WHEN o.end_state & 1 THEN 'S'
	    ELSE 'S|D' END AS state,
       CASE WHEN o.woke >= o.ts THEN o.next_ts - o.woke END AS runnable,
       o.stack, t.frames,
       coalesce((SELECT h.pid FROM dv_wakeup_latency x JOIN comm_history t ON t.id = x.hid
		 JOIN comm_history h ON h.id = x.waker_hid
		 WHERE x.ts = o.woke AND t.pid = o.pid),
		(SELECT h.pid FROM ev_sched_waking x JOIN comm_history h ON h.id = x.hid
		 WHERE x.ts = o.woke AND x.target_pid = o.pid),
		(SELECT h.pid FROM ev_sched_wakeup x JOIN comm_history h ON h.id = x.hid
		 WHERE x.ts = o.woke AND x.target_pid = o.pid)) AS waker_pid,
       coalesce((SELECT h.comm FROM dv_wakeup_latency x JOIN comm_history t ON t.id = x.hid
		 JOIN comm_history h ON h.id = x.waker_hid
		 WHERE x.ts = o.woke AND t.pid = o.pid),
		(SELECT h.comm FROM ev_sched_waking x JOIN comm_history h ON h.id = x.hid
		 WHERE x.ts = o.woke AND x.target_pid = o.pid),
		(SELECT h.comm FROM ev_sched_wakeup x JOIN comm_history h ON h.id = x.hid
		 WHERE x.ts = o.woke AND x.target_pid = o.pid)) AS waker_comm
FROM o LEFT JOIN stacks t ON t.id = o.stack;
