-- 030-inferred-wakeups: a sleep that ends in a slice begun by inference
-- ends at the task's wakeup; a slice of no length ends after it begins.
--
-- A task's next slice may begin where no switch was recorded (a CPU's
-- chain of switches broke: its start is inferred, start_err wide). Its
-- wakeup, when the trace shows one since the task slept, gives no
-- wakeup_latency row (the end is not exact), but the sleep ended there:
-- thread_state showed the whole time off the CPUs as sleeping and offcpu
-- had no runnable part, where runqueue_wait had the wait. The slice's
-- dv_sched row now keeps it, wake_latency (ns from the wakeup to the
-- start as placed; NULL: none seen, or a switch-in, whose row has it),
-- and thread_state, offcpu and preempt_wait read it there when the next
-- slice has no switch. Rows stored before are given it below.
--
-- runqueue_wait ordered a task's events of one time by kind, and read
-- its last slice edge as the largest (ts - base) * 8 + k: at one ts a
-- switch-in (4) won over the end of a slice of no length (a CPU's first
-- event a switch, a switch-in that is the capture's last event), which
-- ends after it, and the end in plain R (5) of one slice won over the
-- start of the next. A wait was then dropped, ended unknown or ended at
-- 0 (other-events.dat: 40 wakeups with no wait). The end of a slice of
-- no length now sorts after its start (o = 4), and an edge packs its
-- order too: (ts - base) * 64 + o * 8 + k.
--
-- thread_state named a wakeup's runnable part as the task was named when
-- it left the CPU; it is named as at its next slice, as wakeup_latency
-- names the wakeup (a rename while it slept: sched-late-rename.dat).
-- process counted a thread lifetime that began where the leader's ended
-- among the threads of the process before, and one of no length that
-- began where the leader's began among those after: at a thread's exec
-- the thread takes the leader's pid (the process after begins there)
-- and the old leader, given the thread's pid until it is reaped, is a
-- lifetime of no length there (exec_swap). Neither is a thread of the
-- group's. (Threads begun with their leader, as a live capture's start
-- finds them in /proc, are.)
-- (sched-thread-exec.dat: 5 and 2 threads for what nine others count 3
-- and 1.)
ALTER TABLE dv_sched ADD COLUMN wake_latency INTEGER;
-- Rows stored before get it from the events, as the capture would have
-- stored it: the first waking (else wakeup, else wakeup_new) of the task
-- in its time off the CPUs known (off_dur; derive knows none where it saw
-- two wakings there), for a slice with no switch of its own. The last
-- such event before the start is the first (one wakeup, waking then
-- wakeup), found by a step back from the start.
UPDATE dv_sched SET wake_latency = ts - (
	SELECT coalesce(
		(SELECT k.ts FROM ev_sched_waking k
		 WHERE k.target_pid = h.pid AND k.ts <= dv_sched.ts
		   AND k.ts >= dv_sched.ts - dv_sched.off_dur ORDER BY k.ts DESC LIMIT 1),
		(SELECT k.ts FROM ev_sched_wakeup k
		 WHERE k.target_pid = h.pid AND k.ts <= dv_sched.ts
		   AND k.ts >= dv_sched.ts - dv_sched.off_dur ORDER BY k.ts DESC LIMIT 1),
		(SELECT k.ts FROM ev_sched_wakeup_new k
		 WHERE k.target_pid = h.pid AND k.ts <= dv_sched.ts
		   AND k.ts >= dv_sched.ts - dv_sched.off_dur ORDER BY k.ts DESC LIMIT 1))
	FROM comm_history h WHERE h.id = dv_sched.hid)
WHERE off_dur IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM ev_sched_switch x JOIN comm_history h ON h.id = dv_sched.hid
		  WHERE x.ts = dv_sched.ts AND x.cpu = dv_sched.cpu AND x.next_pid = h.pid);
