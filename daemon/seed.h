/* seed.h — names known before the trace says anything: /proc (tid, tgid,
 * comm of every thread alive at start) and the kernel's saved_cmdlines.
 * They enter the comm cache as snapshots, which never override a name the
 * trace itself gives. */
#ifndef COMMD_SEED_H
#define COMMD_SEED_H

#include <stdint.h>

struct resolve;

/* Returns the number of tasks seeded. */
int seed_from_proc(struct resolve *r, uint64_t ts);
int seed_from_saved_cmdlines(struct resolve *r, const char *tracing_dir,
			     uint64_t ts);

/* /proc/PID/comm of a live task, for naming what the trace never named
 * (NULL when gone). ctx unused. Not thread-safe: one static buffer. */
const char *seed_proc_comm(void *ctx, int32_t pid);

#endif
