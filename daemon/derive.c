/* derive.c — see derive.h. */
#include "derive.h"
#include "states.h"
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS 8192
#define CHUNK_SHIFT 10
#define CHUNK (1u << CHUNK_SHIFT)

/* A task's time off the CPUs: it was switched out at ts on cpu in state
 * state, as row hid, and has not run since (known: all that is known). */
struct off {
	uint64_t ts;
	int32_t state, cpu;	/* state DERIVE_STATE_NEW: from its birth */
	uint32_t hid;
	int known;
	int woken;		/* a new task's sched_wakeup_new came */
};

struct running {		/* the open slice of a CPU */
	int active;
	uint64_t start;
	int start_known;
	int32_t pid, prio;	/* prio DERIVE_PRIO_UNKNOWN: not switched in */
	int prio_late;		/* a rename split it: the part open now takes
				 * the switch-out's prio (chrt, nice and
				 * renice set it, then exec the program) */
	uint32_t hid;		/* the task's row since start */
	int lost;
	int64_t start_err;	/* -1: a recorded switch or rename began it */
	uint64_t gap_lo;	/* inferred start: where the gap began */
	/* inferred start: the task's wakeup since it went off the CPUs (0:
	 * none seen); a switch-in's is its switch row's wake_latency */
	uint64_t woke;
	/* inferred start: its wakeup's enqueue (sched_wakeup), which the
	 * switch in comes after (0: none seen) */
	uint64_t enq;
	int placed;		/* inferred start: no longer moved */
	uint64_t last_ts;	/* the last event on this CPU */
	uint64_t seen_before;	/* last_ts before the running task's latest */
	uint64_t clock_ts;	/* its clock's last update from another CPU */
	/* A restart of the task's clock (derive_runtime), held until the
	 * CPU's next event shows it is not the switch-out's own update:
	 * restart_lo, restart_at as restart_slice's lo and s; restart_n the
	 * task's events on the CPU since */
	int restart;
	unsigned restart_n;
	uint64_t restart_lo, restart_at;
	int held;		/* prev: ended by inference, its end may move */
	/* head: the part of a slice begun by inference before a rename
	 * split it, held while sched_stat_runtime may still move its start
	 * (the part after begins at the rename, not by inference) */
	int head_held;
	struct derive_slice head;
	uint64_t ref;		/* the switch that began it (derive_switch_ref) */
	uint32_t ref_hid;	/* the row that switch gave the task */
	int32_t ref_pid;	/* and the pid it switched in */
	/* The tail of a recorded switch: until another task's event comes,
	 * events of tail_pid (its prev) are the context switch's own (see
	 * derive_seen). After a switch out of idle only switch_mm's
	 * tlb_flush: the idle loop's own events (timer_base_idle,
	 * tick_stop, ...) after it mean a switch back to idle nobody
	 * recorded, as some kernels do not. */
	int gone;		/* offline at the end (derive_cpu_gone) */
	int untraced;		/* never traced (derive_untraced) */
	uint64_t loss_ts;	/* its last loss's stamp (derive_lost) */
	int gap;		/* its records after its last are lost, up to
				 * the next, which says so (derive_gap) */
	int in_tail;		/* TAIL_TASK, TAIL_IDLE or 0 */
	int32_t tail_pid;
	int shown;		/* derive_show_open gave it (ref's row) */
	struct off off;		/* the task's, just before this slice */
	struct derive_slice prev;
};

enum { TAIL_TASK = 1, TAIL_IDLE };

struct wake {			/* a pending wakeup of a pid */
	uint64_t ts;		/* 0: none */
	int32_t waker_pid;
	uint32_t waker_hid;
	uint64_t ref;		/* the waking's (derive_waking_ref) */
	int32_t ref_cpu, ref_kind;
	int open_pair;		/* a waking began it: its sched_wakeup may follow */
	/* That waking came while the task ran, and it switched out before
	 * the sched_wakeup: the waker queued it to its CPU's wake list or
	 * waited for it to leave the CPU, and whoever runs there then fires
	 * the wakeup (idle, often). The waking's waker is the waker; the
	 * wakeup's row (its pid is not the waker) does not carry it. */
	int ran_woken, keep_waker;
	int from_untraced;	/* that waking's task last ran on a CPU not
				 * traced (derive_waking_cpu) */
	int32_t tail_cpu;	/* + 1: the CPU whose switch's tail it is in */
	struct off off;		/* its time off the CPUs so far */
	uint64_t clock_ts;	/* its clock's last update from another CPU */
	/* the first such update while no CPU had it running (0: none),
	 * where its clock had started then (ts - runtime), and the wakeup
	 * it found pending (ended there, unseen; 0: none) */
	uint64_t rfirst_ts, rfirst_start, rfirst_woke;
	/* the pending wakeup's sched_wakeup (or _new): the task was put on
	 * a run queue there, under that queue's lock until the event fired
	 * (0: not yet, or not seen) */
	uint64_t enq_ts;
};

struct derive {
	struct derive_ops ops;
	struct running *cpus;
	size_t ncpus;
	struct wake **chunks;
	uint32_t *npending;	/* per chunk: its wakes with ts set */
	size_t nchunks;
	uint64_t first_ts;	/* the capture's first event */
	int any;		/* first_ts is set */
	const struct state_map *states;	/* NULL: today's numbering */
	unsigned gaps;		/* CPUs in a gap (derive_gap) */
	int some_untraced;	/* a CPU is never traced (derive_untraced) */
	int not_ns;		/* derive_clock_not_ns */
};

