-- 010-time-keyed: every event and derived table is keyed by time.
--
-- Questions about a running machine are about a window ("the last 10
-- seconds"); with rowid tables every such query read the whole table. Now
-- each ev_* and dv_* table is a WITHOUT ROWID table whose primary key is
-- (ts, cpu, n): its rows are stored in time order, and any query that
-- restricts ts (`ts BETWEEN A AND B`, `ts >= A`) reads only the rows of
-- that window, from ordinary SQL, in the sqlite3 shell too. n tells apart
-- rows of one table with the same ts on the same CPU (0 for nearly all).
-- The key costs no more room than the rowid it replaces; an index on ts
-- would have added half again to the file (bench/RESULTS.md).
--
-- The derived answers move to the row whose time they are keyed by, so
-- that windows over `sched` and `wakeup_latency` use the key as well:
--
--   ev_sched_switch.next_hid     the switched-in task's comm_history row
--                                here (next_pid's)
--   ev_sched_switch.slice_dur    the ordinary slice this switch began:
--                                next_pid ran from ts to ts + slice_dur
--                                (until the switch that switched it out)
--   ev_sched_switch.slice_state  that switch's prev_state
--   ev_sched_switch.wake_latency the wakeup this switch ended: next_pid's
--                                first waking since it last ran was at
--                                ts - wake_latency (as in 004; thread_state
--                                reads it here)
--   ev_sched_waking/wakeup/wakeup_new.latency
--                                the wakeup this event began (the task's
--                                first waking since it last ran) ended
--                                latency ns later, when the task was
--                                switched in
--   ... .run_cpu, .run_hid       on that CPU, as that comm_history row
--
-- (They replace the switch-out columns slice_dur, slice_prio, wake_hid
-- and waker_hid of 004.) Rows stored before this
-- keep their answers in dv_sched and dv_wakeup_latency, which read as
-- before.
--
-- Every view is dropped and made again unchanged but for sched and
-- wakeup_latency (and their readers), as the tables are rebuilt.

DROP VIEW sched_switch;
DROP VIEW sched_wakeup;
DROP VIEW sched_wakeup_new;
DROP VIEW sched_waking;
DROP VIEW sched_process_fork;
DROP VIEW sched_process_exec;
DROP VIEW sched_process_exit;
DROP VIEW sched_process_free;
DROP VIEW sched_migrate_task;
DROP VIEW task_rename;
DROP VIEW task_newtask;
DROP VIEW sched_stat_runtime;
DROP VIEW events;
DROP VIEW process_comm;
DROP VIEW wakeup_latency;
DROP VIEW sched;
DROP VIEW thread_state;
DROP VIEW thread;
DROP VIEW process;

-- capture.cpus: its CPUs are 0..cpus-1 (a window's query looks at each
-- one's last slice before the window).
ALTER TABLE capture ADD COLUMN cpus INTEGER;
UPDATE capture SET cpus = (SELECT max(cpu) + 1 FROM ev_sched_switch);

-- The old inline answers, as rows of the derived tables (their meaning
-- there is that of 002/006).
INSERT INTO dv_sched (ts, dur, cpu, hid, prio, end_state, lost)
SELECT ts - slice_dur, slice_dur, cpu, hid, coalesce(slice_prio, prev_prio),
       prev_state, 0
FROM ev_sched_switch WHERE slice_dur IS NOT NULL;
INSERT INTO dv_wakeup_latency (ts, cpu, hid, latency, waker_hid)
SELECT ts - wake_latency, cpu, wake_hid, wake_latency, waker_hid
FROM ev_sched_switch WHERE wake_latency IS NOT NULL;

CREATE TABLE new_ev_sched_switch (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	hid INTEGER NOT NULL, prev_pid INTEGER, prev_comm INTEGER, prev_prio INTEGER,
	prev_state INTEGER, next_pid INTEGER, next_comm INTEGER, next_prio INTEGER,
	next_hid INTEGER, slice_dur INTEGER, slice_state INTEGER,
	wake_latency INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_ev_sched_switch
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       hid, prev_pid, prev_comm, prev_prio, prev_state, next_pid, next_comm, next_prio, NULL, NULL, NULL,
       wake_latency
FROM ev_sched_switch;
DROP TABLE ev_sched_switch;
ALTER TABLE new_ev_sched_switch RENAME TO ev_sched_switch;

CREATE TABLE new_ev_sched_wakeup (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	hid INTEGER NOT NULL, target_pid INTEGER, target_comm INTEGER, prio INTEGER,
	target_cpu INTEGER, latency INTEGER, run_cpu INTEGER, run_hid INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_ev_sched_wakeup
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       hid, target_pid, target_comm, prio, target_cpu, NULL, NULL, NULL
FROM ev_sched_wakeup;
DROP TABLE ev_sched_wakeup;
ALTER TABLE new_ev_sched_wakeup RENAME TO ev_sched_wakeup;

CREATE TABLE new_ev_sched_wakeup_new (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	hid INTEGER NOT NULL, target_pid INTEGER, target_comm INTEGER, prio INTEGER,
	target_cpu INTEGER, latency INTEGER, run_cpu INTEGER, run_hid INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_ev_sched_wakeup_new
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       hid, target_pid, target_comm, prio, target_cpu, NULL, NULL, NULL
FROM ev_sched_wakeup_new;
DROP TABLE ev_sched_wakeup_new;
ALTER TABLE new_ev_sched_wakeup_new RENAME TO ev_sched_wakeup_new;

CREATE TABLE new_ev_sched_waking (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	hid INTEGER NOT NULL, target_pid INTEGER, target_comm INTEGER, prio INTEGER,
	target_cpu INTEGER, latency INTEGER, run_cpu INTEGER, run_hid INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_ev_sched_waking
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       hid, target_pid, target_comm, prio, target_cpu, NULL, NULL, NULL
FROM ev_sched_waking;
DROP TABLE ev_sched_waking;
ALTER TABLE new_ev_sched_waking RENAME TO ev_sched_waking;

CREATE TABLE new_ev_sched_process_fork (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	hid INTEGER NOT NULL, parent_pid INTEGER, parent_comm INTEGER, child_pid INTEGER,
	child_comm INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_ev_sched_process_fork
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       hid, parent_pid, parent_comm, child_pid, child_comm
FROM ev_sched_process_fork;
DROP TABLE ev_sched_process_fork;
ALTER TABLE new_ev_sched_process_fork RENAME TO ev_sched_process_fork;

CREATE TABLE new_ev_sched_process_exec (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	hid INTEGER NOT NULL, filename TEXT, target_pid INTEGER, old_pid INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_ev_sched_process_exec
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       hid, filename, target_pid, old_pid
FROM ev_sched_process_exec;
DROP TABLE ev_sched_process_exec;
ALTER TABLE new_ev_sched_process_exec RENAME TO ev_sched_process_exec;

CREATE TABLE new_ev_sched_process_exit (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	hid INTEGER NOT NULL, target_pid INTEGER, target_comm INTEGER, prio INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_ev_sched_process_exit
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       hid, target_pid, target_comm, prio
FROM ev_sched_process_exit;
DROP TABLE ev_sched_process_exit;
ALTER TABLE new_ev_sched_process_exit RENAME TO ev_sched_process_exit;

CREATE TABLE new_ev_sched_process_free (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	hid INTEGER NOT NULL, target_pid INTEGER, target_comm INTEGER, prio INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_ev_sched_process_free
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       hid, target_pid, target_comm, prio
FROM ev_sched_process_free;
DROP TABLE ev_sched_process_free;
ALTER TABLE new_ev_sched_process_free RENAME TO ev_sched_process_free;

CREATE TABLE new_ev_sched_migrate_task (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	hid INTEGER NOT NULL, target_pid INTEGER, target_comm INTEGER, prio INTEGER,
	orig_cpu INTEGER, dest_cpu INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_ev_sched_migrate_task
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       hid, target_pid, target_comm, prio, orig_cpu, dest_cpu
FROM ev_sched_migrate_task;
DROP TABLE ev_sched_migrate_task;
ALTER TABLE new_ev_sched_migrate_task RENAME TO ev_sched_migrate_task;

CREATE TABLE new_ev_task_rename (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	hid INTEGER NOT NULL, target_pid INTEGER, oldcomm INTEGER, newcomm INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_ev_task_rename
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       hid, target_pid, oldcomm, newcomm
FROM ev_task_rename;
DROP TABLE ev_task_rename;
ALTER TABLE new_ev_task_rename RENAME TO ev_task_rename;

CREATE TABLE new_ev_task_newtask (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	hid INTEGER NOT NULL, target_pid INTEGER, target_comm INTEGER, clone_flags INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_ev_task_newtask
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       hid, target_pid, target_comm, clone_flags
FROM ev_task_newtask;
DROP TABLE ev_task_newtask;
ALTER TABLE new_ev_task_newtask RENAME TO ev_task_newtask;

CREATE TABLE new_ev_sched_stat_runtime (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	hid INTEGER NOT NULL, target_pid INTEGER, target_comm INTEGER, runtime INTEGER,
	vruntime INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_ev_sched_stat_runtime
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       hid, target_pid, target_comm, runtime, vruntime
FROM ev_sched_stat_runtime;
DROP TABLE ev_sched_stat_runtime;
ALTER TABLE new_ev_sched_stat_runtime RENAME TO ev_sched_stat_runtime;

CREATE TABLE new_ev_other (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	hid INTEGER NOT NULL, type INTEGER NOT NULL, fields TEXT,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_ev_other
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       hid, type, fields
FROM ev_other;
DROP TABLE ev_other;
ALTER TABLE new_ev_other RENAME TO ev_other;

-- Wakeups stored as rows of their own (databases from before 004) are
-- also put on the switch that ended them, where thread_state reads them.
UPDATE ev_sched_switch SET wake_latency = k.latency
FROM (SELECT d.ts + d.latency AS run, d.cpu, h.pid, d.latency
      FROM dv_wakeup_latency d JOIN comm_history h ON h.id = d.hid) AS k
WHERE ev_sched_switch.ts = k.run AND ev_sched_switch.cpu = k.cpu
  AND ev_sched_switch.next_pid = k.pid AND ev_sched_switch.wake_latency IS NULL;

CREATE TABLE new_dv_sched (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	dur INTEGER NOT NULL, hid INTEGER NOT NULL, prio INTEGER,
	end_state INTEGER, lost INTEGER NOT NULL, start_err INTEGER,
	end_err INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_dv_sched
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       dur, hid, prio, end_state, lost, start_err, end_err
FROM dv_sched;
DROP TABLE dv_sched;
ALTER TABLE new_dv_sched RENAME TO dv_sched;

CREATE TABLE new_dv_wakeup_latency (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	hid INTEGER NOT NULL, latency INTEGER NOT NULL, waker_hid INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_dv_wakeup_latency
SELECT ts, cpu, row_number() OVER (PARTITION BY ts, cpu ORDER BY rowid) - 1,
       hid, latency, waker_hid
FROM dv_wakeup_latency;
DROP TABLE dv_wakeup_latency;
ALTER TABLE new_dv_wakeup_latency RENAME TO dv_wakeup_latency;

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

CREATE VIEW process_comm AS
SELECT h.id, h.pid, h.tgid, h.comm,
       (SELECT l.comm FROM comm_history l
        WHERE l.pid = h.tgid AND l.start_ts <= h.start_ts
        ORDER BY l.start_ts DESC LIMIT 1) AS process_comm,
       h.start_ts, h.end_ts
FROM comm_history h;

CREATE VIEW sched AS
SELECT e.ts, e.slice_dur AS dur, e.cpu, h.pid, coalesce(h.comm, '<...>') AS comm,
       e.next_prio AS prio, e.slice_state AS end_state, 0 AS lost,
       NULL AS start_err, NULL AS end_err
FROM ev_sched_switch e JOIN comm_history h ON h.id = e.next_hid
WHERE e.slice_dur IS NOT NULL
UNION ALL
SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>'), e.prio,
       e.end_state, e.lost, e.start_err, e.end_err
FROM dv_sched e JOIN comm_history h ON h.id = e.hid;

CREATE VIEW wakeup_latency AS
SELECT e.ts, h.pid, coalesce(h.comm, '<...>') AS comm, e.run_cpu AS cpu,
       e.latency, w.pid AS waker_pid, w.comm AS waker_comm
FROM ev_sched_waking e JOIN comm_history h ON h.id = e.run_hid
LEFT JOIN comm_history w ON w.id = e.hid
WHERE e.latency IS NOT NULL
UNION ALL
SELECT e.ts, h.pid, coalesce(h.comm, '<...>') AS comm, e.run_cpu AS cpu,
       e.latency, w.pid AS waker_pid, w.comm AS waker_comm
FROM ev_sched_wakeup e JOIN comm_history h ON h.id = e.run_hid
LEFT JOIN comm_history w ON w.id = e.hid
WHERE e.latency IS NOT NULL
UNION ALL
SELECT e.ts, h.pid, coalesce(h.comm, '<...>') AS comm, e.run_cpu AS cpu,
       e.latency, w.pid AS waker_pid, w.comm AS waker_comm
FROM ev_sched_wakeup_new e JOIN comm_history h ON h.id = e.run_hid
LEFT JOIN comm_history w ON w.id = e.hid
WHERE e.latency IS NOT NULL
UNION ALL
SELECT e.ts, h.pid, coalesce(h.comm, '<...>'), e.cpu, e.latency, w.pid,
       w.comm
FROM dv_wakeup_latency e JOIN comm_history h ON h.id = e.hid
LEFT JOIN comm_history w ON w.id = e.waker_hid;

-- thread_state as in 006, but the wakeup that ends an off-CPU interval
-- is read from the switch that ran the task again (its wake_latency: the
-- same wakeup wakeup_latency has, found without joining every wakeup to
-- every slice); slices from the tables, each with that switch's waking.
CREATE VIEW thread_state AS
WITH s AS (
	SELECT ts, dur, cpu, pid, comm, end_state, lost,
	       lead(ts) OVER w AS next_ts, lead(cpu) OVER w AS next_cpu,
	       lead(woke) OVER w AS next_woke
	FROM (SELECT e.ts, e.slice_dur AS dur, e.cpu, h.pid,
		     coalesce(h.comm, '<...>') AS comm, e.slice_state AS end_state,
		     0 AS lost, e.ts - e.wake_latency AS woke
	      FROM ev_sched_switch e JOIN comm_history h ON h.id = e.next_hid
	      WHERE e.slice_dur IS NOT NULL
	      UNION ALL
	      SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>'),
		     e.end_state, e.lost,
		     (SELECT x.ts - x.wake_latency FROM ev_sched_switch x
		      WHERE x.ts = e.ts AND x.cpu = e.cpu AND x.next_pid = h.pid)
	      FROM dv_sched e JOIN comm_history h ON h.id = e.hid)
	WHERE pid > 0
	WINDOW w AS (PARTITION BY pid ORDER BY ts)
),
off AS (
	SELECT s.*, s.ts + s.dur AS off_ts,
	       CASE WHEN s.next_woke >= s.ts + s.dur THEN s.next_woke END AS woken
	FROM s
	WHERE s.lost = 0 AND s.next_ts IS NOT NULL AND s.end_state IS NOT NULL
	  AND s.end_state NOT IN (16, 32)
	  AND NOT EXISTS (SELECT 1 FROM lost_events l
			  WHERE l.ts > s.ts + s.dur AND l.ts <= s.next_ts)
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

-- One row per thread lifetime (pid > 0): its pid and thread group, when
-- it began and ended (end_ts NULL while it lives), its first and last
-- names, how many names it had, and the task that forked it.
CREATE VIEW thread AS
SELECT life AS id, pid, max(tgid) AS tgid, min(start_ts) AS start_ts,
       CASE WHEN count(*) = count(end_ts) THEN max(end_ts) END AS end_ts,
       (SELECT f.comm FROM comm_history f
        WHERE f.pid = h.pid AND f.life = h.life AND f.comm IS NOT NULL
        ORDER BY f.start_ts, f.id LIMIT 1) AS first_comm,
       (SELECT f.comm FROM comm_history f
        WHERE f.pid = h.pid AND f.life = h.life AND f.comm IS NOT NULL
        ORDER BY f.start_ts DESC, f.id DESC LIMIT 1) AS comm,
       count(comm) AS names, max(parent) AS parent
FROM comm_history h WHERE pid > 0 GROUP BY life;

-- One row per process: a thread group leader's lifetime (a thread whose
-- pid is its tgid). comm is the leader's last name in it, names all its
-- names in order (joined by ' > '); threads counts the thread lifetimes
-- of the group that began inside it (the leader included); parent_pid is
-- the task that forked the leader and parent_tgid its process, where a
-- fork shows them.
CREATE VIEW process AS
WITH t AS MATERIALIZED (SELECT * FROM thread),
n AS (SELECT l.id, count(*) AS threads FROM t l JOIN t x ON x.tgid = l.tgid
      WHERE l.pid = l.tgid AND x.start_ts >= l.start_ts
        AND (l.end_ts IS NULL OR x.start_ts <= l.end_ts)
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
