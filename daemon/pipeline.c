/* pipeline.c — see pipeline.h. */
#define _GNU_SOURCE
#include "pipeline.h"

#include "cgroups.h"
#include "stacks.h"
#include "grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "decode.h"
#include "derive.h"
#include "states.h"
#include "store.h"

struct pipeline {
	struct tep_handle *tep;
	struct decode *decode;
	struct resolve *resolve;
	struct store *store;
	struct derive *derive;
	struct state_map states;	/* the recording kernel's task states */
	int exec_names;		/* no task_rename in the trace: exec names */
	int no_derived;		/* derive runs (names need it), stores nothing */
	int has_exit;		/* sched_process_exit is in the trace */
	uint32_t *type_rows;	/* tep event id -> event_types row, 0 = none */
	uint64_t *type_counts;	/* tep event id -> events stored */
	int max_id;
	uint32_t ntypes;
	uint64_t events, undecodable, lost_records;
	uint64_t first_ts, last_ts;
	int ncpus;		/* CPUs 0..ncpus-1 had events */
	/* Losses widen the capture's span: one found at a stop, after
	 * the last event, still lies inside it. */
	uint64_t first_loss_ts, last_loss_ts;
	char *seen;
	/* The switched-in task's row of the switch being stored, and
	 * whether derive counted the waking being stored. */
	uint32_t next_hid;
	int took_waking;
	int64_t sw_wake;	/* the wakeup that switch ended (-1: none) */
	/* A rename of a task (task_rename, or exec without it) that may
	 * split its running slice: from ts on, row rename_hid. */
	int32_t rename_pid;
	uint32_t rename_hid;
	uint64_t rename_ts;
	int32_t moved_pid;	/* its rename moved later (resolve_take_moved) */
	int32_t took_tid, took_pid;	/* this event: the task running as
					 * took_tid is took_pid (took_here) */
	char *json;		/* an ev_other row's fields, grown to fit */
	size_t json_cap;
	/* cgroup_history: the tasks' cgroups, and the event types that
	 * move a task (-1: not in the trace) */
	struct cgroups *cg;
	int cg_attach_id, cg_transfer_id;
	/* switch_stack: the kernel_stack records' type (-1: none), and per
	 * CPU the switch into sleep the next one belongs to (ts + 1; 0:
	 * none: the CPU's last record was something else) */
	struct stacks *stacks;
	int kstack_id;
	/* ftrace's user_stack records' type (-1: none): with kernel_stack,
	 * a record that follows another event (trace-cmd record -T, a
	 * stacktrace trigger) in its context, not a sign of who runs */
	int ustack_id;
	const struct tep_format_field *kstack_size, *kstack_caller;
	uint64_t *sleep_switch;
	size_t nsleep;
	/* Per CPU, its last record before a loss pipeline_gap told of (0:
	 * none): the loss's from_ts */
	uint64_t *gap_from;
	size_t ngap;
	/* Per CPU, the waking whose sched_wakeup has not come (the waker,
	 * the woken; late: an event between showed the waker's name from
	 * before its rename) */
	struct open_waking { int32_t pid, target; uint64_t ts; int late; } *waking;
	size_t nwaking;
	uint64_t kernel_stacks;
};

static const enum resolve_source kind_source[DECODE_KIND_COUNT] = {
	[DECODE_OTHER] = RESOLVE_SRC_EVENT,
	[DECODE_SCHED_SWITCH] = RESOLVE_SRC_SCHED_SWITCH,
	[DECODE_SCHED_WAKEUP] = RESOLVE_SRC_SCHED_WAKEUP,
	[DECODE_SCHED_WAKEUP_NEW] = RESOLVE_SRC_SCHED_WAKEUP_NEW,
	[DECODE_SCHED_WAKING] = RESOLVE_SRC_SCHED_WAKING,
	[DECODE_SCHED_PROCESS_FORK] = RESOLVE_SRC_FORK,
	[DECODE_SCHED_PROCESS_EXEC] = RESOLVE_SRC_EXEC,
	[DECODE_SCHED_PROCESS_EXIT] = RESOLVE_SRC_EXIT,
	[DECODE_SCHED_PROCESS_FREE] = RESOLVE_SRC_FREE,
	[DECODE_SCHED_MIGRATE_TASK] = RESOLVE_SRC_MIGRATE,
	[DECODE_TASK_RENAME] = RESOLVE_SRC_RENAME,
	[DECODE_TASK_NEWTASK] = RESOLVE_SRC_NEWTASK,
	[DECODE_SCHED_STAT_RUNTIME] = RESOLVE_SRC_EVENT,
};

/* An ordinary slice (begun and ended by switches of its task, nothing
 * lost, one name) goes on the row of the switch that began it; the
 * others are rows of their own. */
static int derived_slice(void *ctx, const struct derive_slice *s)
{
	struct pipeline *p = ctx;

	/* a task that exited ran on to an end no switch recorded */
	if (s->end_err >= 0 && s->pid > 0)
		resolve_ran_until(p->resolve, s->hid, s->ts + s->dur);
	if (p->no_derived)
		return 0;
	/* shown as a row of its own while it ran: that row goes (a part
	 * held back ends here later than its CPU's slice began: that
	 * slice is shown again at the commit) */
	if (store_drop_running(p->store, s->cpu))
		return -1;
	if (s->ref && !s->lost && s->end_state >= 0 && s->start_err < 0 &&
	    s->end_err < 0 && s->hid == s->ref_hid)
		return store_slice_at(p->store, s);
	/* shown on its switch's row while it ran: a row of its own now */
	if (s->shown && store_slice_unshow(p->store, s))
		return -1;
	return store_slice(p->store, s);
}

static int show_open(void *ctx, const struct derive_slice *s)
{
	struct pipeline *p = ctx;

	if (s->own_row)
		return store_show_running(p->store, s);
	return s->shown ? store_slice_at(p->store, s) : store_slice_unshow(p->store, s);
}

int pipeline_show_open(struct pipeline *p)
{
	if (!p->derive || p->no_derived || !p->last_ts)
		return 0;
	store_running_round(p->store);
	if (derive_show_open(p->derive, p->last_ts, show_open, p))
		return -1;
	return store_running_done(p->store);
}

/* derive's question when another pid than the running task's shows on a
 * CPU: whether the running task took that pid (took_here said so). */
static int took_pid(void *ctx, int32_t running, int32_t seen)
{
	struct pipeline *p = ctx;

	return running == p->took_tid && seen == p->took_pid;
}

/* A wakeup goes on the row of the event that began it, and its latency
 * on the switch that ended it too (thread_state reads it there): derive
 * ends a wakeup only in derive_switch, at the switch being stored. */
static int derived_wakeup(void *ctx, const struct derive_wakeup *w)
{
	struct pipeline *p = ctx;

	if (p->no_derived)
		return 0;
	p->sw_wake = (int64_t)w->latency;

	if (w->ref)
		return store_wakeup_at(p->store, w->ref, w->ref_kind, w->ts,
				       w->ref_cpu, w->pid, w);
	return store_wakeup(p->store, w);
}

