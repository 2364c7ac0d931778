/* resolve.h — the comm cache: the name of every pid at every moment.
 *
 * No I/O, no SQLite. A pid-indexed cache (O(1) lookup) holds each pid's
 * current comm; an observation compares the cached bytes with the new name
 * and copies only when they differ (exec keeps the pid and changes the
 * name, so comparing pids alone would be wrong). Every change opens a
 * history row: one row per (pid lifetime, name) interval. Events carry the
 * id of the row valid at their time (their "hid"); a row opened before its
 * pid was named is named by the first name the lifetime gets, so events
 * before the first sighting take the first name.
 *
 * Names are interned: each distinct comm has a small integer id (1..n).
 * Row and comm ids are stable for the life of the resolver. */
#ifndef COMMD_RESOLVE_H
#define COMMD_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

enum resolve_source {
	RESOLVE_SRC_NONE = 0,		/* not named (yet) */
	RESOLVE_SRC_SCHED_SWITCH,
	RESOLVE_SRC_SCHED_WAKEUP,
	RESOLVE_SRC_SCHED_WAKEUP_NEW,
	RESOLVE_SRC_SCHED_WAKING,
	RESOLVE_SRC_FORK,		/* sched_process_fork */
	RESOLVE_SRC_EXEC,		/* basename of sched_process_exec filename */
	RESOLVE_SRC_EXIT,
	RESOLVE_SRC_FREE,
	RESOLVE_SRC_MIGRATE,
	RESOLVE_SRC_RENAME,		/* task_rename */
	RESOLVE_SRC_NEWTASK,		/* task_newtask */
	RESOLVE_SRC_EVENT,		/* another event naming its task */
	RESOLVE_SRC_CMDLINES,		/* the trace.dat saved cmdlines snapshot */
	RESOLVE_SRC_PROC,		/* /proc at capture start */
	RESOLVE_SRC_SAVED_CMDLINES,	/* the kernel's saved_cmdlines at start */
	RESOLVE_SRC_IDLE,		/* swapper/N, the per-CPU idle task */
	RESOLVE_SRC_EXEC_SWAP,		/* a thread's exec swapped its pid with
					 * its leader's: the task's own name */
	RESOLVE_SRC_COUNT
};

#define RESOLVE_OPEN UINT64_MAX		/* end_ts of a row still valid */
#define RESOLVE_TGID_UNKNOWN (-1)
#define RESOLVE_MAX_CPUS 8192

/* One comm_history row. */
struct resolve_row {
	int32_t pid;
	int32_t tgid;		/* RESOLVE_TGID_UNKNOWN when not known */
	uint32_t comm_id;	/* 0 while the lifetime has no name */
	uint8_t source;		/* enum resolve_source that named it */
	uint8_t dirty;		/* changed since resolve_clear_dirty */
	uint8_t born;		/* a fork or task_newtask began the lifetime */
	uint8_t first;		/* the pid's first lifetime, begun where it was
				 * first seen (no birth, no lifetime before) */
	uint64_t start_ts;
	uint64_t end_ts;	/* RESOLVE_OPEN while valid */
	uint64_t events;	/* events fired by the pid in this row */
	uint32_t life;		/* first row of the pid's lifetime (itself
				 * when it starts one) */
	int32_t parent;		/* the task whose fork made the lifetime,
				 * 0 when no fork showed it */
	uint32_t prev;		/* the lifetime's row before this one (0:
				 * this is its first) */
};

struct resolve;

/* The hot paths below are inline at the caller (one lookup, two word
 * compares, no call). They read only this part of the cache, which is the
 * first member of struct resolve; everything else stays in resolve.c. */
#define RESOLVE_CHUNK_SHIFT 10
#define RESOLVE_ALIVE 1

struct resolve_entry {
	uint32_t hid;		/* current row, 0 = never seen */
	uint32_t comm_id;	/* cached name's id; 0 = unnamed or not alive */
	uint32_t prev_hid;	/* the row before a task_rename */
	uint8_t state;		/* 0 unknown, RESOLVE_ALIVE, dead */
	uint8_t fresh;		/* born, has not run since */
	uint8_t pending;	/* renamed, new name not yet seen again;
				 * or a snapshot's name not yet seen */
	uint8_t exited;		/* RESOLVE_EXITED: sched_process_exit seen;
				 * RESOLVE_GONE: its last switch-out too */
};

