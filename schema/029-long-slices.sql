-- 029-long-slices: the slice a CPU runs at a window's start, found by
-- the CPU, not by reading back through every CPU's rows.
--
-- A report over [lo, hi) needs each CPU's slice running at lo. It was
-- found as the CPU's last switch before lo, a step back through the
-- time key that reads every CPU's rows until one of that CPU: nothing
-- for a busy CPU, everything for one with no switch at all (a CPU that
-- is possible but offline: nosmt's siblings, a VM's spare vCPUs) and
-- the whole idle stretch for an idle one, whose start then began the
-- window's read for every CPU. With two such CPUs a 1 s window of a
-- 53 s, 2.8 million-switch database took 0.30 s instead of 0.07 s, and
-- it grew with the database.
--
-- Now the step back goes no further than 100 ms before lo; a slice that
-- began earlier and still runs at lo is a long one (100 ms or more), and
-- these few are indexed by CPU: a partial index of the switches whose
-- slice is long, and the derived slices (a few in a hundred of the
-- slices; each CPU's first slice of a capture is one) by CPU, whole.
-- Reports name the same 100 ms (client/reportsql.c, LONG_SLICE).
CREATE INDEX ev_sched_switch_long ON ev_sched_switch(cpu, ts)
	WHERE slice_dur >= 100000000;
CREATE INDEX dv_sched_cpu ON dv_sched(cpu, ts);
