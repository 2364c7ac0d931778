/* test_derive.c — derive.c: the slices a CPU's switches and renames make,
 * and the capture's end closing them. Every row a capture gives lies
 * within it: none begins after its last event. */
#include "check.h"

#include "derive.h"
#include "states.h"

#include <stdlib.h>

#define MAX_SLICES 16
#define KIND_WAKING DERIVE_WAKING
#define KIND_WAKEUP DERIVE_WAKEUP

struct got {
	struct derive_slice s[MAX_SLICES];
	int n;
	int idle;	/* idle's slices too */
};

static int on_slice(void *ctx, const struct derive_slice *s)
{
	struct got *g = ctx;

	/* (the idle task's inferred slice before the first switch: not
	 * what these tests look at) */
	if (s->pid == 0 && !g->idle)
		return 0;
	if (g->n < MAX_SLICES)
		g->s[g->n] = *s;
	g->n++;
	return 0;
}

static struct derive *start(struct got *g)
{
	struct derive_ops ops = { .slice = on_slice, .ctx = g, .switches = 1 };

	g->n = 0;
	g->idle = 0;
	return derive_new(&ops);
}

/* pid 10 (row 1) switched in on CPU 0 at 1000, after the idle task. */
static struct derive *start_10(struct got *g)
{
	struct derive *d = start(g);

	CHECK(d != NULL);
	if (!d)
		return NULL;
	CHECK_INT(derive_seen(d, 1000, 0, 0, 9, 0, 0, NULL), 0);
	CHECK_INT(derive_switch(d, 1000, 0, 0, 9, 120, 0, 10, 1, 120), 0);
	return d;
}

/* pid 10 switched in on CPU 0 at 1000, renames itself at ts (its new
 * name, row 2, from ts + 1), the capture ends at end. */
static void run_rename(struct got *g, uint64_t ts, uint64_t end)
{
	struct derive *d = start_10(g);

	if (!d)
		return;
	CHECK_INT(derive_seen(d, ts, 0, 10, 1, 0, 0, NULL), 0);
	CHECK_INT(derive_rename(d, ts + 1, 10, 2), 0);
	if (end > ts)
		CHECK_INT(derive_seen(d, end, 0, 10, 2, 0, 0, NULL), 0);
	CHECK_INT(derive_finish(d, end), 0);
	derive_free(d);
}

static void rename_inside(void)
{
	struct got g;

	run_rename(&g, 5000, 9000);
	CHECK_INT(g.n, 2);
	/* the old name up to the rename's next nanosecond, the new one on */
	CHECK_INT(g.s[0].ts, 1000);
	CHECK_INT(g.s[0].dur, 4001);
	CHECK_INT(g.s[0].hid, 1);
	CHECK_INT(g.s[1].ts, 5001);
	CHECK_INT(g.s[1].dur, 3999);
	CHECK_INT(g.s[1].hid, 2);
	CHECK_INT(g.s[1].end_state, -1);	/* still running at the end */
}

/* `nice -n -20 prog`, `chrt -f 50 prog`: the wrapper, switched in at
 * prio 120, sets the new priority and execs prog (a rename). The part
 * before the exec keeps the switch-in's prio; prog's part takes the
 * switch-out's (100 here), the priority it ran at. */
static void rename_part_takes_switch_out_prio(void)
{
	struct got g;
	struct derive *d = start_10(&g);

	if (!d)
		return;
	CHECK_INT(derive_rename(d, 2000, 10, 2), 0);
	CHECK_INT(derive_switch(d, 5000, 0, 10, 2, 100, 1, 0, 9, 120), 0);
	CHECK_INT(derive_finish(d, 6000), 0);
	derive_free(d);
	CHECK_INT(g.n, 2);
	CHECK_INT(g.s[0].hid, 1);
	CHECK_INT(g.s[0].prio, 120);
	CHECK_INT(g.s[1].hid, 2);
	CHECK_INT(g.s[1].ts, 2000);
	CHECK_INT(g.s[1].prio, 100);
}

/* The rename is the capture's last event: the new name's slice would
 * begin 1 ns after the end. It gives no row (it once gave a row of
 * duration 0 after the capture's end, which the shipper, sending a
 * boot's rows up to its last capture's end, never sent). */
static void rename_last(void)
{
	struct got g;

	run_rename(&g, 5000, 5000);
	CHECK_INT(g.n, 1);
	CHECK_INT(g.s[0].ts, 1000);
	CHECK_INT(g.s[0].hid, 1);
	for (int i = 0; i < g.n && i < MAX_SLICES; i++)
		CHECK(g.s[i].ts <= 5000);
}

/* A switch as the last event: its slice begins at the end itself and
 * is kept (duration 0, still running). */
static void switch_last(void)
{
	struct got g;
	struct derive *d = start_10(&g);

	if (!d)
		return;
	CHECK_INT(derive_seen(d, 3000, 0, 10, 1, 0, 0, NULL), 0);
	CHECK_INT(derive_switch(d, 3000, 0, 10, 1, 120, 1, 11, 3, 120), 0);
	CHECK_INT(derive_finish(d, 3000), 0);
	derive_free(d);
	CHECK_INT(g.n, 2);
	CHECK_INT(g.s[0].dur, 2000);
	CHECK_INT(g.s[0].end_state, 1);
	CHECK_INT(g.s[1].ts, 3000);
	CHECK_INT(g.s[1].dur, 0);
	CHECK_INT(g.s[1].pid, 11);
}

/* A switch nobody recorded: pid 10 runs on CPU 0 from 1000; pid 11's
 * task_rename at 5000 (an event of its own) is its first there, its new
 * name (row 4) from 5001; its first sched_stat_runtime, 4500 ns at 6000,
 * says it was switched in at 1500. The part before the rename begins
 * there, not at 5000 (it was a slice of 1 ns, the rest of its run filed
 * under pid 10). pid 10's slice ends at its last event, 1200: a task
 * that ran on would have shown it (its switch-out's clock update); from
 * 1200 to 1500 nobody is known to have run. */
static void rename_inferred(void)
{
	struct got g;
	struct derive *d = start_10(&g);

	if (!d)
		return;
	CHECK_INT(derive_seen(d, 1200, 0, 10, 1, 0, 1, NULL), 0);
	CHECK_INT(derive_seen(d, 5000, 0, 11, 3, 0, 1, NULL), 0);
	CHECK_INT(derive_rename(d, 5001, 11, 4), 0);
	CHECK_INT(g.n, 0);	/* both held: the start may still move */
	CHECK_INT(derive_seen(d, 6000, 0, 11, 4, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 6000, 0, 11, 11, 4500), 0);
	CHECK_INT(g.n, 2);
	CHECK_INT(derive_finish(d, 7000), 0);
	derive_free(d);
	CHECK_INT(g.n, 3);
	CHECK_INT(g.s[0].pid, 10);
	CHECK_INT(g.s[0].ts, 1000);
	CHECK_INT(g.s[0].dur, 200);
	CHECK_INT(g.s[0].end_err, 3800);	/* the gap, as the next start's */
	CHECK_INT(g.s[1].pid, 11);
	CHECK_INT(g.s[1].ts, 1500);
	CHECK_INT(g.s[1].dur, 3501);
	CHECK_INT(g.s[1].hid, 3);
	CHECK(g.s[1].start_err >= 0);	/* an inferred start */
	CHECK_INT(g.s[2].ts, 5001);
	CHECK_INT(g.s[2].dur, 1999);
	CHECK_INT(g.s[2].hid, 4);
}

