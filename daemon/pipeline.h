/* pipeline.h — decode, resolve and store, joined: the part of commd that
 * the live capture and the trace.dat import share. A source hands it raw
 * records in timestamp order (CPUs already merged) and tells it about
 * losses; the pipeline names every event and writes it in batches. */
#ifndef COMMD_PIPELINE_H
#define COMMD_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "resolve.h"

struct tep_handle;
struct store;
struct pipeline;

/* tep: the event formats of the source (not owned); store: open and
 * migrated (not owned). NULL and err on failure. */
struct pipeline *pipeline_new(struct tep_handle *tep, struct store *store,
			      char *err, size_t errlen);
void pipeline_free(struct pipeline *p);
/* Leaves the derived tables (sched, wakeup_latency) and the switches'
 * latencies empty; the derivations still run, as the names depend on
 * them: what storing them costs is measured against this
 * (bench/derived.sh). */
void pipeline_no_derived(struct pipeline *p);

/* One raw record of `cpu` at ts. 0, or -1 when the store failed (the
 * store's message says why); an undecodable record is counted, not fatal. */
int pipeline_record(struct pipeline *p, const void *data, int size, int cpu,
		    uint64_t ts);

/* The source lost events on cpu before ts; count < 0 when unknown. */
int pipeline_lost(struct pipeline *p, int cpu, uint64_t ts, int64_t count);
/* The source will lose cpu's events after ts, its last record, up to its
 * next (whose pipeline_lost says so): told before the other CPUs' events
 * of the gap come. */
void pipeline_gap(struct pipeline *p, int cpu, uint64_t ts);

/* Writes the names learnt so far. Call inside the batch's transaction,
 * before committing it, so no event row points at an unwritten name. */
/* Stores, in capture.states, the letters the trace's sched_switch
 * format gives task states ("1:S,2:D,...,0:R,+256"); nothing when the
 * format has no such table. Returns a store error. */
int pipeline_store_states(struct pipeline *p, int64_t capture);
int pipeline_sync_names(struct pipeline *p);

/* CPU cpu is offline at the end of a live capture (before pipeline_finish). */
void pipeline_cpu_gone(struct pipeline *p, int cpu);

/* cpu has no record in the trace being imported (a cpumask left it out):
 * tasks queued there run unseen (derive_untraced). */
void pipeline_cpu_untraced(struct pipeline *p, int cpu);

/* The trace clock does not count nanoseconds (derive_clock_not_ns). */
void pipeline_clock_not_ns(struct pipeline *p);

/* End of a finite source: names what is still unnamed from a snapshot
 * (lookup may be NULL), closes every interval at the last event. */
void pipeline_finish(struct pipeline *p,
		     const char *(*lookup)(void *ctx, int32_t pid), void *ctx);

/* Writes the counters (events per type, undecodable records, unnamed
 * rows, name updates) as stats rows of capture `capture`. */
int pipeline_write_stats(struct pipeline *p, int64_t capture);

/* "system:name,..." of the event types seen so far; owned by p. */
const char *pipeline_events_seen(struct pipeline *p);

uint64_t pipeline_events(const struct pipeline *p);
/* Records that were not stored: no format for their type, or too short. */
uint64_t pipeline_undecodable(const struct pipeline *p);
uint64_t pipeline_first_ts(const struct pipeline *p);
uint64_t pipeline_last_ts(const struct pipeline *p);
/* A running capture's open slices, each on the row of the switch that
 * began it, or as a row of its own where no switch's row holds it, as
 * still running at the newest event (derive_show_open): before a commit,
 * so that a window up to now has the tasks running now, however long ago
 * their switch-in was. */
int pipeline_show_open(struct pipeline *p);
/* derive_oldest_wakeup: the oldest wakeup still pending, 0 when none. */
uint64_t pipeline_oldest_wakeup(const struct pipeline *p, uint64_t after);
struct resolve *pipeline_resolver(struct pipeline *p);
/* Its cgroup_history keeper (cgroups.h), for the /proc snapshot. */
struct cgroups *pipeline_cgroups(struct pipeline *p);

/* CPUs 0..n-1 had events or losses. */
int pipeline_cpus(const struct pipeline *p);

/* How tep's sched_switch format letters prev_state: "V:L,...,0:R,+P"
 * (P the preempted mark; capture.states, states.h). -1 when the format
 * has no table. */
int pipeline_state_letters(struct tep_handle *tep, char *buf, size_t len);

#endif
