-- 022-sched-merge: a window of sched read in time order without a sort.
--
-- sched is two parts, the slices stored on their switch and the others
-- (dv_sched), both in ts order on their keys. SQLite reads such a
-- UNION ALL view inside the outer query (it flattens it) and merges the
-- two parts by ts only when each result column has the same affinity in
-- both; the first part's constants (0 AS lost, NULL AS start_err and
-- end_err) have none where the second's columns are INTEGER. So every
-- `select ... from sched ... order by ts` ran the view as a co-routine
-- and sorted all its rows in a temporary B-tree: the shipper's read of a
-- million-event recording's 222,012 slices took 0.44 s of CPU in the
-- sqlite3 shell, 0.28 s as a merge. The same rows, the same columns and
-- types (pragma table_info), CAST to give the constants their affinity.
DROP VIEW sched;
CREATE VIEW sched AS
SELECT e.ts, e.slice_dur AS dur, e.cpu, e.next_pid AS pid,
       coalesce(h.comm, '<...>') AS comm,
       e.next_prio AS prio, e.slice_state AS end_state, CAST(0 AS INTEGER) AS lost,
       CAST(NULL AS INTEGER) AS start_err, CAST(NULL AS INTEGER) AS end_err
FROM ev_sched_switch e JOIN comm_history h ON h.id = e.next_hid
WHERE e.slice_dur IS NOT NULL
UNION ALL
SELECT e.ts, e.dur, e.cpu, h.pid, coalesce(h.comm, '<...>'), e.prio,
       e.end_state, e.lost, e.start_err, e.end_err
FROM dv_sched e JOIN comm_history h ON h.id = e.hid;