/* A name first shown by the switch-out (row 2: no rename event said when
 * it came) begins there: the slice keeps the name it ran under, the time
 * off the CPU that follows has the new one. */
static void name_at_switch_out(void)
{
	struct got g;
	struct derive *d = start_10(&g);
	struct derive_run run = { 0, 0, 0 };

	if (!d)
		return;
	CHECK_INT(derive_seen(d, 3000, 0, 10, 1, 0, 0, &run), 0);
	CHECK_INT(run.hid, 0);		/* the row it runs under */
	CHECK_INT(derive_seen(d, 4000, 0, 10, 2, 0, 1, &run), 0);
	CHECK_INT(run.hid, 1);		/* another: its slice's, from 1000 */
	CHECK_INT(run.start, 1000);
	CHECK_INT(derive_switch(d, 4000, 0, 10, 2, 120, 1, 11, 5, 120), 0);
	CHECK_INT(derive_seen(d, 5000, 0, 11, 5, 0, 1, NULL), 0);
	CHECK_INT(derive_switch(d, 5000, 0, 11, 5, 120, 1, 10, 2, 120), 0);
	CHECK_INT(derive_finish(d, 6000), 0);
	derive_free(d);
	CHECK_INT(g.n, 3);
	CHECK_INT(g.s[0].pid, 10);
	CHECK_INT(g.s[0].ts, 1000);
	CHECK_INT(g.s[0].dur, 3000);
	CHECK_INT(g.s[0].hid, 1);
	CHECK_INT(g.s[2].pid, 10);
	CHECK_INT(g.s[2].ts, 5000);
	CHECK_INT(g.s[2].hid, 2);
	CHECK_INT(g.s[2].off_dur, 1000);
	CHECK_INT(g.s[2].off_hid, 2);
}

/* A switch nobody recorded, found by pid 11's own sched_stat_runtime at
 * 6000, whose comm is a name no event showed before (row 4 from 6000; row
 * 3 before). The slice begins under row 4, the runtime of 4500 ns places
 * its start at 1500 (derive_part says so), and the pipeline names it from
 * there (name_from_start): row 3 in place, row 4 from 6000. It was all
 * row 4's, though the name began at 6000. */
static void name_at_inferring_runtime(void)
{
	struct got g;
	struct derive *d = start_10(&g);
	struct derive_run run = { 0, 0, 0 };

	if (!d)
		return;
	CHECK_INT(derive_seen(d, 1200, 0, 10, 1, 0, 1, NULL), 0);
	CHECK_INT(derive_seen(d, 6000, 0, 11, 4, 0, 1, &run), 0);
	CHECK_INT(run.began, 1);
	CHECK_INT(derive_runtime(d, 6000, 0, 11, 11, 4500), 0);
	CHECK_INT(derive_part(d, 0, 11, &run), 1);
	CHECK_INT(run.hid, 4);
	CHECK_INT(run.start, 1500);
	CHECK_INT(derive_rename_on(d, 0, 1500, 11, 3), 0);
	CHECK_INT(derive_rename_on(d, 0, 6000, 11, 4), 0);
	CHECK_INT(derive_finish(d, 7000), 0);
	derive_free(d);
	CHECK_INT(g.n, 3);
	CHECK_INT(g.s[0].pid, 10);
	CHECK_INT(g.s[0].dur, 200);
	CHECK_INT(g.s[1].pid, 11);
	CHECK_INT(g.s[1].ts, 1500);
	CHECK_INT(g.s[1].dur, 4500);
	CHECK_INT(g.s[1].hid, 3);
	CHECK_INT(g.s[2].ts, 6000);
	CHECK_INT(g.s[2].dur, 1000);
	CHECK_INT(g.s[2].hid, 4);
}

/* The oldest wakeup still pending (the shipper holds wakeup_latency back
 * to it): pids in two blocks of 1,024; two are switched in, the end voids
 * the last. */
static void oldest_wakeup(void)
{
	struct got g;
	struct derive *d = start_10(&g);

	if (!d)
		return;
	CHECK_INT(derive_oldest_wakeup(d, 0), 0);
	CHECK_INT(derive_waking(d, 2000, 20, KIND_WAKING, 10, 1), 1);
	CHECK_INT(derive_waking(d, 1500 + 1, 5000, KIND_WAKING, 10, 1), 1);
	CHECK_INT(derive_waking(d, 2500, 5001, KIND_WAKING, 10, 1), 1);
	/* its sched_wakeup: the same wakeup, not the first */
	CHECK_INT(derive_waking(d, 2600, 20, KIND_WAKEUP, 10, 1), 0);
	CHECK_INT(derive_oldest_wakeup(d, 0), 1501);
	/* of those after a time: one pending too long to wait for does
	 * not hide the newer ones */
	CHECK_INT(derive_oldest_wakeup(d, 1501), 2000);
	CHECK_INT(derive_oldest_wakeup(d, 2000), 2500);
	CHECK_INT(derive_oldest_wakeup(d, 2500), 0);
	CHECK_INT(derive_switch(d, 3000, 0, 10, 1, 120, 1, 5000, 5, 120), 0);
	CHECK_INT(derive_oldest_wakeup(d, 0), 2000);
	CHECK_INT(derive_switch(d, 3100, 0, 5000, 5, 120, 0, 20, 6, 120), 0);
	CHECK_INT(derive_oldest_wakeup(d, 0), 2500);
	CHECK_INT(derive_finish(d, 4000), 0);
	CHECK_INT(derive_oldest_wakeup(d, 0), 0);
	derive_free(d);
}

static struct derive_wakeup woke[4];
static int nwoke;

static int on_wakeup(void *ctx, const struct derive_wakeup *w)
{
	(void)ctx;
	if (nwoke < 4)
		woke[nwoke] = *w;
	nwoke++;
	return 0;
}

/* A derive that reports slices and wakeups, pid 10 switched in on CPU 0
 * at 1000 (idle before). */
static struct derive *start_woken(struct got *g)
{
	struct derive_ops ops = { .slice = on_slice, .wakeup = on_wakeup, .ctx = g,
				  .switches = 1 };
	struct derive *d = derive_new(&ops);

