-- 011-runqueue: the run queues, from the events (nothing stored).
--
-- runqueue_wait: each time a task waited on a CPU's run queue, runnable
-- but not running, as the kernel counts it in its run delay
-- (sched_info: from its enqueue to the switch that runs it, a migration
-- ending the wait on the CPU it leaves and beginning one on the CPU it
-- goes to). A wait begins
--   - woken:     at the sched_wakeup or sched_wakeup_new that put a
--                sleeping task on target_cpu's queue (a wakeup of a task
--                already runnable or running begins nothing);
--   - preempted: at the end of a slice left in state R or R+ (the task
--                stays queued on that CPU: the low byte of the state is 0,
--                the higher bits the kernel's preemption mark);
--   - migrated:  at a sched_migrate_task of a waiting task, on dest_cpu;
-- and ends at the task's next slice (ended 'ran') or migration (ended
-- 'migrated'); the end of a slice instead (the task ran, but no switch
-- shows when it began) leaves the end unknown. The slices are the sched view's, so a switch nobody
-- recorded but the events show (an inferred edge) ends a wait too. A
-- wait whose end the trace does not show (it was still waiting when the
-- capture ended, or an event between was lost) has dur NULL; a task
-- already waiting when the capture began has no row for that wait.
CREATE VIEW runqueue_wait AS
WITH e(ts, cpu, pid, k, o) AS (
	-- k: 0 off CPU asleep (or unknown), 1 off CPU still runnable,
	-- 2 migrated, 3 woken, 4 switched in; o orders one task's events
	-- of one ts: the end of a slice, a migration, a wakeup, a slice.
	SELECT ts + dur, cpu, pid,
	       CASE WHEN end_state & 255 = 0 THEN 1 ELSE 0 END, 0
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
-- edge packs into one integer, (ts - base) * 8 + k, for any trace clock.
b0(base) AS (
	SELECT min(coalesce((SELECT min(ts) FROM ev_sched_switch), 9223372036854775807),
		   coalesce((SELECT min(ts) FROM dv_sched), 9223372036854775807),
		   coalesce((SELECT min(ts) FROM ev_sched_wakeup), 9223372036854775807),
		   coalesce((SELECT min(ts) FROM ev_sched_wakeup_new), 9223372036854775807),
		   coalesce((SELECT min(ts) FROM ev_sched_migrate_task), 9223372036854775807))
),
-- Before each event: the task's last slice edge ((ts - base) * 8 + k)
-- and its last wakeup (ts - base).
a AS (
	SELECT e.*,
	       max(CASE WHEN k IN (0, 1, 4) THEN (ts - (SELECT base FROM b0)) * 8 + k END)
		   OVER p AS io,
	       max(CASE WHEN k = 3 THEN ts - (SELECT base FROM b0) END) OVER p AS lw
	FROM e
	WINDOW p AS (PARTITION BY pid ORDER BY ts, o
		     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
-- Which events begin a wait: a preemption; the first wakeup after the
-- task went to sleep (or the first of the trace); a migration while the
-- task waits (after a preemption, or after a wakeup since it slept).
b AS (
	SELECT ts, cpu, pid, k, o,
	       CASE k WHEN 1 THEN 1
		      WHEN 3 THEN (io IS NULL OR io % 8 = 0)
				  AND (lw IS NULL OR (io IS NOT NULL AND lw < io / 8))
		      WHEN 2 THEN coalesce(io % 8 = 1, 0)
				  OR ((io IS NULL OR io % 8 = 0) AND lw IS NOT NULL
				      AND (io IS NULL OR lw >= io / 8))
		      ELSE 0 END AS start
	FROM a
),
f AS (
	SELECT ts, cpu, pid, k, start,
	       lead(ts) OVER q AS nts, lead(k) OVER q AS nk
	FROM b WHERE start OR k IN (0, 2, 4)
	WINDOW q AS (PARTITION BY pid ORDER BY ts, o)
)
SELECT ts, CASE WHEN nk IN (2, 4) THEN nts - ts END AS dur, cpu, pid,
       CASE k WHEN 1 THEN 'preempted' WHEN 3 THEN 'woken'
	      ELSE 'migrated' END AS reason,
       CASE nk WHEN 4 THEN 'ran' WHEN 2 THEN 'migrated' END AS ended
FROM f WHERE start;

-- runqueue: per CPU, how many tasks waited on its run queue, as a step
-- function: nr from ts for dur ns (until the next change; the last row
-- of a CPU has dur NULL). Only waits with a known end count.
CREATE VIEW runqueue AS
WITH w AS MATERIALIZED (
	SELECT ts, dur, cpu FROM runqueue_wait WHERE dur IS NOT NULL
),
d(cpu, ts, x) AS (
	SELECT cpu, ts, 1 FROM w
	UNION ALL
	SELECT cpu, ts + dur, -1 FROM w
),
c AS (SELECT cpu, ts, sum(x) AS x FROM d GROUP BY cpu, ts)
SELECT ts, lead(ts) OVER r - ts AS dur, cpu, sum(x) OVER r AS nr
FROM c
WINDOW r AS (PARTITION BY cpu ORDER BY ts);