struct resolve_chunk {
	struct resolve_entry e[1u << RESOLVE_CHUNK_SHIFT];
	char comm[];		/* names, width bytes each, zero-padded */
};

struct resolve_hot {
	struct resolve_chunk **chunks;	/* by pid >> RESOLVE_CHUNK_SHIFT */
	size_t nchunks;
	size_t width;			/* name width, a power of two */
	struct resolve_row *rows;	/* by row id */
	int32_t late_pid;		/* see resolve_rename */
	uint32_t late_hid;
	int32_t moved_pid;		/* a rename of it moved (resolve_take_moved) */
};

/* comm_width: bytes a name may take, from the event formats (16 today,
 * 64 with long task names); longer names are cut to width - 1. */
struct resolve *resolve_new(size_t comm_width);
void resolve_free(struct resolve *r);

/* The trace names pid `comm` at ts (an event's own fields). Returns the
 * comm id of that name. pid 0 is the idle task of `cpu`. */
uint32_t resolve_name(struct resolve *r, int32_t pid, int cpu,
		      const char *comm, size_t len, uint64_t ts,
		      enum resolve_source src);

/* The same, for a name read from a fixed char array of field_size bytes
 * (comm points at all of them): when that is the cache's width, the
 * unchanged-name check compares whole words. field_size 0: unknown;
 * RESOLVE_NUL_TERMINATED: a dynamic string whose NUL at comm[len] is
 * readable. */
#define RESOLVE_NUL_TERMINATED ((size_t)-1)

/* resolve_name_field, and when hid is not NULL also the event's row for
 * pid (the slow half of resolve_name_fast). */
uint32_t resolve_name_own(struct resolve *r, int32_t pid, int cpu,
			  const char *comm, size_t len, size_t field_size,
			  uint64_t ts, enum resolve_source src, uint32_t *hid);
uint32_t resolve_name_field(struct resolve *r, int32_t pid, int cpu,
			    const char *comm, size_t len, size_t field_size,
			    uint64_t ts, enum resolve_source src);

/* resolve_name_field with the unchanged-name path inline: a char[16]
 * field, or a NUL-terminated dynamic string of 7..15 bytes, compared with
 * two 8-byte loads against the zero-padded cached name. When hid is not
 * NULL, pid is the event's own pid and *hid gets the row the event
 * belongs to (what resolve_hid would say), saving a second lookup. */
static inline uint32_t resolve_name_fast(struct resolve *r, int32_t pid, int cpu,
					 const char *comm, size_t len,
					 size_t field_size, uint64_t ts,
					 enum resolve_source src, uint32_t *hid)
{
	const struct resolve_hot *h = (const struct resolve_hot *)r;
	uint32_t c = (uint32_t)pid >> RESOLVE_CHUNK_SHIFT, off;
	struct resolve_entry *e;
	struct resolve_chunk *ch;
	char *cached;
	uint64_t a, b, x, y;
	size_t tail;

	if (__builtin_expect(h->width == 16 && pid > 0 && c < h->nchunks &&
			     (ch = h->chunks[c]) != NULL, 1)) {
		off = (uint32_t)pid & ((1u << RESOLVE_CHUNK_SHIFT) - 1);
		e = &ch->e[off];
		cached = ch->comm + ((size_t)off << 4);
		if (field_size == 16)
			tail = 8;
		else if (field_size == RESOLVE_NUL_TERMINATED && len >= 7 && len < 16)
			tail = len - 7;	/* covers comm[len], the NUL */
		else
			goto full;
		__builtin_memcpy(&a, cached, 8);
		__builtin_memcpy(&b, comm, 8);
		__builtin_memcpy(&x, cached + tail, 8);
		__builtin_memcpy(&y, comm + tail, 8);
		if (e->comm_id && !e->pending && ((a ^ b) | (x ^ y)) == 0) {
#ifdef RESOLVE_ALWAYS_COPY
			/* bench/ only: what copying every name, changed or
			 * not, would cost on this path. */
			__builtin_memset(cached, 0, 16);
			__builtin_memcpy(cached, comm, len < 16 ? len : 15);
#endif
			if (hid) {
				e->fresh = 0;
				*hid = e->hid;
			}
			return e->comm_id;
		}
	}
full:
	return resolve_name_own(r, pid, cpu, comm, len, field_size, ts, src, hid);
}

