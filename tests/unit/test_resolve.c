/* Resolver tests: crafted sequences of what the trace says, one per way a
 * task's name changes (docs/architecture.md section 4). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "resolve.h"
#include "seed.h"

#define NAME(r, pid, comm, ts) \
	resolve_name(r, pid, 0, comm, strlen(comm), ts, RESOLVE_SRC_SCHED_SWITCH)

/* The name of the row an event of pid at ts is stored with. */
static const char *comm_of(struct resolve *r, uint32_t hid)
{
	static char buf[128];
	const struct resolve_row *row = resolve_row(r, hid);
	size_t len;
	const char *c;

	if (!row || !row->comm_id)
		return "<...>";
	c = resolve_comm(r, row->comm_id, &len);
	memcpy(buf, c, len);
	buf[len] = '\0';
	return buf;
}

static void resolve_exec_renames_same_pid(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t before, after;

	NAME(r, 100, "bash", 10);
	before = resolve_hid(r, 100, 0, 11);
	resolve_name(r, 100, 0, "ls", 2, 20, RESOLVE_SRC_EXEC);
	after = resolve_hid(r, 100, 0, 21);
	CHECK_STR(comm_of(r, before), "bash");
	CHECK_STR(comm_of(r, after), "ls");
	CHECK(before != after);
	CHECK_INT(resolve_row(r, before)->end_ts, 20);
	CHECK_INT(resolve_row(r, after)->start_ts, 20);
	CHECK_INT(resolve_updates(r), 1);
	resolve_free(r);
}

static void resolve_unchanged_name_writes_nothing(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t rows, id1, id2;

	id1 = NAME(r, 7, "worker", 1);
	rows = resolve_row_count(r);
	for (int i = 0; i < 1000; i++)
		id2 = NAME(r, 7, "worker", 2 + i);
	CHECK_INT(id1, id2);
	CHECK_INT(resolve_row_count(r), rows);
	CHECK_INT(resolve_updates(r), 0);
	resolve_free(r);
}

static void resolve_prctl_many_times(void)
{
	struct resolve *r = resolve_new(16);
	char name[16];
	uint32_t hid;

	for (int i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "step-%d", i);
		resolve_name(r, 5, 0, name, strlen(name), 100 + i, RESOLVE_SRC_RENAME);
		hid = resolve_hid(r, 5, 0, 100 + i);
		CHECK_STR(comm_of(r, hid), name);
	}
	CHECK_INT(resolve_row_count(r), 50);
	resolve_free(r);
}

static void resolve_threads_have_own_names(void)
{
	struct resolve *r = resolve_new(16);

	NAME(r, 200, "server", 1);
	resolve_birth(r, 201, 200, 0x00010000 /* CLONE_THREAD */, 1, 2, RESOLVE_SRC_NEWTASK);
	resolve_name(r, 201, 0, "server", 6, 2, RESOLVE_SRC_NEWTASK);
	resolve_name(r, 201, 0, "io-worker", 9, 3, RESOLVE_SRC_RENAME);
	CHECK_STR(comm_of(r, resolve_hid(r, 201, 0, 4)), "io-worker");
	CHECK_STR(comm_of(r, resolve_hid(r, 200, 0, 4)), "server");
	resolve_free(r);
}

static void resolve_tgid_from_clone_flags(void)
{
	struct resolve *r = resolve_new(16);

	resolve_birth(r, 300, 1, 0, 1, 1, RESOLVE_SRC_NEWTASK);	/* a process */
	NAME(r, 300, "proc", 1);
	resolve_birth(r, 301, 300, 0x00010000, 1, 2, RESOLVE_SRC_NEWTASK);
	CHECK_INT(resolve_row(r, resolve_hid(r, 300, 0, 3))->tgid, 300);
	CHECK_INT(resolve_row(r, resolve_hid(r, 301, 0, 3))->tgid, 300);
	resolve_free(r);
}

static void resolve_pid_reuse_starts_new_lifetime(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t old, reborn;

	NAME(r, 400, "old-daemon", 1);
	old = resolve_hid(r, 400, 0, 2);
	resolve_death(r, 400, 10, 0);
	/* Reborn, and its first event comes before any name: it must not
	 * inherit the old one. */
	resolve_birth(r, 400, 1, 0, 0, 20, RESOLVE_SRC_FORK);
	reborn = resolve_hid(r, 400, 0, 21);
	CHECK(old != reborn);
	CHECK_STR(comm_of(r, reborn), "<...>");
	NAME(r, 400, "new-tool", 30);
	CHECK_STR(comm_of(r, reborn), "new-tool");
	CHECK_STR(comm_of(r, old), "old-daemon");
	CHECK_INT(resolve_row(r, old)->end_ts, 10);
	resolve_free(r);
}

