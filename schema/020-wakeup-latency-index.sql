-- 020-wakeup-latency-index: the wakeups that carry a latency, by time.
--
-- A wakeup's latency is stored on the event that began it: the
-- sched_waking where one was recorded (nearly all of them), else the
-- sched_wakeup or sched_wakeup_new. A window's latencies were read from
-- every wakeup row of the window, though on a machine that records
-- sched_waking only a few of them carry one (213 of 36,546 in a busy
-- second of bench/bigtrace.sh's recording): the latency report read the
-- window's ev_sched_wakeup rows twice to find them, 6 of its 52 ms.
-- These partial indexes hold those rows alone, with the latency (a
-- query for the latencies of a window reads nothing else); they are
-- keyed by time, so rows arrive at their end as the table's do.
CREATE INDEX ev_sched_wakeup_latency ON ev_sched_wakeup(ts, latency)
	WHERE latency IS NOT NULL;
CREATE INDEX ev_sched_wakeup_new_latency ON ev_sched_wakeup_new(ts, latency)
	WHERE latency IS NOT NULL;