struct derive *derive_new(const struct derive_ops *ops)
{
	struct derive *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->ops = *ops;
	return d;
}

void derive_free(struct derive *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nchunks; i++)
		free(d->chunks[i]);
	free(d->chunks);
	free(d->npending);
	free(d->cpus);
	free(d);
}

static struct running *cpu_state(struct derive *d, int cpu)
{
	if (cpu < 0 || cpu >= MAX_CPUS)
		return NULL;
	if ((size_t)cpu >= d->ncpus &&
	    grow_array(&d->cpus, &d->ncpus, sizeof(*d->cpus), (size_t)cpu + 1, 1))
		return NULL;
	return &d->cpus[cpu];
}

static struct wake *wake_of(struct derive *d, int32_t pid)
{
	size_t c;

	if (pid <= 0)
		return NULL;
	c = (uint32_t)pid >> CHUNK_SHIFT;
	if (c >= d->nchunks) {
		size_t n = d->nchunks;

		if (grow_array(&d->npending, &n, sizeof(*d->npending), c + 1, 1) ||
		    grow_array(&d->chunks, &d->nchunks, sizeof(*d->chunks), c + 1, 1))
			return NULL;
	}
	if (!d->chunks[c] && !(d->chunks[c] = calloc(CHUNK, sizeof(struct wake))))
		return NULL;
	return &d->chunks[c][(uint32_t)pid & (CHUNK - 1)];
}

/* pid's pending wakeup (w its wake) begins at ts, or ends (ts 0). */
static void set_wake(struct derive *d, int32_t pid, struct wake *w, uint64_t ts)
{
	uint32_t *n = &d->npending[(uint32_t)pid >> CHUNK_SHIFT];

	if (!w->ts != !ts)
		*n += ts ? 1 : (uint32_t)-1;
	w->ts = ts;
}

uint64_t derive_oldest_wakeup(const struct derive *d, uint64_t after)
{
	uint64_t oldest = 0;

	for (size_t c = 0; c < d->nchunks; c++) {
		if (!d->npending[c])
			continue;
		for (unsigned i = 0; i < CHUNK; i++) {
			uint64_t t = d->chunks[c][i].ts;

			if (t > after && (!oldest || t < oldest))
				oldest = t;
		}
	}
	return oldest;
}

/* pid left the CPU of its last switch-out for good (it was woken: not
 * the waking, which may come while it is still switching out, but the
 * wakeup, which waits for that; or it was switched in somewhere): its
 * events there are no longer that switch's tail. */
static void end_tail(struct derive *d, struct wake *w, int32_t pid)
{
	struct running *r;

	if (!w || !w->tail_cpu)
		return;
	r = cpu_state(d, w->tail_cpu - 1);
	if (r && r->in_tail && r->tail_pid == pid)
		r->in_tail = 0;
	w->tail_cpu = 0;
}

static int emit(struct derive *d, const struct derive_slice *s)
{
	return d->ops.slice ? d->ops.slice(d->ops.ctx, s) : 0;
}

/* The held rows, in time order: the slice before an inferred start, then
 * the head of the slice begun there. */
static int flush_held(struct derive *d, struct running *r)
{
	int rc = 0;

	if (r->held) {
		r->held = 0;
		rc = emit(d, &r->prev);
	}
	if (r->head_held && !rc) {
		r->head_held = 0;
		rc = emit(d, &r->head);
	}
	return rc;
}

/* The open slice as a row ending at ts (its end_err, end_state given). */
static struct derive_slice open_slice(const struct running *r, int cpu,
				      uint64_t ts, uint32_t hid, int64_t state,
				      int64_t end_err)
{
	struct derive_slice s = {
		.ts = r->start, .dur = ts >= r->start ? ts - r->start : 0,
		.cpu = cpu, .pid = r->pid, .hid = hid, .prio = r->prio,
		.end_state = state, .lost = r->lost, .start_known = r->start_known,
		.start_err = r->start_err, .end_err = end_err,
		.ref = r->ref, .ref_hid = r->ref_hid, .ref_pid = r->ref_pid,
		.off_dur = r->off.known && r->start >= r->off.ts ?
			   (int64_t)(r->start - r->off.ts) : -1,
		.off_state = r->off.state, .off_cpu = r->off.cpu,
		.off_hid = r->off.hid,
		.wake_dur = r->off.known && r->woke && r->woke >= r->off.ts &&
			    r->start >= r->woke ? (int64_t)(r->start - r->woke) : -1,
		.shown = r->shown,
	};

	return s;
}

/* The states a task's time off the CPUs is known in: any its switch-out
 * gives, but for a dead one (X, Z: it does not come back). */
static int off_state_known(int64_t state)
{
	return state >= 0 && state <= INT32_MAX && !state_dead(state);
}

/* The open slice ends at ts, under the name it has had since its start or
 * its last split (a name first shown by the switch-out itself is the
 * task's from then on: comm_history begins it there); hid is the task's
 * row at the switch-out, which names its time off the CPUs. */
