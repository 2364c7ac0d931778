/* derive.h — what people come for, computed as the events arrive: CPU
 * slices (who ran on which CPU, from one sched_switch to the next) and
 * wakeup latency (from a task's first waking to the switch that runs it).
 *
 * No I/O: the pipeline feeds it switches, wakings and losses in time
 * order (CPUs merged) and it hands finished rows to callbacks. A loss
 * breaks the chain: a slice that spans one is flagged, a wakeup pending
 * across one yields no row — nothing is invented.
 *
 * Every event on a CPU comes from the task running there (its
 * common_pid), but for the tail of a recorded switch: the tracepoint
 * fires before the context switch, and until then (tlb_flush, x86_fpu,
 * ...) the CPU's events come from prev; they are prev's until another
 * task's event there, a wakeup of prev (derive_woken), its switch-in
 * anywhere or a loss there; after a switch out of idle, only idle's
 * tlb_flush on the task switch is. When one comes from another task than the chain has
 * running, a switch happened that was not recorded (some kernels never
 * trace the switch out of an idle task): the old slice ends at its last
 * event there, the new one starts at this event, both edges marked with
 * the gap's width. The new task's first sched_stat_runtime there (its
 * run time since it was switched in) places its start inside the gap, at
 * ts - runtime; the old slice ends there too only if it is idle's (a
 * task's stays at its last event; both keep the gap's width). A CPU's first event starts a slice
 * the same way: its task ran from somewhere after the capture's first
 * event (or a loss before it on that CPU) on. Time no event attributes is
 * in no slice (unknown, never idle).
 *
 * A task renamed (task_rename, exec) while it runs splits its slice there:
 * each part carries the name valid over it. */
#ifndef COMMD_DERIVE_H
#define COMMD_DERIVE_H

#include <stdint.h>

/* A slice's prio when no switch-in gave it (an inferred start). */
#define DERIVE_PRIO_UNKNOWN INT32_MIN

struct derive_slice {
	uint64_t ts, dur;
	int cpu;
	int32_t pid;
	uint32_t hid;		/* comm_history row of the task at switch-out */
	int32_t prio;
	int64_t end_state;	/* prev_state; -1: still running at the end */
	int lost;		/* a loss on this CPU fell inside the slice */
	int start_known;	/* 0: began before the capture (ts = first seen) */
	/* An inferred edge: no switch was recorded there, the events show
	 * one (the CPU's events came from another task). The width of the
	 * gap in which it happened, -1 for an edge a switch or a rename
	 * marks exactly. */
	int64_t start_err, end_err;
	/* The caller's token for the switch that began the slice
	 * (derive_switch_ref), 0 when none did (an inferred start, a
	 * rename); ref_hid the row that switch gave the task. */
	uint64_t ref;
	uint32_t ref_hid;
	int32_t ref_pid;	/* the pid that switch switched in */
	/* The task's time off the CPUs just before this slice (thread_state):
	 * since off_dur ns before ts, when a switch on off_cpu took it off
	 * in state off_state as row off_hid (DERIVE_STATE_NEW: since its
	 * birth, a new task's first slice). -1: not known (its last slice
	 * did not end at a recorded switch in a known state, a loss came
	 * between, it is the task's first in the capture and no birth was
	 * seen, or a new task's without a sched_wakeup_new). */
	int64_t off_dur;
	int64_t off_state;
	int off_cpu;
	uint32_t off_hid;
	/* A slice begun by inference whose task's wakeup since off_dur's
	 * start was seen: ns from that wakeup to ts (-1: none; a switch-in's
	 * is on its switch's row) */
	int64_t wake_dur;
	/* Shown while it ran (derive_show_open): the row of the switch that
	 * began it holds it as still running then, until it ends. */
	int shown;
	/* derive_show_open's, of a slice no switch's row holds: shown as a
	 * row of its own while it runs, replaced at each commit */
	int own_row;
};

struct derive_wakeup {
	uint64_t ts;		/* the waking */
	uint64_t latency;	/* ns from waking to running */
	int cpu;		/* where it ran */
	int32_t pid;
	uint32_t hid;		/* the woken task's row when it ran */
	int32_t waker_pid;
	uint32_t waker_hid;
	/* The caller's token for the event that began the wakeup
	 * (derive_waking_ref), 0 when none was given: where (ref_cpu) and
	 * what (ref_kind, the caller's) it was. */
	uint64_t ref;
	int ref_cpu, ref_kind;
};

struct derive_ops {
	int (*slice)(void *ctx, const struct derive_slice *s);
	int (*wakeup)(void *ctx, const struct derive_wakeup *w);
	void *ctx;
	/* The capture records sched_switch: a CPU's first event starts its
	 * chain (else, without switches, no chain ever begins). */
	int switches;
	/* Whether the task running as pid running may now be seen as pid
	 * seen (a thread that execs takes its leader's pid); NULL: never. */
	int (*took_pid)(void *ctx, int32_t running, int32_t seen);
};

struct derive;