static void resolve_reuse_without_free_event(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t a, b;

	/* (a birth more than BIRTH_SKEW_NS after the pid was seen) */
	NAME(r, 500, "first", 1);
	a = resolve_hid(r, 500, 0, 1);
	resolve_birth(r, 500, 1, 0, 1, 5000000, RESOLVE_SRC_NEWTASK);
	b = resolve_hid(r, 500, 0, 5000001);
	CHECK(a != b);
	CHECK_INT(resolve_row(r, a)->end_ts, 5000000);
	resolve_free(r);
}

static void resolve_fork_then_newtask_is_one_birth(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t rows;

	NAME(r, 10, "make", 1);
	resolve_birth(r, 11, 10, 0, 1, 5, RESOLVE_SRC_NEWTASK);
	resolve_name(r, 11, 0, "make", 4, 5, RESOLVE_SRC_NEWTASK);
	rows = resolve_row_count(r);
	resolve_birth(r, 11, 10, 0, 0, 6, RESOLVE_SRC_FORK);	/* same clone */
	resolve_name(r, 11, 0, "make", 4, 6, RESOLVE_SRC_FORK);
	CHECK_INT(resolve_row_count(r), rows);
	resolve_free(r);
}

static void resolve_fork_exec_window_keeps_parent_name(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t in_window, after_exec;

	NAME(r, 20, "bash", 1);
	resolve_birth(r, 21, 20, 0, 1, 2, RESOLVE_SRC_NEWTASK);
	resolve_name(r, 21, 0, "bash", 4, 2, RESOLVE_SRC_NEWTASK);
	in_window = resolve_hid(r, 21, 0, 3);
	resolve_name(r, 21, 0, "make", 4, 4, RESOLVE_SRC_RENAME);
	after_exec = resolve_hid(r, 21, 0, 5);
	CHECK_STR(comm_of(r, in_window), "bash");
	CHECK_STR(comm_of(r, after_exec), "make");
	resolve_free(r);
}

static void resolve_rename_while_running(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t before;

	/* Switched in as "a" (next_comm), switched out as "b" (prev_comm). */
	NAME(r, 30, "a", 1);
	before = resolve_hid(r, 30, 0, 2);
	NAME(r, 30, "b", 3);
	CHECK_STR(comm_of(r, before), "a");
	CHECK_STR(comm_of(r, resolve_hid(r, 30, 0, 3)), "b");
	resolve_free(r);
}

static void resolve_events_before_first_sighting_take_first_name(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t early;

	early = resolve_hid(r, 40, 0, 1);	/* fires before anything names it */
	CHECK_STR(comm_of(r, early), "<...>");
	resolve_name(r, 40, 0, "late", 4, 9, RESOLVE_SRC_SCHED_WAKEUP);
	CHECK_STR(comm_of(r, early), "late");
	CHECK_INT(resolve_row(r, early)->start_ts, 1);
	resolve_free(r);
}

static void resolve_wakeup_target_only(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t rows = resolve_row_count(r);

	resolve_name(r, 41, 0, "sleeper", 7, 5, RESOLVE_SRC_SCHED_WAKEUP);
	CHECK_INT(resolve_row_count(r), rows + 1);
	CHECK_INT(resolve_row(r, rows + 1)->pid, 41);
	resolve_free(r);
}

static const char *snapshot(void *ctx, int32_t pid)
{
	(void)ctx;
	return pid == 51 ? "from-cmdlines" : NULL;
}

static void resolve_never_named_is_counted(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t a, b;

	a = resolve_hid(r, 50, 0, 1);
	resolve_hid(r, 50, 0, 2);
	b = resolve_hid(r, 51, 0, 3);
	resolve_name_unnamed(r, snapshot, NULL, RESOLVE_SRC_CMDLINES);
	CHECK_STR(comm_of(r, a), "<...>");
	CHECK_STR(comm_of(r, b), "from-cmdlines");
	CHECK_STR(resolve_source_name(resolve_row(r, b)->source), "trace.dat cmdlines");
	CHECK_INT(resolve_unnamed_events(r), 2);
	resolve_free(r);
}

static void resolve_snapshot_never_overrides_trace(void)
{
	struct resolve *r = resolve_new(16);

	NAME(r, 60, "real", 1);
	resolve_seed(r, 60, 60, "stale", 5, 0, RESOLVE_SRC_PROC);
	CHECK_STR(comm_of(r, resolve_hid(r, 60, 0, 2)), "real");
	CHECK_INT(resolve_row(r, resolve_hid(r, 60, 0, 2))->tgid, 60);
	resolve_free(r);
}

static void resolve_fifteen_char_name(void)
{
	struct resolve *r = resolve_new(16);

	NAME(r, 70, "fifteen-chars-x", 1);
	CHECK_STR(comm_of(r, resolve_hid(r, 70, 0, 1)), "fifteen-chars-x");
	/* A longer string (a dynamic field) is cut to the width. */
	NAME(r, 71, "sixteen-chars-xyz", 1);
	CHECK_STR(comm_of(r, resolve_hid(r, 71, 0, 1)), "sixteen-chars-x");
	resolve_free(r);
}