static int close_slice(struct derive *d, struct running *r, int cpu, uint64_t ts,
		       uint32_t hid, int64_t state)
{
	struct derive_slice s = open_slice(r, cpu, ts, r->hid, state, -1);
	int rc = flush_held(d, r);
	struct wake *w;

	r->active = 0;
	/* (the slice ends in the kernel's own state; its time off the CPUs
	 * is in today's numbering, for thread_state) */
	if (d->states)
		state = state_today(d->states, state);
	/* Switched out of an unbroken slice: its time off the CPUs begins. */
	if (!r->lost && !d->gaps && off_state_known(state) && (w = wake_of(d, r->pid))) {
		w->off.known = 1;
		w->off.ts = ts;
		w->off.state = (int32_t)state;
		w->off.cpu = cpu;
		w->off.hid = hid;
		w->off.woken = 0;
	}
	return rc ? rc : emit(d, &s);
}

/* A slice of w's task begins: its time off the CPUs ends. */
static struct off take_off(struct wake *w)
{
	struct off o = { .known = 0 };

	if (w && w->off.known) {
		o = w->off;
		w->off.known = 0;
		/* a new task not seen woken: where its wait began is not
		 * known (the recording has no sched_wakeup_new) */
		if (o.state == DERIVE_STATE_NEW && !o.woken)
			o.known = 0;
	}
	return o;
}

/* A distance back from a slice's start (d; -1: none) once the start
 * moved back by: shorter by that, none when the start passed it. */
static int64_t nearer(int64_t d, uint64_t by)
{
	return d >= 0 && (int64_t)by <= d ? d - (int64_t)by : -1;
}

/* The CPU's open slice begins at ts: a switch-in (start_err -1) or an
 * inferred start (the gap's width; sched_stat_runtime may still place it). */
static void begin_slice(struct running *r, uint64_t ts, int32_t pid, uint32_t hid,
			int32_t prio, int64_t start_err)
{
	r->active = 1;
	r->start = ts;
	r->start_known = 1;
	r->pid = pid;
	r->hid = hid;
	r->prio = prio;
	r->prio_late = 0;
	r->lost = 0;
	r->start_err = start_err;
	r->placed = start_err < 0;
	r->last_ts = ts;
	r->clock_ts = 0;
	r->ref = 0;
	r->ref_hid = hid;
	r->in_tail = 0;
	r->off.known = 0;
	r->woke = 0;
	r->enq = 0;
	r->shown = 0;
}

/* A slice of pid begins at ts by inference: its switch-in happened
 * somewhere after lo (the gap's width its start_err), no wakeup latency
 * runs to it. */
static void begin_inferred(struct derive *d, struct running *r, uint64_t ts,
			   int32_t pid, uint32_t hid, uint64_t lo)
{
	struct wake *w;
	uint64_t woke;

	if (lo > ts)
		lo = ts;
	begin_slice(r, ts, pid, hid, DERIVE_PRIO_UNKNOWN, (int64_t)(ts - lo));
	r->gap_lo = lo;
	w = wake_of(d, pid);
	woke = w ? w->ts : 0;
	/* Its switch in came after its wakeup put it on a run queue: no
	 * clock start places it before (a wakeup that preempts freezes the
	 * queue's clock at the enqueue, and the task's clock starts at that
	 * frozen time, before the sched_wakeup's own). */
	r->enq = w && w->ts && w->enq_ts > lo && w->enq_ts <= ts ? w->enq_ts : 0;
	/* Another CPU updated its clock in the gap while no CPU had it
	 * running: it ran (here: it is here now) from where that clock
	 * started, or from the gap's start. A runtime of its own later
	 * counts from a later update, so it does not move this again. */
	if (w && w->rfirst_ts > lo && w->rfirst_ts <= ts) {
		uint64_t s = w->rfirst_start > lo ? w->rfirst_start : lo;

		if (s < r->enq)
			s = r->enq;
		if (!woke)
			woke = w->rfirst_woke;

		r->start = s;
		if (r->held && r->prev.pid == 0 && r->prev.ts <= s)
			r->prev.dur = s - r->prev.ts;
	}
	if (w)
		w->rfirst_ts = 0;
	r->off = take_off(w);
	/* a new task's wait ends at a switch in seen: here not even its
	 * wakeup_new's latency says where the runnable part ends */
	if (r->off.state == DERIVE_STATE_NEW)
		r->off.known = 0;
	/* Its wakeup gives no wakeup_latency row (where the wait ended is
	 * known only to start_err), but it ends the sleep: thread_state
	 * and offcpu read it from the slice's row (dv_sched.wake_latency,
	 * to the start as placed). */
	if (woke && r->off.known && woke >= r->off.ts)
		r->woke = woke;
	if (w)
		set_wake(d, pid, w, 0);
}

/* The kernel's clock of the running task restarted at s, past lo, the
 * last sign of it running here (see derive_runtime): the slice ends at lo
 * by inference, nothing is known of the time up to s, and the task runs
 * again from s, as after a switch-in nobody recorded. */
static int restart_slice(struct derive *d, struct running *r, int cpu)
{
	uint64_t lo = r->restart_lo, s = r->restart_at, last = r->last_ts;
	uint64_t clock = r->clock_ts;
	struct derive_slice old;
	int rc;

	if (!r->restart)
		return 0;
	r->restart = 0;
	old = open_slice(r, cpu, lo, r->hid, -1, (int64_t)(s - lo));
	if ((rc = flush_held(d, r)) || (rc = emit(d, &old)))
		return rc;
	begin_slice(r, s, r->pid, r->hid, r->prio, (int64_t)(s - lo));
	r->gap_lo = lo;
	r->placed = 1;
	/* its runtime (and what came after it here, or on another CPU
	 * about it) came after s */
	if (last > s)
		r->last_ts = last;
	if (clock > s)
		r->clock_ts = clock;
	return 0;
}

