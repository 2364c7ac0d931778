/* cgroups.h — which cgroup each task is in, over time (cgroup_history).
 *
 * Fed by the pipeline (attach and transfer events, forks, exits) and, for
 * a live capture, by the /proc snapshot at its start (seed.c). Keeps the
 * current cgroup of every task it has seen and writes a cgroup_history
 * row per task and cgroup through the store: the row is opened when the
 * task enters the cgroup and closed (end_ts) when it leaves or exits. */
#ifndef COMMD_CGROUPS_H
#define COMMD_CGROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"
struct cgroups;

/* CGROUPS_ANY_ROOT: follow the hierarchy the first event names, and the
 * unified one (root 0) as soon as an event names it (an import). */
#define CGROUPS_ANY_ROOT (-1)

struct cgroups *cgroups_new(struct store *store, int root);
/* Follow hierarchy root only (a live capture: the one seed_cgroup_root
 * chose). */
void cgroups_set_root(struct cgroups *cg, int root);
void cgroups_free(struct cgroups *cg);

/* The task is in path since ts (source: what says so). An event of another hierarchy than the one followed,
 * or older than what the task's current row already says (a /proc
 * snapshot read after it), changes nothing. Returns 0 or -1 (the
 * store failed, or no memory). */
int cgroups_enter(struct cgroups *cg, int root, int32_t pid, const char *path,
		  size_t len, uint64_t ts, enum store_cgroup_source source);
/* A new task starts where its parent is. */
int cgroups_fork(struct cgroups *cg, int32_t parent, int32_t child, uint64_t ts);
/* The task's pid went to another task (a thread's exec took it): its
 * row ends. */
int cgroups_exit(struct cgroups *cg, int32_t pid, uint64_t ts);
/* The task exited (sched_process_exit: exited), or was switched out
 * after its exit, or dead (X, Z): it is in its cgroup until its last
 * switch-out, as the kernel charges the cgroup for its exit path (and
 * comm_history's lifetime ends there): its row ends at the exit and
 * each such switch-out moves the end, until the dead one. */
int cgroups_ran(struct cgroups *cg, int32_t pid, uint64_t ts, int dead, int exited);

/* The readable name of a cgroup path (NUL-terminated into out). */
void cgroups_name(const char *path, size_t len, char *out, size_t outlen);

#endif
