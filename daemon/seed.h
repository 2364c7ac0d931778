/* seed.h — names known before the trace says anything: /proc (tid, tgid,
 * comm of every thread alive at start) and the kernel's saved_cmdlines.
 * They enter the comm cache as snapshots, which never override a name the
 * trace itself gives. */
#ifndef COMMD_SEED_H
#define COMMD_SEED_H

#include <stdint.h>
#include <stddef.h>

struct resolve;

/* Whether /proc speaks of the pids the trace carries: the kernel stamps
 * every event with the task's pid in the initial PID namespace, and a
 * /proc mounted in another (a container's) numbers tasks differently.
 * Returns 1 when /proc is the initial namespace's, 0 when it is another's
 * (then nothing may be named from it), -1 when it cannot tell. */
int seed_proc_is_hosts(void);

/* Whether commd itself runs in the initial PID namespace (1, 0, -1). */
int seed_self_in_host_pidns(void);

/* Returns the number of tasks seeded. */
int seed_from_proc(struct resolve *r, uint64_t ts);
/* The tids and tgids alone, before tracing starts: for the tasks that
 * exit after tracing started but before seed_from_proc reaches them
 * (resolve_note_tgid). */
int seed_tgids_from_proc(struct resolve *r);
int seed_from_saved_cmdlines(struct resolve *r, const char *tracing_dir,
			     uint64_t ts);

/* The cgroup hierarchy to follow, from /proc/self/cgroup: the unified
 * one (0) where it is mounted, else the v1 hierarchy of the cpu
 * controller; -1 when there is neither. */
int seed_cgroup_root(void);
/* Every thread's cgroup in that hierarchy (/proc/PID/cgroup, of its
 * process) as of ts. Returns the number of threads seeded. */
struct cgroups;
int seed_cgroups_from_proc(struct cgroups *cg, int root, uint64_t ts);
/* Whether this is the initial cgroup namespace (1), another (0: /proc's
 * cgroup paths are not the events'), or unknown (-1). */
int seed_cgroupns_is_hosts(void);

/* What /proc/PID/stat says of a task: its comm (as /proc/PID/comm gives
 * it: between the first '(' and the last ')', which may hold both), its
 * state letter and its flags (field 9). */
struct seed_task {
	char comm[128];
	size_t len;
	char state;
	unsigned long flags;
};
/* Parses a /proc/PID/stat line into t: 0, or -1 when it is not one. */
int seed_parse_task_stat(char *text, struct seed_task *t);

/* The length of the task's own comm in comm[0..len) (/proc's, flags the
 * task's): /proc shows a workqueue worker's with its latest work after
 * it (wq_worker_comm: "kworker/0:1H-kblockd", '+' while a work runs),
 * which no event shows. A pool worker's own name ("kworker/" and the
 * pool's id) holds no '-' or '+'; a rescuer's ("kworker/R-" and its
 * workqueue's name) is left whole, and so is any name whose flags are not
 * a worker's (a process may call itself "kworker/0:1-x"). */
size_t seed_worker_comm_len(const char *comm, size_t len, unsigned long flags);

/* The comm of a live task, from /proc/PID/stat (a worker's cut), for
 * naming what the trace never named (NULL when gone). ctx unused. Not thread-safe: one static buffer. */
const char *seed_proc_comm(void *ctx, int32_t pid);

#endif
