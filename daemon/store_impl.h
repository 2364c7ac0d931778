/* store_impl.h — what the parts of the store share; not for the rest of
 * commd (store.h is its interface).
 *
 *   store.c         opening (the migrations), closing, and the API the
 *                   pipeline calls, which fills batches of operations
 *   store_writer.c  the batches and the writer thread that runs them
 *   store_rows.c    running an operation: the row virtual tables through
 *                   which a batch's events reach SQLite, the other INSERTs
 *   store_retain.c  retention (the oldest rows go, in chunks) and WAL
 *                   checkpoints, run by the writer between batches
 */
#ifndef COMMD_STORE_IMPL_H
#define COMMD_STORE_IMPL_H
#include "store.h"
#include "grow.h"
#include "sqlfuncs.h"

#include <errno.h>
#include <time.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <sqlite3.h>

/* Tables written through the event path: one per decode kind, then the
 * derived ones. OR FAIL: an INSERT of many rows that may ABORT halfway (the
 * NOT NULL columns) makes SQLite copy each page it touches to a statement
 * journal first, a temp-file write as large as the WAL's own; with FAIL
 * nothing is rolled back by the statement, so nothing is journalled. A
 * failed statement still fails its batch's transaction (st_step() reports
 * it), which is rolled back whole. */
enum { TABLE_SCHED = DECODE_KIND_COUNT, TABLE_WAKEUP_LATENCY, TABLE_COUNT };

enum { ST_COMM, ST_HISTORY, ST_HISTORY_UPDATE, ST_TYPE, ST_LOST, ST_STAT,
       ST_CLOCK, ST_CGROUP_END, ST_CGROUP_END_MOVED, ST_CGROUP, ST_STACK, ST_SWITCH_STACK,
       ST_RUNNING_DROP, ST_RUNNING, ST_IDLE_DROP, ST_IDLE, ST_BEGIN, ST_COMMIT, ST_COUNT };

/* Writes go through a writer thread: the caller (decode and resolve)
 * fills a batch of operations while the thread runs the previous one
 * through SQLite, so on two CPUs decoding and storing overlap. An
 * operation copies everything it needs: the record it came from is gone
 * by the time it is written. */
enum op_kind { OP_EVENT, OP_COMM, OP_HISTORY, OP_TYPE, OP_LOST, OP_CLOCK, OP_BEGIN,
	       OP_COMMIT, OP_PATCH, OP_CGROUP, OP_STACK, OP_SWITCH_STACK, OP_RUNNING };

/* OP_CGROUP's v[0]: 0 or 1, whether pid's open row ends at ts
 * (store_cgroup); CG_END_MOVED, its row ended at v[1] ends at ts. */
enum { CG_END_MOVED = 2 };

struct op {
	uint8_t op;		/* enum op_kind */
	uint8_t kind;		/* OP_EVENT: a decode kind or TABLE_* */
	uint16_t has;		/* OP_EVENT: DECODE_HAS_* */
	int32_t cpu;
	uint64_t ts;
	/* database ids (comm_history, comms, event_types): 64 bits, as
	 * SQLite's; a long-lived database's history ids pass 2^32 */
	int64_t hid;
	int64_t ids[2];
	int64_t type;
	int32_t p[2];
	int64_t v[3];
	uint32_t text, text_len;	/* into the batch's text arena */
	uint32_t text2, text2_len;
	/* Derived columns (schema 010): a sched_switch's next_hid and the
	 * slice it began (OP_HAS_SLICE); a waking's wakeup (OP_HAS_WAKE:
	 * latency, the CPU and row it ran as). A slice's (the switch's or a
	 * dv_sched row's) time off the CPUs before it (schema 018: off_dur
	 * < 0 none) in the room a waking's wakeup takes. */
	int64_t next_hid;
	int32_t off_state;
	union {
		struct { int64_t run_hid; int32_t run_cpu; int64_t latency; };
		struct { int64_t off_hid; int32_t off_cpu; int64_t off_dur; };
	};
	int64_t slice_dur, slice_state;
	int64_t wake_latency;	/* a switch's (OP_HAS_SWITCH_WAKE) */
};