static void resolve_width_64(void)
{
	struct resolve *r = resolve_new(64);
	const char *n = "a-much-longer-thread-name-of-forty-bytes!";

	NAME(r, 80, n, 1);
	CHECK_STR(comm_of(r, resolve_hid(r, 80, 0, 1)), n);
	resolve_free(r);
}

static void resolve_idle_is_per_cpu(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t c0 = resolve_hid(r, 0, 0, 1), c1 = resolve_hid(r, 0, 1, 1);

	CHECK(c0 != c1);
	resolve_name_unnamed(r, NULL, NULL, RESOLVE_SRC_CMDLINES);
	CHECK_STR(comm_of(r, c0), "swapper/0");
	CHECK_STR(comm_of(r, c1), "swapper/1");
	resolve_free(r);
}

static void resolve_free_after_reuse_keeps_new_lifetime(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t second;

	NAME(r, 600, "first", 1);
	resolve_exit(r, 600, 5);
	/* reaped, and the pid is born again before the RCU free arrives */
	resolve_birth(r, 600, 1, 0, 1, 10, RESOLVE_SRC_NEWTASK);
	NAME(r, 600, "second", 11);
	second = resolve_hid(r, 600, 0, 12);
	resolve_death(r, 600, 20, 1);	/* the first task's free */
	CHECK_INT(resolve_hid(r, 600, 0, 21), second);
	CHECK_STR(comm_of(r, second), "second");
	CHECK_INT(resolve_row(r, second)->end_ts, RESOLVE_OPEN);
	resolve_exit(r, 600, 25);
	resolve_ran_dead(r, 600, 26, 0);	/* preempted on its exit path */
	CHECK_INT(resolve_row(r, second)->end_ts, 26);
	resolve_ran_again(r, 600);		/* switched in again: it lives */
	CHECK_INT(resolve_row(r, second)->end_ts, RESOLVE_OPEN);
	resolve_ran_dead(r, 600, 27, 1);	/* its last switch-out, dying */
	resolve_ran_again(r, 600);		/* another task's: nothing */
	resolve_ran_dead(r, 600, 28, 0);	/* not the task that exited */
	resolve_death(r, 600, 30, 1);
	/* the lifetime ends where it last ran after its exit, not at free */
	CHECK_INT(resolve_row(r, second)->end_ts, 27);
	resolve_free(r);
}

static void resolve_lifetime_ends_at_exit_not_free(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t row;

	NAME(r, 610, "dying", 1);
	row = resolve_hid(r, 610, 0, 2);
	resolve_ran_dead(r, 610, 3, 0);	/* not exited: nothing ends */
	CHECK_INT(resolve_row(r, row)->end_ts, RESOLVE_OPEN);
	resolve_exit(r, 610, 40);
	CHECK_INT(resolve_row(r, row)->end_ts, 40);
	resolve_death(r, 610, 900, 1);	/* the RCU free, much later */
	CHECK_INT(resolve_row(r, row)->end_ts, 40);
	/* no sched_process_exit traced: its dead switch-out ends it */
	NAME(r, 611, "unseen-exit", 1);
	row = resolve_hid(r, 611, 0, 2);
	resolve_ran_dead(r, 611, 50, 1);
	CHECK_INT(resolve_row(r, row)->end_ts, 50);
	resolve_free(r);
}

/* A thread of 620's process (621, "thr") execs; the leader's exit was not
 * traced. Its task_rename under pid 620 shows oldcomm "thr" (the rows:
 * "thr" from 50, "sh" from 51), then sched_process_exec says old_pid 621:
 * those rows are a lifetime of their own, not the leader's. */
static void resolve_thread_exec_without_exit(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t leader, thr, sh;

	NAME(r, 620, "leader", 1);
	leader = resolve_hid(r, 620, 0, 2);
	resolve_birth(r, 621, 620, 0x10000, 1, 10, RESOLVE_SRC_NEWTASK);
	NAME(r, 621, "thr", 11);
	NAME(r, 620, "thr", 50);	/* the rename's oldcomm */
	thr = resolve_hid(r, 620, 0, 50);
	resolve_rename(r, 620, 0, "sh", 2, 0, 50);
	sh = resolve_hid(r, 620, 0, 52);
	CHECK_INT(resolve_row(r, thr)->life, resolve_row(r, leader)->life);
	resolve_exec_took(r, 620, 621);
	CHECK_INT(resolve_row(r, thr)->life, thr);
	CHECK_INT(resolve_row(r, sh)->life, thr);
	CHECK_INT(resolve_row(r, leader)->life, leader);
	CHECK_INT(resolve_row(r, leader)->end_ts, 50);
	CHECK_STR(comm_of(r, thr), "thr");
	resolve_exec_took(r, 620, 621);	/* once only */
	CHECK_INT(resolve_row(r, sh)->life, thr);
	resolve_free(r);
}