/* The open slice's task's last sign of running on its CPU, no later than
 * ts: its last event there, or a later update of its clock from another
 * CPU (a wakeup's preemption check there updates the clock of the task
 * running here: it still ran then). */
static uint64_t last_sign(const struct running *r, uint64_t ts)
{
	uint64_t lo = r->last_ts > r->start ? r->last_ts : r->start;

	if (r->clock_ts > lo && r->clock_ts <= ts)
		lo = r->clock_ts;
	return lo > ts ? ts : lo;
}

void derive_switching(struct derive *d, int cpu, int32_t prev_pid)
{
	struct running *r = cpu_state(d, cpu);

	/* the switch-out's own update (derive_runtime) */
	if (r && r->active && r->restart && r->pid == prev_pid && r->restart_n == 1)
		r->restart = 0;
}

void derive_switch_ref(struct derive *d, int cpu, uint64_t ref)
{
	struct running *r = cpu_state(d, cpu);

	if (r && r->active && r->start_err < 0) {
		r->ref = ref;
		r->ref_pid = r->pid;
	}
}

int derive_part(struct derive *d, int cpu, int32_t pid, struct derive_run *run)
{
	struct running *r = cpu_state(d, cpu);

	if (!r || !r->active || r->pid != pid)
		return 0;
	run->hid = r->hid;
	run->start = r->start;
	return 1;
}

/* The CPU other than `except` whose open slice is pid's, begun last (on
 * a tie, the lowest), -1 when none. */
static int running_cpu(const struct derive *d, int32_t pid, int except)
{
	int at = -1;

	for (size_t i = 0; i < d->ncpus; i++) {
		const struct running *o = &d->cpus[i];

		if (o->active && o->pid == pid && (int)i != except &&
		    (at < 0 || o->start > d->cpus[at].start))
			at = (int)i;
	}
	return at;
}

int derive_cpu_of(const struct derive *d, int32_t pid)
{
	return running_cpu(d, pid, -1);
}

/* An event of pid, after a recorded switch and before any other task's,
 * that is the context switch's own (see derive_seen). */
static int in_tail(const struct running *r, int32_t pid, int switch_mm, int own)
{
	return r->in_tail && pid == r->tail_pid && !own &&
	       (r->in_tail == TAIL_TASK || switch_mm);
}

int32_t derive_running(const struct derive *d, int cpu)
{
	const struct running *r;

	if (cpu < 0 || (size_t)cpu >= d->ncpus)
		return -1;
	r = &d->cpus[cpu];
	return r->active ? r->pid : -1;
}

int derive_idle_other(struct derive *d, int cpu, int32_t pid, int switch_mm, int own)
{
	const struct running *r = cpu_state(d, cpu);

	return r && r->active && r->pid == 0 && pid > 0 && !r->lost &&
	       !in_tail(r, pid, switch_mm, own);
}

int32_t derive_other(struct derive *d, int cpu, int32_t pid, int switch_mm,
		     int own, uint32_t *hid)
{
	const struct running *r = cpu_state(d, cpu);

	if (!r || !r->active || r->pid == pid || r->pid <= 0 || r->lost ||
	    in_tail(r, pid, switch_mm, own))
		return -1;
	*hid = r->hid;
	return r->pid;
}

int derive_seen(struct derive *d, uint64_t ts, int cpu, int32_t pid, uint32_t hid,
		int switch_mm, int own, struct derive_run *run)
{
	struct running *r = cpu_state(d, cpu);
	uint64_t lo;
	int rc;

	if (!r)
		return 0;
	if (!d->any) {
		d->any = 1;
		d->first_ts = ts;
	}
	if (!r->active && d->ops.switches) {
		/* The CPU's first event: its task has run since before it,
		 * from somewhere after the capture's start (or the loss
		 * before this event) on. */
		lo = d->first_ts > r->last_ts ? d->first_ts : r->last_ts;
		begin_inferred(d, r, ts, pid, hid, lo);
		if (run)
			run->began = 1;
		return 0;
	}
	if (r->active && r->restart) {
		if (r->pid != pid) {
			if ((rc = restart_slice(d, r, cpu)))
				return rc;
		} else {
			r->restart_n++;
		}
	}
	if (!r->active || r->pid == pid) {
		r->seen_before = r->last_ts;
		r->last_ts = ts;
		r->in_tail = 0;
		if (r->active && r->hid != hid && run) {
			run->hid = r->hid;
			run->start = r->start;
		}
		return 0;
	}
	/* The sched_switch tracepoint fires inside __schedule() before the
	 * context switch itself: until switch_to() the CPU still runs prev,
	 * and what fires there (tlb_flush from switch_mm, x86_fpu from
	 * switching the FPU state, ...) comes from prev. Such events, after
	 * the switch and before any other task's, are its tail, not a switch
	 * nobody recorded. Of idle's, only switch_mm's tlb_flush: the idle
	 * loop does not flush "on task switch", while its other events come
	 * as well after a switch into idle nobody recorded. No sched or
	 * task event fires there: one of prev's (its sched_stat_runtime,
	 * a waking it does, its own switch out) means it runs again, and
	 * its switch in was not recorded (this VM never records a switch
	 * out of swapper/1), not that the context switch goes on. */
	if (in_tail(r, pid, switch_mm, own)) {
		r->last_ts = ts;
		return 0;
	}
	r->in_tail = 0;
	/* A thread that execs takes its leader's pid: the task running here
	 * goes on under it, not a switch nobody recorded. Its slice splits
	 * here, where the pid first shows: the part before is the thread's
	 * tid's, the rest the pid's lifetime begun here (derive_other). */
	if (d->ops.took_pid && r->pid > 0 && pid > 0 && !r->lost &&
	    d->ops.took_pid(d->ops.ctx, r->pid, pid)) {
		r->seen_before = r->last_ts;
		r->last_ts = ts;
		return derive_took(d, cpu, ts, pid, hid);
	}
	/* A switch nobody recorded, somewhere between the old task's last
	 * sign of running here and this event. */
	lo = last_sign(r, ts);
	rc = flush_held(d, r);
	r->prev = open_slice(r, cpu, lo, r->hid, -1, (int64_t)(ts - lo));
	r->held = 1;
	begin_inferred(d, r, ts, pid, hid, lo);
	/* begun somewhere in a gap that holds a loss: across it */
	if (r->loss_ts > lo)
		r->lost = 1;
	if (run)
		run->began = 1;
	return rc;
}

