-- 012-preempt-wait: the time a preempted task waited to run again.
--
-- preempt_wait: per slice a task left still runnable (state R or R+: the
-- low byte of the state is 0, the higher bits the kernel's preemption
-- mark), from the end of that slice to the start of the task's next one,
-- on whichever CPU (a migration may move it between). What `perf sched
-- latency` counts as a delay besides the wait after a wakeup. A slice
-- whose task has no later slice in the trace has no row; nor has one
-- marked lost, one with a loss of events (any CPU) before the task's
-- next slice (it may have run unseen), or one whose pid began a new
-- lifetime before it (as thread_state).
CREATE VIEW preempt_wait AS
WITH s AS (
	SELECT ts + dur AS ts, cpu, pid, end_state, lost,
	       lead(ts) OVER w AS next_ts, lead(cpu) OVER w AS next_cpu
	FROM sched WHERE pid > 0
	WINDOW w AS (PARTITION BY pid ORDER BY ts)
)
SELECT ts, next_ts - ts AS dur, cpu, pid, next_cpu AS run_cpu
FROM s
WHERE end_state & 255 = 0 AND next_ts IS NOT NULL AND lost = 0
  AND NOT EXISTS (SELECT 1 FROM lost_events l WHERE l.ts > s.ts AND l.ts <= s.next_ts)
  AND NOT EXISTS (SELECT 1 FROM comm_history b
		  WHERE b.pid = s.pid AND b.source IN ('task_newtask', 'sched_process_fork')
		    AND b.start_ts > s.ts AND b.start_ts <= s.next_ts);
