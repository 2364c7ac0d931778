-- 033-idle-queue: a CPU that runs its idle task has no task queued.
--
-- runqueue counted every wait of runqueue_wait on its CPU's queue until
-- the task ran. A task of a cgroup out of its CPU bandwidth (cpu.max, v1
-- cpu.cfs_quota_us) is taken off the queue until the cgroup's next
-- period, still runnable (R): its wait goes on (the kernel's run delay
-- counts it, and runqueue_wait agrees with it), but no tracepoint marks
-- the throttle, and runqueue had it queued on a CPU that ran idle. Two
-- spinners throttled to 20% on one CPU (a helper's check against the
-- scheduler's debug file, 678 samples of nr_running in 4 s): the kernel's
-- queue was empty in 375 samples, its mean length 0.73 with the task
-- running; `commq runq` gave a mean of 1.84 waiting, over 2,237 ms of the
-- CPU's 2,239 ms idle. The kernel switches to idle only with nothing
-- queued, so a task whose wait was open when its CPU switched to idle was
-- not on that queue (a throttled task, or one moved where no migration
-- was traced), and is taken for off it until its wait ends: it comes back
-- when its cgroup's period refills, which no event shows, and may then
-- wait again behind another task (that part is not counted). runqueue
-- counts a wait up to its CPU's first switch to idle at or after the
-- wait's start (a recorded one, or the open idle slice of a running
-- capture). A wait begun while the CPU was idle (a wakeup onto it)
-- counts: the task is queued until the switch to it. runqueue_wait is
-- unchanged (the kernel's run delay counts the throttled time too). The
-- helper's capture, migrated: `commq runq` on the throttled CPU a mean of
-- 0.265 waiting, p50 0 (the kernel: nr_running 0 in 55% of its samples,
-- and its mean 0.727 with the running task, busy 43.6% of the time,
-- about 0.29 waiting).
DROP VIEW runqueue;
CREATE VIEW runqueue AS
WITH cend(t) AS (
	SELECT coalesce(
		(SELECT end_ts FROM capture ORDER BY start_ts DESC LIMIT 1),
		max(coalesce((SELECT max(ts) FROM ev_sched_switch), 0),
		    coalesce((SELECT max(ts) FROM dv_sched), 0),
		    coalesce((SELECT max(ts) FROM ev_sched_wakeup), 0),
		    coalesce((SELECT max(ts) FROM ev_sched_wakeup_new), 0),
		    coalesce((SELECT max(ts) FROM ev_sched_migrate_task), 0)))
),
w AS MATERIALIZED (
	SELECT ts, coalesce(dur, max(0, (SELECT t FROM cend) - ts)) AS dur, cpu
	FROM runqueue_wait WHERE dur IS NOT NULL OR ended = 'open'
),
-- each wait up to its CPU's first switch to idle at or after its start:
-- the waits' starts and the switches to idle in one order per CPU (a
-- switch at a wait's start after it), each start with the earliest
-- switch from it on
iw(cpu, ts, k, dur) AS (
	SELECT cpu, ts, 0, dur FROM w
	UNION ALL
	SELECT cpu, ts, 1, NULL FROM ev_sched_switch WHERE next_pid = 0
	UNION ALL
	SELECT cpu, ts, 1, NULL FROM dv_open_idle
),
wq AS (
	SELECT cpu, ts, min(ts + dur, coalesce(fi, ts + dur)) AS e
	FROM (SELECT cpu, ts, k, dur,
		     min(CASE WHEN k = 1 THEN ts END) OVER (PARTITION BY cpu ORDER BY ts, k
			 ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS fi
	      FROM iw)
	WHERE k = 0
),
d(cpu, ts, x) AS (
	SELECT cpu, ts, 1 FROM wq
	UNION ALL
	SELECT cpu, e, -1 FROM wq
),
c AS (SELECT cpu, ts, sum(x) AS x FROM d GROUP BY cpu, ts)
SELECT ts, coalesce(lead(ts) OVER r,
		    CASE WHEN ts < (SELECT t FROM cend) THEN (SELECT t FROM cend) END) - ts AS dur,
       cpu, sum(x) OVER r AS nr
FROM c
WINDOW r AS (PARTITION BY cpu ORDER BY ts);