struct pipeline *pipeline_new(struct tep_handle *tep, struct store *store,
			      char *err, size_t errlen)
{
	struct tep_event **events;
	struct pipeline *p;
	int n;

	p = calloc(1, sizeof(*p));
	if (!p)
		goto oom;
	p->tep = tep;
	p->store = store;
	state_map_init(&p->states, NULL);
	p->decode = decode_new(tep);
	if (!p->decode) {
		snprintf(err, errlen, "no usable event formats (%s)", strerror(errno));
		goto fail;
	}
	p->resolve = resolve_new(decode_comm_width(p->decode));
	if (!p->resolve)
		goto oom;
	{
		struct derive_ops ops = {
			derived_slice, derived_wakeup, p,
			tep_find_event_by_name(tep, "sched", "sched_switch") != NULL,
			took_pid,
		};

		p->derive = derive_new(&ops);
		if (!p->derive)
			goto oom;
	}
	/* exec renames the task; task_rename says so exactly, and when it
	 * is not in the trace the exec'd file's name is the new comm. */
	p->cg = cgroups_new(store, CGROUPS_ANY_ROOT);
	p->stacks = stacks_new(tep, store);
	if (!p->cg || !p->stacks)
		goto oom;
	{
		struct tep_event *e = tep_find_event_by_name(tep, "ftrace", "kernel_stack");

		p->kstack_id = e ? e->id : -1;
		p->kstack_size = e ? tep_find_field(e, "size") : NULL;
		p->kstack_caller = e ? tep_find_field(e, "caller") : NULL;
		e = tep_find_event_by_name(tep, "ftrace", "user_stack");
		p->ustack_id = e ? e->id : -1;
	}
	{
		struct tep_event *e = tep_find_event_by_name(tep, "cgroup", "cgroup_attach_task");

		p->cg_attach_id = e ? e->id : -1;
		e = tep_find_event_by_name(tep, "cgroup", "cgroup_transfer_tasks");
		p->cg_transfer_id = e ? e->id : -1;
	}
	p->exec_names = !decode_has_event(p->decode, DECODE_TASK_RENAME);
	p->has_exit = decode_has_event(p->decode, DECODE_SCHED_PROCESS_EXIT);
	n = tep_get_events_count(tep);
	events = tep_list_events(tep, TEP_EVENT_SORT_ID);
	p->max_id = -1;
	for (int i = 0; events && i < n; i++)
		if (events[i]->id > p->max_id)
			p->max_id = events[i]->id;
	p->type_rows = calloc((size_t)p->max_id + 2, sizeof(*p->type_rows));
	p->type_counts = calloc((size_t)p->max_id + 2, sizeof(*p->type_counts));
	if (!p->type_rows || !p->type_counts)
		goto oom;
	return p;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	pipeline_free(p);
	return NULL;
}

void pipeline_free(struct pipeline *p)
{
	if (!p)
		return;
	decode_free(p->decode);
	resolve_free(p->resolve);
	derive_free(p->derive);
	cgroups_free(p->cg);
	stacks_free(p->stacks);
	free(p->sleep_switch);
	free(p->gap_from);
	free(p->waking);
	free(p->type_rows);
	free(p->type_counts);
	free(p->seen);
	free(p->json);
	free(p);
}

/* cgroup_attach_task and cgroup_transfer_tasks: the task (pid) is in
 * dst_path of hierarchy dst_root from now on. Rare: read field by field
 * through the format (decode_field_*: inside the record only). */
static int cgroup_event(struct pipeline *p, const struct decode_event *ev)
{
	const struct tep_format_field *root_f = tep_find_field(ev->event, "dst_root");
	const struct tep_format_field *pid_f = tep_find_field(ev->event, "pid");
	const struct tep_format_field *path_f = tep_find_field(ev->event, "dst_path");
	struct decode_str path;
	int64_t root, pid;

	if (decode_field_num(p->decode, ev, root_f, &root) ||
	    decode_field_num(p->decode, ev, pid_f, &pid) ||
	    decode_field_str(p->decode, ev, path_f, &path) || !path.s)
		return 0;
	return cgroups_enter(p->cg, (int)root, (int32_t)pid, path.s, path.len, ev->ts,
			     ev->event->id == p->cg_attach_id ? STORE_CG_ATTACH
							       : STORE_CG_TRANSFER);
}

/* CPUs a kernel_stack is paired with a switch on (derive's bound too). */
#define PIPELINE_MAX_CPUS 8192

/* The CPU's next kernel_stack belongs to no switch: a record came that
 * could not be read, or events were lost, since its last one. */
static void forget_switch(struct pipeline *p, int cpu)
{
	if (cpu >= 0 && (size_t)cpu < p->nsleep)
		p->sleep_switch[cpu] = 0;
}

/* A kernel_stack record right after a switch into sleep on its CPU is
 * that switch's stack: stored as such (switch_stack), not as an event,
 * and not seen by derive (its common_pid is the task that left). Returns
 * 0 when it was, 1 when it is an event like any other (a stack after
 * another event: trace-cmd record -T, a stacktrace trigger elsewhere),
 * -1 on an error. */
static int kernel_stack(struct pipeline *p, const struct decode_event *ev)
{
	uint64_t addr[128];
	int64_t n, id;
	long k;
	int cpu = ev->cpu;

	if (cpu < 0 || (size_t)cpu >= p->nsleep || !p->sleep_switch[cpu])
		return 1;
	p->kernel_stacks++;
	/* As many entries as the record holds (decode_field_array: inside
	 * it only), no more than its size field says: entries on newer
	 * kernels, bytes on some older ones. */
	k = decode_field_array(p->decode, ev, p->kstack_caller, addr, 128);
	if (k < 0 || decode_field_num(p->decode, ev, p->kstack_size, &n) || n < 0)
		goto done;
	if (n > k)
		n /= p->kstack_caller->elementsize;
	if (n < k)
		k = (long)n;
	id = stacks_intern(p->stacks, addr, (int)k);
	if (id < 0)
		return -1;
	if (id && store_switch_stack(p->store, p->sleep_switch[cpu] - 1, cpu, id))
		return -1;
done:
	if (cpu >= 0 && (size_t)cpu < p->nsleep)
		p->sleep_switch[cpu] = 0;
	return 0;
}

/* A string field's size as resolve takes it (RESOLVE_NUL_TERMINATED for
 * a dynamic string). */
static inline size_t field_size(const struct decode_str *c)
{
	return c->size == DECODE_STR_NUL ? RESOLVE_NUL_TERMINATED : c->size;
}

/* Names the task of the pid_slot/comm_slot fields. When that task is the
 * event's own and its row is not known yet, *hid gets it too. */
static inline uint32_t name(struct pipeline *p, const struct decode_event *ev,
			    int pid_slot, int comm_slot, enum resolve_source src,
			    uint32_t *hid)
{
	unsigned need = (DECODE_HAS_P0 << pid_slot) | (DECODE_HAS_C0 << comm_slot);
	const struct decode_str *c = &ev->c[comm_slot];
	int32_t pid = ev->p[pid_slot];

	if ((ev->has & need) != need)
		return 0;
	return resolve_name_fast(p->resolve, pid, ev->cpu, c->s, c->len,
				 field_size(c), ev->ts, src,
				 hid && !*hid && pid == ev->pid ? hid : NULL);
}

/* A comm id for a string that names nobody (sched_process_free's: the
 * task is gone, the pid may be another's). */
static uint32_t intern_only(struct pipeline *p, const struct decode_event *ev,
			    int slot)
{
	if (!(ev->has & (DECODE_HAS_C0 << slot)))
		return 0;
	return resolve_intern(p->resolve, ev->c[slot].s, ev->c[slot].len);
}

/* Whether filename is "/dev/fd/N": the name the kernel makes up for an
 * exec from a file descriptor (fexecve, execveat(fd, "", AT_EMPTY_PATH)).
 * The task is then named after the file (recent kernels, 6.18 here) or
 * "N" (older ones), and a literal execve("/dev/fd/N") names it "N": the
 * filename cannot say which. */