/* What the kernel's clock may leave out of a task's run without the task
 * leaving the CPU (interrupts with IRQ time accounting, a vCPU the host
 * preempted with steal time accounting) is taken for a restart only when
 * it is at least this long and more than half of the time since the last
 * sign of the task: the kernel's clock then ran for less of that time
 * than it stood still. */
#define RESTART_MIN_NS 100000

int derive_runtime(struct derive *d, uint64_t ts, int cpu, int32_t event_pid,
		   int32_t pid, uint64_t runtime)
{
	struct running *r = cpu_state(d, cpu);
	struct derive_slice *h;
	struct wake *w;
	uint64_t s, start, lo;

	/* The task's own, on its CPU: the kernel's run time since its clock
	 * last started (update_curr() restarts it at every such event; a
	 * switch-in starts it). */
	if (!r)
		return 0;
	s = runtime <= ts ? ts - runtime : 0;	/* where the clock started */
	/* Its ns against timestamps in other units (TSC cycles: a slice
	 * split at ts - runtime, cycles less ns) say only that it ran at
	 * ts: it places and restarts nothing. */
	if (d->not_ns)
		s = ts;
	if (!r->active || r->pid != pid || event_pid != pid) {
		/* Another CPU updated pid's clock (a wakeup's preemption
		 * check does, for the task running where it wakes one): a
		 * sign of pid running on its CPU at ts. Where switches went
		 * unrecorded the task may still be open on a CPU it left:
		 * it runs on the one where its open slice began last (on a
		 * tie, the lowest). */
		int c = running_cpu(d, pid, cpu);
		struct running *at = c < 0 ? NULL : &d->cpus[c];

		if ((w = wake_of(d, pid)))
			w->clock_ts = ts;
		if (at) {
			at->clock_ts = ts;
		} else if (w) {
			/* running where no switch in was recorded: its
			 * inferred start may use it (begin_inferred) */
			if (!w->rfirst_ts) {
				w->rfirst_ts = ts;
				w->rfirst_start = s;
				w->rfirst_woke = w->ts;
			}
			/* and a wakeup pending ended there, unseen (a CPU
			 * a cpumask left out: the switch that would end it
			 * is never traced) */
			if (w->ts)
				set_wake(d, pid, w, 0);
		}
		return 0;
	}
	if (!r->head_held && (r->start_err < 0 || r->placed)) {
		if (d->not_ns)
			return 0;
		/* A start already final: the clock started after the last
		 * event here (or the slice's start) only if the task left
		 * the CPU since, and came back, unrecorded. A restart held
		 * before that this clock began before did not happen: that
		 * update read an rq clock that stood still (a wakeup here
		 * skipped its update, and __schedule picked the task again,
		 * no switch traced), and the task ran on. */
		if (r->restart && s < r->restart_at)
			r->restart = 0;
		int rc = restart_slice(d, r, cpu);	/* one held before */

		lo = r->seen_before > r->start ? r->seen_before : r->start;
		if (r->clock_ts > lo && r->clock_ts <= ts)
			lo = r->clock_ts;
		if (!rc && s > lo && s - lo >= RESTART_MIN_NS && s - lo > (ts - lo) / 2) {
			/* Held: if the CPU's next event is the task's
			 * switch-out, this was that switch's own update,
			 * short by the time the rq clock stood still since
			 * a wakeup that preempts (rq_clock_skip_update), and
			 * nothing restarted. */
			r->restart = 1;
			r->restart_n = 0;
			r->restart_lo = lo;
			r->restart_at = s;
		}
		return rc;
	}
	/* The first since its inferred start: the kernel's run time since
	 * it was switched in. A rename since then split the slice: the run
	 * time moves the head's start. */
	r->placed = 1;
	h = r->head_held ? &r->head : NULL;
	start = h ? h->ts : r->start;
	if (s < r->gap_lo)
		s = r->gap_lo;
	/* Every update of its clock restarts it, another CPU's too: it
	 * did not start before the last (a slice of it elsewhere may end
	 * there, derive_seen). */
	w = wake_of(d, pid);
	if (w && w->clock_ts > s && w->clock_ts <= ts)
		s = w->clock_ts;
	if (s < r->enq)
		s = r->enq;
	if (s < start) {
		if (h) {
			/* its time off the CPUs ended at the earlier start */
			h->off_dur = nearer(h->off_dur, h->ts - s);
			/* and its wakeup that much nearer (a wakeup after
			 * it: not this sleep's end) */
			h->wake_dur = nearer(h->wake_dur, h->ts - s);
			h->dur += h->ts - s;
			h->ts = s;
		} else {
			r->start = s;
		}
		/* The slice before ends there too if it is idle's: idle has
		 * no clock of its own to say when it stopped. A task's ends
		 * at its last event: had it run on, its switch-out would
		 * have updated its clock (sched_stat_runtime), and nothing of
		 * it came; the time up to s is not known to be anybody's. */
		if (r->held && r->prev.ts <= s && r->prev.pid == 0)
			r->prev.dur = s - r->prev.ts;
	}
	return flush_held(d, r);
}

