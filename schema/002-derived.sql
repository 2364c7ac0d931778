-- 002-derived: tables computed during ingest (daemon/derive.c). Their
-- compact base tables are dv_* (derived), beside the events' ev_*.
--
-- sched: one slice per task run on a CPU, from the sched_switch that ran
-- it to the one that switched it out (idle slices are pid 0). end_state is
-- the kernel's prev_state at switch-out, NULL for a slice still open at
-- the end of the capture. lost = 1 when the slice's end is not known
-- exactly: a ring-buffer loss fell inside it, or the next switch on its CPU
-- did not switch this task out (a broken chain: something was not
-- recorded; end_state is then NULL too). Slices that began before the
-- capture saw their CPU have no row.
CREATE TABLE dv_sched (
	ts INTEGER NOT NULL, dur INTEGER NOT NULL, cpu INTEGER NOT NULL,
	hid INTEGER NOT NULL, prio INTEGER, end_state INTEGER,
	lost INTEGER NOT NULL
);
CREATE VIEW sched AS
SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.prio, e.end_state, e.lost
FROM dv_sched e JOIN comm_history h ON h.id = e.hid;

-- wakeup_latency: one row per wakeup that ends in the task being switched
-- in: ts is its first sched_waking (sched_wakeup/_new when the trace has
-- no waking), latency the ns until the sched_switch that runs it on cpu.
-- A waking of a task still running yields no row; a loss voids the
-- wakeups pending across it.
CREATE TABLE dv_wakeup_latency (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, hid INTEGER NOT NULL,
	latency INTEGER NOT NULL, waker_hid INTEGER
);
CREATE VIEW wakeup_latency AS
SELECT e.ts, h.pid, coalesce(h.comm, '<...>') AS comm, e.cpu, e.latency,
       w.pid AS waker_pid, w.comm AS waker_comm
FROM dv_wakeup_latency e JOIN comm_history h ON h.id = e.hid
LEFT JOIN comm_history w ON w.id = e.waker_hid;