/* The pid whose rename the last names moved to later (an event after
 * its task_rename still showed the old name: comm_history's new name
 * begins after that event now), once; 0 when none. */
static inline int32_t resolve_take_moved(struct resolve *r)
{
	struct resolve_hot *h = (struct resolve_hot *)r;
	int32_t pid = h->moved_pid;

	if (pid)
		h->moved_pid = 0;
	return pid;
}

/* How long after a task_rename an event still showing the old name moves
 * the rename (resolve.c). */
#define RESOLVE_LATE_RENAME_NS 10000000ull

/* A task's run (a slice) began at ts, before the row hid, its first
 * lifetime's first (resolve_row.first), begins: the pid was there (under
 * that name) from ts. */
void resolve_seen_from(struct resolve *r, uint32_t hid, uint64_t ts);

/* pid's rename that resolve_take_moved reported: the row before it and
 * the row of the new name (which begins where it moved to). 0 when pid
 * has no such rename pending. */
int resolve_moved_rows(struct resolve *r, int32_t pid, uint32_t *before,
		       uint32_t *after);

/* pid's rename moved after an event that still showed the old name
 * (resolve_take_moved); the event at ts is of the same moment (the
 * wakeup whose waking came before that event: one try_to_wake_up, with
 * interrupts off, which the name's copy cannot come inside): the rename
 * moves after it too, and the event's row (resolve_hid, next) is the old
 * name's. 0 when pid has no such rename pending. */
int resolve_late_again(struct resolve *r, int32_t pid, uint64_t ts);

/* The comm id of a name that names no task (task_rename's old name). */
uint32_t resolve_intern(struct resolve *r, const char *comm, size_t len);

/* Does pid have a name in a live lifetime? */
int resolve_is_named(struct resolve *r, int32_t pid);
/* Whether pid's live task is named comm (an event's field of field_size
 * bytes, as resolve_name_field takes it; a prefix of the name where the
 * field cut it): 1 or 0, -1 when it has no name. */
int resolve_named_as(struct resolve *r, int32_t pid, const char *comm, size_t len,
		     size_t field_size);

/* The history row of the pid an event fired in (its common_pid) at ts;
 * opens an unnamed lifetime for a pid never seen. 0 on allocation failure. */
/* The row of pid's current lifetime and name, 0 when it is not alive and
 * named (no side effect: nothing is counted or created). */
uint32_t resolve_named_hid(struct resolve *r, int32_t pid);
uint32_t resolve_hid(struct resolve *r, int32_t pid, int cpu, uint64_t ts);

/* pid's cache slot, NULL while its chunk does not exist (the inline
 * paths below; resolve.c makes it). */
static inline struct resolve_entry *resolve_slot(const struct resolve *r, int32_t pid)
{
	const struct resolve_hot *h = (const struct resolve_hot *)r;
	uint32_t c = (uint32_t)pid >> RESOLVE_CHUNK_SHIFT;

	if (pid <= 0 || c >= h->nchunks || !h->chunks[c])
		return NULL;
	return &h->chunks[c]->e[(uint32_t)pid & ((1u << RESOLVE_CHUNK_SHIFT) - 1)];
}

/* resolve_hid with the common case inline: a live pid of a named row. */
static inline uint32_t resolve_hid_fast(struct resolve *r, int32_t pid, int cpu,
					uint64_t ts)
{
	const struct resolve_hot *h = (const struct resolve_hot *)r;
	struct resolve_entry *e;

	if (__builtin_expect(h->late_pid < 0 && (e = resolve_slot(r, pid)) != NULL, 1) &&
	    e->comm_id) {	/* alive and named */
		e->fresh = 0;
		return e->hid;
	}
	return resolve_hid(r, pid, cpu, ts);
}

/* pid is born at ts (task_newtask, sched_process_fork): a new lifetime
 * unless this birth was already recorded (newtask then fork of one clone).
 * clone_flags is used only when flags_known (CLONE_THREAD gives the tgid). */
void resolve_birth(struct resolve *r, int32_t pid, int32_t parent,
		   uint64_t clone_flags, int flags_known, uint64_t ts,
		   enum resolve_source src);

/* pid's task is gone (sched_process_free): it is forgotten. Its lifetime
 * ended at its exit (resolve_exit) when that was seen, else it ends at ts.
 * With need_exit, only if resolve_exit was seen for this lifetime (the
 * free of an earlier lifetime can arrive after the pid's reuse). */
