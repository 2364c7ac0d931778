-- 003-thread-state: what each task was doing between its runs, from the
-- derived tables (a view: nothing more is stored).
--
-- thread_state(ts, dur, pid, comm, state, cpu): per task, its run slices
-- (state 'running', from sched) and the time between one slice and its
-- next, named by the kernel's prev_state at the switch-out:
--   0 or 256 (preempted, "R+")          'runnable'
--   1 (S)   'sleeping'    2 (D) 'uninterruptible'   128 (I) 'idle'
--   4 (T)   'stopped'     8 (t) 'traced'            64 (P)  'parked'
-- A sleep that ends in a wakeup_latency row (its first waking, then the
-- switch that ran it) is split there: the state up to the waking, then
-- 'runnable' until the run. cpu is the CPU of the slice that ended (for
-- 'running': where it ran; for the runnable part after a waking: where it
-- then ran). Nothing is invented: no interval follows a slice whose end is
-- not known (lost = 1), a task that died (16 X, 32 Z) or its last slice;
-- none spans a ring-buffer loss on any CPU (the task may have run in it);
-- and none joins two lifetimes of a pid (born again in between).
CREATE INDEX lost_events_ts ON lost_events(ts);
CREATE VIEW thread_state AS
WITH s AS (
	SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
	       e.end_state, e.lost,
	       lead(e.ts) OVER w AS next_ts, lead(e.cpu) OVER w AS next_cpu
	FROM dv_sched e JOIN comm_history h ON h.id = e.hid
	WHERE h.pid > 0
	WINDOW w AS (PARTITION BY h.pid ORDER BY e.ts)
),
wl AS (
	SELECT h.pid, l.ts + l.latency AS run_ts, l.ts AS woken
	FROM dv_wakeup_latency l JOIN comm_history h ON h.id = l.hid
),
off AS (
	SELECT s.*, s.ts + s.dur AS off_ts, wl.woken
	FROM s LEFT JOIN wl ON wl.pid = s.pid AND wl.run_ts = s.next_ts
				AND wl.woken >= s.ts + s.dur
	WHERE s.lost = 0 AND s.next_ts IS NOT NULL AND s.end_state IS NOT NULL
	  AND s.end_state NOT IN (16, 32)
	  AND NOT EXISTS (SELECT 1 FROM lost_events l
			  WHERE l.ts BETWEEN s.ts + s.dur AND s.next_ts)
	  AND NOT EXISTS (SELECT 1 FROM comm_history b
			  WHERE b.pid = s.pid
			    AND b.source IN ('task_newtask', 'sched_process_fork')
			    AND b.start_ts > s.ts AND b.start_ts <= s.next_ts)
)
SELECT ts, dur, pid, comm, 'running' AS state, cpu FROM s
UNION ALL
SELECT off_ts, coalesce(woken, next_ts) - off_ts, pid, comm,
       CASE end_state WHEN 0 THEN 'runnable' WHEN 256 THEN 'runnable'
	    WHEN 1 THEN 'sleeping' WHEN 2 THEN 'uninterruptible'
	    WHEN 128 THEN 'idle' WHEN 4 THEN 'stopped' WHEN 8 THEN 'traced'
	    WHEN 64 THEN 'parked' ELSE 'state ' || end_state END,
       cpu
FROM off
UNION ALL
SELECT woken, next_ts - woken, pid, comm, 'runnable', next_cpu
FROM off WHERE woken IS NOT NULL AND woken < next_ts;