int derive_rename(struct derive *d, uint64_t ts, int32_t pid, uint32_t hid)
{
	int cpu = derive_cpu_of(d, pid);

	return cpu < 0 ? 0 : derive_rename_on(d, cpu, ts, pid, hid);
}

int derive_rename_on(struct derive *d, int cpu, uint64_t ts, int32_t pid,
		     uint32_t hid)
{
	struct running *r = cpu_state(d, cpu);
	struct derive_slice s;
	int rc, hold;

	if (!r || !r->active || r->pid != pid)
		return 0;
	if ((rc = restart_slice(d, r, cpu)))
		return rc;
	if (r->hid == hid)
		return 0;
	if (ts <= r->start) {	/* named so from its start */
		r->hid = hid;
		return 0;
	}
	/* A start by inference not yet placed: the part before is
	 * held, as the slice before it, until sched_stat_runtime
	 * places it (or nothing will: the next edge, a loss, the
	 * end). A second rename before that finds it final. */
	hold = r->start_err >= 0 && !r->placed && !r->head_held;
	if (!hold && (rc = flush_held(d, r)))
		return rc;
	s = open_slice(r, cpu, ts, r->hid, -1, -1);
	r->start = ts;
	r->hid = hid;
	r->ref = 0;	/* the next part begins at no switch */
	r->shown = 0;	/* (the part before takes the shown row back) */
	r->start_err = -1;
	r->placed = 1;
	r->lost = 0;
	r->off.known = 0;	/* it follows the part before at once */
	r->prio_late = 1;
	if (hold) {
		r->head = s;
		r->head_held = 1;
		return 0;
	}
	return emit(d, &s);
}

int derive_took(struct derive *d, int cpu, uint64_t ts, int32_t pid, uint32_t hid)
{
	struct running *r = cpu_state(d, cpu);

	if (!r || !r->active || r->pid <= 0 || pid <= 0)
		return 0;
	r->pid = pid;
	return derive_rename_on(d, cpu, ts, pid, hid);
}

int derive_switch(struct derive *d, uint64_t ts, int cpu, int32_t prev_pid,
		  uint32_t prev_hid, int32_t prev_prio, int64_t prev_state,
		  int32_t next_pid, uint32_t next_hid, int32_t next_prio)
{
	struct running *r = cpu_state(d, cpu);
	struct wake *pw, *w;
	struct off off;
	int rc = 0;

	if (!r)
		return 0;
	derive_switching(d, cpu, prev_pid);
	if (r->active && (rc = restart_slice(d, r, cpu)))
		return rc;
	/* next's time off the CPUs ends here (before a switch-out of the
	 * same pid could begin one) */
	w = wake_of(d, next_pid);
	/* Woken, and its sched_wakeup not seen: the kernel fires it right
	 * after the waking (ttwu_do_wakeup), on the CPU that queues the
	 * task, so it was queued where nothing is traced: on the CPU where
	 * it last ran (the waking's target_cpu), or on another, one the
	 * waking's CPU sent it to through the wake list. It came here later
	 * (migrated), maybe after running there and sleeping again: when its
	 * wait ended, and what it did off this CPU, are not known. */
	if (w && w->ts && w->open_pair && (w->from_untraced || d->some_untraced)) {
		w->from_untraced = 1;
		w->off.known = 0;
	}
	off = take_off(w);
	if (w)
		w->rfirst_ts = 0;	/* running here from a recorded switch */
	/* The leader, exited, switched out under the tid a thread's exec
	 * just gave it (the event's pid read before the swap, prev's after):
	 * the task running here goes on under prev's pid (took_pid). */
	if (r->active && r->pid != prev_pid && r->pid > 0 && prev_pid > 0 &&
	    !r->lost && d->ops.took_pid && d->ops.took_pid(d->ops.ctx, r->pid, prev_pid) &&
	    (rc = derive_took(d, cpu, ts, prev_pid, prev_hid)))
		return rc;
	if (r->active) {
		if (r->pid == prev_pid) {
			/* An inferred start had no prio, and a part begun at
			 * a rename or an exec has the prio the task has now
			 * rather than the one it was switched in with: the
			 * switch-out says it. */
			if (r->prio == DERIVE_PRIO_UNKNOWN || r->prio_late)
				r->prio = prev_prio;
			rc = close_slice(d, r, cpu, ts, prev_hid, prev_state);
		} else {
			/* The chain broke (something was not recorded): the
			 * open slice's end is unknown, so it is flagged. */
			r->lost = 1;
			rc = close_slice(d, r, cpu, ts, r->hid, -1);
		}
	}
	/* (pid 0, the idle task, has no wake: no tail of its own either) */
	if ((pw = wake_of(d, prev_pid))) {
		pw->ran_woken = pw->ts && pw->open_pair;
		set_wake(d, prev_pid, pw, 0);	/* woken while still running: no latency row */
	}
	begin_slice(r, ts, next_pid, next_hid, next_prio, -1);
	r->off = off;
	end_tail(d, w, next_pid);
	end_tail(d, pw, prev_pid);
	r->in_tail = pw && prev_pid != next_pid ? TAIL_TASK :
		     prev_pid == 0 && next_pid != 0 ? TAIL_IDLE : 0;
	r->tail_pid = prev_pid;
	if (r->in_tail == TAIL_TASK)
		pw->tail_cpu = cpu + 1;
	if (w && w->ts) {
		/* (queued where nothing is traced: above) */
		if (!(w->open_pair && w->from_untraced) && d->ops.wakeup && !rc &&
		    ts >= w->ts && !d->gaps) {
			struct derive_wakeup u = {
				.ts = w->ts, .latency = ts - w->ts, .cpu = cpu,
				.pid = next_pid, .hid = next_hid,
				.waker_pid = w->waker_pid, .waker_hid = w->waker_hid,
				.ref = w->ref, .ref_cpu = w->ref_cpu,
				.ref_kind = w->ref_kind,
			};

			rc = d->ops.wakeup(d->ops.ctx, &u);
		}
		set_wake(d, next_pid, w, 0);
	}
	return rc;
}