/* 650, "python3", execs a file descriptor at 100 (/dev/fd/3: the kernel
 * names it after the file, or "3", the trace does not say which): a row of
 * no name begins at 100 in the same lifetime; its switch-out at 140 shows
 * "sleep", which names that row from 100. */
static void resolve_unnamed_exec_named_later(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t py, after;

	NAME(r, 650, "python3", 10);
	py = resolve_hid(r, 650, 0, 50);
	resolve_unnamed_from(r, 650, 100);
	after = resolve_hid(r, 650, 0, 120);
	CHECK(after != py);
	CHECK_INT(resolve_row(r, py)->end_ts, 100);
	CHECK_INT(resolve_row(r, after)->start_ts, 100);
	CHECK_INT(resolve_row(r, after)->life, resolve_row(r, py)->life);
	CHECK_INT(resolve_row(r, after)->comm_id, 0);
	NAME(r, 650, "sleep", 140);
	CHECK_INT(resolve_hid(r, 650, 0, 141), after);
	CHECK_STR(comm_of(r, after), "sleep");
	CHECK_STR(comm_of(r, py), "python3");
	resolve_free(r);
}

/* 630 is a leader of a process not known (births without clone flags:
 * -e sched, no task_newtask), 631 the thread it cloned, 632 one 631
 * cloned, 640 a task the trace saw before 630's birth. 630 exits and is
 * switched out dead, then shows again with no birth: a thread of its
 * process took its pid (de_thread). The task believed to run there may
 * not (a switch in left out): it took the pid only if the event shows
 * the pid under its name, or 630 cloned it. */
static void resolve_gone_leader_taken_by_its_thread_only(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t leader, took;

	NAME(r, 640, "tokio-rt-worker", 1);
	resolve_birth(r, 630, 1, 0, 0, 5, RESOLVE_SRC_FORK);
	NAME(r, 630, "leader", 6);
	leader = resolve_hid(r, 630, 0, 6);
	resolve_birth(r, 631, 630, 0, 0, 10, RESOLVE_SRC_FORK);
	NAME(r, 631, "execer", 11);
	resolve_birth(r, 632, 631, 0, 0, 12, RESOLVE_SRC_FORK);
	NAME(r, 632, "worker", 13);
	resolve_exit(r, 630, 40);
	resolve_ran_dead(r, 630, 41, 1);
	CHECK_INT(resolve_exited_fast(r, 630), RESOLVE_GONE);
	CHECK_INT(resolve_took_leader(r, 640, 630, 0, 0), 0);
	CHECK_INT(resolve_took_leader(r, 640, 630, 1, 0), 1);
	CHECK_INT(resolve_took_leader(r, 631, 630, 0, 0), 1);
	CHECK_INT(resolve_took_leader(r, 632, 630, 0, 0), 1);
	CHECK_INT(resolve_took_leader(r, 630, 630, 1, 0), 0);
	/* not shown which: 630's new lifetime begins where the leader's
	 * ended, unnamed, once */
	CHECK_INT(resolve_took_gone(r, 630), 1);
	took = resolve_hid(r, 630, 0, 50);
	CHECK(took != leader);
	CHECK_INT(resolve_row(r, took)->start_ts, 41);
	CHECK_INT(resolve_row(r, took)->comm_id, 0);
	CHECK_INT(resolve_took_gone(r, 630), 0);
	NAME(r, 630, "execer", 51);
	CHECK_INT(resolve_hid(r, 630, 0, 52), took);
	CHECK_STR(comm_of(r, took), "execer");
	CHECK_INT(resolve_row(r, leader)->end_ts, 41);
	/* that task's own exit and last switch-out end its lifetime; the
	 * pid switched in again after is a task of its own (reused) */
	resolve_exit(r, 630, 60);
	CHECK_INT(resolve_row(r, took)->end_ts, 60);
	resolve_ran_dead(r, 630, 62, 1);
	CHECK_INT(resolve_row(r, took)->end_ts, 62);
	CHECK_INT(resolve_exited_fast(r, 630), RESOLVE_GONE);
	resolve_reborn(r, 630);
	NAME(r, 630, "execer", 70);
	CHECK(resolve_hid(r, 630, 0, 71) != took);
	CHECK_INT(resolve_row(r, resolve_hid(r, 630, 0, 71))->start_ts, 70);
	CHECK_INT(resolve_row(r, resolve_hid(r, 630, 0, 71))->life,
		  resolve_hid(r, 630, 0, 71));
	CHECK_INT(resolve_exited_fast(r, 630), 0);
	/* a gone task's own row, ended: dying again changes nothing */
	resolve_ran_dead(r, 631, 80, 1);
	resolve_ran_dead(r, 631, 90, 1);
	CHECK_INT(resolve_row(r, resolve_hid(r, 631, 0, 91))->end_ts, 80);
	resolve_free(r);
}

