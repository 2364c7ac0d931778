/* store.h — writes named events into the SQLite file, in batches.
 *
 * Owns the database connection; no sqlite3 type leaves this module. Every
 * batch is one transaction (store_begin .. store_commit) with prepared
 * statements. Functions return 0 or -1; store_errmsg says why. */
#ifndef COMMD_STORE_H
#define COMMD_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "decode.h"
#include "derive.h"
#include "resolve.h"

struct store;

enum store_mode {
	/* A fresh file that nobody reads until it is complete (import): no
	 * journal, no syncs, exclusive lock. Renamed into place by the
	 * caller when finished. */
	STORE_BULK,
	/* A database read while it is written (live): WAL, synced commits. */
	STORE_LIVE,
};

/* Opens (creating if needed) and migrates the schema to the newest
 * version. On failure returns NULL and writes the reason to err. */
struct store *store_open(const char *path, enum store_mode mode,
			 char *err, size_t errlen);

/* Closes; commits nothing. Returns -1 if SQLite reported an error. */
int store_close(struct store *s);

const char *store_errmsg(const struct store *s);

int store_begin(struct store *s);
int store_commit(struct store *s);
int store_rollback(struct store *s);

/* Queues the commit and returns at once: the caller (the live reader)
 * goes back to the ring buffer while the writer commits. An error shows
 * at a later call. */
int store_commit_async(struct store *s);
/* The next commit writes ts as wake_pending_ts in stats (the waking of
 * the oldest wakeup still pending, its wakeup_latency row not stored
 * yet; 0: none): the shipper holds wakeup_latency back to it. */
void store_hold_wakeups(struct store *s, uint64_t ts);

/* One event. hid is its comm_history row; for a sched_switch next_hid is
 * next_pid's (0: none); comm_ids are the ids of its comm fields c0/c1
 * (0 = NULL); for DECODE_OTHER type_id is the event_types row and json
 * its fields. */
int store_event(struct store *s, const struct decode_event *ev, uint32_t hid,
		uint32_t next_hid, const uint32_t comm_ids[2], uint32_t type_id,
		const char *json, size_t json_len);

/* The event store_event() just took, as a token for the calls below
 * (never 0). */
uint64_t store_last_ref(const struct store *s);

/* The sched_switch at ts just given to store_event() ended a wakeup of
 * the task it switched in, latency ns after its first waking. */
int store_switch_wake(struct store *s, uint64_t ts, int64_t latency);

/* Events not yet handed to the writer, stored under row from_hid from
 * `window` ns before `before` up to it: they are to_hid's (a rename that
 * moved later: the task still had its old name). Events already handed
 * over keep their row. */
void store_rehid_recent(struct store *s, uint32_t from_hid, uint32_t to_hid,
			uint64_t before, uint64_t window);

/* Derived rows of their own (hids as the resolver numbers them). */
int store_slice(struct store *s, const struct derive_slice *d);
int store_wakeup(struct store *s, const struct derive_wakeup *w);

/* An ordinary slice, on the row of the sched_switch that began it
 * (d->ref; at d->ts on d->cpu, switching d->ref_pid in): ts to ts + dur,
 * ended in end_state, and its task's time off the CPUs before it. */
int store_slice_at(struct store *s, const struct derive_slice *d);
/* The same row's slice taken back (NULL again): the slice shown there
 * while it ran (end_state -1) ended otherwise, a row of its own. */
int store_slice_unshow(struct store *s, const struct derive_slice *d);

/* A CPU's running slice that no switch's row holds (derive_show_open's
 * own_row), as a dv_sched row of its own as it stands now (key n -1; an
 * idle slice's, pid 0, a row of dv_open_idle):
 * store_show_running writes it in place of the one that CPU showed
 * before; store_drop_running(cpu) drops the one shown (its slice ended:
 * its own row comes); between store_running_round and
 * store_running_done (a commit's round of them), the rows not shown
 * again are dropped. */
int store_show_running(struct store *s, const struct derive_slice *d);
int store_drop_running(struct store *s, int cpu);
void store_running_round(struct store *s);
int store_running_done(struct store *s);

/* A wakeup, on the row of the waking (ref: an event of kind at ts on
 * cpu, waking pid) that began it. */
int store_wakeup_at(struct store *s, uint64_t ref, int kind, uint64_t ts,
		    int cpu, int32_t pid, const struct derive_wakeup *w);

int store_event_type(struct store *s, uint32_t id, const char *system,
		     const char *name);

/* Writes the comms interned since the last call and the history rows the
 * resolver marked dirty, then clears the marks. */
int store_sync_names(struct store *s, struct resolve *r);

/* A paired reading of the capture's trace clock (ts) and CLOCK_REALTIME
 * (ns since the epoch), err its uncertainty (clock_map); queued. */
int store_clock(struct store *s, int64_t capture, uint64_t ts,
		int64_t realtime, int64_t err);

/* A loss: count < 0 when only the fact of a loss is known; from the
 * CPU's last record before it (the events lost came after it), 0 when
 * not known. */
int store_lost(struct store *s, int cpu, uint64_t ts, uint64_t from, int64_t count);

/* No wakeup's wait and no task's time off the CPUs that began before ts
 * is known (the rows derive wrote are voided): records of some CPU are
 * missing up to ts, where any task may have run (tracedat_truncated). */