int derive_waking(struct derive *d, uint64_t ts, int32_t pid,
		  enum derive_wake_kind kind, int32_t waker_pid, uint32_t waker_hid)
{
	struct wake *w = wake_of(d, pid);

	if (!w)
		return 0;
	/* (fired by the waker itself, after waiting for the task to leave
	 * its CPU, the wakeup's row names the waker: kept there) */
	int keep = kind == DERIVE_WAKEUP && !w->ts && w->ran_woken &&
		   waker_pid != w->waker_pid;

	w->ran_woken = 0;
	/* (a waking too: the kernel wakes no task still runnable; 6.1 to
	 * 6.12 report a frozen task, TASK_FROZEN, as R, and its thaw wakes
	 * it) */
	if ((kind == DERIVE_WAKEUP || kind == DERIVE_WAKING) && !w->ts && w->off.known &&
	    w->off.state == 0)
		w->off.state = DERIVE_STATE_ASLEEP;
	if (w->ts) {
		/* Only the first waking since it last ran counts: the
		 * sched_wakeup after a sched_waking is the same wakeup. Any
		 * other is a new one: the kernel wakes only a task that is
		 * asleep (a new one only once), so it ran and slept again
		 * where nothing was traced (a CPU a cpumask left out). The
		 * first never ends; its time off the CPUs is not known. */
		if (kind == DERIVE_WAKEUP && w->open_pair) {
			w->open_pair = 0;
			w->enq_ts = ts;
			return 0;
		}
		w->off.known = 0;
	}
	if (kind == DERIVE_WAKEUP_NEW && w->off.known && w->off.state == DERIVE_STATE_NEW)
		w->off.woken = 1;
	w->open_pair = kind == DERIVE_WAKING;
	w->enq_ts = kind == DERIVE_WAKING ? 0 : ts;
	w->from_untraced = 0;
	set_wake(d, pid, w, ts ? ts : 1);
	w->keep_waker = keep;
	if (!keep) {
		w->waker_pid = waker_pid;
		w->waker_hid = waker_hid;
	}
	w->ref = 0;
	return 1;
}

void derive_woken(struct derive *d, int32_t pid)
{
	end_tail(d, wake_of(d, pid), pid);
}

void derive_waking_ref(struct derive *d, int32_t pid, uint64_t ref, int cpu,
		       int kind)
{
	struct wake *w = wake_of(d, pid);

	/* (a wakeup whose waker is not its event's: a row of its own) */
	if (w && w->ts && !w->keep_waker) {
		w->ref = ref;
		w->ref_cpu = cpu;
		w->ref_kind = kind;
	}
}

void derive_born(struct derive *d, int32_t pid, uint64_t ts, int cpu, uint32_t hid)
{
	struct wake *w = wake_of(d, pid);

	if (!w)
		return;
	/* task_newtask, then sched_process_fork: the first is the birth */
	if (w->off.known && w->off.state == DERIVE_STATE_NEW && !w->off.woken)
		return;
	w->off.known = !d->gaps;
	w->off.ts = ts;
	w->off.state = DERIVE_STATE_NEW;
	w->off.cpu = cpu;
	w->off.hid = hid;
	w->off.woken = 0;
}

/* Every pending wakeup ends without a row; with forget_off, every task's
 * time off the CPUs is no longer known either. */
static void void_wakeups(struct derive *d, int forget_off)
{
	for (size_t c = 0; c < d->nchunks; c++) {
		if (d->chunks[c] && (d->npending[c] || forget_off))
			for (unsigned i = 0; i < CHUNK; i++) {
				d->chunks[c][i].ts = 0;
				if (forget_off)
					d->chunks[c][i].off.known =
						d->chunks[c][i].ran_woken = 0;
			}
		d->npending[c] = 0;
	}
}