static int fd_path(const char *s, uint32_t len)
{
	static const char dev_fd[] = "/dev/fd/";
	const uint32_t n = sizeof(dev_fd) - 1;

	if (len <= n || memcmp(s, dev_fd, n))
		return 0;
	for (uint32_t i = n; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* The CPU's open waking: a sched_waking opens one; the sched_wakeup of
 * the same waker and task on the CPU (the same try_to_wake_up) or a
 * switch there closes it (a wakeup queued to another CPU's wake list
 * fires there: the waker's next waking opens its slot anew). */
static int open_waking(struct pipeline *p, const struct decode_event *ev,
		       int cpu, uint64_t ts)
{
	if (ev->kind != DECODE_SCHED_WAKING) {
		if ((size_t)cpu < p->nwaking)
			p->waking[cpu] = (struct open_waking){ .ts = 0 };
		return 0;
	}
	if (!(ev->has & DECODE_HAS_P0))
		return 0;
	if ((size_t)cpu >= p->nwaking &&
	    grow_array(&p->waking, &p->nwaking, sizeof(*p->waking), (size_t)cpu + 1, 1))
		return -1;
	p->waking[cpu] = (struct open_waking){ .pid = ev->pid, .target = ev->p[0], .ts = ts };
	return 0;
}

/* Names the exec'd task after its file's last part, as the kernel does,
 * except where the name cannot be known from the filename: the name
 * changed there all the same, and the next event that carries the task's
 * comm says to what (from the exec on). */
static void exec_name(struct pipeline *p, const struct decode_event *ev)
{
	const char *base, *s = ev->str.s;
	uint32_t len = ev->str.len;
	int32_t pid = (ev->has & DECODE_HAS_P0) ? ev->p[0] : ev->pid;

	if (!(ev->has & DECODE_HAS_STR) || !len)
		return;
	if (fd_path(s, len)) {
		resolve_unnamed_from(p->resolve, pid, ev->ts);
		return;
	}
	base = memrchr(s, '/', len);
	base = base ? base + 1 : s;
	len -= (uint32_t)(base - s);
	if (len)
		resolve_name(p->resolve, pid, ev->cpu, base, len, ev->ts,
			     RESOLVE_SRC_EXEC);
}

/* The JSON of an event without a table of its own, in p->json. The
 * buffer grows to what the object needs: a record is at most a ring
 * buffer page, each of its bytes at most a few of JSON, so it is bounded.
 * 0 when there is no memory for it (the row keeps no fields). */
static size_t event_json(struct pipeline *p, const struct decode_event *ev)
{
	size_t len = decode_fields_json(p->decode, ev, p->json, p->json_cap);

	if (len >= p->json_cap) {
		size_t cap = len + 1 > 8192 ? len + 1 : 8192;
		char *q = realloc(p->json, cap);

		if (!q)
			return 0;
		p->json = q;
		p->json_cap = cap;
		len = decode_fields_json(p->decode, ev, p->json, p->json_cap);
	}
	return len;
}

static uint32_t type_row(struct pipeline *p, const struct decode_event *ev)
{
	int id = ev->event->id;

	if (id < 0 || id > p->max_id)
		return 0;
	if (!p->type_rows[id]) {
		if (store_event_type(p->store, p->ntypes + 1, ev->event->system,
				     ev->event->name))
			return 0;
		p->type_rows[id] = ++p->ntypes;
	}
	return p->type_rows[id];
}

/* pid may have a new name from ts: its running slice splits there. */
static void note_rename(struct pipeline *p, int32_t pid, uint64_t ts)
{
	p->rename_pid = pid;
	p->rename_hid = resolve_named_hid(p->resolve, pid);
	p->rename_ts = ts;
	if (!p->rename_hid)
		p->rename_pid = 0;
}

/* A sched or task event (of a decoded kind or not): none fires inside a
 * context switch, after the sched_switch tracepoint. */
static int own_event(const struct decode_event *ev)
{
	const char *sys = ev->event ? ev->event->system : NULL;

	return ev->kind != DECODE_OTHER ||
	       (sys && (!strcmp(sys, "sched") || !strcmp(sys, "task")));
}

/* A stack record (ftrace's kernel_stack, user_stack) is written right
 * after the event it belongs to, on its CPU and in its context: its
 * common_pid is that event's (after a sched_switch, the task that left),
 * not a sign of who runs there now. */
static int follows_event(const struct pipeline *p, const struct decode_event *ev)
{
	int id = ev->event->id;

	return (id == p->kstack_id || id == p->ustack_id) && id >= 0;
}

#define RENAMED_MAX 16		/* names a slice splits at, at once */

/* pid's rows back from hid (its newest) to the one valid at start, or to
 * stop: oldest first in rows (at most RENAMED_MAX + 1; older ones are
 * left out). */
static size_t rows_back(struct pipeline *p, uint32_t hid, uint64_t start,
			uint32_t stop, uint32_t *rows)
{
	uint32_t back[RENAMED_MAX + 1];
	const struct resolve_row *row;
	size_t n = 0;

	for (uint32_t h = hid; h && n <= RENAMED_MAX; h = row->prev) {
		if (!(row = resolve_row(p->resolve, h)))
			break;
		back[n++] = h;
		if (h == stop || row->start_ts <= start)
			break;
	}
	for (size_t i = 0; i < n; i++)
		rows[i] = back[n - 1 - i];
	return n;
}

/* cpu's open part of pid, begun at start under row cur, is rows[0]'s
 * and splits where each later row begins, before `before` (a name a
 * switch-out shows first begins after the slice). Nothing happens where
 * nothing changes (a restart held for the task stays held: a rename
 * would make it happen). */
static int split_rows(struct pipeline *p, int cpu, int32_t pid, const uint32_t *rows,
		      size_t n, uint64_t start, uint32_t cur, uint64_t before)
{
	int rc;

	if (!n)
		return 0;
	if (rows[0] != cur && (rc = derive_rename_on(p->derive, cpu, start, pid, rows[0])))
		return rc;
	for (size_t i = 1; i < n; i++) {
		uint64_t at = resolve_row(p->resolve, rows[i])->start_ts;

		if (at >= before)
			break;
		if ((rc = derive_rename_on(p->derive, cpu, at, pid, rows[i])))
			return rc;
	}
	return 0;
}

/* The event's task runs on its CPU under an earlier row of its lifetime
 * than hid, its row now: a new name was seen (in a field of this event or
 * of another about it) with no task_rename or exec to split at. The slice
 * splits where comm_history begins the name, so that each part has the
 * name valid over it; at each name it had between, too (another CPU's
 * events showed them while no event of its own came here). A name first
 * shown by a switch-out does not split: its row begins at that switch,
 * after the slice (derive_switch). A row that begins before the slice's
 * part (an event just after a rename that still showed the old name)
 * renames nothing. */
static int derive_renamed(struct pipeline *p, const struct decode_event *ev,
			  uint32_t hid, const struct derive_run *run)
{
	const struct resolve_row *was, *now;
	uint32_t rows[RENAMED_MAX + 1];
	size_t n;

	if (!hid || ev->pid <= 0)
		return 0;
	was = resolve_row(p->resolve, run->hid);
	now = resolve_row(p->resolve, hid);
	if (!was || !now || was->life != now->life || now->start_ts <= run->start)
		return 0;
	n = rows_back(p, hid, run->start, run->hid, rows);
	return split_rows(p, ev->cpu, ev->pid, rows, n, run->start, run->hid,
			  ev->kind == DECODE_SCHED_SWITCH ? ev->ts : UINT64_MAX);
}

/* A slice begun by inference, its start placed or moved back (another
 * CPU's update of the task's clock, its own first sched_stat_runtime),
 * is named from there: the row valid at its start, and splits where each
 * later name began (its event's row began at the event, maybe after the
 * start), before `before`. So is the slice of a task whose rename moved
 * later (comm_history's new name begins after an event that still showed
 * the old one): its part since the rename is the old name's up to there. */
static int name_from_start(struct pipeline *p, int cpu, int32_t pid, uint64_t before)
{
	struct derive_run run = { 0, 0, 0 };
	const struct resolve_row *row;
	uint32_t rows[RENAMED_MAX + 1];
	size_t n;

	if (pid <= 0 || !derive_part(p->derive, cpu, pid, &run) ||
	    !(row = resolve_row(p->resolve, run.hid)) || row->start_ts <= run.start)
		return 0;
	n = rows_back(p, run.hid, run.start, 0, rows);
	/* a pid first seen in this event: it ran from there */
	if (n && n <= RENAMED_MAX)
		resolve_seen_from(p->resolve, rows[0], run.start);
	return split_rows(p, cpu, pid, rows, n, run.start, run.hid, before);
}

/* A new task's row (its birth made it), read without taking it for a
 * sign of the task (resolve_hid would: the clone's second event is then
 * no longer its birth's). */
static uint32_t born_row(struct pipeline *p, int32_t pid)
{
	const struct resolve_entry *e = resolve_slot(p->resolve, pid);

	return e ? e->hid : 0;
}

/* Whether ev is the exec of thread tid (sched_process_exec, old_pid
 * tid): it says so itself. */
static int exec_of(const struct decode_event *ev, int32_t tid)
{
	return ev->kind == DECODE_SCHED_PROCESS_EXEC &&
	       (ev->has & (DECODE_HAS_P0 | DECODE_HAS_P1)) == (DECODE_HAS_P0 | DECODE_HAS_P1) &&
	       ev->p[0] == ev->pid && ev->p[1] == tid;
}

/* Whether ev is the thread tid's exec renaming it under its leader's pid
 * (task_rename by that pid, of its process or one not known, whose
 * oldcomm is the thread's name, row from's). */
static int renamed_from(struct pipeline *p, const struct decode_event *ev,
			int32_t tid, uint32_t from)
{
	const struct resolve_row *row;
	const char *comm;
	size_t len;

	if (ev->kind != DECODE_TASK_RENAME ||
	    (ev->has & (DECODE_HAS_P0 | DECODE_HAS_C0)) != (DECODE_HAS_P0 | DECODE_HAS_C0) ||
	    ev->p[0] != ev->pid || !ev->c[0].s ||
	    !(row = resolve_row(p->resolve, from)) || !row->comm_id ||
	    !(comm = resolve_comm(p->resolve, row->comm_id, &len)) ||
	    len != ev->c[0].len || memcmp(comm, ev->c[0].s, len))
		return 0;
	return resolve_same_process(p->resolve, tid, ev->pid);
}

/* Whether ev shows pid under row as's name, which is not the name pid has
 * (a switch's prev or next, a runtime's, a rename's old name, an exit's):
 * the task named so runs as pid now. */
static int shows_as(struct pipeline *p, const struct decode_event *ev,
		    int32_t pid, uint32_t as)
{
	const struct resolve_entry *e = resolve_slot(p->resolve, pid);
	const struct resolve_row *row = resolve_row(p->resolve, as), *own;
	const char *comm;
	size_t len;
	int slots;

	switch (ev->kind) {
	case DECODE_SCHED_SWITCH:
		slots = 2;
		break;
	case DECODE_SCHED_STAT_RUNTIME:
	case DECODE_TASK_RENAME:
	case DECODE_SCHED_PROCESS_EXIT:
		slots = 1;
		break;
	default:
		return 0;
	}
	if (!row || !row->comm_id || !e || !(own = resolve_row(p->resolve, e->hid)) ||
	    own->comm_id == row->comm_id ||
	    !(comm = resolve_comm(p->resolve, row->comm_id, &len)))
		return 0;
	for (int k = 0; k < slots; k++)
		if ((ev->has & (DECODE_HAS_P0 << k)) && (ev->has & (DECODE_HAS_C0 << k)) &&
		    ev->p[k] == pid && ev->c[k].s && ev->c[k].len == len &&
		    !memcmp(ev->c[k].s, comm, len))
			return 1;
	return 0;
}

/* Whether pid's slice runs on cpu with no loss inside (who runs there is
 * known), and its row (*hid). */
static int runs_known(struct pipeline *p, int cpu, int32_t pid, uint32_t *hid)
{
	return derive_other(p->derive, cpu, -1, 0, 1, hid) == pid;
}

/* Whether a sched_process_free of pid frees the task the pid names now.
 * It fires from an RCU callback, often after the pid was reaped and
 * taken again: one that came between the new task's exit and its last
 * switch-out (it runs, or waits preempted, until then) ended the new
 * task's lifetime early, and its last events began one of no tgid and no
 * parent (comm_at NULL while it ran). A task is not freed while it still
 * runs on a CPU, nor under another name than its own (the free's comm
 * is the freed task's). */
static bool frees_current(struct pipeline *p, const struct decode_event *ev)
{
	int32_t pid = ev->p[0];

	/* (switched out dead, or never seen exiting: resolve_death says) */
	if (resolve_exited_fast(p->resolve, pid) != RESOLVE_EXITED)
		return true;
	if (p->derive)
		for (int c = 0; c < p->ncpus; c++)
			if (derive_running(p->derive, c) == pid)
				return false;
	return !(ev->has & DECODE_HAS_C0) || !ev->c[0].s ||
	       resolve_named_as(p->resolve, pid, ev->c[0].s, ev->c[0].len,
				field_size(&ev->c[0])) != 0;
}

/* Whether ev, a sched_stat_runtime the exited leader running on its CPU
 * fired (common_pid) about another pid under the leader's own name, is
 * the leader's under the tid a thread's exec just gave it: the kernel
 * read current's pid for the event and the task's for the field on
 * either side of the swap (de_thread on the thread's CPU). A remote
 * update of the thread's clock shows the thread's name. */
static int racing_swap(struct pipeline *p, const struct decode_event *ev)
{
	uint32_t from = 0;

	if ((ev->has & (DECODE_HAS_P0 | DECODE_HAS_C0)) != (DECODE_HAS_P0 | DECODE_HAS_C0) ||
	    ev->p[0] <= 0 || ev->p[0] == ev->pid || ev->pid <= 0 || !p->derive ||
	    resolve_exited_fast(p->resolve, ev->pid) != RESOLVE_EXITED ||
	    !runs_known(p, ev->cpu, ev->pid, &from) ||
	    !shows_as(p, ev, ev->p[0], from))
		return 0;
	return resolve_gave_tid(p->resolve, ev->pid, ev->p[0], 1);
}

/* A thread that execs and its process's leader swap pids (de_thread),
 * the leader exited: the first event under the other's pid on a CPU where
 * one of them runs shows it. The task running there is that pid from ts
 * on, under its own name, and the other, where it runs, this one's
 * (derive_seen splits the slice here, derive_took the other's). */
static int took_here(struct pipeline *p, const struct decode_event *ev,
		     uint64_t ts)
{
	struct resolve *r = p->resolve;
	struct derive_run run = { 0, 0, 0 };
	uint32_t from = 0, hid = 0;
	int32_t tid = derive_other(p->derive, ev->cpu, ev->pid, ev->switch_mm,
				   own_event(ev), &from);
	int gone_tid, gone_pid, said, cpu;

	if (tid <= 0) {
		/* a task dead (its last switch-out seen) runs where idle
		 * was believed to: a task under its pid reused */
		if (resolve_exited_fast(r, ev->pid) == RESOLVE_GONE &&
		    derive_idle_other(p->derive, ev->cpu, ev->pid, ev->switch_mm,
				      own_event(ev)))
			resolve_reborn(r, ev->pid);
		return 0;
	}
	gone_tid = resolve_exited_fast(r, tid);
	gone_pid = resolve_exited_fast(r, ev->pid);
	said = exec_of(ev, tid) || renamed_from(p, ev, tid, from);
	if (!gone_tid && !gone_pid && !said)
		return 0;
	cpu = derive_cpu_of(p->derive, ev->pid);	/* the other's */
	if (cpu >= 0 && (!derive_part(p->derive, cpu, ev->pid, &run) ||
			 !runs_known(p, cpu, ev->pid, &hid)))
		cpu = -1;
	hid = 0;
	if (gone_tid == RESOLVE_EXITED &&
	    resolve_gave_tid(r, tid, ev->pid, shows_as(p, ev, ev->pid, from))) {
		/* the leader runs here after its exit, under the thread's
		 * tid: it ran under its own pid to here; its pid, the
		 * thread's now, begins a lifetime (unnamed, until the thread
		 * shows, where it does not run) */
		resolve_ran_dead(r, tid, ts, 0);
		if (!resolve_swap_tid(r, ev->pid, ts, from))
			return 0;
		if (cpu >= 0)
			hid = resolve_took_from(r, tid, ts, 0, run.hid, 0);
		else
			resolve_took_from(r, tid, ts, 0, 0, 0);
	} else if (said || (gone_pid &&
			    resolve_took_leader(r, tid, ev->pid,
						shows_as(p, ev, ev->pid, from), cpu >= 0))) {
		/* the thread runs here under the leader's pid; the leader,
		 * where it still runs, ran under it to here */
		if (cpu >= 0)
			resolve_ran_dead(r, ev->pid, ts, 0);
		resolve_took_from(r, ev->pid, ts, tid, from, said);
		if (cpu >= 0)
			hid = resolve_swap_tid(r, tid, ts, run.hid);
	} else {
		/* a leader gone that shows again with no birth: a thread of
		 * its process took its pid, this event not showing which
		 * (the task believed to run here may not: a switch in left
		 * out) */
		if (gone_pid == RESOLVE_GONE)
			resolve_took_gone(r, ev->pid);
		return 0;
	}
	p->took_tid = tid;
	p->took_pid = ev->pid;
	return hid ? derive_took(p->derive, cpu, ts, tid, hid) : 0;
}

/* Feeds the derived tables: switches make slices and end wakeups, the
 * first waking (or wakeup, when the trace has no waking) starts one. */
static int derive_event(struct pipeline *p, const struct decode_event *ev,
			uint32_t hid)
{
	const unsigned sw = DECODE_HAS_P0 | DECODE_HAS_P1;
	struct derive_run run = { 0, 0, 0 };
	int rc;

	if (follows_event(p, ev))
		return 0;
	if ((rc = derive_seen(p->derive, ev->ts, ev->cpu, ev->pid, hid,
			      ev->switch_mm, own_event(ev), &run)) ||
	    (run.began && (rc = name_from_start(p, ev->cpu, ev->pid, UINT64_MAX))))
		return rc;
	if (ev->kind == DECODE_SCHED_SWITCH && (ev->has & DECODE_HAS_P0))
		derive_switching(p->derive, ev->cpu, ev->p[0]);
	if (run.hid && (rc = derive_renamed(p, ev, hid, &run)))
		return rc;
	if (p->moved_pid > 0) {
		int32_t pid = p->moved_pid;
		int cpu = derive_cpu_of(p->derive, pid);

		p->moved_pid = 0;
		if (cpu >= 0 && (rc = name_from_start(p, cpu, pid,
						      ev->kind == DECODE_SCHED_SWITCH ? ev->ts
										      : UINT64_MAX)))
			return rc;
	}
	if (p->rename_pid > 0) {
		rc = derive_rename(p->derive, p->rename_ts, p->rename_pid, p->rename_hid);
		p->rename_pid = 0;
		if (rc)
			return rc;
	}
	switch (ev->kind) {
	case DECODE_SCHED_SWITCH:
		if ((ev->has & sw) != sw)
			return 0;
		/* prev is the event's own pid but where a thread's exec
		 * swapped it in between (the leader switched out under the
		 * tid): then prev's row, not the pid's */
		if (__builtin_expect(ev->p[0] != ev->pid, 0) && ev->p[0] > 0)
			hid = resolve_hid(p->resolve, ev->p[0], ev->cpu, ev->ts);
		return derive_switch(p->derive, ev->ts, ev->cpu, ev->p[0], hid,
				     (int32_t)ev->v[0],
				     (ev->has & DECODE_HAS_V1) ? ev->v[1] : -1,
				     ev->p[1], p->next_hid, (int32_t)ev->v[2]);
	case DECODE_SCHED_WAKING:
	case DECODE_SCHED_WAKEUP:
	case DECODE_SCHED_WAKEUP_NEW:
		if (!(ev->has & DECODE_HAS_P0))
			return 0;
		if (ev->kind != DECODE_SCHED_WAKING)
			derive_woken(p->derive, ev->p[0]);
		p->took_waking = derive_waking(p->derive, ev->ts, ev->p[0],
					       ev->kind == DECODE_SCHED_WAKING ? DERIVE_WAKING :
					       ev->kind == DECODE_SCHED_WAKEUP ? DERIVE_WAKEUP :
					       DERIVE_WAKEUP_NEW, ev->pid, hid);
		/* a waking's target_cpu is where the task last ran; a
		 * wakeup's, where it was queued */
		if (!(ev->has & DECODE_HAS_V1))
			return 0;
		if (ev->kind == DECODE_SCHED_WAKING)
			derive_waking_cpu(p->derive, ev->p[0], (int)ev->v[1]);
		else
			derive_queued(p->derive, ev->p[0], (int)ev->v[1]);
		return 0;
	case DECODE_SCHED_MIGRATE_TASK:
		if ((ev->has & (DECODE_HAS_P0 | DECODE_HAS_V2)) == (DECODE_HAS_P0 | DECODE_HAS_V2))
			derive_queued(p->derive, ev->p[0], (int)ev->v[2]);
		return 0;
	case DECODE_SCHED_PROCESS_FORK:
		if (ev->has & DECODE_HAS_P1)
			derive_born(p->derive, ev->p[1], ev->ts, ev->cpu,
				    born_row(p, ev->p[1]));
		return 0;
	case DECODE_TASK_NEWTASK:
		if (ev->has & DECODE_HAS_P0)
			derive_born(p->derive, ev->p[0], ev->ts, ev->cpu,
				    born_row(p, ev->p[0]));
		return 0;
	case DECODE_SCHED_STAT_RUNTIME:
		if ((ev->has & (DECODE_HAS_P0 | DECODE_HAS_V0)) !=
		    (DECODE_HAS_P0 | DECODE_HAS_V0) || ev->v[0] < 0)
			return 0;
		if ((rc = derive_runtime(p->derive, ev->ts, ev->cpu, ev->pid,
					 ev->p[0], (uint64_t)ev->v[0])))
			return rc;
		/* its own: it may have placed the start of its slice */
		return ev->p[0] == ev->pid ? name_from_start(p, ev->cpu, ev->pid, UINT64_MAX) : 0;
	default:
		return 0;
	}
}

int pipeline_record(struct pipeline *p, const void *data, int size, int cpu,
		    uint64_t ts)
{
	struct resolve *r = p->resolve;
	struct decode_event ev;
	uint32_t ids[2] = { 0, 0 }, type = 0, hid = 0;
	int32_t moved;
	size_t json_len = 0;
	const char *json = NULL;

	if (decode_record(p->decode, data, size, cpu, ts, &ev)) {
		p->undecodable++;
		forget_switch(p, cpu);
		return 0;
	}
	if (ev.event->id == p->kstack_id) {
		int r = kernel_stack(p, &ev);

		if (r <= 0)
			return r;
	}
	if (p->kstack_id >= 0 && cpu >= 0 && cpu < PIPELINE_MAX_CPUS) {
		/* the CPU's last record, for its next kernel_stack */
		if ((size_t)cpu >= p->nsleep &&
		    grow_array(&p->sleep_switch, &p->nsleep, sizeof(*p->sleep_switch),
			       (size_t)cpu + 1, 1))
			return -1;
		p->sleep_switch[cpu] = ev.kind == DECODE_SCHED_SWITCH &&
			(ev.has & DECODE_HAS_V1) && (ev.v[1] & 3) ? ts + 1 : 0;
	}
	/* A thread that execs takes its exited leader's pid (de_thread swaps
	 * them): the first event under that pid on the CPU where the thread
	 * runs begins the pid's new lifetime, under the thread's name, before
	 * the event is named (derive_seen splits the slice there); so does
	 * the first under the thread's tid where the leader still runs. */
	if (ev.pid > 0 && p->derive && derive_running(p->derive, cpu) != ev.pid &&
	    !follows_event(p, &ev) && took_here(p, &ev, ts))
		return -1;
	/* The exited leader switched out under the thread's tid, the
	 * event's pid read before the swap (de_thread, on the thread's CPU)
	 * and prev's after: the switch shows the swap as the first event
	 * under the tid where the leader runs would. */
	if (__builtin_expect(ev.kind == DECODE_SCHED_SWITCH, 0) && p->derive &&
	    (ev.has & DECODE_HAS_P0) && ev.p[0] > 0 && ev.p[0] != ev.pid &&
	    ev.pid > 0 && resolve_exited_fast(r, ev.pid) == RESOLVE_EXITED) {
		struct decode_event as_prev = ev;

		as_prev.pid = ev.p[0];
		if (derive_running(p->derive, cpu) != as_prev.pid && took_here(p, &as_prev, ts))
			return -1;
	}
	/* A new task woken for the first time under a pid whose task
	 * exited: the pid was reused, its fork not traced (-e
	 * sched:sched_wakeup_new without sched_process_fork). */
	if (__builtin_expect(ev.kind == DECODE_SCHED_WAKEUP_NEW, 0) &&
	    (ev.has & DECODE_HAS_P0) && resolve_exited_fast(r, ev.p[0]))
		resolve_birth(r, ev.p[0], ev.pid, 0, 0, ts, RESOLVE_SRC_SCHED_WAKEUP_NEW);
	switch (ev.kind) {
	case DECODE_SCHED_SWITCH:
		ids[0] = name(p, &ev, 0, 0, RESOLVE_SRC_SCHED_SWITCH, &hid);
		/* a task switched out dead never runs again: switched in
		 * under its pid is another, its birth not traced */
		if ((ev.has & DECODE_HAS_P1) &&
		    __builtin_expect(resolve_exited_fast(r, ev.p[1]) == RESOLVE_GONE, 0))
			resolve_reborn(r, ev.p[1]);
		ids[1] = name(p, &ev, 1, 1, RESOLVE_SRC_SCHED_SWITCH, &hid);
		/* A task that called exit still runs until its last
		 * switch-out (X, Z), and may be preempted on the way (R):
		 * each switch-out after the exit moves the lifetime's end
		 * there (the last one traced is the end: with the CPU it
		 * died on left out, the one before). */
		if (ev.has & DECODE_HAS_P0) {
			int dead = (ev.has & DECODE_HAS_V1) &&
				   state_dead(state_today(&p->states, ev.v[1]));

			if (dead || resolve_exited_fast(r, ev.p[0])) {
				resolve_ran_dead(r, ev.p[0], ts, dead);
				if (cgroups_ran(p->cg, ev.p[0], ts, dead, 0))
					return -1;
			}
		}
		if ((ev.has & DECODE_HAS_P1) && resolve_exited_fast(r, ev.p[1]))
			resolve_ran_again(r, ev.p[1]);
		break;
	case DECODE_SCHED_PROCESS_EXIT:
		ids[0] = name(p, &ev, 0, 0, RESOLVE_SRC_EXIT, &hid);
		if (ev.has & DECODE_HAS_P0) {
			resolve_exit(r, ev.p[0], ts);
			if (cgroups_ran(p->cg, ev.p[0], ts, 0, 1))
				return -1;
		}
		break;
	case DECODE_SCHED_WAKEUP:
	case DECODE_SCHED_WAKEUP_NEW:
	case DECODE_SCHED_STAT_RUNTIME:
		/* the leader, dying here, under its new tid before its
		 * common_pid shows it: not the thread's name (the swap comes
		 * at its next event, which shows that tid) */
		if (__builtin_expect(racing_swap(p, &ev), 0)) {
			ids[0] = intern_only(p, &ev, 0);
			break;
		}
		/* fall through */
	case DECODE_SCHED_WAKING:
	case DECODE_SCHED_MIGRATE_TASK:
		ids[0] = name(p, &ev, 0, 0, kind_source[ev.kind], &hid);
		break;
	case DECODE_SCHED_PROCESS_FREE:
		/* Fired from an RCU callback, possibly after the pid's reuse:
		 * its comm names a task that is gone, not the pid now. */
		ids[0] = intern_only(p, &ev, 0);
		break;
	case DECODE_SCHED_PROCESS_FORK:
		if (ev.has & DECODE_HAS_P1) {
			resolve_birth(r, ev.p[1], (ev.has & DECODE_HAS_P0) ?
				      ev.p[0] : ev.pid, 0, 0, ts, RESOLVE_SRC_FORK);
			if (cgroups_fork(p->cg, (ev.has & DECODE_HAS_P0) ? ev.p[0] : ev.pid,
					 ev.p[1], ts))
				return -1;
		}
		ids[0] = name(p, &ev, 0, 0, RESOLVE_SRC_FORK, &hid);
		ids[1] = name(p, &ev, 1, 1, RESOLVE_SRC_FORK, &hid);
		break;
	case DECODE_TASK_NEWTASK:
		if (ev.has & DECODE_HAS_P0) {
			resolve_birth(r, ev.p[0], ev.pid, (uint64_t)ev.v[0],
				      !!(ev.has & DECODE_HAS_V0), ts,
				      RESOLVE_SRC_NEWTASK);
			if (cgroups_fork(p->cg, ev.pid, ev.p[0], ts))
				return -1;
		}
		ids[0] = name(p, &ev, 0, 0, RESOLVE_SRC_NEWTASK, &hid);
		break;
	case DECODE_TASK_RENAME:
		if (!(ev.has & DECODE_HAS_P0)) {
			/* Kernels without the pid field rename current. */
			ev.p[0] = ev.pid;
			ev.has |= DECODE_HAS_P0;
		}
		/* A rename by a pid whose task exited: the exec of a thread
		 * that took its leader's pid (the kernel swaps the pids, then
		 * names the task). Its old name is that thread's. */
		if (ev.p[0] == ev.pid)
			resolve_took_pid(r, ev.pid, ts);
		/* The old name is the task's until the rename (the kernel
		 * emits the event under the task's lock, before it copies
		 * the new name): it names a lifetime nothing named yet, and
		 * one last named otherwise begins at the event (renamed where
		 * nothing was traced, or a thread that exec'd took the pid
		 * of a leader whose exit was not traced). */
		ids[0] = name(p, &ev, 0, 0, RESOLVE_SRC_RENAME, &hid);
		/* The kernel emits task_rename before it copies the new name:
		 * the event itself still belongs to the old name, the new one
		 * is valid from the next nanosecond. */
		if (ev.p[0] == ev.pid)
			hid = resolve_hid(r, ev.pid, cpu, ts);
		if (ev.has & DECODE_HAS_C1) {
			ids[1] = resolve_rename(r, ev.p[0], cpu, ev.c[1].s, ev.c[1].len,
						ev.c[1].size, ts);
			note_rename(p, ev.p[0], ts + 1);
		}
		break;
	case DECODE_SCHED_PROCESS_EXEC:
		if (p->exec_names) {
			exec_name(p, &ev);
			note_rename(p, (ev.has & DECODE_HAS_P0) ? ev.p[0] : ev.pid, ts);
		}
		/* exec leaves the task its thread group's leader. */
		if (ev.has & DECODE_HAS_P0)
			resolve_set_tgid(r, ev.p[0], ev.p[0]);
		/* A thread other than the leader that execs takes the
		 * leader's pid (old_pid is its own): that tid is gone. It
		 * ended before this event (the kernel changes the pid first,
		 * then names the task, then loads the program), which is the
		 * bound the trace gives. */
		if ((ev.has & (DECODE_HAS_P0 | DECODE_HAS_P1)) == (DECODE_HAS_P0 | DECODE_HAS_P1) &&
		    ev.p[1] > 0 && ev.p[1] != ev.p[0]) {
			uint64_t took = resolve_exec_took(r, ev.p[0], ev.p[1]);

			resolve_exec_leader(r, ev.p[0]);
			/* (or before: where its lifetime under the leader's
			 * pid began, the rename that showed its name there) */
			resolve_death(r, ev.p[1], took && took < ts ? took : ts, 0);
			if (cgroups_exit(p->cg, ev.p[1], ts))
				return -1;
		}
		break;
	case DECODE_OTHER:
	default:
		if (ev.event->id >= 0 && (ev.event->id == p->cg_attach_id ||
					  ev.event->id == p->cg_transfer_id) &&
		    cgroup_event(p, &ev))
			return -1;
		if (ev.names_task)
			name(p, &ev, 0, 0, RESOLVE_SRC_EVENT, &hid);
		type = type_row(p, &ev);
		json_len = event_json(p, &ev);
		json = json_len ? p->json : NULL;
		break;
	}
	if (__builtin_expect(ev.kind == DECODE_SCHED_WAKEUP, 0) &&
	    (size_t)cpu < p->nwaking && p->waking[cpu].late &&
	    p->waking[cpu].pid == ev.pid && (ev.has & DECODE_HAS_P0) &&
	    p->waking[cpu].target == ev.p[0])
		resolve_late_again(r, ev.pid, ts);
	if (!hid)
		hid = resolve_hid_fast(r, ev.pid, cpu, ts);
	if (__builtin_expect(ev.kind == DECODE_SCHED_WAKING || ev.kind == DECODE_SCHED_WAKEUP ||
			     ev.kind == DECODE_SCHED_SWITCH, 0) &&
	    cpu >= 0 && cpu < PIPELINE_MAX_CPUS && open_waking(p, &ev, cpu, ts))
		return -1;
	if (__builtin_expect((moved = resolve_take_moved(r)) != 0, 0)) {
		uint32_t before, after;

		/* a waking of it open here spans the old name's event */
		if ((size_t)cpu < p->nwaking && p->waking[cpu].pid == moved &&
		    p->waking[cpu].ts < ts)
			p->waking[cpu].late = 1;

		/* the events stored since the rename under the new name
		 * were the old name's */
		p->moved_pid = moved;
		if (resolve_moved_rows(r, moved, &before, &after))
			store_rehid_recent(p->store, after, before,
					   resolve_row(r, after)->start_ts, RESOLVE_LATE_RENAME_NS);
	}
	if (ev.kind == DECODE_SCHED_PROCESS_FREE && (ev.has & DECODE_HAS_P0) &&
	    frees_current(p, &ev))
		resolve_death(r, ev.p[0], ts, p->has_exit);
	p->next_hid = 0;
	p->took_waking = 0;
	p->sw_wake = -1;
	if (ev.kind == DECODE_SCHED_SWITCH && (ev.has & DECODE_HAS_P1))
		p->next_hid = resolve_hid_fast(r, ev.p[1], cpu, ts);
	if (p->derive && derive_event(p, &ev, hid))
		return -1;
	p->took_tid = p->took_pid = 0;
	if (store_event(p->store, &ev, hid, p->next_hid, ids, type, json, json_len))
		return -1;
	/* Where the slice a switch begins, and the wakeup a waking begins,
	 * will be stored once they end. */
	if (p->next_hid && p->derive)
		derive_switch_ref(p->derive, cpu, store_last_ref(p->store));
	if (p->sw_wake >= 0 && store_switch_wake(p->store, ts, p->sw_wake))
		return -1;
	if (p->took_waking)
		derive_waking_ref(p->derive, ev.p[0], store_last_ref(p->store), cpu,
				  ev.kind);
	if (cpu >= p->ncpus)
		p->ncpus = cpu + 1;
	/* The oldest and newest events so far, not the first and last
	 * read: an event can be committed to its CPU's buffer after a
	 * later-stamped one was read from another CPU (live), and the
	 * capture begins and ends, its names and open
	 * slices close, at the newest time seen (else the capture's end fell
	 * before rows stored after it, and the shipper's last round, which
	 * ships up to the end, left them behind). */
	if (!p->events || ts < p->first_ts)
		p->first_ts = ts;
	if (ts > p->last_ts)
		p->last_ts = ts;
	p->events++;
	if (ev.event->id >= 0 && ev.event->id <= p->max_id)
		p->type_counts[ev.event->id]++;
	return 0;
}

int pipeline_cpus(const struct pipeline *p)
{
	return p->ncpus;
}

int pipeline_lost(struct pipeline *p, int cpu, uint64_t ts, int64_t count)
{
	uint64_t from = 0;
	int rc;

	if (cpu >= p->ncpus)
		p->ncpus = cpu + 1;
	p->lost_records++;
	if (ts > p->last_loss_ts)
		p->last_loss_ts = ts;
	if (ts && (!p->first_loss_ts || ts < p->first_loss_ts))
		p->first_loss_ts = ts;
	if (p->derive && (rc = derive_lost(p->derive, cpu, ts)))
		return rc;
	forget_switch(p, cpu);
	if (cpu >= 0 && (size_t)cpu < p->ngap) {
		from = p->gap_from[cpu];
		p->gap_from[cpu] = 0;
	}
	return store_lost(p->store, cpu, ts, from, count);
}

void pipeline_gap(struct pipeline *p, int cpu, uint64_t ts)
{
	if (p->derive)
		derive_gap(p->derive, cpu, ts);
	/* (no memory: the loss is stored with its stamp alone, as before
	 * from_ts) */
	if (cpu >= 0 && cpu < PIPELINE_MAX_CPUS &&
	    !grow_array(&p->gap_from, &p->ngap, sizeof(*p->gap_from), (size_t)cpu + 1, 1))
		p->gap_from[cpu] = ts;
}

/* The derivations still run: a slice's end dates a dead task's last
 * name and a thread's exec is told by who runs where, so the names are
 * the same with or without the derived rows. */
void pipeline_no_derived(struct pipeline *p)
{
	p->no_derived = 1;
}

/* The value of a constant expression of a print format ("4096", "(((0x0
 * | 0x1 | ... | 0x40) + 1) << 1)"): 0 when it is none. */
static int const_value(const struct tep_print_arg *a, unsigned long long *v, int depth)
{
	unsigned long long l, r;
	const char *op;
	char *end;

	if (!a || depth > 64)
		return -1;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		if (!a->atom.atom || !*a->atom.atom)
			return -1;
		*v = strtoull(a->atom.atom, &end, 0);
		return *end ? -1 : 0;
	case TEP_PRINT_TYPE:
		return const_value(a->typecast.item, v, depth + 1);
	case TEP_PRINT_OP:
		if (!(op = a->op.op) || const_value(a->op.left, &l, depth + 1) ||
		    const_value(a->op.right, &r, depth + 1))
			return -1;
		if (!strcmp(op, "|"))
			*v = l | r;
		else if (!strcmp(op, "&"))
			*v = l & r;
		else if (!strcmp(op, "+"))
			*v = l + r;
		else if (!strcmp(op, "-"))
			*v = l - r;
		else if (!strcmp(op, "<<") && r < 64)
			*v = l << r;
		else if (!strcmp(op, ">>") && r < 64)
			*v = l >> r;
		else
			return -1;
		return 0;
	default:
		return -1;
	}
}

/* Walks a print format's arguments for __print_flags tables and a "+"
 * literal (the preempted mark), and the mark's bit where the format says
 * it: `prev_state & MARK ? "+" : ""` (*pre). */
static void state_walk(const struct tep_print_arg *a, char *buf, size_t len,
		       size_t *n, unsigned long long *top, int *plus,
		       unsigned long long *pre, int depth)
{
	const struct tep_print_arg *c, *t;

	if (!a || depth > 32)
		return;
	switch (a->type) {
	case TEP_PRINT_FLAGS:
		for (const struct tep_print_flag_sym *f = a->flags.flags; f; f = f->next) {
			unsigned long long v = f->value ? strtoull(f->value, NULL, 0) : 0;

			if (!v || !f->str || !*f->str)
				continue;
			*n += (size_t)snprintf(buf + *n, *n < len ? len - *n : 0, "%s%llu:%s",
					       *n ? "," : "", v, f->str);
			if (v > *top)
				*top = v;
		}
		break;
	case TEP_PRINT_OP:
		/* COND ? "+" : "", COND a field & a constant */
		if (a->op.op && !strcmp(a->op.op, "?") && (c = a->op.left) &&
		    (t = a->op.right) && t->type == TEP_PRINT_OP && t->op.op &&
		    !strcmp(t->op.op, ":") && t->op.left &&
		    t->op.left->type == TEP_PRINT_ATOM && t->op.left->atom.atom &&
		    !strcmp(t->op.left->atom.atom, "+") &&
		    c->type == TEP_PRINT_OP && c->op.op && !strcmp(c->op.op, "&")) {
			unsigned long long v;

			if ((!const_value(c->op.right, &v, 0) ||
			     !const_value(c->op.left, &v, 0)) && v && !(v & (v - 1)))
				*pre = v;
		}
		state_walk(a->op.left, buf, len, n, top, plus, pre, depth + 1);
		state_walk(a->op.right, buf, len, n, top, plus, pre, depth + 1);
		break;
	case TEP_PRINT_TYPE:
		state_walk(a->typecast.item, buf, len, n, top, plus, pre, depth + 1);
		break;
	case TEP_PRINT_ATOM:
		if (a->atom.atom && !strcmp(a->atom.atom, "+"))
			*plus = 1;
		break;
	default:
		break;
	}
}

int pipeline_state_letters(struct tep_handle *tep, char *buf, size_t len)
{
	struct tep_event *ev = tep_find_event_by_name(tep, "sched", "sched_switch");
	unsigned long long top = 0, pre = 0;
	size_t n = 0;
	int plus = 0;

	buf[0] = '\0';
	if (!ev)
		return -1;
	for (const struct tep_print_arg *a = ev->print_fmt.args; a; a = a->next)
		state_walk(a, buf, len, &n, &top, &plus, &pre, 0);
	if (!n)
		return -1;
	n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ",0:R");
	/* The preempted mark: the bit the format tests for its "+"; else
	 * the bit above the table's (TASK_REPORT_MAX; 4.8-4.13 left
	 * TASK_NEW, 2048, out of the table and marked 4096) */
	if (plus)
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ",+%llu",
				      pre > top ? pre : top << 1);
	return n < len ? 0 : -1;
}

