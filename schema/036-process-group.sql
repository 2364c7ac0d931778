-- 036-process-group: a process lives as long as its thread group.
--
-- process was the leader's lifetime: its end_ts the leader's exit, and
-- threads the lifetimes of the group begun inside it. A leader that
-- calls pthread_exit (or exits by its own syscall, not exit_group)
-- leaves its threads running, and they may start others: the kernel
-- keeps the leader a zombie, its pid the group's, until the last thread
-- has gone. A helper's program whose leader exited after starting one
-- thread that then started five: process said threads 2 and ended at the
-- leader's exit, thread (tgid = the leader) had 7 lifetimes running on.
-- Now a process ends when the last of its threads does (NULL while one
-- lives), and its threads are the group's lifetimes begun from the
-- leader's start until the pid next begins a leader's lifetime (the
-- group cannot outlive it), but for one begun at the leader's end or of
-- no length at its start (a thread's exec: where one process ends and
-- the next begins, the old leader lives on for a moment under the
-- thread's pid).
DROP VIEW process;
CREATE VIEW process AS
WITH t AS MATERIALIZED (SELECT * FROM thread),
l AS (SELECT t.*, (SELECT min(y.start_ts) FROM t y
		   WHERE y.pid = t.pid AND y.tgid = y.pid AND y.start_ts > t.start_ts) AS next_ts
      FROM t WHERE t.pid = t.tgid),
n AS (SELECT l.id, count(*) AS threads, max(x.end_ts IS NULL) AS open,
	     max(x.end_ts) AS last_end
      FROM l JOIN t x ON x.tgid = l.tgid
      WHERE x.id = l.id OR (x.start_ts >= l.start_ts
			    AND (l.next_ts IS NULL OR x.start_ts < l.next_ts)
			    AND x.start_ts IS NOT l.end_ts
			    AND NOT (x.start_ts = l.start_ts AND x.end_ts IS x.start_ts))
      GROUP BY l.id)
SELECT l.tgid, l.start_ts,
       CASE WHEN n.id IS NULL THEN l.end_ts WHEN n.open THEN NULL ELSE n.last_end END AS end_ts,
       l.comm,
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
FROM l LEFT JOIN n ON n.id = l.id;
