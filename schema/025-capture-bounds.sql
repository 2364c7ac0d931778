-- 025-capture-bounds: waits end where their capture ends.
--
-- runqueue_wait, preempt_wait and offcpu pair a task's event with its
-- next one over every capture of the file: after a restart of commd (a
-- SIGTERM, a SIGKILL), a wait begun in one capture was ended by the
-- task's first event in the next, and the time nothing was captured
-- counted as waiting (a busy task "preempted" for the 679 ms commd was
-- down). Now an interval with a capture's start inside it is no wait:
-- preempt_wait and offcpu have no row for it, runqueue_wait's row has
-- no end (dur and ended NULL), as for a wait still open when a capture
-- ended. thread_state never joined captures (its intervals are stored
-- per capture at ingest).
DROP VIEW runqueue_wait;
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
),
-- A wait whose next event is in a later capture (a capture began in
-- between: what the task did in the gap is unknown) ends unknown.
g AS (
	SELECT f.*, EXISTS (SELECT 1 FROM capture c
			    WHERE c.start_ts > f.ts AND c.start_ts <= f.nts) AS cut
	FROM f WHERE start
)
SELECT ts, CASE WHEN nk IN (2, 4) AND NOT cut THEN nts - ts END AS dur, cpu, pid,
       CASE k WHEN 1 THEN 'preempted' WHEN 3 THEN 'woken'
	      ELSE 'migrated' END AS reason,
       CASE WHEN NOT cut THEN CASE nk WHEN 4 THEN 'ran' WHEN 2 THEN 'migrated' END END AS ended
FROM g;
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
WHERE end_state & 255 = 0 AND next_ts IS NOT NULL AND lost = 0
  AND NOT EXISTS (SELECT 1 FROM lost_events l WHERE l.ts > s.ts AND l.ts <= s.next_ts)
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
o AS (
	SELECT s.*, k.stack,
	       (SELECT e.ts - e.wake_latency FROM ev_sched_switch e
		WHERE e.ts = s.next_ts AND e.cpu = s.next_cpu AND e.next_pid = s.pid) AS woke
	FROM s LEFT JOIN switch_stack k ON k.ts = s.ts AND k.cpu = s.cpu
	WHERE s.end_state & 3 <> 0 AND s.next_ts IS NOT NULL AND s.lost = 0
	  AND NOT EXISTS (SELECT 1 FROM lost_events l WHERE l.ts > s.ts AND l.ts <= s.next_ts)
	AND NOT EXISTS (SELECT 1 FROM capture c WHERE c.start_ts > s.ts AND c.start_ts <= s.next_ts)
	  AND NOT EXISTS (SELECT 1 FROM comm_history b
			  WHERE b.pid = s.pid AND b.source IN ('task_newtask', 'sched_process_fork')
			    AND b.start_ts > s.ts AND b.start_ts <= s.next_ts)
)
SELECT o.ts, o.next_ts - o.ts AS dur, o.cpu, o.pid, o.comm,
       CASE WHEN o.end_state & 2 THEN 'D' ELSE 'S' END AS state,
       CASE WHEN o.woke >= o.ts THEN o.next_ts - o.woke END AS runnable,
       o.stack, t.frames,
       coalesce((SELECT h.pid FROM ev_sched_waking x JOIN comm_history h ON h.id = x.hid
		 WHERE x.ts = o.woke AND x.target_pid = o.pid),
		(SELECT h.pid FROM ev_sched_wakeup x JOIN comm_history h ON h.id = x.hid
		 WHERE x.ts = o.woke AND x.target_pid = o.pid)) AS waker_pid,
       coalesce((SELECT h.comm FROM ev_sched_waking x JOIN comm_history h ON h.id = x.hid
		 WHERE x.ts = o.woke AND x.target_pid = o.pid),
		(SELECT h.comm FROM ev_sched_wakeup x JOIN comm_history h ON h.id = x.hid
		 WHERE x.ts = o.woke AND x.target_pid = o.pid)) AS waker_comm
FROM o LEFT JOIN stacks t ON t.id = o.stack;