int derive_lost(struct derive *d, int cpu, uint64_t ts)
{
	struct running *r = cpu_state(d, cpu);
	int rc = r && r->active ? restart_slice(d, r, cpu) : 0;

	if (r && r->gap) {
		r->gap = 0;
		d->gaps--;
	}

	if (r && r->active)
		r->lost = 1;
	if (r)
		r->in_tail = 0;
	/* An open slice whose task shows no sign after the loss ended
	 * somewhere in it: another task's event after it ends the slice at
	 * the task's last sign before (derive_seen; end_err spans the
	 * loss), not at the loss's stamp as if it had run through. On a CPU
	 * with none open, its first slice is not placed before the loss. */
	if (r && !r->active && ts > r->last_ts)
		r->last_ts = ts;
	if (r)
		r->loss_ts = ts;
	/* A switch-in may be among the lost: every pending wakeup is void,
	 * who runs where is no longer known, nor how long any task has been
	 * off the CPUs. */
	void_wakeups(d, 1);
	return rc;
}

void derive_gap(struct derive *d, int cpu, uint64_t ts)
{
	struct running *r = cpu_state(d, cpu);

	(void)ts;
	if (!r || r->gap)
		return;
	r->gap = 1;
	d->gaps++;
	/* From here on the CPU's records are missing: any task may have run
	 * there, so no task's time off the CPUs and no wakeup's wait is
	 * known across or inside the gap (its end, derive_lost, voids again
	 * what began in it). */
	void_wakeups(d, 1);
}

void derive_untraced(struct derive *d, int cpu)
{
	struct running *r = cpu_state(d, cpu);

	if (r) {
		r->untraced = 1;
		d->some_untraced = 1;
	}
}

void derive_clock_not_ns(struct derive *d)
{
	d->not_ns = 1;
}

void derive_queued(struct derive *d, int32_t pid, int cpu)
{
	struct wake *w;

	if (cpu < 0 || (size_t)cpu >= d->ncpus || !d->cpus[cpu].untraced ||
	    !(w = wake_of(d, pid)))
		return;
	if (w->ts)
		set_wake(d, pid, w, 0);
	w->off.known = 0;
}

void derive_waking_cpu(struct derive *d, int32_t pid, int cpu)
{
	struct wake *w;

	/* derive_waking cleared it: only a CPU not traced sets it */
	if (cpu >= 0 && (size_t)cpu < d->ncpus && d->cpus[cpu].untraced &&
	    (w = wake_of(d, pid)) && w->ts && w->open_pair)
		w->from_untraced = 1;
}

void derive_cpu_gone(struct derive *d, int cpu)
{
	struct running *r = cpu_state(d, cpu);

	if (r)
		r->gone = 1;
}

int derive_finish(struct derive *d, uint64_t ts)
{
	int rc = 0;

	/* A wakeup still pending never ends: none is pending any more. */
	void_wakeups(d, 0);

	for (int cpu = 0; (size_t)cpu < d->ncpus && !rc; cpu++) {
		struct running *r = &d->cpus[cpu];

		if (r->active && (rc = restart_slice(d, r, cpu)))
			break;
		/* A CPU taken offline: its last task did not run on to the
		 * end; the slice ends at its last sign of running, the rest
		 * is unknown (end_err). */
		if (r->active && r->gone && r->start <= ts) {
			uint64_t lo = last_sign(r, ts);
			struct derive_slice s = open_slice(r, cpu, lo, r->hid, -1,
							   (int64_t)(ts - lo));

			r->active = 0;
			if (!(rc = flush_held(d, r)))
				rc = emit(d, &s);
			continue;
		}
		/* A slice that begins after the end (a rename's new name
		 * holds from the nanosecond after its event, and that event
		 * was the capture's last) has nothing traced in it: no row,
		 * which would lie outside the capture. */
		if (r->active && r->start <= ts) {
			rc = close_slice(d, r, cpu, ts, r->hid, -1);
		} else {
			r->active = 0;
			rc = flush_held(d, r);
		}
	}
	return rc;
}

int derive_show_open(struct derive *d, uint64_t ts,
		     int (*fn)(void *ctx, const struct derive_slice *s), void *ctx)
{
	int rc = 0;

	for (int cpu = 0; (size_t)cpu < d->ncpus && !rc; cpu++) {
		struct running *r = &d->cpus[cpu];
		struct derive_slice s;
		int sound, whole;

		if (!r->active)
			continue;
		/* its CPU's records unbroken since it began */
		sound = !r->lost && r->pid >= 0 && !r->restart && !r->gap && !r->gone &&
			!r->untraced && r->start <= ts;
		/* and a task's own switch's, whole so far: what the switch-out
		 * would end as that row's slice (not the idle task's: an idle
		 * CPU's switch row is an old page, written again at every
		 * commit on each idle CPU; its slice is a row of its own, in
		 * a table of one row a CPU) */
		whole = sound && r->pid > 0 && r->ref && r->start_err < 0 &&
			r->hid == r->ref_hid && r->pid == r->ref_pid;
		if (r->ref && (whole || r->shown)) {
			r->shown = whole;	/* shown again, or taken back */
			s = open_slice(r, cpu, ts, r->hid, -1, -1);
			rc = fn(ctx, &s);
		}
		/* Begun by no switch (an inferred start, a rename) or no
		 * longer that switch's (a thread's exec), or idle: a row of
		 * its own while it runs. */
		if (!rc && sound && !whole) {
			s = open_slice(r, cpu, ts, r->hid, -1, -1);
			s.shown = 0;
			s.own_row = 1;
			rc = fn(ctx, &s);
		}
	}
	return rc;
}

void derive_states(struct derive *d, const struct state_map *m)
{
	d->states = m && !m->identity ? m : NULL;
}