static void resolve_late_old_name_after_rename_moves_boundary(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t rows, late, after;

	NAME(r, 700, "old", 1);
	resolve_rename(r, 700, 0, "new", 3, 0, 100);
	rows = resolve_row_count(r);
	/* an interrupt's event, after task_rename but before the copy */
	resolve_name(r, 700, 0, "old", 3, 105, RESOLVE_SRC_EVENT);
	late = resolve_hid(r, 700, 0, 105);
	CHECK_STR(comm_of(r, late), "old");
	CHECK_INT(resolve_row_count(r), rows);	/* no extra renames */
	NAME(r, 700, "new", 200);
	after = resolve_hid(r, 700, 0, 200);
	CHECK_STR(comm_of(r, after), "new");
	CHECK_INT(resolve_row(r, after)->start_ts, 106);
	CHECK_INT(resolve_row(r, late)->end_ts, 106);
	/* once confirmed, the old name again is a real change */
	NAME(r, 700, "old", 300);
	CHECK_INT(resolve_row_count(r), rows + 1);
	resolve_free(r);
}

/* A name read on another CPU while the kernel copied a traced rename's
 * new name over the old (__set_task_comm takes no lock) is bytes of the
 * one and of the other: "1" of "\\" becoming "123456789012345" (weird.dat
 * of a helper's recording: 21 such rows, 334 us of slices under names
 * nobody set). It names the task by the rename's name, no new row; a
 * name that is not such a mix is a change, as before. */
static void resolve_torn_read_during_rename(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t rows, torn;

	NAME(r, 710, "\\", 1);
	resolve_rename(r, 710, 0, "123456789012345", 15, 0, 100);
	rows = resolve_row_count(r);
	resolve_name(r, 710, 1, "1", 1, 101, RESOLVE_SRC_EVENT);
	torn = resolve_hid(r, 710, 1, 101);
	CHECK_STR(comm_of(r, torn), "123456789012345");
	CHECK_INT(resolve_row_count(r), rows);
	/* the first word copied, the old name's bytes after it */
	resolve_name(r, 710, 1, "12345678", 8, 102, RESOLVE_SRC_EVENT);
	CHECK_INT(resolve_row_count(r), rows);
	NAME(r, 710, "123456789012345", 200);
	CHECK_INT(resolve_row_count(r), rows);
	CHECK_INT(resolve_row(r, resolve_hid(r, 710, 0, 200))->start_ts, 101);
	resolve_free(r);

	/* not a mix of the two: a name of its own */
	r = resolve_new(16);
	NAME(r, 711, "old", 1);
	resolve_rename(r, 711, 0, "new", 3, 0, 100);
	rows = resolve_row_count(r);
	resolve_name(r, 711, 1, "nix", 3, 101, RESOLVE_SRC_EVENT);
	CHECK_INT(resolve_row_count(r), rows + 1);
	CHECK_STR(comm_of(r, resolve_hid(r, 711, 1, 101)), "nix");
	resolve_free(r);
}

/* A free's comm against the task's name (resolve_named_as): the same,
 * another, or, from a 16-byte field, the first 15 bytes of a longer name
 * a cache of 64-byte names holds. */
static void resolve_named_as_free_comm(void)
{
	struct resolve *r = resolve_new(64);
	char f[16] = "0123456789abcde";

	NAME(r, 720, "0123456789abcdefghij", 1);
	CHECK_INT(resolve_named_as(r, 720, "0123456789abcdefghij", 20, RESOLVE_NUL_TERMINATED), 1);
	CHECK_INT(resolve_named_as(r, 720, f, 15, 16), 1);
	CHECK_INT(resolve_named_as(r, 720, "B-720", 5, RESOLVE_NUL_TERMINATED), 0);
	CHECK_INT(resolve_named_as(r, 721, "x", 1, RESOLVE_NUL_TERMINATED), -1);
	resolve_free(r);
}

static void resolve_exec_sets_leader_tgid(void)
{
	struct resolve *r = resolve_new(16);

	NAME(r, 800, "sh", 1);
	resolve_set_tgid(r, 800, 800);
	CHECK_INT(resolve_row(r, resolve_hid(r, 800, 0, 2))->tgid, 800);
	resolve_free(r);
}

/* comm_history.life and .parent: a rename keeps the lifetime, a birth
 * starts one and records who forked it; lifetimes no one told the thread
 * group of are counted. */