	CHECK(d != NULL);
	if (!d)
		return NULL;
	nwoke = 0;
	CHECK_INT(derive_seen(d, 1000, 0, 0, 9, 0, 0, NULL), 0);
	CHECK_INT(derive_switch(d, 1000, 0, 0, 9, 120, 0, 10, 1, 120), 0);
	return d;
}

/* A second waking of a task whose first has not ended: the kernel wakes
 * only a task asleep, so it ran and slept again where nothing was traced
 * (a CPU a cpumask left out). The wait is the second's; the first never
 * ends (it was 617 ms of "latency" on a -M 1 recording). */
static void rewaking(void)
{
	struct got g = { .n = 0 };
	struct derive *d = start_woken(&g);

	if (!d)
		return;
	CHECK_INT(derive_waking(d, 1500, 20, DERIVE_WAKEUP_NEW, 10, 1), 1);
	CHECK_INT(derive_waking(d, 2000, 20, KIND_WAKING, 10, 1), 1);
	CHECK_INT(derive_waking(d, 2010, 20, KIND_WAKEUP, 10, 1), 0);
	CHECK_INT(derive_waking(d, 7000, 20, KIND_WAKING, 10, 1), 1);
	CHECK_INT(derive_oldest_wakeup(d, 0), 7000);
	CHECK_INT(derive_waking(d, 7010, 20, KIND_WAKEUP, 10, 1), 0);
	CHECK_INT(derive_switch(d, 7500, 0, 10, 1, 120, 1, 20, 2, 120), 0);
	CHECK_INT(nwoke, 1);
	CHECK_INT(woke[0].ts, 7000);
	CHECK_INT(woke[0].latency, 500);
	CHECK_INT(derive_finish(d, 8000), 0);
	derive_free(d);
}

/* The same, idle's slice before: idle has no clock events, so it ran
 * until pid 11's clock began. */
static void idle_inferred(void)
{
	struct got g;
	struct derive *d = start(&g);

	CHECK(d != NULL);
	if (!d)
		return;
	g.idle = 1;
	CHECK_INT(derive_switch(d, 1000, 0, 10, 1, 120, 1, 0, 9, 120), 0);
	CHECK_INT(derive_seen(d, 5000, 0, 11, 3, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 5000, 0, 11, 11, 3500), 0);
	CHECK_INT(derive_finish(d, 7000), 0);
	derive_free(d);
	CHECK_INT(g.n, 2);
	CHECK_INT(g.s[0].pid, 0);
	CHECK_INT(g.s[0].dur, 500);
	CHECK_INT(g.s[1].pid, 11);
	CHECK_INT(g.s[1].ts, 1500);
}

/* pid 10, switched in at 1000, runs; at 400,000 its own runtime says its
 * clock began at 390,000, long after its last event (1000): it left the
 * CPU unrecorded and came back. Unless the CPU's next event is its
 * switch-out (that switch's own update, short by the time the rq clock
 * stood still after a preempting wakeup), the slice ends at 1000 by
 * inference and another begins at 390,000; next is the CPU's next event
 * after the runtime (0: the end of the capture). */
static void run_restart(struct got *g, int next_switch, int other_first)
{
	struct derive *d = start_10(g);

	if (!d)
		return;
	CHECK_INT(derive_seen(d, 400000, 0, 10, 1, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 400000, 0, 10, 10, 10000), 0);
	CHECK_INT(g->n, 0);	/* held: the next event decides */
	if (other_first)	/* another task's event on another CPU */
		CHECK_INT(derive_seen(d, 400100, 1, 11, 3, 0, 1, NULL), 0);
	if (next_switch) {
		CHECK_INT(derive_seen(d, 400200, 0, 10, 1, 0, 1, NULL), 0);
		CHECK_INT(derive_switch(d, 400200, 0, 10, 1, 120, 1, 0, 9, 120), 0);
	}
	CHECK_INT(derive_finish(d, 500000), 0);
	derive_free(d);
}

static void restart(void)
{
	struct got g;

	run_restart(&g, 0, 1);
	CHECK_INT(g.n, 3);	/* 10's two parts, CPU 1's */
	CHECK_INT(g.s[0].pid, 10);
	CHECK_INT(g.s[0].ts, 1000);
	CHECK_INT(g.s[0].dur, 0);
	CHECK_INT(g.s[0].end_err, 389000);
	CHECK_INT(g.s[0].end_state, -1);
	CHECK_INT(g.s[1].pid, 10);
	CHECK_INT(g.s[1].ts, 390000);
	CHECK_INT(g.s[1].dur, 110000);
	CHECK_INT(g.s[1].start_err, 389000);
	CHECK_INT(g.s[2].pid, 11);

	/* another task's event next (an inferred switch at 400,100): the
	 * second part ends at the runtime, 400,000, its last event */
	{
		struct derive *d = start_10(&g);

		if (d) {
			CHECK_INT(derive_seen(d, 400000, 0, 10, 1, 0, 1, NULL), 0);
			CHECK_INT(derive_runtime(d, 400000, 0, 10, 10, 10000), 0);
			CHECK_INT(derive_seen(d, 400100, 0, 11, 3, 0, 1, NULL), 0);
			CHECK_INT(derive_finish(d, 500000), 0);
			derive_free(d);
			CHECK_INT(g.n, 3);
			CHECK_INT(g.s[0].dur, 0);
			CHECK_INT(g.s[1].ts, 390000);
			CHECK_INT(g.s[1].dur, 10000);
			CHECK_INT(g.s[1].end_err, 100);
			CHECK_INT(g.s[2].pid, 11);
			CHECK_INT(g.s[2].ts, 400100);
		}
	}

	/* the same, the switch-out showing a name that began at 400,100:
	 * the pipeline settles the restart (derive_switching) before the
	 * split at that name, so nothing restarts */
	{
		struct derive *d = start_10(&g);

		if (d) {
			CHECK_INT(derive_seen(d, 400000, 0, 10, 1, 0, 1, NULL), 0);
			CHECK_INT(derive_runtime(d, 400000, 0, 10, 10, 10000), 0);
			CHECK_INT(derive_seen(d, 400200, 0, 10, 2, 0, 1, NULL), 0);
			derive_switching(d, 0, 10);
			CHECK_INT(derive_rename(d, 400100, 10, 2), 0);
			CHECK_INT(derive_switch(d, 400200, 0, 10, 2, 120, 1, 0, 9, 120), 0);
			CHECK_INT(derive_finish(d, 500000), 0);
			derive_free(d);
			CHECK_INT(g.n, 2);
			CHECK_INT(g.s[0].ts, 1000);
			CHECK_INT(g.s[0].dur, 399100);
			CHECK_INT(g.s[1].ts, 400100);
			CHECK_INT(g.s[1].dur, 100);
		}
	}

	/* the switch-out's own update: one slice, 1000 to 400,200 */
	run_restart(&g, 1, 0);
	CHECK_INT(g.n, 1);
	CHECK_INT(g.s[0].pid, 10);
	CHECK_INT(g.s[0].ts, 1000);
	CHECK_INT(g.s[0].dur, 399200);
	CHECK_INT(g.s[0].end_state, 1);
}

