-- million-slices.sql: rows for a database of commd's schema (run after
-- schema/*.sql) holding a window of a million slices: 1000 comms on 16
-- CPUs, 1,000,000 slices and 100,000 wakeups in 39 ms, then 1 ms of idle,
-- a slice in 9973 marked lost, and two losses.  Read by
-- tests/reports/timeline.sh and bench/timeline.sh.
insert into capture (id, source, start_ts, end_ts, cpus)
	values (1, 'synthetic', 1000000000, 1040000000, 16);
insert into comm_history (id, pid, comm, start_ts, source)
with recursive n(i) as (select 0 union all select i + 1 from n where i < 999)
select 1000 + i, 1000 + i, 'task-' || i, 0, 'synthetic' from n;
insert into comm_history (id, pid, comm, start_ts, source)
with recursive n(i) as (select 0 union all select i + 1 from n where i < 15)
select 2000 + i, 0, 'swapper/' || i, 0, 'synthetic' from n;
insert into dv_sched (ts, cpu, n, dur, hid, prio, end_state, lost)
with recursive n(i) as (select 0 union all select i + 1 from n where i < 999999)
select 1000000000 + i * 39, i % 16, 0, 20 + i % 50, 1000 + i * 7919 % 1000,
       120, 1, i % 9973 = 0 from n;
insert into dv_sched (ts, cpu, n, dur, hid, prio, end_state, lost)
with recursive n(i) as (select 0 union all select i + 1 from n where i < 15)
select 1039000000, i, 0, 1000000, 2000 + i, 120, null, 0 from n;
insert into dv_wakeup_latency (ts, cpu, n, hid, latency)
select ts, cpu, 0, hid, 1000 from dv_sched where (ts - 1000000000) % 390 = 0;
insert into lost_events (cpu, ts, count) values (3, 1020000000, 5), (null, 1030000000, null);
