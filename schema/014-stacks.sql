-- 014-stacks: kernel stacks of the switches into sleep, and the off-CPU
-- intervals they explain.
--
-- stacks: each distinct kernel stack once. frames: the functions from the
-- outermost (the system call's entry) to the innermost (schedule and what
-- it called), ';' between them: the collapsed-stack form flame graph
-- tools read. id: a hash of frames, so that a stack keeps its id across
-- captures and boots (addresses change with KASLR, names do not).
CREATE TABLE stacks (
	id INTEGER PRIMARY KEY,
	frames TEXT NOT NULL
);

-- switch_stack: the stack of the task a sched_switch at (ts, cpu) took
-- off the CPU in state S or D (commd --stacks: the instance's trigger
-- `stacktrace if prev_state & 3` on sched_switch; an import: the
-- kernel_stack events `trace-cmd record -T` recorded after switches).
CREATE TABLE switch_stack (
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	stack INTEGER NOT NULL,
	PRIMARY KEY (ts, cpu)
) WITHOUT ROWID;

-- offcpu: each interval a task spent off CPU asleep (S) or blocked (D):
-- from the end of a slice left in that state to the task's next slice
-- (dur), of which the last `runnable` ns it was woken and waited to run;
-- with the kernel stack it went to sleep in (NULL without --stacks) and
-- the task whose waking ended the interval (from the switch that ran it
-- again: its wakeup's first waking; NULL, and runnable NULL, when the
-- trace does not show it). A slice marked lost, without a later slice of
-- its task, with a loss of events before that one, or across a new
-- lifetime of the pid (as thread_state) has no row.
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
	WHERE s.end_state & 3 <> 0 AND s.next_ts IS NOT NULL AND s.lost = 0
	  AND NOT EXISTS (SELECT 1 FROM lost_events l WHERE l.ts > s.ts AND l.ts <= s.next_ts)
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
