-- 018-off-cpu: each slice carries the task's time off the CPUs before it.
--
-- thread_state (015) found a task's time off the CPUs by ordering every
-- task's slices by time (a window PARTITION BY pid ORDER BY ts) and
-- pairing each with the next: on 1.4 million switches the sort alone took
-- 1.7-2.6 s of the 5.5 s a `group by state` took. The pipeline knows the
-- interval when the task is switched in again, and now stores it on the
-- slice that ends it, as the switch's or the dv_sched row's columns:
--
--   off_dur    the task was off the CPUs from ts - off_dur to ts (NULL:
--              not known: its last slice did not end at a recorded switch
--              in a known state (not X or Z), a loss or the pid's birth
--              came between, or this is its first slice in the capture)
--   off_state  the prev_state of the switch that took it off
--   off_cpu    the CPU of that switch
--   off_hid    its comm_history row then, NULL when the same as the
--              slice's own (next_hid on a switch, hid on dv_sched)
--
-- thread_state then reads each slice once, in any order: no window, no
-- sort (and the slices are the outer loop of its join with the three
-- kinds of row, CROSS JOIN: with a plain join SQLite put the three
-- outside and materialized the slices first, twice the time). The rows of a capture never pair with another capture's (the
-- pipeline starts anew), where 015 paired a task's last slice before a
-- restart with its first after it.
--
-- Rows written before get the columns 015's view computes, so a migrated
-- database reads exactly as before.

ALTER TABLE ev_sched_switch ADD COLUMN off_dur INTEGER;
ALTER TABLE ev_sched_switch ADD COLUMN off_state INTEGER;
ALTER TABLE ev_sched_switch ADD COLUMN off_cpu INTEGER;
ALTER TABLE ev_sched_switch ADD COLUMN off_hid INTEGER;
ALTER TABLE dv_sched ADD COLUMN off_dur INTEGER;
ALTER TABLE dv_sched ADD COLUMN off_state INTEGER;
ALTER TABLE dv_sched ADD COLUMN off_cpu INTEGER;
ALTER TABLE dv_sched ADD COLUMN off_hid INTEGER;

-- 015's pairing, once: for each slice whose time off the CPUs 015 gave
-- a row, that time on the slice after it (src 0: a switch, 1: dv_sched).
CREATE TEMP TABLE off_018 AS
WITH s AS (
	SELECT 0 AS src, e.ts, e.cpu, e.n, e.slice_dur AS dur, h.pid,
	       e.next_hid AS hid, e.slice_state AS end_state, 0 AS lost
	FROM ev_sched_switch e JOIN comm_history h ON h.id = e.next_hid
	WHERE e.slice_dur IS NOT NULL
	UNION ALL
	SELECT 1, e.ts, e.cpu, e.n, e.dur, h.pid, e.hid, e.end_state, e.lost
	FROM dv_sched e JOIN comm_history h ON h.id = e.hid
),
w AS (
	SELECT s.*, lead(src) OVER p AS nsrc, lead(ts) OVER p AS nts,
	       lead(cpu) OVER p AS ncpu, lead(n) OVER p AS nn,
	       lead(hid) OVER p AS nhid
	FROM s WHERE pid > 0
	WINDOW p AS (PARTITION BY pid ORDER BY ts)
)
SELECT nsrc AS src, nts AS ts, ncpu AS cpu, nn AS n,
       nts - (ts + dur) AS off_dur, end_state AS off_state, cpu AS off_cpu,
       CASE WHEN hid IS NOT nhid THEN hid END AS off_hid
FROM w
WHERE lost = 0 AND nts IS NOT NULL AND end_state IS NOT NULL
  AND end_state NOT IN (16, 32)
  AND NOT EXISTS (SELECT 1 FROM lost_events l
		  WHERE l.ts > w.ts + w.dur AND l.ts <= w.nts)
  AND NOT EXISTS (SELECT 1 FROM comm_history b
		  WHERE b.pid = w.pid
		    AND b.source IN ('task_newtask', 'sched_process_fork')
		    AND b.start_ts > w.ts AND b.start_ts <= w.nts);

UPDATE ev_sched_switch AS e
SET off_dur = o.off_dur, off_state = o.off_state, off_cpu = o.off_cpu,
    off_hid = o.off_hid
FROM off_018 o
WHERE o.src = 0 AND e.ts = o.ts AND e.cpu = o.cpu AND e.n = o.n;

UPDATE dv_sched AS e
SET off_dur = o.off_dur, off_state = o.off_state, off_cpu = o.off_cpu,
    off_hid = o.off_hid
FROM off_018 o
WHERE o.src = 1 AND e.ts = o.ts AND e.cpu = o.cpu AND e.n = o.n;

DROP TABLE off_018;

-- thread_state: per slice of a task (pid > 0), a 'running' row; and when
-- its time off the CPUs before it is known, a row of that time in the
-- state it was switched out in, up to its first waking since (or the
-- switch-in, when none was seen), then 'runnable' from the waking to the
-- switch-in. The waking is the switch's wake_latency before it (a
-- dv_sched slice: the switch at its ts that ran the task, if one did).
-- The rows of the time off the CPUs carry the task's name then (off_hid;
-- its own name if retention has cut that row) and the CPU it left.
DROP VIEW thread_state;
CREATE VIEW thread_state AS
WITH s AS (
	SELECT e.ts, e.slice_dur AS dur, e.cpu, h.pid,
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
