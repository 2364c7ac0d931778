-- 021-pid-filter: a task's slices found without a look-up per switch.
--
-- sched and thread_state took a slice's pid from its comm_history row
-- (h.pid), so a condition on pid (`where pid = X`, which SQLite moves
-- into each part of the views) was tested after looking up that row for
-- every switch: 2/3 of the 0.44 s `select * from thread_state where pid
-- = X` took on bench/bigtrace.sh's 1.95 million switches. The switch's
-- own next_pid is the same number (next_hid is a row of next_pid's), and
-- is tested in the row as it is read: the look-up is left for the task's
-- own slices. The rows are the same.
DROP VIEW sched;
CREATE VIEW sched AS
SELECT e.ts, e.slice_dur AS dur, e.cpu, e.next_pid AS pid,
       coalesce(h.comm, '<...>') AS comm,
       e.next_prio AS prio, e.slice_state AS end_state, 0 AS lost,
       NULL AS start_err, NULL AS end_err
FROM ev_sched_switch e JOIN comm_history h ON h.id = e.next_hid
WHERE e.slice_dur IS NOT NULL
UNION ALL
SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>'), e.prio,
       e.end_state, e.lost, e.start_err, e.end_err
FROM dv_sched e JOIN comm_history h ON h.id = e.hid;

-- thread_state as in 018, its slices' pid from the switch likewise.
DROP VIEW thread_state;
CREATE VIEW thread_state AS
WITH s AS (
	SELECT e.ts, e.slice_dur AS dur, e.cpu, e.next_pid AS pid,
	       coalesce(h.comm, '<...>') AS comm, e.off_dur, e.off_state,
	       e.off_cpu, e.off_hid, e.ts - e.wake_latency AS woke
	FROM ev_sched_switch e JOIN comm_history h ON h.id = e.next_hid
	WHERE e.slice_dur IS NOT NULL
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
		 WHEN 64 THEN 'parked' ELSE 'state ' || x.off_state END END AS state,
       CASE k.part WHEN 1 THEN x.off_cpu ELSE x.cpu END AS cpu
FROM x CROSS JOIN k	-- the slices outer: read once, as they come
  ON k.part = 0 OR (x.off_dur IS NOT NULL
		    AND (k.part = 1 OR (x.woken IS NOT NULL AND x.woken < x.ts)));
