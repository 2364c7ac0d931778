-- 034-offcpu-name: an interval off the CPUs is named by the task's name
-- when it left them.
--
-- offcpu took its comm from the slice before it, which keeps the name it
-- had since it began (or its last split); a name the switch-out shows
-- first (an exec with no sched_process_exec or task_rename recorded:
-- `trace-cmd record -e sched:sched_switch -e sched:sched_wakeup` of a
-- shell script that runs `sleep`) begins there (comm_history,
-- thread_state), and the sleep is that name's. A helper's recording of
-- such a script: `offcpu --comm sleep` printed nothing and `--comm
-- reuse.sh` 151.8 ms, two thirds of it the sleep binary's. Now the
-- switch-out's own row names it (ev_sched_switch.hid, the task switched
-- out), the slice's name where the end is not a recorded switch.
--
-- And an interval is given only where the next slice knows the task's
-- time off the CPUs (off_dur, derive.c): offcpu paired each slice's end
-- with the task's next slice by itself, so in a recording that leaves
-- CPUs out (`trace-cmd record -M`) it gave a task asleep across a CPU
-- where it ran unseen (a helper's `-M 2` recording: pid 27104 S for
-- 19.9 ms across three wakings). Every interval of every fixture had its
-- off_dur already.
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
			 WHERE d.ts = s.next_ts AND d.cpu = s.next_cpu AND h.pid = s.pid)) AS woke,
	       coalesce((SELECT e.off_dur FROM ev_sched_switch e
			 WHERE e.ts = s.next_ts AND e.cpu = s.next_cpu AND e.next_pid = s.pid),
			(SELECT d.off_dur FROM dv_sched d
			 JOIN comm_history h ON h.id = d.hid
			 WHERE d.ts = s.next_ts AND d.cpu = s.next_cpu AND h.pid = s.pid)) AS off_dur
	FROM s
),
o AS (
	SELECT s.*, k.stack
	FROM sw s LEFT JOIN switch_stack k ON k.ts = s.ts AND k.cpu = s.cpu
	WHERE (s.end_state & 3 <> 0 OR (s.end_state = 0 AND coalesce(s.woke > s.ts, 0)))
	  AND s.end_state & (SELECT noload FROM kernel_states) = 0
	  AND s.next_ts IS NOT NULL AND s.lost = 0 AND s.off_dur IS NOT NULL
	  AND NOT EXISTS (SELECT 1 FROM lost_events l
			  WHERE l.ts > s.ts AND l.ts < s.next_ts + (SELECT coalesce(max(ts - from_ts), 0) + 1 FROM lost_events)
			    AND coalesce(l.from_ts, l.ts - 1) < s.next_ts)
	AND NOT EXISTS (SELECT 1 FROM capture c WHERE c.start_ts > s.ts AND c.start_ts <= s.next_ts)
	  AND NOT EXISTS (SELECT 1 FROM comm_history b
			  WHERE b.pid = s.pid AND b.source IN ('task_newtask', 'sched_process_fork')
			    AND b.start_ts > s.ts AND b.start_ts <= s.next_ts)
)
SELECT o.ts, o.next_ts - o.ts AS dur, o.cpu, o.pid,
       coalesce((SELECT coalesce(h.comm, '<...>') FROM ev_sched_switch e
		 JOIN comm_history h ON h.id = e.hid
		 WHERE e.ts = o.ts AND e.cpu = o.cpu AND h.pid = o.pid), o.comm) AS comm,
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
