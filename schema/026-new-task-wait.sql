-- 026-new-task-wait: a new task's time before its first run.
--
-- thread_state had no row before a task's first slice: its time off the
-- CPUs was not known. A new task's is: it exists from its birth
-- (task_newtask, or sched_process_fork when task events are not
-- recorded), is not runnable until wake_up_new_task (sched_wakeup_new),
-- and waits to run from there. The pipeline now stores that on the first
-- slice as its time off the CPUs (off_dur from the birth, off_state -2:
-- the kernel's TASK_NEW, which no prev_state shows, and whose value 2048
-- was the "preempted" mark of 4.x kernels; off_cpu the CPU it was born
-- on), and thread_state
-- names it 'new' up to the sched_wakeup_new, then 'runnable' (the
-- wakeup_latency row of the wakeup_new) to the run. Without a
-- sched_wakeup_new in the recording nothing is stored, as before; so for
-- the rows of a database written before. A clock too coarse to tell the
-- birth from the wakeup_new (jiffies, uptime) gives no 'new' row of 0 ns.
DROP VIEW thread_state;
CREATE VIEW thread_state AS
WITH s AS (
	SELECT e.ts, e.slice_dur AS dur, e.cpu, e.next_pid AS pid,
	       coalesce(h.comm, '<...>') AS comm, e.off_dur, e.off_state,
	       e.off_cpu, e.off_hid, e.ts - e.wake_latency AS woke
	FROM ev_sched_switch e JOIN comm_history h ON h.id = e.next_hid
	 AND (e.slice_dur IS NOT NULL OR h.id < 0)
	UNION ALL
	SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>'), e.off_dur,
	       e.off_state, e.off_cpu, e.off_hid,
	       CASE WHEN e.off_dur IS NOT NULL THEN
		    (SELECT x.ts - x.wake_latency FROM ev_sched_switch x
		     WHERE x.ts = e.ts AND x.cpu = e.cpu AND x.next_pid = h.pid) END
	FROM dv_sched e JOIN comm_history h ON h.id = e.hid
),
x AS (
	SELECT s.*, s.ts - s.off_dur AS off_ts,
	       CASE WHEN s.woke >= s.ts - s.off_dur THEN s.woke END AS woken
	FROM s WHERE s.pid > 0
),
k(part) AS (VALUES (0), (1), (2))
SELECT CASE k.part WHEN 0 THEN x.ts WHEN 1 THEN x.off_ts ELSE x.woken END AS ts,
       CASE k.part WHEN 0 THEN x.dur
		   WHEN 1 THEN coalesce(x.woken, x.ts) - x.off_ts
		   ELSE x.ts - x.woken END AS dur,
       x.pid,
       CASE WHEN k.part = 0 OR x.off_hid IS NULL THEN x.comm
	    ELSE coalesce((SELECT coalesce(b.comm, '<...>') FROM comm_history b
			   WHERE b.id = x.off_hid), x.comm) END AS comm,
       CASE WHEN k.part = 0 THEN 'running' WHEN k.part = 2 THEN 'runnable'
	    ELSE CASE x.off_state WHEN 0 THEN 'runnable' WHEN 256 THEN 'runnable'
		 WHEN 1 THEN 'sleeping' WHEN 2 THEN 'uninterruptible'
		 WHEN 128 THEN 'idle' WHEN 4 THEN 'stopped' WHEN 8 THEN 'traced'
		 WHEN 64 THEN 'parked' WHEN -2 THEN 'new'
		 ELSE 'state ' || x.off_state END END AS state,
       CASE k.part WHEN 1 THEN x.off_cpu ELSE x.cpu END AS cpu
FROM x CROSS JOIN k	-- the slices outer: read once, as they come
  ON k.part = 0 OR (x.off_dur IS NOT NULL
		    AND ((k.part = 1 AND (x.off_state <> -2 OR x.woken IS NULL
					      OR x.woken > x.off_ts))
			 OR (k.part = 2 AND x.woken IS NOT NULL AND x.woken < x.ts)));