int pipeline_store_states(struct pipeline *p, int64_t capture)
{
	char states[256];

	if (pipeline_state_letters(p->tep, states, sizeof(states)))
		return 0;	/* no table in the format: state_name's own */
	state_map_init(&p->states, states);
	if (p->derive)
		derive_states(p->derive, &p->states);
	return store_capture_states(p->store, capture, states);
}

int pipeline_sync_names(struct pipeline *p)
{
	return store_sync_names(p->store, p->resolve);
}

void pipeline_cpu_gone(struct pipeline *p, int cpu)
{
	if (p->derive)
		derive_cpu_gone(p->derive, cpu);
}

void pipeline_cpu_untraced(struct pipeline *p, int cpu)
{
	if (p->derive)
		derive_untraced(p->derive, cpu);
}

void pipeline_clock_not_ns(struct pipeline *p)
{
	if (p->derive)
		derive_clock_not_ns(p->derive);
}

void pipeline_finish(struct pipeline *p,
		     const char *(*lookup)(void *ctx, int32_t pid), void *ctx)
{
	if (p->derive) {
		/* a task that exited and runs on at the end (its last
		 * switch-out not traced): its lifetime ends with its slice,
		 * at the end, not at its exit */
		for (int cpu = 0; cpu < p->ncpus; cpu++) {
			int32_t pid = derive_running(p->derive, cpu);

			if (pid > 0 && resolve_exited_fast(p->resolve, pid) == RESOLVE_EXITED)
				resolve_ran_dead(p->resolve, pid, p->last_ts, 0);
		}
		derive_finish(p->derive, p->last_ts);
	}
	resolve_name_unnamed(p->resolve, lookup, ctx, RESOLVE_SRC_CMDLINES);
	resolve_close_all(p->resolve, p->last_ts);
}