static void resolve_lifetimes_and_parents(void)
{
	struct resolve *r = resolve_new(16);
	const struct resolve_row *a, *b, *c;

	resolve_birth(r, 500, 42, 0, 1, 10, RESOLVE_SRC_NEWTASK);
	NAME(r, 500, "first", 11);
	NAME(r, 500, "second", 20);
	a = resolve_row(r, resolve_hid(r, 500, 0, 12));
	b = resolve_row(r, resolve_hid(r, 500, 0, 21));
	CHECK_INT(a->life, b->life);
	CHECK_INT(b->parent, 42);
	CHECK_INT(b->tgid, 500);
	resolve_exit(r, 500, 30);
	resolve_death(r, 500, 31, 1);
	resolve_birth(r, 500, 43, 0, 1, 40, RESOLVE_SRC_NEWTASK);
	c = resolve_row(r, resolve_hid(r, 500, 0, 41));
	CHECK(c->life != a->life);
	CHECK_INT(c->parent, 43);
	NAME(r, 600, "pre-existing", 50);	/* no birth, no snapshot: no tgid */
	CHECK_INT((int)resolve_tasks_without_tgid(r), 1);
	resolve_free(r);
}

/* A task from before tracing that exits before the /proc snapshot taken
 * after tracing started reaches it: the snapshot taken just before gives
 * its tgid, and only to a pid nothing had shown yet. A saved_cmdlines
 * name is a task once the trace names the pid the same way; until then
 * it is only a cached name, not counted as a task without a tgid. */
static void resolve_pre_snapshot_tgid(void)
{
	struct resolve *r = resolve_new(16);
	uint32_t hid;

	resolve_note_tgid(r, 700, 690);
	resolve_note_tgid(r, 701, 701);
	resolve_note_tgid(r, 702, 702);
	resolve_seed(r, 700, RESOLVE_TGID_UNKNOWN, "bash", 4, 5,
		     RESOLVE_SRC_SAVED_CMDLINES);
	CHECK_INT(resolve_row(r, resolve_hid(r, 700, 0, 6))->tgid, 690);
	/* never seen: the unnamed event's lifetime takes it too */
	CHECK_INT(resolve_row(r, resolve_hid(r, 701, 0, 6))->tgid, 701);
	/* a pid that died in the trace and came back is another task */
	NAME(r, 702, "old", 6);
	resolve_exit(r, 702, 7);
	resolve_death(r, 702, 8, 1);
	NAME(r, 702, "new", 9);
	CHECK_INT(resolve_row(r, resolve_hid(r, 702, 0, 10))->tgid, RESOLVE_TGID_UNKNOWN);

	/* saved_cmdlines without a tgid: counted once the trace confirms */
	resolve_seed(r, 710, RESOLVE_TGID_UNKNOWN, "gone", 4, 5,
		     RESOLVE_SRC_SAVED_CMDLINES);
	CHECK_INT((int)resolve_tasks_without_tgid(r), 1);	/* 702's second */
	resolve_name(r, 710, 0, "gone", 4, 12, RESOLVE_SRC_EXIT);
	CHECK_INT((int)resolve_tasks_without_tgid(r), 2);
	hid = resolve_hid(r, 710, 0, 13);
	CHECK_INT(resolve_row(r, hid)->source, RESOLVE_SRC_EXIT);
	/* and the snapshot's mark does not pass for a rename */
	NAME(r, 710, "other", 14);
	CHECK_STR(comm_of(r, resolve_hid(r, 710, 0, 15)), "other");
	CHECK_STR(comm_of(r, hid), "gone");
	CHECK_INT((int)resolve_row(r, hid)->end_ts, 14);
	resolve_free(r);
}

/* The local trace clock is per CPU: a child running at once on another
 * CPU may be stamped (and merged) before the task_newtask that made it.
 * That first sighting is the birth's child, not a lifetime of its own;
 * a lifetime seen long before a birth of its pid is another task. */
static void resolve_child_seen_before_its_birth(void)
{
	struct resolve *r = resolve_new(16);
	const struct resolve_row *row;
	uint32_t early;

	NAME(r, 700, "parent", 1000000);
	early = resolve_hid(r, 701, 1, 2000000);	/* 20 µs early */
	resolve_birth(r, 701, 700, 0x00010000, 1, 2000020, RESOLVE_SRC_NEWTASK);
	resolve_birth(r, 701, 700, 0, 0, 2000030, RESOLVE_SRC_FORK);
	row = resolve_row(r, resolve_hid(r, 701, 0, 2000040));
	CHECK_INT(resolve_hid(r, 701, 0, 2000040), early);
	CHECK_INT(row->tgid, RESOLVE_TGID_UNKNOWN);	/* the parent's is unknown */
	CHECK_INT(row->parent, 700);
	CHECK_INT(row->start_ts, 2000000);
	/* in the /proc snapshot read just after tracing started, its birth
	 * (traced after the start) read later: the same task */
	resolve_seed(r, 900, 900, "born-late", 9, 3000000, RESOLVE_SRC_PROC);
	early = resolve_hid(r, 900, 0, 3000001);
	resolve_birth(r, 900, 700, 0, 1, 2003000000, RESOLVE_SRC_NEWTASK);
	CHECK_INT(resolve_hid(r, 900, 0, 2003000001), early);
	CHECK_INT(resolve_row(r, early)->parent, 700);
	/* ... but a birth long after the snapshot is a new task's */
	resolve_birth(r, 900, 700, 0, 1, 9003000000ull, RESOLVE_SRC_NEWTASK);
	CHECK(resolve_hid(r, 900, 0, 9003000001ull) != early);
	/* seen 5 ms before a birth of its pid, with no exit: another task */
	early = resolve_hid(r, 800, 0, 10000000);
	resolve_birth(r, 800, 700, 0, 1, 15000000, RESOLVE_SRC_NEWTASK);
	CHECK(resolve_hid(r, 800, 0, 15000010) != early);
	CHECK_INT(resolve_row(r, resolve_hid(r, 800, 0, 15000010))->tgid, 800);
	resolve_free(r);
}

