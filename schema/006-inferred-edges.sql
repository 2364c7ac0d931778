-- 006-inferred-edges: slices whose edges no switch recorded, and slices
-- split where their task was renamed.
--
-- Every event on a CPU comes from the task running there (its
-- common_pid). When one comes from another task than the slices have
-- running there, a switch happened that nobody recorded (some kernels
-- never trace the switch out of an idle task): the old slice ends at its
-- last event on that CPU, the new one starts at this event, and the
-- time between is in no slice (unknown: neither busy nor idle). The new
-- task's first sched_stat_runtime there (the kernel's account of its run
-- since it was switched in) places the edge: both slices then meet at
-- that event's ts - runtime.
--
--   start_err  the slice's start is inferred: the width (ns) of the gap in
--              which the unrecorded switch happened; NULL when a switch
--              (or a rename) marks the start exactly. prio is then the
--              switch-out's prev_prio, NULL when no switch ended it either.
--   end_err    the same for its end (end_state NULL).
--
-- A task renamed while it runs (task_rename, or exec when the trace has
-- no task_rename) has its slice split there: the part before carries the
-- old name and ends with end_state NULL, end_err NULL, the next part (same
-- pid, same CPU) starts at the same ns with the new name. So sched.comm is
-- the name the task had over the whole row.
--
-- lost = 1 now means a ring-buffer loss fell inside the slice (or, in
-- databases written before this, the chain broke: those rows read as
-- before, their end at the next switch, and are not recomputed).
ALTER TABLE dv_sched ADD COLUMN start_err INTEGER;
ALTER TABLE dv_sched ADD COLUMN end_err INTEGER;

DROP VIEW sched;
CREATE VIEW sched AS
SELECT e.ts - e.slice_dur AS ts, e.slice_dur AS dur, e.cpu, h.pid,
       coalesce(h.comm, '<...>') AS comm,
       coalesce(e.slice_prio, e.prev_prio) AS prio, e.prev_state AS end_state,
       0 AS lost, NULL AS start_err, NULL AS end_err
FROM ev_sched_switch e JOIN comm_history h ON h.id = e.hid
WHERE e.slice_dur IS NOT NULL
UNION ALL
SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>'), e.prio,
       e.end_state, e.lost, e.start_err, e.end_err
FROM dv_sched e JOIN comm_history h ON h.id = e.hid;

-- thread_state as in 004, but an off-CPU interval is dropped for a loss
-- after its start (l.ts > its start), not at it: a loss found at the
-- switch-out's own record lost events before that switch, while the task
-- still ran. (The new columns of sched are not read.)
DROP VIEW thread_state;
CREATE VIEW thread_state AS
WITH s AS (
	SELECT ts, dur, cpu, pid, comm, end_state, lost,
	       lead(ts) OVER w AS next_ts, lead(cpu) OVER w AS next_cpu
	FROM sched
	WHERE pid > 0
	WINDOW w AS (PARTITION BY pid ORDER BY ts)
),
wl AS (
	SELECT pid, ts + latency AS run_ts, ts AS woken
	FROM wakeup_latency
),
off AS (
	SELECT s.*, s.ts + s.dur AS off_ts, wl.woken
	FROM s LEFT JOIN wl ON wl.pid = s.pid AND wl.run_ts = s.next_ts
				AND wl.woken >= s.ts + s.dur
	WHERE s.lost = 0 AND s.next_ts IS NOT NULL AND s.end_state IS NOT NULL
	  AND s.end_state NOT IN (16, 32)
	  AND NOT EXISTS (SELECT 1 FROM lost_events l
			  WHERE l.ts > s.ts + s.dur AND l.ts <= s.next_ts)
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
