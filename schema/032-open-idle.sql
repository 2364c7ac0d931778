-- 032-open-idle: each CPU's idle time up to now, on a running capture.
--
-- Since 2026-12-07 a running capture shows the tasks running now: at each
-- commit a CPU's open slice of a task is on its switch's row, or a
-- dv_sched row of its own, as still running at the newest event. An idle
-- CPU's open slice (pid 0) was not: its switch's row is in an old page
-- (a CPU idle for an hour: an hour back in the table), and writing it at
-- every commit would write that page again each time, three pages with
-- dv_sched's indexes, for every idle CPU of a big machine. So a window up
-- to now missed each idle CPU's time since it went idle: `commq util
-- --last 1s` of a CPU idle for 0.6 s of that second gave 0.4 s of it, and
-- `top --by cpu` the same, while `sched` had nothing there.
--
-- Each CPU's open idle slice is now a row of this table, replaced at each
-- commit as it stands then (to the newest event) and dropped when the
-- slice ends: the table holds a row per CPU at most, a page or two
-- however many CPUs, written once a commit. `sched` reads it as its
-- third part (end_state NULL, as a slice still open at a capture's end
-- reads), as do the reports' windows (client/reportsql.c). A capture
-- killed keeps its rows as they stood at its last commit, as it keeps its
-- tasks' open slices; retention cuts them with the rest.
CREATE TABLE dv_open_idle (
	ts INTEGER NOT NULL, cpu INTEGER NOT NULL,
	dur INTEGER NOT NULL, hid INTEGER NOT NULL, prio INTEGER,
	start_err INTEGER,
	PRIMARY KEY (ts, cpu)
) WITHOUT ROWID;

DROP VIEW sched;
CREATE VIEW sched AS
SELECT e.ts, e.slice_dur AS dur, e.cpu, e.next_pid AS pid,
       coalesce(h.comm, '<...>') AS comm,
       e.next_prio AS prio, e.slice_state AS end_state, CAST(0 AS INTEGER) AS lost,
       CAST(NULL AS INTEGER) AS start_err, CAST(NULL AS INTEGER) AS end_err
FROM ev_sched_switch e JOIN comm_history h ON h.id = e.next_hid
 AND (e.slice_dur IS NOT NULL OR h.id < 0)
UNION ALL
SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>'), e.prio,
       e.end_state, e.lost, e.start_err, e.end_err
FROM dv_sched e JOIN comm_history h ON h.id = e.hid
UNION ALL
SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>'), e.prio,
       CAST(NULL AS INTEGER), CAST(0 AS INTEGER), e.start_err, CAST(NULL AS INTEGER)
FROM dv_open_idle e JOIN comm_history h ON h.id = e.hid;