/* The kernel's saved_cmdlines holds thousands of pids, most of them dead.
 * A seed from it makes no row until an event of its pid that names no task
 * comes; the row then begins at that event (at the seeds' time if the
 * event came before it), the cached name, the cache as its source. An
 * event that names the pid, or its birth, drops the waiting name. */
static void resolve_saved_cmdlines_rows_on_first_use(void)
{
	struct resolve *r = resolve_new(16);
	const struct resolve_row *row;
	const uint32_t *dirty;
	uint32_t hid;

	resolve_seed(r, 800, RESOLVE_TGID_UNKNOWN, "never-seen", 10, 50,
		     RESOLVE_SRC_SAVED_CMDLINES);
	resolve_seed(r, 801, RESOLVE_TGID_UNKNOWN, "a-name-cut-to-fifteen", 21, 50,
		     RESOLVE_SRC_SAVED_CMDLINES);
	resolve_seed(r, 802, RESOLVE_TGID_UNKNOWN, "born-again", 10, 50,
		     RESOLVE_SRC_SAVED_CMDLINES);
	resolve_seed(r, 803, RESOLVE_TGID_UNKNOWN, "renamed", 7, 50,
		     RESOLVE_SRC_SAVED_CMDLINES);
	resolve_seed(r, 804, RESOLVE_TGID_UNKNOWN, "early", 5, 50,
		     RESOLVE_SRC_SAVED_CMDLINES);
	CHECK_INT((int)resolve_row_count(r), 0);
	CHECK_INT((int)resolve_dirty(r, &dirty), 0);

	/* an event of the pid naming no task: the seed's name, from it on */
	hid = resolve_hid(r, 801, 0, 100);
	CHECK_INT((int)resolve_row_count(r), 1);
	CHECK_STR(comm_of(r, hid), "a-name-cut-to-f");
	row = resolve_row(r, hid);
	CHECK_INT((int)row->start_ts, 100);
	CHECK_INT(row->source, RESOLVE_SRC_SAVED_CMDLINES);
	CHECK_INT(row->tgid, RESOLVE_TGID_UNKNOWN);
	CHECK_INT((int)resolve_dirty(r, &dirty), 1);
	CHECK_INT((int)resolve_hid(r, 801, 1, 150), (int)hid);
	/* one from before the seeds were read: from their time */
	hid = resolve_hid(r, 804, 0, 30);
	CHECK_STR(comm_of(r, hid), "early");
	CHECK_INT((int)resolve_row(r, hid)->start_ts, 50);
	/* lookups make nothing */
	CHECK(!resolve_is_named(r, 800));
	CHECK_INT((int)resolve_named_hid(r, 800), 0);
	CHECK_INT((int)resolve_row_count(r), 2);
	/* a birth: a new task, the cached name was a dead pid's */
	resolve_birth(r, 802, 1, 0, 1, 200, RESOLVE_SRC_NEWTASK);
	NAME(r, 802, "child", 201);
	hid = resolve_hid(r, 802, 0, 202);
	CHECK_STR(comm_of(r, hid), "child");
	CHECK_INT((int)resolve_row(r, hid)->start_ts, 200);
	CHECK_INT((int)resolve_row_count(r), 3);
	/* a new task's nameless event stamped just before its birth (the
	 * clocks of two CPUs): the cached name was a dead task's, not its */
	resolve_seed(r, 805, RESOLVE_TGID_UNKNOWN, "deadtask", 8, 50,
		     RESOLVE_SRC_SAVED_CMDLINES);
	hid = resolve_hid(r, 805, 1, 1000);
	resolve_birth(r, 805, 1, 0, 1, 1001, RESOLVE_SRC_NEWTASK);
	NAME(r, 805, "child2", 1002);
	CHECK_INT((int)resolve_hid(r, 805, 0, 1003), (int)hid);
	CHECK_STR(comm_of(r, hid), "child2");
	CHECK_INT((int)resolve_row(r, hid)->start_ts, 1000);
	CHECK_INT(resolve_row(r, hid)->source, RESOLVE_SRC_SCHED_SWITCH);
	CHECK_INT((int)resolve_row_count(r), 4);
	/* the trace names it, the same or another way: its own row only */
	NAME(r, 803, "renamed", 300);
	hid = resolve_hid(r, 803, 0, 301);
	CHECK_STR(comm_of(r, hid), "renamed");
	CHECK_INT(resolve_row(r, hid)->source, RESOLVE_SRC_SCHED_SWITCH);
	CHECK_INT((int)resolve_row(r, hid)->start_ts, 300);
	NAME(r, 800, "other", 400);
	CHECK_STR(comm_of(r, resolve_hid(r, 800, 0, 401)), "other");
	CHECK_INT((int)resolve_row_count(r), 6);
	for (uint32_t h = 1; h <= resolve_row_count(r); h++) {
		const char *c = comm_of(r, h);

		CHECK(strcmp(c, "never-seen") && strcmp(c, "born-again") &&
		      strcmp(c, "deadtask"));
	}
	/* 800 and 803, named by the trace, no tgid; 801 and 804 are names
	 * the cache held, not tasks; 802 and 805 were born with their tgid */
	CHECK_INT((int)resolve_tasks_without_tgid(r), 2);
	resolve_free(r);
}