/* A restart held (at 400,000 the clock began at 390,000, 140 us after
 * the task's last event), then undone by its next own runtime: that
 * clock began at 300,000, before the held restart's 390,000 (that update read
 * an rq clock that stood still: a wakeup on the CPU skipped its update
 * and __schedule picked the task again, no switch traced), so the task
 * ran on: one slice, 1000 to its switch-out (sched-prctl-names.dat's
 * namer on CPU 0 was split, 289 us unknown). */
static void restart_undone(void)
{
	struct got g;
	struct derive *d = start_10(&g);

	if (!d)
		return;
	CHECK_INT(derive_seen(d, 250000, 0, 10, 1, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 250000, 0, 10, 10, 249000), 0);
	CHECK_INT(derive_seen(d, 400000, 0, 10, 1, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 400000, 0, 10, 10, 10000), 0);	/* held */
	CHECK_INT(g.n, 0);
	CHECK_INT(derive_seen(d, 405000, 0, 10, 1, 0, 1, NULL), 0);	/* a waking it does */
	CHECK_INT(derive_seen(d, 500000, 0, 10, 1, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 500000, 0, 10, 10, 200000), 0);	/* began at 300,000 */
	CHECK_INT(derive_seen(d, 500200, 0, 10, 1, 0, 1, NULL), 0);
	CHECK_INT(derive_switch(d, 500200, 0, 10, 1, 120, 1, 0, 9, 120), 0);
	CHECK_INT(derive_finish(d, 600000), 0);
	derive_free(d);
	CHECK_INT(g.n, 1);
	CHECK_INT(g.s[0].pid, 10);
	CHECK_INT(g.s[0].ts, 1000);
	CHECK_INT(g.s[0].dur, 499200);
	CHECK_INT(g.s[0].end_state, 1);
}

/* No restart: another CPU updated pid 10's clock at 389,000 (a wakeup's
 * preemption check), and a clock that ran for more than half of the time
 * since the last event (or stood still for less than 100 us) is the one
 * that began with it. */
static void no_restart(void)
{
	struct got g;
	struct derive *d = start_10(&g);

	if (!d)
		return;
	CHECK_INT(derive_seen(d, 389000, 1, 11, 3, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 389000, 1, 11, 10, 388000), 0);
	CHECK_INT(derive_seen(d, 400000, 0, 10, 1, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 400000, 0, 10, 10, 10000), 0);
	/* 150 us of 310 us */
	CHECK_INT(derive_seen(d, 710000, 0, 10, 1, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 710000, 0, 10, 10, 160000), 0);
	/* 99 us of 100 us */
	CHECK_INT(derive_seen(d, 810000, 0, 10, 1, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 810000, 0, 10, 10, 1000), 0);
	CHECK_INT(derive_seen(d, 820000, 1, 11, 3, 0, 1, NULL), 0);
	CHECK_INT(derive_finish(d, 900000), 0);
	derive_free(d);
	CHECK_INT(g.n, 2);	/* 10's whole, CPU 1's */
	CHECK_INT(g.s[0].pid, 10);
	CHECK_INT(g.s[0].dur, 899000);
}

/* An inferred end at the old task's last sign of running: pid 10,
 * switched in at 1000, has no event on CPU 0 after that, but CPU 1
 * updated its clock at 3000 (a wakeup's preemption check): it still ran
 * then. At 9000 pid 11's event on CPU 0 (a switch nobody recorded): 10's
 * slice ends at 3000, not 1000, the gap 3000 to 9000. A remote update
 * later than the event that shows the switch says nothing of it. */
static void remote_clock_end(void)
{
	struct got g;
	struct derive *d = start_10(&g);

	if (!d)
		return;
	CHECK_INT(derive_seen(d, 3000, 1, 12, 4, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 3000, 1, 12, 10, 2000), 0);
	CHECK_INT(derive_seen(d, 9000, 0, 11, 3, 0, 1, NULL), 0);
	CHECK_INT(derive_finish(d, 10000), 0);
	derive_free(d);
	CHECK_INT(g.n, 3);	/* 10's, 11's, CPU 1's */
	CHECK_INT(g.s[0].pid, 10);
	CHECK_INT(g.s[0].ts, 1000);
	CHECK_INT(g.s[0].dur, 2000);
	CHECK_INT(g.s[0].end_err, 6000);
	CHECK_INT(g.s[1].pid, 11);
	CHECK_INT(g.s[1].ts, 9000);
	CHECK_INT(g.s[1].start_err, 6000);

	/* the same update, not yet seen when the switch shows (a live
	 * capture's CPUs come in their own order): the end stays at 1000 */
	d = start_10(&g);
	if (!d)
		return;
	CHECK_INT(derive_seen(d, 9000, 0, 11, 3, 0, 1, NULL), 0);
	CHECK_INT(derive_seen(d, 9500, 1, 12, 4, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 9500, 1, 12, 10, 2000), 0);
	CHECK_INT(derive_finish(d, 10000), 0);
	derive_free(d);
	CHECK(g.n >= 1);
	CHECK_INT(g.s[0].pid, 10);
	CHECK_INT(g.s[0].dur, 0);
	CHECK_INT(g.s[0].end_err, 8000);
}

/* Where switches went unrecorded a task may be open on two CPUs: pid 10
 * switched in on CPU 0 at 1000, then seen on CPU 1 from 2000 (its switch
 * there unrecorded, CPU 0's chain not told). CPU 2 updates its clock at
 * 5000: it runs on CPU 1, where its open slice began last; CPU 0's slice
 * still ends at its last event there (1000) when pid 11's event at 9000
 * shows the switch, not at 5000. */