int pipeline_write_stats(struct pipeline *p, int64_t capture)
{
	char name[256];

	for (int id = 0; id <= p->max_id; id++) {
		struct tep_event *ev;

		if (!p->type_counts[id] || !(ev = tep_find_event(p->tep, id)))
			continue;
		snprintf(name, sizeof(name), "events:%s:%s", ev->system, ev->name);
		if (store_stat(p->store, capture, name, -1, (int64_t)p->type_counts[id]))
			return -1;
	}
	if (store_stat(p->store, capture, "events", -1, (int64_t)p->events) ||
	    store_stat(p->store, capture, "undecodable_records", -1,
		       (int64_t)p->undecodable) ||
	    store_stat(p->store, capture, "field_errors", -1,
		       (int64_t)decode_field_errors(p->decode)) ||
	    store_stat(p->store, capture, "unnamed_events", -1,
		       (int64_t)resolve_unnamed_events(p->resolve)) ||
	    store_stat(p->store, capture, "tasks_without_tgid", -1,
		       (int64_t)resolve_tasks_without_tgid(p->resolve)) ||
	    store_stat(p->store, capture, "comm_updates", -1,
		       (int64_t)resolve_updates(p->resolve)) ||
	    (p->kernel_stacks &&
	     store_stat(p->store, capture, "kernel_stacks", -1, (int64_t)p->kernel_stacks)) ||
	    store_stat(p->store, capture, "lost_event_records", -1,
		       (int64_t)p->lost_records))
		return -1;
	return 0;
}