void resolve_death(struct resolve *r, int32_t pid, uint64_t ts, int need_exit);

/* A thread other than its leader that execs takes the leader's pid
 * (de_thread): the old leader exits first (sched_process_exit, group_dead
 * false), then the thread runs on as the leader's pid. Whether tid, of
 * leader's process, may have become leader: the leader exited and tid did
 * not. When tid's process is not known: the leader's dead switch-out was
 * seen and the event shows the leader's pid under tid's name (shown) or
 * the leader cloned tid (or the task that did, a few steps up); or the
 * leader still runs elsewhere (elsewhere) and shown: the swap came before
 * its last switch-out.
 * resolve_exec_leader: the exec came; pid's task lives again (its exit,
 * later, is the program's). */
int resolve_took_leader(struct resolve *r, int32_t tid, int32_t leader,
			int shown, int elsewhere);
void resolve_exec_leader(struct resolve *r, int32_t pid);

/* The exec of thread old_pid took pid (sched_process_exec's old_pid)
 * where the leader's exit was not traced: pid's rows since the rename
 * that showed old_pid's name (task_rename's oldcomm; the rename comes
 * just before the exec) are the thread's, a lifetime of their own.
 * Returns where that lifetime begins (old_pid was gone by then), 0 when
 * it did not split one. */
uint64_t resolve_exec_took(struct resolve *r, int32_t pid, int32_t old_pid);

/* pid's name changes at ts to one the trace does not give there (an exec
 * of /dev/fd/N, named after the file or "N" by the kernel's version): a
 * row of no name begins at ts in the same lifetime, and the next event
 * that carries the task's comm names it from there. */
void resolve_unnamed_from(struct resolve *r, int32_t pid, uint64_t ts);

/* pid, whose lifetime ended with its exit, renames itself at ts: only a
 * thread that took the exited leader's pid (de_thread, before exec's
 * task_rename) can. A lifetime of that thread under pid begins at ts,
 * unnamed: the rename's old name names it. 1 when it did. */
int resolve_took_pid(struct resolve *r, int32_t pid, uint64_t ts);

/* pid, a leader gone (its dead switch-out seen), shows again with no
 * birth, and the event does not show which thread of its process took
 * its pid: a lifetime of that thread under pid begins where the leader's
 * ended (de_thread swaps them once the leader is dead), unnamed until an
 * event shows it. 1 when it did (not when taken already). */
int resolve_took_gone(struct resolve *r, int32_t pid);

/* pid, whose task was switched out dead (X, Z) and never runs again, is
 * seen running (switched in, or its event where the idle task was
 * believed to run): a task under the pid reused, its birth not traced.
 * Its next event begins a lifetime (no-op when one began already). */
void resolve_reborn(struct resolve *r, int32_t pid);

/* The same where the first event under pid shows on the CPU where thread
 * tid runs (its common_pid, any event): the lifetime begins at ts under
 * the thread's name, its row `from`'s (a thread keeps its name when it
 * takes the pid), and tid's ends there. With unseen, also where the
 * leader's exit was not seen (the event itself says the pid changed
 * hands): its lifetime ends at ts. Returns the new row, 0 when none
 * began. */
uint32_t resolve_took_from(struct resolve *r, int32_t pid, uint64_t ts,
			   int32_t tid, uint32_t from, int unseen);

/* Whether tid's process is leader's, or not known. */
int resolve_same_process(struct resolve *r, int32_t tid, int32_t leader);

/* The other half of that swap: the leader, exited but still running
 * (its last switch-out not seen), shows under the tid of a thread of its
 * process (tid's tgid the leader's, or not known). resolve_swap_tid: from
 * ts the leader's task, dying, is tid (its lifetime under tid begins
 * there, named as the leader's row `from`; the thread's ends). Where
 * tid's process is not known, only if shown: the event shows tid under
 * the leader's name. */
int resolve_gave_tid(struct resolve *r, int32_t leader, int32_t tid, int shown);
uint32_t resolve_swap_tid(struct resolve *r, int32_t tid, uint64_t ts, uint32_t from);

/* pid called exit (sched_process_exit) at ts: its lifetime ends there (the
 * free, later, is a fact of its own), or at its last switch-out after it
 * (resolve_ran_dead). */
void resolve_exit(struct resolve *r, int32_t pid, uint64_t ts);