struct derive *derive_new(const struct derive_ops *ops);
void derive_free(struct derive *d);

/* How the recording kernel letters a switch-out's state (states.h): a
 * task's time off the CPUs is kept in today's numbering. The map must
 * outlive d; NULL or today's table: as the values come. */
struct state_map;
void derive_states(struct derive *d, const struct state_map *m);

/* prev_hid: prev's row (the switch's own row: comm = prev_comm); next_hid
 * the row of next at ts. Returns a callback's non-zero result. */
int derive_switch(struct derive *d, uint64_t ts, int cpu, int32_t prev_pid,
		  uint32_t prev_hid, int32_t prev_prio, int64_t prev_state,
		  int32_t next_pid, uint32_t next_hid, int32_t next_prio);

/* The switch just given to derive_switch on cpu is known to the caller
 * as ref (non-zero): the slice it began carries it. */
void derive_switch_ref(struct derive *d, int cpu, uint64_t ref);

/* A waking of pid by waker (waking events, or wakeup/wakeup_new when the
 * trace has no waking; kind the event's). Only the first since pid last
 * ran counts (a waking's sched_wakeup is the same wakeup), or any later
 * but that pair (the task ran unseen in between): returns 1 when this
 * one does. */
enum derive_wake_kind { DERIVE_WAKING, DERIVE_WAKEUP, DERIVE_WAKEUP_NEW };
int derive_waking(struct derive *d, uint64_t ts, int32_t pid,
		  enum derive_wake_kind kind, int32_t waker_pid, uint32_t waker_hid);

/* pid was woken (sched_wakeup, sched_wakeup_new: it is off its last CPU;
 * a waking may come before that). */
void derive_woken(struct derive *d, int32_t pid);

/* The waking derive_waking just counted is known to the caller as ref
 * (an event of kind on cpu): the wakeup it began carries them. */
void derive_waking_ref(struct derive *d, int32_t pid, uint64_t ref, int cpu,
		       int kind);

/* The slice a task runs under another row than its event's (run->hid,
 * 0 when none; start: where the slice or its last part began); began:
 * derive_seen began a slice of the event's task by inference. */
struct derive_run {
	uint32_t hid;
	uint64_t start;
	int began;
};

/* pid's slice open on cpu: its open part's row and start (run->hid,
 * start; a part before a rename may be held: derive_rename_on), 1; 0 when
 * pid does not run there. */
int derive_part(struct derive *d, int cpu, int32_t pid, struct derive_run *run);

/* The pid whose slice is open on cpu, -1 when none. */
int32_t derive_running(const struct derive *d, int cpu);

/* Whether the idle task is believed to run on cpu, with no loss inside,
 * and an event of pid (switch_mm, own: as derive_other) is not from the
 * tail of a switch out of pid: pid runs there, switched in unrecorded. */
int derive_idle_other(struct derive *d, int cpu, int32_t pid, int switch_mm, int own);

/* An event of pid on cpu that derive_seen would not take for pid's own
 * or for the tail of the switch before: the pid whose slice runs there
 * (and its row, *hid), -1 when none (pid's own, a tail, nothing open, a
 * loss inside: who runs is not known). */
int32_t derive_other(struct derive *d, int cpu, int32_t pid, int switch_mm,
		     int own, uint32_t *hid);

/* The CPU pid runs on (its open slice begun last; the lowest on a tie),
 * -1 when none. */
int derive_cpu_of(const struct derive *d, int32_t pid);

/* Any event: on cpu at ts from task pid (its common_pid), whose comm row
 * is hid; switch_mm when it is a tlb_flush "on task switch" (fired by
 * switch_mm inside a context switch); own when it is a sched or task
 * event (none fires inside a context switch: never a switch's tail).
 * When pid runs on cpu under a row other than hid, run (if not NULL)
 * gets that row and where its part began; it is left alone otherwise.
 * Called before the event's own derive_* call. Returns a callback's
 * non-zero result. */
int derive_seen(struct derive *d, uint64_t ts, int cpu, int32_t pid,
		uint32_t hid, int switch_mm, int own, struct derive_run *run);

/* A sched_switch on cpu out of prev_pid, before anything else is done
 * with it (a split at a name it shows included; derive_switch does it
 * too): a restart held for its task is the switch's own update. */
void derive_switching(struct derive *d, int cpu, int32_t prev_pid);

/* sched_stat_runtime on cpu at ts: pid ran runtime ns (since it was
 * switched in, or since the last such event for it). The first of a slice
 * begun by inference places its start; a later one of the task's own
 * whose clock began well after the task's last event on the CPU (at least
 * 100 us, and more than half the time since) ends its slice there by
 * inference and begins another at ts - runtime, with unknown time
 * between, unless the CPU's next event is the task's switch-out (see
 * derive.c). */
int derive_runtime(struct derive *d, uint64_t ts, int cpu, int32_t event_pid,
		   int32_t pid, uint64_t runtime);

/* cpu is not traced (a cpumask left it out: an import finds no record
 * of it in the trace). */