static void remote_clock_latest(void)
{
	struct got g;
	struct derive *d = start_10(&g);

	if (!d)
		return;
	CHECK_INT(derive_seen(d, 2000, 1, 10, 1, 0, 1, NULL), 0);
	CHECK_INT(derive_seen(d, 5000, 2, 12, 4, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 5000, 2, 12, 10, 1000), 0);
	CHECK_INT(derive_seen(d, 9000, 0, 11, 3, 0, 1, NULL), 0);
	CHECK_INT(derive_seen(d, 9500, 1, 13, 5, 0, 1, NULL), 0);
	CHECK_INT(derive_finish(d, 10000), 0);
	derive_free(d);
	CHECK(g.n >= 2);
	CHECK_INT(g.s[0].pid, 10);	/* CPU 0's */
	CHECK_INT(g.s[0].cpu, 0);
	CHECK_INT(g.s[0].dur, 0);
	CHECK_INT(g.s[0].end_err, 8000);
	{
		int found = 0;

		for (int i = 1; i < g.n && i < MAX_SLICES; i++)
			if (g.s[i].pid == 10 && g.s[i].cpu == 1) {	/* CPU 1's */
				found++;
				CHECK_INT(g.s[i].ts, 2000);
				CHECK_INT(g.s[i].dur, 3000);
				CHECK_INT(g.s[i].end_err, 4500);
			}
		CHECK_INT(found, 1);
	}

	/* The update comes while pid 10 is open on CPU 0 only; its own
	 * runtime on CPU 1 at 6000 then says 3000 ns: its clock cannot have
	 * started before the update at 5000, which restarted it. Its slice
	 * on CPU 1 starts at 5000, where CPU 0's ends: never two at once. */
	d = start_10(&g);
	if (!d)
		return;
	CHECK_INT(derive_seen(d, 1500, 1, 20, 6, 0, 1, NULL), 0);
	CHECK_INT(derive_seen(d, 2000, 1, 20, 6, 0, 1, NULL), 0);
	CHECK_INT(derive_seen(d, 5000, 2, 12, 4, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 5000, 2, 12, 10, 1000), 0);
	CHECK_INT(derive_seen(d, 6000, 1, 10, 1, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 6000, 1, 10, 10, 3000), 0);
	CHECK_INT(derive_seen(d, 9000, 0, 11, 3, 0, 1, NULL), 0);
	CHECK_INT(derive_finish(d, 10000), 0);
	derive_free(d);
	{
		int n0 = 0, n1 = 0;

		for (int i = 0; i < g.n && i < MAX_SLICES; i++) {
			if (g.s[i].pid != 10)
				continue;
			if (g.s[i].cpu == 0) {
				n0++;
				CHECK_INT(g.s[i].ts, 1000);
				CHECK_INT(g.s[i].dur, 4000);
			} else if (g.s[i].cpu == 1) {
				n1++;
				CHECK_INT(g.s[i].ts, 5000);
			}
		}
		CHECK_INT(n0, 1);
		CHECK_INT(n1, 1);
	}
}

/* A task no CPU had running, whose clock another CPU updated (pid 30:
 * CPU 0 at 4000, 2000 ns since its clock started): where it turns up
 * next by inference (CPU 1 at 5000, its gap from 1500), it ran from
 * 2000. An update from before the gap (at 1200, the second time) says
 * nothing of it: its slice starts at its event. */
static void remote_clock_start(void)
{
	struct got g;

	for (int before_gap = 0; before_gap < 2; before_gap++) {
		struct derive *d = start_10(&g);
		int found = 0;

		if (!d)
			return;
		if (before_gap) {
			CHECK_INT(derive_runtime(d, 1200, 0, 10, 30, 200), 0);
		}
		CHECK_INT(derive_seen(d, 1500, 1, 20, 6, 0, 1, NULL), 0);
		if (!before_gap) {
			CHECK_INT(derive_seen(d, 4000, 0, 10, 1, 0, 1, NULL), 0);
			CHECK_INT(derive_runtime(d, 4000, 0, 10, 30, 2000), 0);
		}
		CHECK_INT(derive_seen(d, 5000, 1, 30, 7, 0, 1, NULL), 0);
		CHECK_INT(derive_finish(d, 6000), 0);
		derive_free(d);
		for (int i = 0; i < g.n && i < MAX_SLICES; i++)
			if (g.s[i].pid == 30) {
				found++;
				CHECK_INT(g.s[i].cpu, 1);
				CHECK_INT(g.s[i].ts, before_gap ? 5000 : 2000);
				CHECK_INT(g.s[i].start_err, 3500);
			}
		CHECK_INT(found, 1);
	}
}

/* A woken task runs where no switch was traced (a CPU a cpumask left
 * out): another CPU's sched_stat_runtime of it, while no CPU here has it
 * running, ends its pending wakeup unseen. Its later switch in on CPU 0
 * ends no wait (it was 327 ms of "latency" on a -M recording). */
static void woken_runs_unseen(void)
{
	struct got g = { .n = 0 };
	struct derive *d = start_woken(&g);

	if (!d)
		return;
	CHECK_INT(derive_waking(d, 2000, 20, KIND_WAKING, 10, 1), 1);
	CHECK_INT(derive_oldest_wakeup(d, 0), 2000);
	/* CPU 0's pid 10 updates pid 20's clock: 20 runs elsewhere */
	CHECK_INT(derive_seen(d, 3000, 0, 10, 1, 0, 1, NULL), 0);
	CHECK_INT(derive_runtime(d, 3000, 0, 10, 20, 800), 0);
	CHECK_INT(derive_oldest_wakeup(d, 0), 0);
	CHECK_INT(derive_switch(d, 9000, 0, 10, 1, 120, 1, 20, 2, 120), 0);
	CHECK_INT(nwoke, 0);
	/* woken while it runs here (about to sleep): a remote update is a
	 * sign of it running here, no more */
	CHECK_INT(derive_waking(d, 9500, 20, KIND_WAKING, 30, 3), 1);
	CHECK_INT(derive_runtime(d, 9600, 1, 30, 20, 100), 0);
	CHECK_INT(derive_oldest_wakeup(d, 0), 9500);
	CHECK_INT(derive_finish(d, 10000), 0);
	derive_free(d);
}

/* CPU 1 is not traced (trace-cmd record -M 1). pid 20, woken where it
 * last ran (CPU 1) with no sched_wakeup seen, comes to CPU 0 later: no
 * wait (it was queued on CPU 1 and may have run there). pid 21's wakeup
 * queues it on CPU 1: its wakeup ends there unseen. pid 22 is woken on
 * CPU 0 and moved to CPU 1 before it runs: the same. pid 23, woken where
 * it last ran (CPU 1) but queued on CPU 0 (its sched_wakeup says so),
 * waits there: 300 ns. pid 24, woken where it last ran (CPU 0), has no
 * sched_wakeup seen either: the waker sent it through the wake list to
 * CPU 1, whose sched_wakeup fired there (a waker queueing it itself, or
 * one finding it still queued, fires it on its own CPU, traced): no
 * wait. */
