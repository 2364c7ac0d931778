-- 024-next-pid-early: a switch's next_pid right after its key.
--
-- `where pid = X` on sched and thread_state reads every switch (the
-- task's own are spread over the whole file) and tests next_pid on each:
-- SQLite finds a column by walking the record's header from the start,
-- and next_pid was the 9th column. Moved to the 4th, just after the key
-- (ts, cpu, n), the scan `select count(*) from ev_sched_switch where
-- next_pid = 15` of bench/bigtrace.sh's import (1,494,474 switches) went
-- from 93.9 to 80.1 ms (hyperfine, 30 runs; 69 to 51 ms of user time).
-- The rows and their values are the same; the writer makes each row in
-- this order (store_rows.c).
--
-- The views read the table by name and are left as they are: with
-- legacy_alter_table the RENAME below neither rewrites nor checks them,
-- and the table they name exists again at the end.
PRAGMA legacy_alter_table = ON;
CREATE TABLE new_ev_sched_switch (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL,
	next_pid INTEGER,
	hid INTEGER NOT NULL, prev_pid INTEGER, prev_comm INTEGER, prev_prio INTEGER,
	prev_state INTEGER, next_comm INTEGER, next_prio INTEGER,
	next_hid INTEGER, slice_dur INTEGER, slice_state INTEGER,
	wake_latency INTEGER, off_dur INTEGER, off_state INTEGER, off_cpu INTEGER,
	off_hid INTEGER,
	PRIMARY KEY (ts, cpu, n)
) WITHOUT ROWID;
INSERT INTO new_ev_sched_switch (ts, cpu, n, next_pid, hid, prev_pid, prev_comm,
	prev_prio, prev_state, next_comm, next_prio, next_hid, slice_dur, slice_state,
	wake_latency, off_dur, off_state, off_cpu, off_hid)
SELECT ts, cpu, n, next_pid, hid, prev_pid, prev_comm, prev_prio, prev_state,
       next_comm, next_prio, next_hid, slice_dur, slice_state, wake_latency,
       off_dur, off_state, off_cpu, off_hid
FROM ev_sched_switch ORDER BY ts, cpu, n;
DROP TABLE ev_sched_switch;
ALTER TABLE new_ev_sched_switch RENAME TO ev_sched_switch;
PRAGMA legacy_alter_table = OFF;