void derive_untraced(struct derive *d, int cpu);

/* The trace clock does not count nanoseconds (counter, uptime, x86-tsc):
 * a sched_stat_runtime's runtime (ns) says nothing in its units, so
 * derive_runtime places and restarts nothing. */
void derive_clock_not_ns(struct derive *d);

/* pid was queued on cpu (a sched_wakeup's or sched_wakeup_new's target,
 * a sched_migrate_task's destination). On a CPU not traced it runs
 * unseen: its pending wakeup and its time off the CPUs end there, when
 * nothing says. */
void derive_queued(struct derive *d, int32_t pid, int cpu);

/* The sched_waking that began pid's pending wakeup says it last ran on
 * cpu (its target_cpu: the kernel has not chosen where to queue it yet).
 * On a CPU not traced, its sched_wakeup fires where it is queued: if
 * none is seen before its switch in, it was queued where nothing is
 * traced and the wait's end is not known (no latency). */
void derive_waking_cpu(struct derive *d, int32_t pid, int cpu);

/* The task running on cpu is pid from ts on (row hid): the pids of a
 * thread that execs and its leader change hands. Its slice splits there. */
int derive_took(struct derive *d, int cpu, uint64_t ts, int32_t pid, uint32_t hid);

/* pid has a new name from ts on (row hid): the slice it is running (on
 * derive_cpu_of's CPU) splits there. Returns a callback's non-zero
 * result. */
int derive_rename(struct derive *d, uint64_t ts, int32_t pid, uint32_t hid);

/* The same for pid's slice on cpu only (the one an event there began). */
int derive_rename_on(struct derive *d, int cpu, uint64_t ts, int32_t pid,
		     uint32_t hid);

/* pid is a new task (task_newtask, sched_process_fork; on cpu at ts, row
 * hid): its time off the CPUs begins here, in state DERIVE_STATE_NEW (not
 * yet runnable: the kernel's TASK_NEW, which no prev_state shows) until
 * its sched_wakeup_new; without one it is not known. The value is none a
 * kernel gives (2048, TASK_NEW now, was the "preempted" mark of 4.x). */
#define DERIVE_STATE_NEW (-2)
/* A switch-out in plain R (0, not preempted) that a sched_wakeup of the
 * task follows was a sleep, S or D: 5.8-5.17 read the state at the
 * tracepoint, after a waker on another CPU had set it to TASK_WAKING
 * (reported as R); no kernel wakes a task that is still runnable. Its
 * time off the CPUs is in this state (thread_state: asleep). */
#define DERIVE_STATE_ASLEEP (-3)
void derive_born(struct derive *d, int32_t pid, uint64_t ts, int cpu, uint32_t hid);
/* Events were lost on cpu at ts. Returns a callback's non-zero result. */
int derive_lost(struct derive *d, int cpu, uint64_t ts);
/* The records of cpu after ts, its last, are lost up to its next one,
 * whose derive_lost ends the gap: a loss known before the events of the
 * other CPUs in it come. Until then no time off the CPUs begins, and no
 * wakeup's latency or new task's wait is known (any task may have run
 * there). */
void derive_gap(struct derive *d, int cpu, uint64_t ts);

/* The waking ts of the oldest wakeup still pending (its task not yet
 * switched in) of those after `after`, 0 when none: its wakeup_latency
 * row is not stored yet. */
uint64_t derive_oldest_wakeup(const struct derive *d, uint64_t after);

/* CPU cpu is offline at the end of a live capture: derive_finish ends
 * its open slice at its last sign of running, not at the end. */
void derive_cpu_gone(struct derive *d, int cpu);

/* End of the capture at ts: the open slices close there (one that
 * begins after ts gives no row), but a gone CPU's (derive_cpu_gone). */
int derive_finish(struct derive *d, uint64_t ts);

/* A running capture's open slices as they stand at ts, the newest event:
 * fn for each CPU's slice of a task (not idle's) that a recorded switch
 * began and that is whole so far (its task, its name and its CPU's
 * records unbroken since), as a slice still running at ts (end_state -1,
 * shown 1), its row the switch's. Such a slice is marked shown: when it ends otherwise than as
 * that switch's ordinary slice (a rename, a loss, an inferred edge, the
 * end), the caller takes the shown row back; one shown before and no
 * longer whole while it still runs (a loss, a pending restart) is given
 * to fn with shown 0, to be taken back now rather than left as it was.
 * A task's open slice that no recorded switch began, or no longer that
 * switch's (begun by inference or at a rename, a thread's exec took
 * another pid), and an idle CPU's (pid 0), its records unbroken since it
 * began, is given to fn as well with own_row 1 (shown 0): a row of its
 * own, valid until the next call (the caller drops the one before, and
 * the row when it ends).
 * Returns fn's first error, else 0. */
int derive_show_open(struct derive *d, uint64_t ts,
		     int (*fn)(void *ctx, const struct derive_slice *s), void *ctx);

#endif