/* A switch-out of pid at ts (dead: in state X or Z, its last). After its
 * exit it still ran, dying, and may be preempted on the way: its lifetime
 * ends at each such switch-out, until the dead one. A dead one with no
 * exit seen (sched_process_exit not traced) ends it too. */
enum { RESOLVE_EXITED = 1, RESOLVE_GONE = 2 };
void resolve_ran_dead(struct resolve *r, int32_t pid, uint64_t ts, int dead);

/* A slice of row hid's task, exited, ended at ts where no switch-out was
 * recorded (the events show its run went on to there): its lifetime, if
 * it is still the pid's, goes on to ts. */
void resolve_ran_until(struct resolve *r, uint32_t hid, uint64_t ts);

/* pid, after its exit and a switch-out that was not its last, is switched
 * in again: its lifetime goes on (open) until its next switch-out. */
void resolve_ran_again(struct resolve *r, int32_t pid);

/* Whether pid's task is known to have called exit (inline: every switch
 * asks, for its prev and next, before resolve_ran_dead and _again). */
static inline int resolve_exited_fast(const struct resolve *r, int32_t pid)
{
	const struct resolve_entry *e = resolve_slot(r, pid);

	return e ? e->exited : 0;
}

/* task_rename at ts: the new name holds from ts + 1 (the event itself
 * fired before the kernel copied it); an event shortly after that still
 * shows the old name moves the boundary past it. Returns the comm id. */
uint32_t resolve_rename(struct resolve *r, int32_t pid, int cpu,
			const char *comm, size_t len, size_t field_size,
			uint64_t ts);

/* The tgid of pid's current lifetime (exec makes a task its group's
 * leader). */
void resolve_set_tgid(struct resolve *r, int32_t pid, int32_t tgid);

/* A snapshot names pid (live start: /proc, saved_cmdlines). Names only a
 * pid the trace has not named; tgid may be RESOLVE_TGID_UNKNOWN. */
void resolve_seed(struct resolve *r, int32_t pid, int32_t tgid,
		  const char *comm, size_t len, uint64_t ts,
		  enum resolve_source src);

/* The /proc snapshot (resolve_seed, RESOLVE_SRC_PROC) was read up to ts,
 * in trace time, tracing already on: a task's first event before ts that
 * shows another name than the one read shows the name it had from the
 * snapshot's time (it renamed after the event, before /proc was read),
 * which its snapshot row takes. */
void resolve_snapshot_end(struct resolve *r, uint64_t ts);

/* A snapshot taken before tracing started says pid belongs to tgid. Used
 * only for a lifetime of pid that begins without a birth while nothing
 * else has been told of pid: a task that existed before tracing and may
 * be gone before the snapshot taken after it (resolve_seed) reaches it. */
void resolve_note_tgid(struct resolve *r, int32_t pid, int32_t tgid);

/* End of a trace: every row still unnamed asks lookup for a snapshot name
 * (NULL = none); idle rows left unnamed become swapper/N. */
void resolve_name_unnamed(struct resolve *r,
			  const char *(*lookup)(void *ctx, int32_t pid),
			  void *ctx, enum resolve_source src);

/* Closes every open row at ts (end of an import). */
void resolve_close_all(struct resolve *r, uint64_t ts);

/* Accessors for the store. Ids start at 1. */
uint32_t resolve_row_count(const struct resolve *r);
const struct resolve_row *resolve_row(const struct resolve *r, uint32_t hid);
uint32_t resolve_comm_count(const struct resolve *r);
const char *resolve_comm(const struct resolve *r, uint32_t id, size_t *len);
const char *resolve_source_name(enum resolve_source src);

/* Rows changed since the last clear (for incremental writes). */
size_t resolve_dirty(const struct resolve *r, const uint32_t **hids);
void resolve_clear_dirty(struct resolve *r);

/* Events whose pid has no name anywhere (their row is unnamed). */
uint64_t resolve_unnamed_events(const struct resolve *r);

/* Task lifetimes (pid > 0) whose thread group no event or snapshot
 * told (a lifetime of a saved_cmdlines name alone is not counted: it
 * names a pid /proc did not know, not a task the trace showed). */
uint64_t resolve_tasks_without_tgid(const struct resolve *r);

/* Number of times a cached name was rewritten (it changed). */
uint64_t resolve_updates(const struct resolve *r);

#endif
