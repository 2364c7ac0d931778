-- 001-init: the first tables and views (all of them: man/commd-tables.5).
--
-- Event rows are stored compactly in ev_* tables: the event's pid and comm
-- are one integer, `hid`, the comm_history row valid for the event's pid at
-- the event's time; comm fields are ids into `comms`. The views named like
-- the events (sched_switch, ...) give every table `ts, cpu, pid, comm` first
-- and the event's own fields after, under the kernel's field names (an
-- event's own pid/comm become target_pid/target_comm).
-- Timestamps are integer nanoseconds of the trace clock.

CREATE TABLE comms (
	id INTEGER PRIMARY KEY,
	comm TEXT NOT NULL
);

-- One row per (pid lifetime, name) interval. comm is NULL while nothing
-- names the pid; end_ts is NULL while the interval is still valid.
CREATE TABLE comm_history (
	id INTEGER PRIMARY KEY,
	pid INTEGER NOT NULL,
	tgid INTEGER,
	comm TEXT,
	start_ts INTEGER NOT NULL,
	end_ts INTEGER,
	source TEXT NOT NULL
);

CREATE INDEX comm_history_pid ON comm_history(pid, start_ts);

CREATE TABLE ev_sched_switch (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, hid INTEGER NOT NULL,
	prev_pid INTEGER, prev_comm INTEGER, prev_prio INTEGER,
	prev_state INTEGER, next_pid INTEGER, next_comm INTEGER,
	next_prio INTEGER
);
CREATE TABLE ev_sched_wakeup (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, hid INTEGER NOT NULL,
	target_pid INTEGER, target_comm INTEGER, prio INTEGER,
	target_cpu INTEGER
);
CREATE TABLE ev_sched_wakeup_new (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, hid INTEGER NOT NULL,
	target_pid INTEGER, target_comm INTEGER, prio INTEGER,
	target_cpu INTEGER
);
CREATE TABLE ev_sched_waking (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, hid INTEGER NOT NULL,
	target_pid INTEGER, target_comm INTEGER, prio INTEGER,
	target_cpu INTEGER
);
CREATE TABLE ev_sched_process_fork (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, hid INTEGER NOT NULL,
	parent_pid INTEGER, parent_comm INTEGER, child_pid INTEGER,
	child_comm INTEGER
);
CREATE TABLE ev_sched_process_exec (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, hid INTEGER NOT NULL,
	filename TEXT, target_pid INTEGER, old_pid INTEGER
);
CREATE TABLE ev_sched_process_exit (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, hid INTEGER NOT NULL,
	target_pid INTEGER, target_comm INTEGER, prio INTEGER
);
CREATE TABLE ev_sched_process_free (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, hid INTEGER NOT NULL,
	target_pid INTEGER, target_comm INTEGER, prio INTEGER
);
CREATE TABLE ev_sched_migrate_task (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, hid INTEGER NOT NULL,
	target_pid INTEGER, target_comm INTEGER, prio INTEGER,
	orig_cpu INTEGER, dest_cpu INTEGER
);
CREATE TABLE ev_task_rename (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, hid INTEGER NOT NULL,
	target_pid INTEGER, oldcomm INTEGER, newcomm INTEGER
);
CREATE TABLE ev_task_newtask (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, hid INTEGER NOT NULL,
	target_pid INTEGER, target_comm INTEGER, clone_flags INTEGER
);

CREATE TABLE ev_sched_stat_runtime (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, hid INTEGER NOT NULL,
	target_pid INTEGER, target_comm INTEGER, runtime INTEGER,
	vruntime INTEGER
);

-- Every other event: its format's system and name, and its own fields
-- (everything but common_*) as a JSON object.
CREATE TABLE event_types (
	id INTEGER PRIMARY KEY,
	system TEXT NOT NULL,
	name TEXT NOT NULL
);
CREATE TABLE ev_other (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, hid INTEGER NOT NULL,
	type INTEGER NOT NULL, fields TEXT
);

-- Ring-buffer losses: count NULL when the buffer only flagged a loss.
CREATE TABLE lost_events (
	cpu INTEGER,
	ts INTEGER,
	count INTEGER
);

-- Counters: ring-buffer stats, parse errors, rows left unnamed. cpu is
-- NULL for a counter of the whole capture.
CREATE TABLE stats (
	capture INTEGER,
	name TEXT NOT NULL,
	cpu INTEGER,
	value INTEGER
);

CREATE TABLE capture (
	id INTEGER PRIMARY KEY,
	source TEXT NOT NULL,		-- 'live' or the trace.dat path
	kernel TEXT,
	host TEXT,
	start_ts INTEGER,
	end_ts INTEGER,
	events TEXT			-- the events enabled / present
);

-- Named views.
CREATE VIEW sched_switch AS
SELECT e.ts, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.prev_pid, pc.comm AS prev_comm, e.prev_prio, e.prev_state,
       e.next_pid, nc.comm AS next_comm, e.next_prio
FROM ev_sched_switch e JOIN comm_history h ON h.id = e.hid
LEFT JOIN comms pc ON pc.id = e.prev_comm
LEFT JOIN comms nc ON nc.id = e.next_comm;

CREATE VIEW sched_wakeup AS
SELECT e.ts, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.target_pid, tc.comm AS target_comm, e.prio, e.target_cpu
FROM ev_sched_wakeup e JOIN comm_history h ON h.id = e.hid
LEFT JOIN comms tc ON tc.id = e.target_comm;

CREATE VIEW sched_wakeup_new AS
SELECT e.ts, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.target_pid, tc.comm AS target_comm, e.prio, e.target_cpu
FROM ev_sched_wakeup_new e JOIN comm_history h ON h.id = e.hid
LEFT JOIN comms tc ON tc.id = e.target_comm;

CREATE VIEW sched_waking AS
SELECT e.ts, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.target_pid, tc.comm AS target_comm, e.prio, e.target_cpu
FROM ev_sched_waking e JOIN comm_history h ON h.id = e.hid
LEFT JOIN comms tc ON tc.id = e.target_comm;

CREATE VIEW sched_process_fork AS
SELECT e.ts, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.parent_pid, pc.comm AS parent_comm, e.child_pid,
       cc.comm AS child_comm
FROM ev_sched_process_fork e JOIN comm_history h ON h.id = e.hid
LEFT JOIN comms pc ON pc.id = e.parent_comm
LEFT JOIN comms cc ON cc.id = e.child_comm;

CREATE VIEW sched_process_exec AS
SELECT e.ts, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.filename, e.target_pid, e.old_pid
FROM ev_sched_process_exec e JOIN comm_history h ON h.id = e.hid;

CREATE VIEW sched_process_exit AS
SELECT e.ts, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.target_pid, tc.comm AS target_comm, e.prio
FROM ev_sched_process_exit e JOIN comm_history h ON h.id = e.hid
LEFT JOIN comms tc ON tc.id = e.target_comm;

CREATE VIEW sched_process_free AS
SELECT e.ts, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.target_pid, tc.comm AS target_comm, e.prio
FROM ev_sched_process_free e JOIN comm_history h ON h.id = e.hid
LEFT JOIN comms tc ON tc.id = e.target_comm;

CREATE VIEW sched_migrate_task AS
SELECT e.ts, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.target_pid, tc.comm AS target_comm, e.prio, e.orig_cpu, e.dest_cpu
FROM ev_sched_migrate_task e JOIN comm_history h ON h.id = e.hid
LEFT JOIN comms tc ON tc.id = e.target_comm;

CREATE VIEW task_rename AS
SELECT e.ts, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.target_pid, oc.comm AS oldcomm, nc.comm AS newcomm
FROM ev_task_rename e JOIN comm_history h ON h.id = e.hid
LEFT JOIN comms oc ON oc.id = e.oldcomm
LEFT JOIN comms nc ON nc.id = e.newcomm;

CREATE VIEW task_newtask AS
SELECT e.ts, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.target_pid, tc.comm AS target_comm, e.clone_flags
FROM ev_task_newtask e JOIN comm_history h ON h.id = e.hid
LEFT JOIN comms tc ON tc.id = e.target_comm;

CREATE VIEW sched_stat_runtime AS
SELECT e.ts, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.target_pid, tc.comm AS target_comm, e.runtime, e.vruntime
FROM ev_sched_stat_runtime e JOIN comm_history h ON h.id = e.hid
LEFT JOIN comms tc ON tc.id = e.target_comm;

CREATE VIEW events AS
SELECT e.ts, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       t.system, t.name, e.fields
FROM ev_other e JOIN comm_history h ON h.id = e.hid
JOIN event_types t ON t.id = e.type;

-- Each history row with the name of its thread group's leader at the
-- row's start (NULL while the tgid is unknown).
CREATE VIEW process_comm AS
SELECT h.id, h.pid, h.tgid, h.comm,
       (SELECT l.comm FROM comm_history l
        WHERE l.pid = h.tgid AND l.start_ts <= h.start_ts
        ORDER BY l.start_ts DESC LIMIT 1) AS process_comm,
       h.start_ts, h.end_ts
FROM comm_history h;