static void cpumask_left_out(void)
{
	struct got g = { .n = 0 };
	struct derive *d = start_woken(&g);

	if (!d)
		return;
	derive_untraced(d, 1);
	CHECK_INT(derive_waking(d, 2000, 20, KIND_WAKING, 10, 1), 1);
	derive_waking_cpu(d, 20, 1);
	CHECK_INT(derive_waking(d, 2100, 21, KIND_WAKING, 10, 1), 1);
	derive_waking_cpu(d, 21, 0);
	CHECK_INT(derive_waking(d, 2110, 21, KIND_WAKEUP, 10, 1), 0);
	derive_queued(d, 21, 1);
	CHECK_INT(derive_waking(d, 2200, 22, KIND_WAKING, 10, 1), 1);
	derive_waking_cpu(d, 22, 0);
	derive_queued(d, 22, 0);
	derive_queued(d, 22, 1);
	CHECK_INT(derive_waking(d, 2300, 23, KIND_WAKING, 10, 1), 1);
	derive_waking_cpu(d, 23, 1);
	CHECK_INT(derive_waking(d, 2310, 23, KIND_WAKEUP, 10, 1), 0);
	derive_queued(d, 23, 0);
	CHECK_INT(derive_waking(d, 2400, 24, KIND_WAKING, 10, 1), 1);
	derive_waking_cpu(d, 24, 0);
	CHECK_INT(derive_oldest_wakeup(d, 0), 2000);
	CHECK_INT(derive_switch(d, 2600, 0, 10, 1, 120, 1, 23, 5, 120), 0);
	CHECK_INT(derive_switch(d, 2700, 0, 23, 5, 120, 1, 20, 2, 120), 0);
	CHECK_INT(derive_switch(d, 2800, 0, 20, 2, 120, 1, 21, 3, 120), 0);
	CHECK_INT(derive_switch(d, 2900, 0, 21, 3, 120, 1, 22, 4, 120), 0);
	CHECK_INT(derive_switch(d, 2950, 0, 22, 4, 120, 1, 24, 6, 120), 0);
	CHECK_INT(nwoke, 1);
	CHECK_INT(woke[0].pid, 23);
	CHECK_INT(woke[0].latency, 300);
	CHECK_INT(derive_finish(d, 3000), 0);
	derive_free(d);
}

/* The letters of a 4.4 kernel's sched_switch format (its raw task state:
 * Z 16, X 32, x 64, K 128, W 256, P 512, N 1024, R+ 2048) and a 3.x's
 * (no N: P 512, R+ 1024), in today's numbering; today's table passes
 * values as they are. */
static const char letters_4_4[] =
	"1:S,2:D,4:T,8:t,16:Z,32:X,64:x,128:K,256:W,512:P,1024:N,0:R,+2048";

static void states_of_older_kernels(void)
{
	struct state_map m;

	state_map_init(&m, "1:S,2:D,4:T,8:t,16:X,32:Z,64:P,128:I,0:R,+256");
	CHECK_INT(m.identity, 1);
	CHECK_INT(state_today(&m, 1026), 1026);
	state_map_init(&m, NULL);
	CHECK_INT(m.identity, 1);
	state_map_init(&m, letters_4_4);
	CHECK_INT(m.identity, 0);
	CHECK_INT(state_today(&m, 0), 0);		/* R */
	CHECK_INT(state_today(&m, -1), -1);		/* not known */
	CHECK_INT(state_today(&m, 2048), 256);		/* R+ */
	CHECK_INT(state_today(&m, 1), 1);		/* S */
	CHECK_INT(state_today(&m, 1026), 128);		/* D|N: TASK_IDLE, I */
	CHECK_INT(state_today(&m, 130), 2);		/* D|K: TASK_KILLABLE, D */
	CHECK_INT(state_today(&m, 64), 16);		/* x: TASK_DEAD */
	CHECK_INT(state_today(&m, 16), 32);		/* Z */
	CHECK_INT(state_today(&m, 32), 16);		/* X */
	CHECK_INT(state_today(&m, 512), 64);		/* P */
	CHECK_INT(state_today(&m, 4096), 4096);		/* a bit not named */
	CHECK_INT(state_dead(state_today(&m, 64)), 1);
	CHECK_INT(state_dead(state_today(&m, 2048)), 0);
	/* 4.8-4.13: TASK_NEW (2048) not in the table, R+ at 4096 */
	state_map_init(&m, "1:S,2:D,4:T,8:t,16:Z,32:X,64:x,128:K,256:W,512:P,1024:N,0:R,+4096");
	CHECK_INT(state_today(&m, 4096), 256);
	CHECK_INT(state_today(&m, 1026 | 4096), 128 | 256);
	state_map_init(&m, "1:S,2:D,4:T,8:t,16:Z,32:X,64:x,128:K,256:W,512:P,0:R,+1024");
	CHECK_INT(state_today(&m, 1024), 256);
	CHECK_INT(state_today(&m, 130), 2);
}

/* With a 4.4 kernel's table, a task's time off the CPUs is in today's
 * numbering (thread_state reads it so), its slice's end state the
 * kernel's own: pid 10 leaves in D|N (1026, TASK_IDLE) at 2000, pid 11
 * preempted (2048) at 3000. */
static void off_state_of_older_kernel(void)
{
	struct got g;
	struct state_map m;
	struct derive *d = start_10(&g);

	if (!d)
		return;
	state_map_init(&m, letters_4_4);
	derive_states(d, &m);
	CHECK_INT(derive_switch(d, 2000, 0, 10, 1, 120, 1026, 11, 3, 120), 0);
	CHECK_INT(derive_switch(d, 3000, 0, 11, 3, 120, 2048, 10, 1, 120), 0);
	CHECK_INT(derive_switch(d, 4000, 0, 10, 1, 120, 1, 11, 3, 120), 0);
	CHECK_INT(derive_finish(d, 4500), 0);
	derive_free(d);
	CHECK_INT(g.n, 4);
	CHECK_INT(g.s[0].end_state, 1026);
	CHECK_INT(g.s[1].end_state, 2048);
	CHECK_INT(g.s[2].pid, 10);
	CHECK_INT(g.s[2].off_dur, 1000);
	CHECK_INT(g.s[2].off_state, 128);
	CHECK_INT(g.s[3].pid, 11);
	CHECK_INT(g.s[3].off_dur, 1000);
	CHECK_INT(g.s[3].off_state, 256);
}

/* A switch-out in plain R (0: not preempted) that a waking follows, no
 * waking pending: the task was not runnable (6.1 to 6.12 report a
 * frozen task, TASK_FROZEN, as R; its thaw wakes it), its time off the
 * CPUs asleep (DERIVE_STATE_ASLEEP), as after a sched_wakeup alone. A
 * yield's R, no waking after it, stays runnable. */
static void r_then_waking_asleep(void)
{
	struct got g;
	struct derive *d = start_10(&g);

	if (!d)
		return;
	CHECK_INT(derive_switch(d, 2000, 0, 10, 1, 120, 0, 11, 3, 120), 0);
	CHECK_INT(derive_waking(d, 3000, 10, KIND_WAKING, 11, 3), 1);
	CHECK_INT(derive_switch(d, 4000, 0, 11, 3, 120, 0, 10, 1, 120), 0);
	CHECK_INT(derive_switch(d, 5000, 0, 10, 1, 120, 1, 11, 3, 120), 0);
	CHECK_INT(derive_finish(d, 6000), 0);
	derive_free(d);
	CHECK_INT(g.n, 4);
	CHECK_INT(g.s[2].pid, 10);
	CHECK_INT(g.s[2].off_dur, 2000);
	CHECK_INT(g.s[2].off_state, DERIVE_STATE_ASLEEP);
	CHECK_INT(g.s[3].pid, 11);	/* yielded in R at 4000, no waking */
	CHECK_INT(g.s[3].off_dur, 1000);
	CHECK_INT(g.s[3].off_state, 0);
}

