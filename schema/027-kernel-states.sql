-- 027-kernel-states: a switch-out's state read in the numbering of the
-- kernel that recorded it.
--
-- sched.end_state is sched_switch's prev_state as the kernel gave it.
-- Since 4.14 that is TASK_REPORT's numbering (S 1, D 2, ..., P 64, I 128,
-- 256 for a preempted task); kernels before gave the raw task state
-- (3.x-4.13: ..., P 512, N 1024, the preempted mark 1024, 2048 or 4096
-- above the table), and a kernel thread's idle wait (TASK_IDLE) as D|N
-- where later kernels say I. runqueue_wait, preempt_wait and offcpu read
-- "still runnable" as end_state & 255 = 0 and "asleep" as end_state & 3:
-- on those kernels a parked kernel thread (P, 512) was preempted and an
-- idle one (D|N) was off the CPU in D. kernel_states (one row, from the
-- newest capture's letters, as state_name() reads them; today's when no
-- capture says) gives the marks that differ: preempt, the preempted mark
-- (a switch-out is runnable when it has no other bit), and noload, N (0
-- since 4.14: a sleep with it is an idle wait, not an off-CPU one).
CREATE VIEW kernel_states AS
WITH l(s) AS (
	SELECT ',' || coalesce((SELECT states FROM capture WHERE states IS NOT NULL
				ORDER BY id DESC LIMIT 1), '+256') || ','
),
n(s, at) AS (SELECT s, instr(s, ':N,') FROM l)
SELECT CASE WHEN instr(s, ',+') THEN CAST(substr(s, instr(s, ',+') + 2) AS INTEGER)
	    ELSE 0 END AS preempt,
       CASE WHEN at THEN CAST(substr(s, length(rtrim(substr(s, 1, at - 1), '0123456789')) + 1)
			      AS INTEGER)
	    ELSE 0 END AS noload
FROM n;
DROP VIEW runqueue_wait;
CREATE VIEW runqueue_wait AS
WITH e(ts, cpu, pid, k, o) AS (
	-- k: 0 off CPU asleep (or unknown), 1 off CPU still runnable,
	-- 2 migrated, 3 woken, 4 switched in; o orders one task's events
	-- of one ts: the end of a slice, a migration, a wakeup, a slice.
	SELECT ts + dur, cpu, pid,
	       CASE WHEN end_state & ~(SELECT preempt FROM kernel_states) = 0
		    THEN 1 ELSE 0 END, 0
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
WHERE end_state & ~(SELECT preempt FROM kernel_states) = 0
  AND next_ts IS NOT NULL AND lost = 0
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
	WHERE s.end_state & 3 <> 0 AND s.end_state & (SELECT noload FROM kernel_states) = 0
	  AND s.next_ts IS NOT NULL AND s.lost = 0
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