static size_t worker_len(const char *comm, unsigned long flags)
{
	return seed_worker_comm_len(comm, strlen(comm), flags);
}

/* /proc's comm of a workqueue worker carries its latest work after the
 * task's comm; the seed keeps the comm, and only a kernel worker's. The
 * stat line's comm may hold ')' and spaces. */
static void seed_worker_comm_without_work(void)
{
	const unsigned long worker = 0x04208060UL;	/* PF_WQ_WORKER | PF_KTHREAD ... */
	char line[] = "62 (a) b c) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 0 -20\n";
	char bad[] = "62 a b c I 2";
	struct seed_task t;

	CHECK_INT(seed_parse_task_stat(line, &t), 0);
	CHECK_STR(t.comm, "a) b c");
	CHECK_INT(t.len, 6);
	CHECK_INT(t.state, 'I');
	CHECK_INT(t.flags, 69238880);
	CHECK_INT(seed_parse_task_stat(bad, &t), -1);

	CHECK_INT(worker_len("kworker/0:1H-kblockd", worker), 12);
	CHECK_INT(worker_len("kworker/u8:3+events_unbound", worker), 12);
	CHECK_INT(worker_len("kworker/1:2-mm_percpu_wq", worker), 11);
	CHECK_INT(worker_len("kworker/1:2", worker), 11);
	/* a rescuer's name holds its workqueue's, '-' and all */
	CHECK_INT(worker_len("kworker/R-ext4-rsv-conversion", worker), 29);
	CHECK_INT(worker_len("kworker/", worker), 8);
	/* a process or another kthread may call itself so: left whole */
	CHECK_INT(worker_len("kworker/0:1-evil", 0x00400100UL), 16);
	CHECK_INT(worker_len("kworker/0:1-x", 0x00208040UL), 13);
	CHECK_INT(worker_len("rcu_exp_gp_kthread_worker", worker), 25);
}

int main(void)
{
	RUN(seed_worker_comm_without_work);
	RUN(resolve_lifetimes_and_parents);
	RUN(resolve_child_seen_before_its_birth);
	RUN(resolve_free_after_reuse_keeps_new_lifetime);
	RUN(resolve_lifetime_ends_at_exit_not_free);
	RUN(resolve_thread_exec_without_exit);
	RUN(resolve_unnamed_exec_named_later);
	RUN(resolve_gone_leader_taken_by_its_thread_only);
	RUN(resolve_late_old_name_after_rename_moves_boundary);
	RUN(resolve_exec_sets_leader_tgid);
	RUN(resolve_exec_renames_same_pid);
	RUN(resolve_unchanged_name_writes_nothing);
	RUN(resolve_prctl_many_times);
	RUN(resolve_threads_have_own_names);
	RUN(resolve_tgid_from_clone_flags);
	RUN(resolve_pid_reuse_starts_new_lifetime);
	RUN(resolve_reuse_without_free_event);
	RUN(resolve_fork_then_newtask_is_one_birth);
	RUN(resolve_fork_exec_window_keeps_parent_name);
	RUN(resolve_rename_while_running);
	RUN(resolve_torn_read_during_rename);
	RUN(resolve_named_as_free_comm);
	RUN(resolve_events_before_first_sighting_take_first_name);
	RUN(resolve_wakeup_target_only);
	RUN(resolve_never_named_is_counted);
	RUN(resolve_snapshot_never_overrides_trace);
	RUN(resolve_fifteen_char_name);
	RUN(resolve_width_64);
	RUN(resolve_idle_is_per_cpu);
	RUN(resolve_pre_snapshot_tgid);
	RUN(resolve_saved_cmdlines_rows_on_first_use);
	return check_done("test_resolve");
}