/* A running capture shows each CPU's open slice on the row of the switch
 * that began it, as still running at the newest event; a slice that then
 * ends otherwise than at its own switch-out (a rename here, a loss) says
 * it was shown, for its row to be taken back. */
static void show_open(void)
{
	struct got g, shown = { .n = 0 };
	struct derive *d = start_10(&g);

	if (!d)
		return;
	derive_switch_ref(d, 0, 77);
	CHECK_INT(derive_show_open(d, 4000, on_slice, &shown), 0);
	CHECK_INT(shown.n, 1);
	CHECK_INT(shown.s[0].ts, 1000);
	CHECK_INT(shown.s[0].dur, 3000);
	CHECK_INT(shown.s[0].end_state, -1);
	CHECK_INT(shown.s[0].ref, 77);
	CHECK_INT(shown.s[0].ref_pid, 10);
	CHECK_INT(shown.s[0].end_err, -1);
	CHECK_INT(shown.s[0].shown, 1);
	/* its switch-out ends it on its row: the ordinary slice */
	CHECK_INT(derive_switch(d, 5000, 0, 10, 1, 120, 1, 11, 3, 120), 0);
	derive_switch_ref(d, 0, 78);
	CHECK_INT(g.n, 1);
	CHECK_INT(g.s[0].dur, 4000);
	CHECK_INT(g.s[0].end_state, 1);
	CHECK_INT(g.s[0].ref, 77);
	/* pid 11's, shown at 6000, renamed at 7000: the part before is a
	 * row of its own (shown: the switch's row is taken back) */
	CHECK_INT(derive_show_open(d, 6000, on_slice, &shown), 0);
	CHECK_INT(shown.n, 2);
	CHECK_INT(shown.s[1].ts, 5000);
	CHECK_INT(shown.s[1].dur, 1000);
	CHECK_INT(shown.s[1].pid, 11);
	CHECK_INT(shown.s[1].own_row, 0);
	CHECK_INT(derive_rename(d, 7000, 11, 4), 0);
	CHECK_INT(g.n, 2);
	CHECK_INT(g.s[1].ts, 5000);
	CHECK_INT(g.s[1].dur, 2000);
	CHECK_INT(g.s[1].ref, 78);
	CHECK_INT(g.s[1].shown, 1);
	/* the part after began at no switch: a row of its own while it
	 * runs */
	CHECK_INT(derive_show_open(d, 8000, on_slice, &shown), 0);
	CHECK_INT(shown.n, 3);
	CHECK_INT(shown.s[2].ts, 7000);
	CHECK_INT(shown.s[2].dur, 1000);
	CHECK_INT(shown.s[2].pid, 11);
	CHECK_INT(shown.s[2].own_row, 1);
	CHECK_INT(shown.s[2].shown, 0);
	CHECK_INT(shown.s[2].end_state, -1);
	CHECK_INT(derive_finish(d, 9000), 0);
	CHECK_INT(g.n, 3);
	CHECK_INT(g.s[2].ts, 7000);
	CHECK_INT(g.s[2].shown, 0);
	derive_free(d);

	/* shown, then a loss on its CPU: not whole any more, taken back at
	 * the next commit (not left as it stood), and it ends as a row of
	 * its own with nothing left to take back */
	d = start_10(&g);
	if (!d)
		return;
	derive_switch_ref(d, 0, 79);
	shown.n = 0;
	CHECK_INT(derive_show_open(d, 2000, on_slice, &shown), 0);
	CHECK_INT(shown.n, 1);
	CHECK_INT(derive_lost(d, 0, 2500), 0);
	CHECK_INT(derive_show_open(d, 3000, on_slice, &shown), 0);
	CHECK_INT(shown.n, 2);
	CHECK_INT(shown.s[1].shown, 0);
	CHECK_INT(shown.s[1].ts, 1000);
	CHECK_INT(shown.s[1].ref, 79);
	CHECK_INT(derive_show_open(d, 3500, on_slice, &shown), 0);
	CHECK_INT(shown.n, 2);	/* once */
	CHECK_INT(derive_switch(d, 4000, 0, 10, 1, 120, 1, 0, 9, 120), 0);
	CHECK_INT(derive_finish(d, 5000), 0);
	CHECK_INT(g.n, 1);
	CHECK_INT(g.s[0].lost, 1);
	CHECK_INT(g.s[0].shown, 0);
	derive_free(d);
}

/* A thread that execs takes its leader's pid (20 here) while it runs: a
 * slice shown on the switch that switched in pid 10 is taken back by
 * that switch's pid, not by the pid the task runs as now. */
static int takes_20(void *ctx, int32_t running, int32_t seen)
{
	(void)ctx;
	return running == 10 && seen == 20;
}

static void show_open_exec_takeover(void)
{
	struct got g = { .n = 0 }, shown = { .n = 0 };
	struct derive_ops ops = { .slice = on_slice, .ctx = &g, .switches = 1,
				  .took_pid = takes_20 };
	struct derive *d = derive_new(&ops);

	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_INT(derive_seen(d, 1000, 0, 0, 9, 0, 0, NULL), 0);
	CHECK_INT(derive_switch(d, 1000, 0, 0, 9, 120, 0, 10, 1, 120), 0);
	derive_switch_ref(d, 0, 80);
	g.n = 0;
	CHECK_INT(derive_show_open(d, 2000, on_slice, &shown), 0);
	CHECK_INT(shown.n, 1);
	CHECK_INT(derive_seen(d, 3000, 0, 20, 5, 0, 0, NULL), 0);
	CHECK_INT(g.n, 1);	/* the part before the exec: a row of its own */
	CHECK_INT(g.s[0].ts, 1000);
	CHECK_INT(g.s[0].shown, 1);
	CHECK_INT(g.s[0].ref, 80);
	CHECK_INT(g.s[0].ref_pid, 10);
	/* the part after: no switch began it, a row of its own */
	CHECK_INT(derive_show_open(d, 4000, on_slice, &shown), 0);
	CHECK_INT(shown.n, 2);
	CHECK_INT(shown.s[1].pid, 20);
	CHECK_INT(shown.s[1].ts, 3000);
	CHECK_INT(shown.s[1].own_row, 1);
	CHECK_INT(derive_finish(d, 5000), 0);
	CHECK_INT(g.n, 2);
	CHECK_INT(g.s[1].pid, 20);
	CHECK_INT(g.s[1].shown, 0);
	derive_free(d);
}

