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
	uint64_t start_ts;
	uint64_t end_ts;	/* RESOLVE_OPEN while valid */
	uint64_t events;	/* events fired by the pid in this row */
};

struct resolve;

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
 * unchanged-name check compares whole words. field_size 0: unknown. */
uint32_t resolve_name_field(struct resolve *r, int32_t pid, int cpu,
			    const char *comm, size_t len, size_t field_size,
			    uint64_t ts, enum resolve_source src);

/* The comm id of a name that names no task (task_rename's old name). */
uint32_t resolve_intern(struct resolve *r, const char *comm, size_t len);

/* Does pid have a name in a live lifetime? */
int resolve_is_named(struct resolve *r, int32_t pid);

/* The history row of the pid an event fired in (its common_pid) at ts;
 * opens an unnamed lifetime for a pid never seen. 0 on allocation failure. */
uint32_t resolve_hid(struct resolve *r, int32_t pid, int cpu, uint64_t ts);

/* pid is born at ts (task_newtask, sched_process_fork): a new lifetime
 * unless this birth was already recorded (newtask then fork of one clone).
 * clone_flags is used only when flags_known (CLONE_THREAD gives the tgid). */
void resolve_birth(struct resolve *r, int32_t pid, int32_t parent,
		   uint64_t clone_flags, int flags_known, uint64_t ts,
		   enum resolve_source src);

/* pid's task is gone (sched_process_free): its lifetime ends at ts.
 * With need_exit, only if resolve_exit was seen for this lifetime (the
 * free of an earlier lifetime can arrive after the pid's reuse). */
void resolve_death(struct resolve *r, int32_t pid, uint64_t ts, int need_exit);

/* pid called exit (sched_process_exit). */
void resolve_exit(struct resolve *r, int32_t pid);

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

/* Number of times a cached name was rewritten (it changed). */
uint64_t resolve_updates(const struct resolve *r);

#endif