/* op.has bits above decode's DECODE_HAS_*; OP_NEW_ROW: an OP_HISTORY
 * whose row was never written before. OP_PATCH: the derived columns of a
 * row written by an earlier batch (kind, ts, cpu, p[0] the pid switched
 * in or woken; a switch's slice_dur and slice_state, a waking's latency,
 * run_cpu and run_hid). OP_RUNNING: a CPU's running slice as a dv_sched
 * row of its own (store_show_running; the fields a TABLE_SCHED op's):
 * OP_DROP_OLD drops the row shown before (its ts in ids[0]), OP_NEW_ROW
 * writes this one; OP_IDLE_OLD, OP_IDLE_NEW: that row is an idle slice's,
 * in dv_open_idle (schema 032). */
enum {
	OP_HAS_SLICE = 1 << 8, OP_HAS_SWITCH_WAKE = 1 << 9, OP_HAS_WAKE = 1 << 10,
	OP_NEW_ROW = 1 << 11, OP_DROP_OLD = 1 << 12, OP_IDLE_OLD = 1 << 13,
	OP_IDLE_NEW = 1 << 14,
};

/* The key's n of a running slice's dv_sched row (store_show_running):
 * no row written otherwise has a negative n. */
#define RUNNING_N (-1)

/* A CPU's running slice shown as a row of its own (caller's). */
struct running_row {
	uint64_t ts;
	uint32_t round;		/* the commit's (store_running_round) */
	uint8_t on;
	uint8_t idle;		/* the idle task's: in dv_open_idle */
};

#define BATCH_OPS 8192
#define BATCH_OPS_SHIFT 13	/* BATCH_OPS == 1 << it: store_last_ref */
#define ROWS_PER_FLUSH 256

struct pending {
	uint32_t idx[ROWS_PER_FLUSH];	/* ops of the batch being run */
	uint32_t key[ROWS_PER_FLUSH];	/* their n (the key's third part) */
	size_t n;
	size_t from;		/* the rows to insert: from..n-1 */
	size_t at;		/* the row being inserted */
};

/* The key's n: rows of one table and CPU with the same ts count up from
 * 0, in the order they come (writer thread). */
struct key_seq {
	uint64_t ts;
	uint32_t n;
	uint8_t used;
};

/* Batches queued for the writer, at most this many: enough for the
 * reader to go on through a slow commit (a WAL checkpoint's fsync)
 * instead of leaving the ring buffer unread. */
#define MAX_BATCHES 24

struct batch {
	struct batch *next;
	struct op ops[BATCH_OPS];
	size_t nops;
	size_t start;		/* ops before it are committed */
	char *text;
	size_t text_len, text_cap;
};

struct store;

struct rows_src {
	struct store *s;
	int kind;
};

struct store {
	sqlite3 *db;
	sqlite3_stmt *ins[TABLE_COUNT];
	int ncols[TABLE_COUNT];
	struct rows_src src[TABLE_COUNT];	/* the commd_rows_N modules' */
	const struct batch *cur;		/* whose pending rows they read */
	struct pending pending[TABLE_COUNT];
	sqlite3_stmt *patch[TABLE_COUNT];	/* OP_PATCH's UPDATE, by kind */
	sqlite3_stmt *next_n[TABLE_COUNT];	/* a free n after a conflict */
	struct key_seq *seq[TABLE_COUNT];	/* by cpu (writer's) */
	size_t nseq[TABLE_COUNT];
	sqlite3_stmt *misc[ST_COUNT];
	uint32_t comms_written;		/* comm ids 1..n are queued */
	uint32_t history_written;	/* the highest history row queued */
	/* A database continued by a new capture already has comms, history
	 * rows and event types: the resolver's ids (from 1) are written
	 * shifted past them. */
	int64_t comm_base, hid_base, type_base;	/* the database's max ids at open */
	char err[512];

