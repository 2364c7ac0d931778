-- 015-task-index: a task's thread_state without computing every task's.
--
-- dv_sched (the slices not stored on a switch) gets an index on hid, so
-- that a task's rows there are found from its comm_history rows. An index
-- on ev_sched_switch(next_hid) would do the same for the switches, but
-- costs the import 31% more time (random inserts into a second B-tree);
-- without it the switches are scanned once, joined to the task's rows.
CREATE INDEX dv_sched_hid ON dv_sched(hid);

-- thread_state as in 010, written so that the per-task window over the
-- slices (s) is read once: the three kinds of row (running, the state it
-- left in, runnable after its wakeup) come from one pass over it, joined
-- to the part numbers 0, 1, 2. A condition on pid then reaches the
-- slices themselves (it is the window's partition), and so the indexes.
DROP VIEW thread_state;
CREATE VIEW thread_state AS
WITH s AS (
	SELECT ts, dur, cpu, pid, comm, end_state, lost,
	       lead(ts) OVER w AS next_ts, lead(cpu) OVER w AS next_cpu,
	       lead(woke) OVER w AS next_woke
	FROM (SELECT e.ts, e.slice_dur AS dur, e.cpu, h.pid,
		     coalesce(h.comm, '<...>') AS comm, e.slice_state AS end_state,
		     0 AS lost, e.ts - e.wake_latency AS woke
	      FROM ev_sched_switch e JOIN comm_history h ON h.id = e.next_hid
	      WHERE e.slice_dur IS NOT NULL
	      UNION ALL
	      SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>'),
		     e.end_state, e.lost,
		     (SELECT x.ts - x.wake_latency FROM ev_sched_switch x
		      WHERE x.ts = e.ts AND x.cpu = e.cpu AND x.next_pid = h.pid)
	      FROM dv_sched e JOIN comm_history h ON h.id = e.hid)
	WHERE pid > 0
	WINDOW w AS (PARTITION BY pid ORDER BY ts)
),
x AS (
	SELECT s.*, s.ts + s.dur AS off_ts,
	       CASE WHEN s.next_woke >= s.ts + s.dur THEN s.next_woke END AS woken,
	       s.lost = 0 AND s.next_ts IS NOT NULL AND s.end_state IS NOT NULL
	       AND s.end_state NOT IN (16, 32)
	       AND NOT EXISTS (SELECT 1 FROM lost_events l
			       WHERE l.ts > s.ts + s.dur AND l.ts <= s.next_ts)
	       AND NOT EXISTS (SELECT 1 FROM comm_history b
			       WHERE b.pid = s.pid
				 AND b.source IN ('task_newtask', 'sched_process_fork')
				 AND b.start_ts > s.ts AND b.start_ts <= s.next_ts) AS off
	FROM s
),
k(part) AS (VALUES (0), (1), (2))
SELECT CASE k.part WHEN 0 THEN x.ts WHEN 1 THEN x.off_ts ELSE x.woken END AS ts,
       CASE k.part WHEN 0 THEN x.dur
		   WHEN 1 THEN coalesce(x.woken, x.next_ts) - x.off_ts
		   ELSE x.next_ts - x.woken END AS dur,
       x.pid, x.comm,
       CASE WHEN k.part = 0 THEN 'running' WHEN k.part = 2 THEN 'runnable'
	    ELSE CASE x.end_state WHEN 0 THEN 'runnable' WHEN 256 THEN 'runnable'
		 WHEN 1 THEN 'sleeping' WHEN 2 THEN 'uninterruptible'
		 WHEN 128 THEN 'idle' WHEN 4 THEN 'stopped' WHEN 8 THEN 'traced'
		 WHEN 64 THEN 'parked' ELSE 'state ' || x.end_state END END AS state,
       CASE k.part WHEN 2 THEN x.next_cpu ELSE x.cpu END AS cpu
FROM x JOIN k
  ON k.part = 0 OR (x.off AND (k.part = 1 OR (x.woken IS NOT NULL AND x.woken < x.next_ts)));
