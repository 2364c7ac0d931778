-- 020-switch-task-index: a task's rows without reading every switch.
--
-- `select ... from thread_state where pid = X` (and sched's) found the
-- task's comm_history rows by pid, but its switches only by reading every
-- switch (the table is ordered by time): 0.46 s on 1.9 M switches, and in
-- proportion on a bigger database. With an index on the switched-in
-- task's name row, the same question reads the task's own rows (18 ms on
-- that database, whatever its size). It costs the file about 10% and each
-- stored switch one more B-tree insert (measured in bench/RESULTS.md).
CREATE INDEX ev_sched_switch_task ON ev_sched_switch(next_hid);
