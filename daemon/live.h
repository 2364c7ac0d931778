/* live.h — the live source: commd's own tracefs instance, every CPU's
 * trace_pipe_raw read as raw sub-buffers, merged across CPUs by timestamp.
 *
 * The instance is private (never the global buffer, never another tool's
 * instance) and uses the trace clock it is given ("local" by default:
 * sched_clock, the cheapest to stamp each event with; "mono" makes event
 * times CLOCK_MONOTONIC nanoseconds). Reads are non-blocking; waiting is poll()
 * on the per-CPU files (woken by buffer_percent) with a timeout, never a
 * busy loop. */
#ifndef COMMD_LIVE_H
#define COMMD_LIVE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "tracedat.h"	/* tracedat_record_fn: one record callback type */

struct tep_handle;
struct live;

struct live_opts {
	const char *instance;	/* tracefs instance name */
	size_t buffer_kb;	/* per CPU */
	const char *events;	/* "sched:sched_switch,task,..."; NULL = default */
	const char *clock;	/* trace_clock; NULL = "local" */
	int stacks;		/* the kernel stack of every switch into sleep */
};

/* The ring-buffer counters of one CPU (per_cpu/cpuN/stats). */
struct live_cpu_stats {
	uint64_t entries, overrun, commit_overrun, bytes, dropped, read;
	uint64_t now_ts;	/* the trace clock then ("now ts"), to the µs; 0: unknown */
	uint64_t now_res;	/* now_ts's step: 1000 (µs) or 1 (a count) */
	uint64_t read_total;	/* read, with what was read before buffer resets */
};

/* Mounts tracefs if needed, reclaims a stale instance of the same name
 * (one whose reader is gone: a busy one is an error), creates the
 * instance, sizes it, enables the events and opens every CPU. Tracing is
 * not on yet. NULL and a one-line reason in err on failure. */
struct live *live_open(const struct live_opts *o, char *err, size_t errlen);

/* The events enabled, "system:name,..." (owned by l). */
const char *live_events(const struct live *l);

struct tep_handle *live_tep(struct live *l);
int live_ncpus(const struct live *l);

int live_start(struct live *l);		/* tracing_on = 1 */
int live_stop(struct live *l);		/* tracing_on = 0 */

/* Whether the instance is still as commd set it up while capturing: its
 * tracing_on, its enabled events (set_event) and its trace clock. Another
 * program can change them (`trace-cmd reset -a` turns tracing off and
 * disables every event of every instance it cannot remove): what changed
 * is set back and said in what ("tracing_on 0, events ''"). Returns 0 when
 * nothing changed, 1 when something did and was set back (events may have
 * gone untraced), 2 when events were only added (and are removed again:
 * nothing went untraced), -1 when setting it back failed (what says
 * what). */
int live_check(struct live *l, char *what, size_t len);

/* Waits up to timeout_ms for a CPU to have data (buffer_percent) or a
 * signal. Returns 0 (woken or timed out) or -1 with errno (EINTR). */
int live_wait(struct live *l, int timeout_ms);

/* Reads what every CPU has now and hands the records to fn in timestamp
 * order: those no later than the moment each CPU was found empty (later
 * ones may still be overtaken by another CPU's and wait for the next
 * call), or all of them when final. Each CPU's stats are looked at right
 * before its pages are read; losses come as records of their own (data NULL, missed the count, -1
 * when unknown). Returns the number of records, or -1
 * with err set (a read error) or fn's non-zero result as -2. */
long live_read(struct live *l, int final, tracedat_record_fn fn, void *ctx,
	       char *err, size_t errlen);

/* CLOCK_MONOTONIC now, in nanoseconds: for timers, not event times. */
uint64_t live_now(void);

/* The trace clock now (an event stamped after this call has a later
 * time): CLOCK_MONOTONIC for "mono", else the kernel's own reading of the
 * instance's clock (per_cpu stats' "now ts", to the microsecond, rounded
 * down). Never goes back. */
uint64_t live_trace_now(struct live *l);

/* The instance's trace clock (owned by l). */
int live_clock_in_ns(const struct live *l);	/* its trace clock counts ns */
const char *live_clock(const struct live *l);

/* CPU cpu's ring-buffer counters now. Every look places the drops and
 * overruns counted since the last one (in non-overwrite mode they show
 * nowhere else) among the CPU's records, as a loss at the look's time:
 * live_read hands it on in that place. 0, or -1 (no stats: an absent
 * CPU). */
int live_cpu_stats(struct live *l, int cpu, struct live_cpu_stats *out);

/* Events of CPU cpu up to the trace clock's ts went untraced (another
 * program turned the instance off): a loss of unknown count, handed on by
 * live_read among the CPU's records at ts. 0 or -1. */
int live_lost(struct live *l, int cpu, uint64_t ts);

/* Whether CPU cpu is online now (sysfs; a CPU that cannot be taken
 * offline has no such file: online). */
bool live_cpu_online(int cpu);

/* From now on every trace clock time this capture gives (its records',
 * live_trace_now, the stats' now_ts, live_clock_pair) is the clock's
 * plus offset: a database that holds an earlier boot's times, ahead of
 * this boot's clock, keeps one ascending timeline. */
void live_set_offset(struct live *l, uint64_t offset);

/* Reads the trace clock (ts) and CLOCK_REALTIME (ns since the epoch) at
 * one moment, err the uncertainty: the clock itself for mono, mono_raw,
 * boot and tai, the stats file's "now ts" (to the µs) for local, global
 * and perf. -1 for a clock not in nanoseconds or not readable. */
int live_clock_pair(struct live *l, uint64_t *ts, int64_t *realtime,
		    int64_t *err);

/* Closes every CPU and removes the instance. */
void live_close(struct live *l);

#endif