int store_unknown_before(struct store *s, uint64_t ts);

/* cgroup_history (cgroups.h): pid's open row (when it has one: was_in)
 * ends at ts, and with a path a row of that cgroup begins there (source:
 * what says so). */
enum store_cgroup_source {
	STORE_CG_PROC, STORE_CG_ATTACH, STORE_CG_TRANSFER, STORE_CG_FORK,
	STORE_CG_EXIT,
};
int store_cgroup(struct store *s, int32_t pid, uint64_t ts, int was_in,
		 const char *path, size_t len, const char *name,
		 enum store_cgroup_source source);
/* pid's row that ended at from ends at ts instead. */
int store_cgroup_end_moved(struct store *s, int32_t pid, uint64_t from, uint64_t ts);

/* A kernel stack (stacks.h): its row in `stacks` (kept if there), and
 * the switch at (ts, cpu) that went to sleep in it. */
int store_stack(struct store *s, int64_t id, const char *frames, size_t len);
int store_switch_stack(struct store *s, uint64_t ts, int cpu, int64_t id);

/* A counter of capture `capture`; cpu < 0 for the whole capture. */
int store_stat(struct store *s, int64_t capture, const char *name, int cpu,
	       int64_t value);

/* Adds a capture row; returns its id or -1. clock: the trace clock;
 * buffer: the ring buffer(s) read (schema/005). Any text may be NULL. */
int64_t store_capture_begin(struct store *s, const char *source,
			    const char *kernel, const char *host,
			    uint64_t start_ts, const char *events,
			    const char *clock, const char *buffer);
int store_capture_end(struct store *s, int64_t id, uint64_t start_ts,
		      uint64_t end_ts);

/* The events enabled or present ("system:name,..."). */
/* The capture's state letters (schema/007-state-letters.sql). */
int store_capture_states(struct store *s, int64_t id, const char *states);
int store_capture_events(struct store *s, int64_t id, const char *events);
/* The capture's CPUs are 0..ncpus-1 (capture.cpus: window queries look
 * at each one's last slice before the window). */
int store_capture_cpus(struct store *s, int64_t id, int ncpus);

/* An import's boot (a live capture's is the kernel's boot_id, set at its
 * begin): what ships its rows under, a trace's ts meaning something only
 * within it. */
int store_capture_boot(struct store *s, int64_t id, const char *boot);

/* The intervals still open (names a killed capture left, cgroup
 * memberships) end at ts, or at the last capture's end when that is
 * earlier: at a new capture's start, and at a clean stop. Outside a
 * batch. */
int store_close_open_history(struct store *s, uint64_t ts);

/* How far the database's live captures reach: the latest start or end,
 * or for one that never ended its last stored event; -1 when there is
 * none. Outside a batch. */
int store_live_last_ts(struct store *s, int64_t *last);
/* The live captures' last paired reading of trace clock and time of day:
 * 1 and *ts, *realtime; 0 when there is none; -1 on error. */
int store_last_clock(struct store *s, int64_t *ts, int64_t *realtime);
/* capture.ts_offset (schema/019): what a live capture adds to its clock. */
int store_capture_ts_offset(struct store *s, int64_t id, uint64_t offset);

/* At start: if the last capture never ended (SIGKILL, crash), ends it at
 * its last stored event and records the gap up to now as a loss of
 * unknown size on each of ncpus CPUs. *marked = the gap in ns, 0 when
 * the last capture ended cleanly. Outside a batch. */
int store_mark_unclean(struct store *s, uint64_t now, int ncpus, int64_t *marked);

/* STORE_LIVE: a write failed (full disk, I/O error, no memory); the
 * transaction was rolled back and is kept, nothing is written until
 * store_retry runs it again. store_errmsg says why. */
int store_paused(struct store *s);
/* Batches written since the last commit or waiting for the writer: what
 * the open transaction holds in memory (each up to 8192 rows). */
int store_uncommitted_batches(struct store *s);

/* Frees the spare batches the load did not need since the last call
 * (keeping a few); call it now and then (the daemon: every 30 s). */
void store_trim_spares(struct store *s);
void store_retry(struct store *s);
/* The writer has work queued or running. */
int store_busy(struct store *s);

/* Retention (STORE_LIVE): keep the data under max_bytes by deleting the
 * oldest events (at least a tenth of the time covered at a time), and no
 * event older than max_age_ns before the newest one; 0 keeps all. The
 * writer deletes in small chunks after commits; both may be changed at
 * any time from the caller's thread. */
void store_set_max_bytes(struct store *s, uint64_t max_bytes);
void store_set_max_age(struct store *s, uint64_t max_age_ns);
/* Shipping to ClickHouse has every row up to ts (-1: nothing yet; never
 * called: not shipping).  Retention by age then keeps what is not
 * shipped; by size it cuts anyway, counting the switches it cut unshipped
 * in stats (unshipped_cut). */
void store_set_ship_floor(struct store *s, int64_t ts);

/* What the schema files leave in a database that had nothing, generated
 * at build time by cmake/schema-snapshot.c: a new database gets it at
 * once instead of replaying them. */
extern const char commd_schema_fresh[];

/* Schema version the binary writes (PRAGMA user_version). */
int store_schema_version(void);

#endif