DROP VIEW runqueue_wait;
CREATE VIEW runqueue_wait AS
WITH e(ts, cpu, pid, k, o) AS (
	-- k: 0 off CPU asleep (or unknown), 1 off CPU still runnable,
	-- 2 migrated, 3 woken, 4 switched in, 5 off CPU in plain R; o
	-- orders one task's events of one ts: the end of a slice, a
	-- migration, a wakeup, a slice, the end of a slice of no length
	-- (after its own start).
	SELECT ts + dur, cpu, pid,
	       CASE WHEN end_state = 0 THEN 5
		    WHEN end_state & ~(SELECT preempt FROM kernel_states) = 0
		    THEN 1 ELSE 0 END, CASE WHEN dur = 0 THEN 4 ELSE 0 END
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
-- edge packs into one integer, (ts - base) * 64 + o * 8 + k, for any
-- trace clock whose times in the database span less than 2^57 (4.5
-- years of ns; as many ticks of a counter clock): the latest by (ts, o)
-- is the largest.
b0(base) AS (
	SELECT min(coalesce((SELECT min(ts) FROM ev_sched_switch), 9223372036854775807),
		   coalesce((SELECT min(ts) FROM dv_sched), 9223372036854775807),
		   coalesce((SELECT min(ts) FROM ev_sched_wakeup), 9223372036854775807),
		   coalesce((SELECT min(ts) FROM ev_sched_wakeup_new), 9223372036854775807),
		   coalesce((SELECT min(ts) FROM ev_sched_migrate_task), 9223372036854775807))
),
-- Before each event: the task's last slice edge ((ts - base) * 64 +
-- o * 8 + k) and its last wakeup (ts - base).
a AS (
	SELECT e.*,
	       max(CASE WHEN k IN (0, 1, 4, 5)
			THEN (ts - (SELECT base FROM b0)) * 64 + o * 8 + k END)
		   OVER p AS io,
	       max(CASE WHEN k = 3 THEN ts - (SELECT base FROM b0) END) OVER p AS lw,
	       lead(k) OVER p AS n1, lead(k, 2) OVER p AS n2
	FROM e
	WINDOW p AS (PARTITION BY pid ORDER BY ts, o
		     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
-- Which events begin a wait: a preemption; the first wakeup after the
-- task went to sleep (or the first of the trace); a migration while the
-- task waits (after a preemption, or after a wakeup since it slept).
-- A switch-out in plain R (5) followed by a wakeup of the task (its next
-- event, or the one after a migration) was a sleep: 5.8-5.17 read the
-- state at the tracepoint, after a waker on another CPU had set it to
-- TASK_WAKING (reported as R); the kernel wakes only a task that is not
-- running, so no wakeup ever follows a real R. Its wait begins at the
-- wakeup, as after any sleep.
b AS (
	SELECT ts, cpu, pid, k, o,
	       CASE k WHEN 1 THEN 1
		      WHEN 5 THEN NOT (coalesce(n1 = 3, 0) OR (coalesce(n1 = 2, 0)
						       AND coalesce(n2 = 3, 0)))
		      WHEN 3 THEN (io IS NULL OR io % 8 IN (0, 5))
				  AND (lw IS NULL OR (io IS NOT NULL AND lw < io / 64))
		      WHEN 2 THEN coalesce(io % 8 = 1, 0)
				  OR (coalesce(io % 8 = 5, 0) AND coalesce(n1 <> 3, 1))
				  OR ((io IS NULL OR io % 8 = 0) AND lw IS NOT NULL
				      AND (io IS NULL OR lw >= io / 64))
		      ELSE 0 END AS start
	FROM a
),
f AS (
	SELECT ts, cpu, pid, k, start,
	       lead(ts) OVER q AS nts, lead(k) OVER q AS nk
	FROM b WHERE start OR k IN (0, 2, 4, 5)
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
       CASE k WHEN 1 THEN 'preempted' WHEN 5 THEN 'preempted' WHEN 3 THEN 'woken'
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
  AND NOT (end_state = 0 AND coalesce(coalesce((SELECT e.ts - e.wake_latency FROM ev_sched_switch e
					  WHERE e.ts = s.next_ts AND e.cpu = s.next_cpu
					    AND e.next_pid = s.pid),
					 (SELECT d.ts - d.wake_latency FROM dv_sched d
					  JOIN comm_history h ON h.id = d.hid
					  WHERE d.ts = s.next_ts AND d.cpu = s.next_cpu
					    AND h.pid = s.pid)) > s.ts, 0))
  AND NOT EXISTS (SELECT 1 FROM lost_events l WHERE l.ts > s.ts AND l.ts <= s.next_ts)
  AND NOT EXISTS (SELECT 1 FROM capture c WHERE c.start_ts > s.ts AND c.start_ts <= s.next_ts)
  AND NOT EXISTS (SELECT 1 FROM comm_history b
		  WHERE b.pid = s.pid AND b.source IN ('task_newtask', 'sched_process_fork')
		    AND b.start_ts > s.ts AND b.start_ts <= s.next_ts);
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
		    coalesce(e.ts - e.wake_latency,
			     (SELECT x.ts - x.wake_latency FROM ev_sched_switch x
			      WHERE x.ts = e.ts AND x.cpu = e.cpu AND x.next_pid = h.pid)) END
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
       CASE WHEN k.part <> 1 OR x.off_hid IS NULL THEN x.comm
	    ELSE coalesce((SELECT coalesce(b.comm, '<...>') FROM comm_history b
			   WHERE b.id = x.off_hid), x.comm) END AS comm,
       CASE WHEN k.part = 0 THEN 'running' WHEN k.part = 2 THEN 'runnable'
	    ELSE CASE x.off_state WHEN 0 THEN 'runnable' WHEN 256 THEN 'runnable'
		 WHEN 1 THEN 'sleeping' WHEN 2 THEN 'uninterruptible'
		 WHEN 128 THEN 'idle' WHEN 4 THEN 'stopped' WHEN 8 THEN 'traced'
		 WHEN 64 THEN 'parked' WHEN -2 THEN 'new' WHEN -3 THEN 'asleep'
		 ELSE 'state ' || x.off_state END END AS state,
       CASE k.part WHEN 1 THEN x.off_cpu ELSE x.cpu END AS cpu
FROM x CROSS JOIN k	-- the slices outer: read once, as they come
  ON k.part = 0 OR (x.off_dur IS NOT NULL
		    AND ((k.part = 1 AND (x.off_state <> -2 OR x.woken IS NULL
					      OR x.woken > x.off_ts))
			 OR (k.part = 2 AND x.woken IS NOT NULL AND x.woken < x.ts)));
DROP VIEW offcpu;
CREATE VIEW offcpu AS
WITH s AS (
	SELECT ts + dur AS ts, cpu, pid, comm, end_state, lost,
	       lead(ts) OVER w AS next_ts, lead(cpu) OVER w AS next_cpu
	FROM sched WHERE pid > 0
	WINDOW w AS (PARTITION BY pid ORDER BY ts)
),
sw AS (
	SELECT s.*,
	       coalesce((SELECT e.ts - e.wake_latency FROM ev_sched_switch e
			 WHERE e.ts = s.next_ts AND e.cpu = s.next_cpu AND e.next_pid = s.pid),
			(SELECT d.ts - d.wake_latency FROM dv_sched d
			 JOIN comm_history h ON h.id = d.hid
			 WHERE d.ts = s.next_ts AND d.cpu = s.next_cpu AND h.pid = s.pid)) AS woke
	FROM s
),
o AS (
	SELECT s.*, k.stack
	FROM sw s LEFT JOIN switch_stack k ON k.ts = s.ts AND k.cpu = s.cpu
	WHERE (s.end_state & 3 <> 0 OR (s.end_state = 0 AND coalesce(s.woke > s.ts, 0)))
	  AND s.end_state & (SELECT noload FROM kernel_states) = 0
	  AND s.next_ts IS NOT NULL AND s.lost = 0
	  AND NOT EXISTS (SELECT 1 FROM lost_events l WHERE l.ts > s.ts AND l.ts <= s.next_ts)
	AND NOT EXISTS (SELECT 1 FROM capture c WHERE c.start_ts > s.ts AND c.start_ts <= s.next_ts)
	  AND NOT EXISTS (SELECT 1 FROM comm_history b
			  WHERE b.pid = s.pid AND b.source IN ('task_newtask', 'sched_process_fork')
			    AND b.start_ts > s.ts AND b.start_ts <= s.next_ts)
)
SELECT o.ts, o.next_ts - o.ts AS dur, o.cpu, o.pid, o.comm,
       CASE WHEN o.end_state & 2 THEN 'D' WHEN o.end_state & 1 THEN 'S'
	    ELSE 'S|D' END AS state,
       CASE WHEN o.woke >= o.ts THEN o.next_ts - o.woke END AS runnable,
       o.stack, t.frames,
       coalesce((SELECT h.pid FROM dv_wakeup_latency x JOIN comm_history t ON t.id = x.hid
		 JOIN comm_history h ON h.id = x.waker_hid
		 WHERE x.ts = o.woke AND t.pid = o.pid),
		(SELECT h.pid FROM ev_sched_waking x JOIN comm_history h ON h.id = x.hid
		 WHERE x.ts = o.woke AND x.target_pid = o.pid),
		(SELECT h.pid FROM ev_sched_wakeup x JOIN comm_history h ON h.id = x.hid
		 WHERE x.ts = o.woke AND x.target_pid = o.pid)) AS waker_pid,
       coalesce((SELECT h.comm FROM dv_wakeup_latency x JOIN comm_history t ON t.id = x.hid
		 JOIN comm_history h ON h.id = x.waker_hid
		 WHERE x.ts = o.woke AND t.pid = o.pid),
		(SELECT h.comm FROM ev_sched_waking x JOIN comm_history h ON h.id = x.hid
		 WHERE x.ts = o.woke AND x.target_pid = o.pid),
		(SELECT h.comm FROM ev_sched_wakeup x JOIN comm_history h ON h.id = x.hid
		 WHERE x.ts = o.woke AND x.target_pid = o.pid)) AS waker_comm
FROM o LEFT JOIN stacks t ON t.id = o.stack;
DROP VIEW process;
-- One row per process: a thread group leader's lifetime (a thread whose
-- pid is its tgid); threads counts the thread lifetimes of the group
-- that began inside it, the leader's own included (schema 010).
CREATE VIEW process AS
WITH t AS MATERIALIZED (SELECT * FROM thread),
n AS (SELECT l.id, count(*) AS threads FROM t l JOIN t x ON x.tgid = l.tgid
      WHERE l.pid = l.tgid
        AND (x.id = l.id OR (x.start_ts >= l.start_ts
                             AND (l.end_ts IS NULL OR x.start_ts < l.end_ts)
                             AND NOT (x.start_ts = l.start_ts AND x.end_ts IS x.start_ts)))
      GROUP BY l.id)
SELECT l.tgid, l.start_ts, l.end_ts, l.comm,
       (SELECT group_concat(comm, ' > ') FROM (
          SELECT f.comm FROM comm_history f
          WHERE f.pid = l.pid AND f.life = l.id AND f.comm IS NOT NULL
          ORDER BY f.start_ts, f.id)) AS names,
       coalesce(n.threads, 0) AS threads,
       l.parent AS parent_pid,
       (SELECT p.tgid FROM comm_history p
        WHERE p.pid = l.parent AND p.start_ts <= l.start_ts
        ORDER BY p.start_ts DESC LIMIT 1) AS parent_tgid,
       l.id AS life
FROM t l LEFT JOIN n ON n.id = l.id WHERE l.pid = l.tgid;
