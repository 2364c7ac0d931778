-- 008-processes: task lifetimes and processes.
--
--   comm_history.life    the id of the first row of the pid's lifetime the
--                        row belongs to (a lifetime starts at a fork, or
--                        where the pid is first seen after it died or
--                        before anything told its birth); the rows of one
--                        lifetime are its names one after another.
--   comm_history.parent  the pid of the task whose fork made the lifetime
--                        (sched_process_fork's parent_pid, task_newtask's
--                        common_pid); NULL when no fork showed it.
--
-- Rows written before this get their lifetime from the rows themselves: a
-- row starts one when it was made by a fork or does not continue the row
-- before it (the same rule `commq history` used). Their parent stays
-- NULL: the fork events are not read again.
ALTER TABLE comm_history ADD COLUMN life INTEGER;
ALTER TABLE comm_history ADD COLUMN parent INTEGER;

UPDATE comm_history SET life = k.life
FROM (SELECT id, min(id) OVER (PARTITION BY pid, n) AS life
      FROM (SELECT id, pid, sum(new) OVER (PARTITION BY pid
                                            ORDER BY start_ts, id) AS n
            FROM (SELECT id, pid, start_ts,
                         CASE WHEN lag(end_ts) OVER o IS start_ts
                               AND source NOT IN ('task_newtask',
                                                  'sched_process_fork')
                              THEN 0 ELSE 1 END AS new
                  FROM comm_history
                  WINDOW o AS (PARTITION BY pid ORDER BY start_ts, id)))) k
WHERE k.id = comm_history.id;

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
