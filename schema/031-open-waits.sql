-- 031-open-waits: the waits still open at the end, and each CPU's last
-- run-queue step.
--
-- runqueue_wait gave a wait that no event of its task followed (the task
-- still queued when the capture stopped, or at a running capture's
-- newest event) no end, as one whose end is unknown, and runqueue left
-- it out: `commq runq --last 1s` on a running daemon missed the tasks
-- queued right now, and each CPU's last step (dur NULL) was not counted,
-- the queue's mean taken over less than the capture. Such a wait now
-- ends 'open' (dur still NULL: it is not over), unless a capture began
-- or events were lost (any CPU) after it began, the task perhaps run
-- where nothing was traced. runqueue counts an open wait up to the end:
-- the captures' last end_ts once all have ended, else the newest event
-- a wait is read from; and each CPU's last step lasts to that end.
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
-- between: what the task did in the gap is unknown) ends unknown.
-- A wait with no event of the task after it is still open at the end
-- (the capture's, or a running one's newest event), unless a capture
-- began or events were lost after it began (the task may have run where
-- nothing was traced): its end is then unknown.
g AS (
	SELECT f.*, EXISTS (SELECT 1 FROM capture c
			    WHERE c.start_ts > f.ts AND c.start_ts <= f.nts) AS cut,
	       f.nts IS NULL
	       AND NOT EXISTS (SELECT 1 FROM capture c WHERE c.start_ts > f.ts)
	       AND NOT EXISTS (SELECT 1 FROM lost_events l WHERE l.ts > f.ts) AS still
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
		CASE WHEN NOT EXISTS (SELECT 1 FROM capture WHERE end_ts IS NULL)
		     THEN (SELECT max(end_ts) FROM capture) END,
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