	pthread_t writer;
	int threaded;			/* set at open, read-only after */
	/* STORE_LIVE keeps the batches of the open transaction until its
	 * COMMIT succeeds: when a write fails (a full disk, an I/O error,
	 * no memory) the transaction is rolled back, they go back to the
	 * head of the queue and the writer pauses until store_retry. Set
	 * at open, read-only after. */
	int retain;
	struct batch *fill;		/* caller only: it appends here */
	uint64_t fill_gen;		/* caller only: fill's, from 1 */
	struct running_row *running;	/* caller only: by CPU */
	size_t nrunning;
	uint32_t running_round;

	/* Shared by the caller and the writer thread: read and written
	 * under `lock` only (cond: a change of any of them). */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct batch *full, *full_tail;	/* queued for the writer, in order */
	struct batch *spare;		/* written, free for reuse */
	int nbatches;			/* allocated */
	int nspare;			/* on the spare list */
	int spare_low;			/* its fewest since store_trim_spares() */
	int nfull;			/* queued */
	struct batch *held, *held_tail;
	int nheld;			/* on the held list */
	int paused;
	int busy;			/* the writer is running a batch */
	int stop;
	int failed;			/* sticky: the writer hit an error */

	/* Written by the caller (with __atomic, relaxed), read by the
	 * writer's retention (the same): single words. */
	uint64_t max_bytes;		/* retention: 0 = keep everything */
	uint64_t max_age_ns;		/* retention by age: 0 = keep all */
	int64_t ship_floor;		/* shipped up to it; INT64_MIN: not shipping */
	int64_t unshipped_counted;	/* unshipped_cut counted below it */
	int64_t shipped_saved;		/* stats shipped_ts: shipped up to it, as
					 * last known (a restart counts from it) */
	int64_t max_wake_latency;	/* the longest stored on a switch */
	int64_t retain_below;		/* the writer's: retention's target, the
					 * rows before it go (store_show_running) */
	int64_t wake_hold;		/* the caller's: the next commit's
					 * wake_pending_ts, -1: none to write */

	/* The writer thread's own (the caller's too before the thread
	 * starts and after it is joined). */
	int64_t wake_saved;		/* as in stats, or -1: none there */
	int64_t hold_saved;		/* wake_pending_ts as in stats, -1: unknown */
	uint64_t trim_checked;		/* ms_now() of the last size check */
	int64_t trim_target;		/* rows before this ts are to go */
	int trim_pending;		/* some may be left */
	int64_t trim_saved;		/* retention_target_ts as in stats, or INT64_MIN */
	uint64_t ckpt_checked;		/* time() of the last checkpoint that waited */
	char wal_path[4096];
};

static inline void bind_text(sqlite3_stmt *st, int col, const struct batch *b,
			     uint32_t off, uint32_t len, int present)
{
	/* An empty name (prctl(PR_SET_NAME, "")) is text, not NULL: a batch
	 * whose texts are all empty has no arena at all. */
	if (present)
		sqlite3_bind_text(st, col, len ? b->text + off : "", (int)len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, col);
}

/* Shared between the parts (store_impl.h's list says which file). */
void *st_writer_main(void *arg);
uint32_t st_add_text(struct store *s, const char *text, size_t len);
void st_checkpoint(struct store *s);
int st_drain(struct store *s);
int st_exec(struct store *s, const char *sql);
int st_fail(struct store *s, const char *what);
int st_flush_events(struct store *s, const struct batch *b);
void st_free_batch(struct batch *b);
void st_forget_keys(struct store *s);
void st_load_retention(struct store *s);
struct op *st_new_op(struct store *s, enum op_kind kind);
/* The table of a kind (TABLE_* or a decode kind): ev_* for events, dv_*
 * for derived rows; NULL past them. */
const char *st_table_name(int kind);
int st_prepare_insert(struct store *s, int kind);
int st_run_op(struct store *s, const struct op *o, const struct batch *b);
int st_set_db_stat(struct store *s, const char *name, int64_t value);
int st_step(struct store *s, sqlite3_stmt *st, const char *what);
int st_submit(struct store *s);
void st_trim(struct store *s);

#endif