/* This VM's CPU 1: the switch out of idle is not recorded, and the task
 * seen after it began its slice by inference. While it runs it is shown
 * as a row of its own, from its start as placed so far (the runtime
 * moves it back); ended, its row is an ordinary one. */
static void show_open_inferred(void)
{
	struct got g, shown = { .n = 0 };
	struct derive *d = start(&g);

	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_INT(derive_switch(d, 1000, 0, 10, 1, 120, 1, 0, 9, 120), 0);
	derive_switch_ref(d, 0, 90);
	CHECK_INT(derive_seen(d, 5000, 0, 11, 3, 0, 1, NULL), 0);
	CHECK_INT(derive_show_open(d, 5000, on_slice, &shown), 0);
	CHECK_INT(shown.n, 1);	/* (idle's is not shown) */
	CHECK_INT(shown.s[0].pid, 11);
	CHECK_INT(shown.s[0].ts, 5000);
	CHECK_INT(shown.s[0].own_row, 1);
	CHECK_INT(shown.s[0].shown, 0);
	CHECK_INT(shown.s[0].end_state, -1);
	CHECK(shown.s[0].start_err >= 0);
	CHECK_INT(derive_runtime(d, 5000, 0, 11, 11, 3500), 0);
	CHECK_INT(derive_show_open(d, 6000, on_slice, &shown), 0);
	CHECK_INT(shown.n, 2);
	CHECK_INT(shown.s[1].ts, 1500);
	CHECK_INT(shown.s[1].dur, 4500);
	CHECK_INT(shown.s[1].own_row, 1);
	/* switched out: its row; idle's after it is shown too (below) */
	CHECK_INT(derive_switch(d, 7000, 0, 11, 3, 120, 1, 0, 9, 120), 0);
	CHECK_INT(derive_show_open(d, 7500, on_slice, &shown), 0);
	CHECK_INT(shown.n, 2);
	CHECK_INT(derive_finish(d, 8000), 0);
	derive_free(d);
	CHECK_INT(g.n, 1);
	CHECK_INT(g.s[0].pid, 11);
	CHECK_INT(g.s[0].ts, 1500);
	CHECK_INT(g.s[0].dur, 5500);
	CHECK_INT(g.s[0].own_row, 0);
	CHECK_INT(g.s[0].shown, 0);
}

/* An idle CPU's open slice, begun by its recorded switch into idle or
 * by inference, is shown as a row of its own while it lasts (its switch's
 * row is an old page on a CPU idle for long), to the newest event; not
 * once a loss broke its CPU's records. */
static void show_open_idle(void)
{
	struct got g, shown = { .n = 0, .idle = 1 };
	struct derive *d = start_10(&g);

	if (!d)
		return;
	/* the idle task's slice before 1000: closed by the first switch */
	CHECK_INT(derive_show_open(d, 2000, on_slice, &shown), 0);
	CHECK_INT(shown.n, 1);
	CHECK_INT(shown.s[0].pid, 10);
	CHECK_INT(derive_switch(d, 3000, 0, 10, 1, 120, 1, 0, 9, 120), 0);
	derive_switch_ref(d, 0, 80);
	CHECK_INT(derive_show_open(d, 4000, on_slice, &shown), 0);
	CHECK_INT(shown.n, 2);
	CHECK_INT(shown.s[1].pid, 0);
	CHECK_INT(shown.s[1].ts, 3000);
	CHECK_INT(shown.s[1].dur, 1000);
	CHECK_INT(shown.s[1].own_row, 1);
	CHECK_INT(shown.s[1].shown, 0);
	CHECK_INT(shown.s[1].end_state, -1);
	CHECK_INT(shown.s[1].start_err, -1);
	CHECK_INT(derive_show_open(d, 9000, on_slice, &shown), 0);
	CHECK_INT(shown.n, 3);
	CHECK_INT(shown.s[2].ts, 3000);
	CHECK_INT(shown.s[2].dur, 6000);
	/* a loss on its CPU: its records broken, no longer shown */
	CHECK_INT(derive_lost(d, 0, 9500), 0);
	CHECK_INT(derive_show_open(d, 10000, on_slice, &shown), 0);
	CHECK_INT(shown.n, 3);
	derive_free(d);
}

/* A slice begun by inference is placed back by its task's first run
 * time (its clock's start), but not before the wakeup that put it on a
 * run queue: a wakeup that preempts freezes the queue's clock at the
 * enqueue, and the woken task's clock starts at that frozen time, before
 * its sched_wakeup (the queue's lock held from the enqueue through the
 * event): the task was shown running up to 29 us before it was woken,
 * the time taken from the task before (a helper's live captures with
 * sched_stat_runtime: 48 such slices; the big trace's import: 3). */
static void inferred_start_after_wakeup(void)
{
	struct got g;
	struct derive *d = start_10(&g);

	if (!d)
		return;
	CHECK_INT(derive_waking(d, 2000, 11, KIND_WAKING, 10, 1), 1);
	CHECK_INT(derive_waking(d, 2500, 11, KIND_WAKEUP, 10, 1), 0);
	/* pid 11 seen on CPU 0 with no switch: 10's switch-out not traced */
	CHECK_INT(derive_seen(d, 5000, 0, 11, 3, 0, 1, NULL), 0);
	/* its clock started at 1800 (the queue's, frozen at the enqueue) */
	CHECK_INT(derive_runtime(d, 5000, 0, 11, 11, 3200), 0);
	CHECK_INT(derive_switch(d, 6000, 0, 11, 3, 120, 1, 0, 9, 120), 0);
	CHECK_INT(derive_finish(d, 7000), 0);
	derive_free(d);
	CHECK_INT(g.n, 2);
	CHECK_INT(g.s[1].pid, 11);
	CHECK_INT(g.s[1].ts, 2500);	/* not 1800 */
	CHECK_INT(g.s[1].dur, 3500);
	CHECK_INT(g.s[0].pid, 10);
	CHECK(g.s[0].ts + g.s[0].dur <= 2500);
}

int main(void)
{
	RUN(rename_inside);
	RUN(rename_part_takes_switch_out_prio);
	RUN(rename_last);
	RUN(switch_last);
	RUN(rename_inferred);
	RUN(idle_inferred);
	RUN(restart);
	RUN(restart_undone);
	RUN(no_restart);
	RUN(remote_clock_end);
	RUN(remote_clock_latest);
	RUN(remote_clock_start);
	RUN(name_at_switch_out);
	RUN(name_at_inferring_runtime);
	RUN(oldest_wakeup);
	RUN(rewaking);
	RUN(woken_runs_unseen);
	RUN(cpumask_left_out);
	RUN(states_of_older_kernels);
	RUN(off_state_of_older_kernel);
	RUN(r_then_waking_asleep);
	RUN(show_open);
	RUN(show_open_exec_takeover);
	RUN(show_open_inferred);
	RUN(show_open_idle);
	RUN(inferred_start_after_wakeup);
	return check_done("test_derive");
}
