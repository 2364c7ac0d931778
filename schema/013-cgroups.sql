-- 013-cgroups: which cgroup each task was in, over time.
--
-- cgroup_history is kept like comm_history: a row per task and cgroup,
-- from when the task was there (start_ts) to when it left or exited
-- (end_ts, NULL while it is still there). The hierarchy followed is the
-- unified one (cgroup v2) where it is mounted, else the v1 hierarchy of
-- the cpu controller; an import follows the one its attach events name
-- (the unified one when any does).
--   source: proc (the task's /proc/PID/cgroup when a live capture
--           began), cgroup_attach_task or cgroup_transfer_tasks (a
--           move the trace shows), fork (a new task starts in its
--           parent's cgroup).
--   path:   the cgroup's path in that hierarchy ('/' its root);
--   cgroup: a readable name where the path says one (a systemd service
--           or scope, a docker, podman or containerd container, an
--           nspawn machine), else the path.
CREATE TABLE cgroup_history (
	id INTEGER PRIMARY KEY,
	pid INTEGER NOT NULL,
	cgroup TEXT NOT NULL,
	path TEXT NOT NULL,
	start_ts INTEGER NOT NULL,
	end_ts INTEGER,
	source TEXT NOT NULL
);
CREATE INDEX cgroup_history_pid ON cgroup_history(pid, start_ts);