const char *pipeline_events_seen(struct pipeline *p)
{
	size_t len = 0, cap = 256;
	char *s = malloc(cap);

	if (!s)
		return "";
	s[0] = '\0';
	for (int id = 0; id <= p->max_id; id++) {
		struct tep_event *ev;
		size_t need;

		if (!p->type_counts[id] || !(ev = tep_find_event(p->tep, id)))
			continue;
		need = len + strlen(ev->system) + strlen(ev->name) + 3;
		if (grow_array(&s, &cap, 1, need, 0))
			break;
		len += (size_t)sprintf(s + len, "%s%s:%s", len ? "," : "",
				       ev->system, ev->name);
	}
	free(p->seen);
	p->seen = s;
	return s;
}

uint64_t pipeline_events(const struct pipeline *p)
{
	return p->events;
}

uint64_t pipeline_undecodable(const struct pipeline *p)
{
	return p->undecodable;
}

uint64_t pipeline_first_ts(const struct pipeline *p)
{
	if (p->first_loss_ts && (!p->events || p->first_loss_ts < p->first_ts))
		return p->first_loss_ts;
	return p->first_ts;
}

uint64_t pipeline_last_ts(const struct pipeline *p)
{
	return p->last_ts > p->last_loss_ts ? p->last_ts : p->last_loss_ts;
}

uint64_t pipeline_oldest_wakeup(const struct pipeline *p, uint64_t after)
{
	return p->derive ? derive_oldest_wakeup(p->derive, after) : 0;
}

struct cgroups *pipeline_cgroups(struct pipeline *p)
{
	return p->cg;
}

struct resolve *pipeline_resolver(struct pipeline *p)
{
	return p->resolve;
}
