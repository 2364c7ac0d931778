-- 004-derived-inline: the derived rows of ordinary switches are stored on
-- the switch itself, not as rows of their own.
--
-- Nearly every sched_switch ends one slice (the task it switches out, run
-- since the switch before it on that CPU) and many complete one wakeup (the
-- task it switches in). Stored as rows of dv_sched and dv_wakeup_latency
-- they were 40% of all rows written during a capture, each paying SQLite's
-- whole per-row cost; as a few columns of the switch row they cost a few
-- bytes. The views `sched` and `wakeup_latency` read both places, so
-- databases written before this (their dv_* rows) read as before.
--
-- On ev_sched_switch (NULL when the switch ended no slice / no wakeup):
--   slice_dur     the slice it ended: the task switched out (this row's
--                 hid, prev_pid), from ts - slice_dur to ts, end_state
--                 prev_state, lost 0;
--   slice_prio    that slice's prio when it is not prev_prio;
--   wake_latency  the wakeup it ended: the first waking of the task
--                 switched in was at ts - wake_latency;
--   wake_hid      that task's comm_history row here (next_pid's);
--   waker_hid     the waker's row at the waking.
-- dv_sched keeps the slices that are not ordinary: a loss fell inside, the
-- chain broke (end unknown), or the capture ended while they ran.
ALTER TABLE ev_sched_switch ADD COLUMN slice_dur INTEGER;
ALTER TABLE ev_sched_switch ADD COLUMN slice_prio INTEGER;
ALTER TABLE ev_sched_switch ADD COLUMN wake_latency INTEGER;
ALTER TABLE ev_sched_switch ADD COLUMN wake_hid INTEGER;
ALTER TABLE ev_sched_switch ADD COLUMN waker_hid INTEGER;

DROP VIEW sched;
CREATE VIEW sched AS
SELECT e.ts - e.slice_dur AS ts, e.slice_dur AS dur, e.cpu, h.pid,
       coalesce(h.comm, '<...>') AS comm,
       coalesce(e.slice_prio, e.prev_prio) AS prio, e.prev_state AS end_state,
       0 AS lost
FROM ev_sched_switch e JOIN comm_history h ON h.id = e.hid
WHERE e.slice_dur IS NOT NULL
UNION ALL
SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>'), e.prio,
       e.end_state, e.lost
FROM dv_sched e JOIN comm_history h ON h.id = e.hid;

DROP VIEW wakeup_latency;
CREATE VIEW wakeup_latency AS
SELECT e.ts - e.wake_latency AS ts, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.cpu, e.wake_latency AS latency, w.pid AS waker_pid,
       w.comm AS waker_comm
FROM ev_sched_switch e JOIN comm_history h ON h.id = e.wake_hid
LEFT JOIN comm_history w ON w.id = e.waker_hid
WHERE e.wake_latency IS NOT NULL
UNION ALL
SELECT e.ts, h.pid, coalesce(h.comm, '<...>'), e.cpu, e.latency, w.pid,
       w.comm
FROM dv_wakeup_latency e JOIN comm_history h ON h.id = e.hid
LEFT JOIN comm_history w ON w.id = e.waker_hid;

-- thread_state as in 003, reading the views above.
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
