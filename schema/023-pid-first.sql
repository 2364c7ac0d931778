-- 023-pid-first: a task's rows found by testing its pid first.
--
-- sched's and thread_state's stored slices are the switches with a
-- slice_dur (the other 0.1% have theirs in dv_sched). A condition on pid
-- (`where pid = X`), which SQLite moves into each part of the views, was
-- tested after that one: terms on one table are tested in the order they
-- come, the view's own first. slice_dur is the 13th column of a switch's
-- record, next_pid the 9th: every switch's record was read up to its
-- 13th column to keep 0.1% of the switches out, before its pid said
-- whether the switch was wanted at all (26 ms of the 123 ms `select *
-- from thread_state where pid = 15` took in the sqlite3 shell on
-- bench/bigtrace.sh's 1.62 million switches). The test is now part of
-- the join with comm_history, after its look-up, which only the task's
-- own switches reach. `OR h.id < 0` keeps it there: a row id is never
-- negative (comm_history's are SQLite's own, from 1), but without a term
-- of h's SQLite would see a test of the switch alone and put it back
-- first (`h.id IS NULL`, which it knows is false for a joined row, it
-- drops). The rows are the same; a whole scan costs what it did.
DROP VIEW sched;
CREATE VIEW sched AS
SELECT e.ts, e.slice_dur AS dur, e.cpu, e.next_pid AS pid,
       coalesce(h.comm, '<...>') AS comm,
       e.next_prio AS prio, e.slice_state AS end_state, CAST(0 AS INTEGER) AS lost,
       CAST(NULL AS INTEGER) AS start_err, CAST(NULL AS INTEGER) AS end_err
FROM ev_sched_switch e JOIN comm_history h ON h.id = e.next_hid
 AND (e.slice_dur IS NOT NULL OR h.id < 0)
UNION ALL
SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>'), e.prio,
       e.end_state, e.lost, e.start_err, e.end_err
FROM dv_sched e JOIN comm_history h ON h.id = e.hid;

-- thread_state as in 021, the same way.
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
		 WHEN 64 THEN 'parked' ELSE 'state ' || x.off_state END END AS state,
       CASE k.part WHEN 1 THEN x.off_cpu ELSE x.cpu END AS cpu
FROM x CROSS JOIN k	-- the slices outer: read once, as they come
  ON k.part = 0 OR (x.off_dur IS NOT NULL
		    AND (k.part = 1 OR (x.woken IS NOT NULL AND x.woken < x.ts)));
