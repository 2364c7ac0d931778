/* Fault injection: SQLite's allocator fails the Nth allocation (once, or
 * from then on), N swept over an import and over live batches. Every run
 * must end in success or a clean error — no crash, no leak (ASan), no
 * partial output — and a live store must retry the failed batch and lose
 * nothing once memory is back. Needs tests/data (TESTDATA). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "derive.h"
#include "import.h"
#include "pipeline.h"
#include "store.h"
#include "tracedat.h"

static sqlite3_mem_methods real;
/* The store's writer thread allocates while the test's thread feeds and
 * re-arms: the count is changed under a lock. Without it a decrement
 * racing arm(-1) put a countdown back, and an allocation after the
 * round (the row count's own) failed. */
static pthread_mutex_t arm_lock = PTHREAD_MUTEX_INITIALIZER;
static long countdown = -1;	/* allocations left before failing; -1 never */
static int persistent;		/* keep failing once failed */
static long allocs;

/* 1 when this allocation is to fail (and counts it). */
static int failing(void)
{
	int fail = 0;

	pthread_mutex_lock(&arm_lock);
	allocs++;
	if (countdown == 0) {
		if (!persistent)
			countdown = -1;
		fail = 1;
	} else if (countdown > 0) {
		countdown--;
	}
	pthread_mutex_unlock(&arm_lock);
	return fail;
}

static void *fail_malloc(int n)
{
	return failing() ? NULL : real.xMalloc(n);
}

static void *fail_realloc(void *p, int n)
{
	return failing() ? NULL : real.xRealloc(p, n);
}

static void arm(long n, int keep)
{
	pthread_mutex_lock(&arm_lock);
	countdown = n;
	persistent = keep;
	pthread_mutex_unlock(&arm_lock);
}

static char dir[] = "/tmp/commd-faults.XXXXXX";
static char trace[4096];

static int file_exists(const char *p)
{
	return access(p, F_OK) == 0;
}

/* PRAGMA integrity_check says "ok". Anything else is printed: once in
 * a full run the check failed and passed when asked again, with nothing
 * to tell a damaged file from a check that could not run (a busy
 * database waits up to 5 s now). */
static int integrity_ok(const char *db)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	int ok = 0, rc;

	rc = sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(h, 5000);
		rc = sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, NULL);
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *r = (const char *)sqlite3_column_text(st, 0);

		ok = r && !strcmp(r, "ok");
		if (!ok)
			fprintf(stderr, "integrity_check of %s: %s\n", db, r ? r : "(null)");
	} else {
		fprintf(stderr, "integrity_check of %s could not run: %s (%d)\n", db,
			h ? sqlite3_errmsg(h) : "no handle", rc);
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
	return ok;
}

/* The import: every N either imports fully or fails leaving no output. */
static void faults_import_fails_cleanly_or_succeeds(void)
{
	struct import_opts o = { .progress = 0, .in_process = 1, .force = 1 };
	char out[4200];
	long total, step, n, ok = 0, failed = 0;
	int rc;

	snprintf(out, sizeof(out), "%s/import.db", dir);
	o.input = trace;
	o.output = out;
	arm(-1, 0);
	allocs = 0;
	CHECK_INT(import_run(&o), 0);
	total = allocs;
	CHECK(total > 100);
	step = total / 150 + 1;
	for (int keep = 0; keep < 2; keep++) {
		for (n = 0; n < total; n += (n < 200 ? 1 : step)) {
			unlink(out);
			arm(n, keep);
			rc = import_run(&o);
			arm(-1, 0);
			if (rc == 0) {
				ok++;
				if (!integrity_ok(out)) {
					check_failures++;
					fprintf(stderr, "import with allocation %ld failing: output "
						"not sound\n", n);
				}
			} else {
				failed++;
				if (file_exists(out)) {
					check_failures++;
					fprintf(stderr, "import with allocation %ld failing: a "
						"failed import left %s\n", n, out);
				}
			}
		}
	}
	fprintf(stderr, "import: %ld allocations; swept: %ld imported, %ld clean errors\n",
		total, ok, failed);
	CHECK(failed > 0);
}

struct feed {
	struct pipeline *p;
	struct store *s;
	long records;
};

static int feed_record(void *ctx, const void *data, int size, int cpu,
		       uint64_t ts, int64_t missed)
{
	struct feed *f = ctx;

	(void)missed;
	if (!data)		/* a gap: the derivations only */
		return 0;
	f->records++;
	pipeline_record(f->p, data, size, cpu, ts);
	/* small transactions: many commits to fail in */
	if (f->records % 500 == 0) {
		pipeline_sync_names(f->p);
		store_commit_async(f->s);
		store_begin(f->s);
	}
	return 0;
}

/* A live store on db and a pipeline over t's events, a batch begun; on
 * failure (counted, printed) both are closed and -1 returned. */
static int feed_open(struct feed *f, struct tracedat *t, const char *db,
		     char *err, size_t errsize)
{
	f->s = store_open(db, STORE_LIVE, err, errsize);
	if (!t || !f->s) {
		check_failures++;
		fprintf(stderr, "setup failed: %s\n", err);
		tracedat_close(t);
		store_close(f->s);
		return -1;
	}
	f->p = pipeline_new(tracedat_tep(t), f->s, err, errsize);
	store_begin(f->s);
	return 0;
}

/* A live capture of the trace at path into db, committed (a kill may come
 * next): 0, or -1 (the setup failed, counted). */
static int feed_live(struct feed *f, const char *path, const char *db, struct tracedat **t)
{
	char err[256];

	arm(-1, 0);
	*t = tracedat_open(path, err, sizeof(err));
	if (feed_open(f, *t, db, err, sizeof(err)))
		return -1;
	CHECK(store_capture_begin(f->s, "live", NULL, NULL, 1, NULL, NULL, NULL) > 0);
	tracedat_iterate(*t, feed_record, f);
	pipeline_sync_names(f->p);
	CHECK_INT(store_commit(f->s), 0);
	return 0;
}

static void unlink_suffix(const char *db, const char *suffix)
{
	char path[4300];

	snprintf(path, sizeof(path), "%s%s", db, suffix);
	unlink(path);
}

/* One integer from db (-1: none, or an error, printed). */
static long long query_int(const char *db, const char *sql)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	long long v = -1;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	else
		fprintf(stderr, "%s: %s: %s\n", db, sql, h ? sqlite3_errmsg(h) : "no handle");
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

static long count_rows(const char *db)
{
	return (long)query_int(db, "SELECT (SELECT count(*) FROM ev_sched_switch) + "
			       "(SELECT count(*) FROM ev_sched_waking) + "
			       "(SELECT count(*) FROM ev_sched_wakeup)");
}

/* Live batches: a failed write pauses the store; once allocations succeed
 * again, store_retry writes everything, nothing lost or doubled. */
static void faults_live_batches_retry_and_lose_nothing(void)
{
	char db[4200], err[256];
	long expected = -1, n;
	int rounds = 0;

	snprintf(db, sizeof(db), "%s/live.db", dir);
	/* n = -1 first: the fault-free count the others must match */
	for (n = -1; n < 40000; n = n < 0 ? 50 : n * 3 / 2 + 7, rounds++) {
		struct tracedat *t = tracedat_open(trace, err, sizeof(err));
		struct feed f = { 0 };
		long got;
		int retries = 0, ok;

		/* A fresh database: no WAL of the round before either. */
		unlink(db);
		unlink_suffix(db, "-wal");
		unlink_suffix(db, "-shm");
		if (feed_open(&f, t, db, err, sizeof(err)))
			return;
		arm(n, 1);			/* fail from the Nth on ... */
		if (n < 0)
			arm(-1, 0);
		tracedat_iterate(t, feed_record, &f);
		pipeline_sync_names(f.p);
		store_commit_async(f.s);
		arm(-1, 0);			/* ... until memory is back */
		/* drain: retry while paused */
		while (store_busy(f.s) || store_paused(f.s)) {
			if (store_paused(f.s)) {
				store_retry(f.s);
				retries++;
			}
			usleep(1000);
			if (retries > 1000)
				break;
		}
		/* An empty transaction: waits for the writer, says if it
		 * still fails. */
		if (store_begin(f.s) || store_commit(f.s)) {
			check_failures++;
			fprintf(stderr, "live with allocation %ld failing: final commit: %s "
				"(paused %d, retries %d)\n", n, store_errmsg(f.s),
				store_paused(f.s), retries);
		}
		pipeline_free(f.p);
		CHECK_INT(store_close(f.s), 0);
		tracedat_close(t);
		got = count_rows(db);
		if (expected < 0)
			expected = got;
		ok = integrity_ok(db);
		if (got != expected || !ok) {
			check_failures++;
			fprintf(stderr, "live with allocation %ld failing: %ld rows (expected %ld), "
				"integrity %s\n", n, got, expected, ok ? "ok" : "not ok (above)");
		}
	}
	fprintf(stderr, "live: %d rounds, %ld rows each\n", rounds, expected);
	CHECK(expected > 0);
}

/* A capture killed after its last commit ends, at the next start, at its
 * last stored event, whatever table that is in: here an exec
 * (cases/thread-exec-noexit.dat: task events and execs, no switch). The
 * names it knew end there, none after (an exec's old name ends at it). */
static void killed_capture_ends_at_its_last_event(void)
{
	char db[4200], path[4200], err[256];
	const char *data = getenv("TESTDATA");
	struct tracedat *t;
	struct feed f = { 0 };
	int64_t marked = -1;
	long long end, last;

	snprintf(path, sizeof(path), "%s/cases/thread-exec-noexit.dat", data);
	snprintf(db, sizeof(db), "%s/killed.db", dir);
	if (feed_live(&f, path, db, &t))
		return;
	/* killed here: no capture end, no pipeline_finish */
	pipeline_free(f.p);
	CHECK_INT(store_close(f.s), 0);
	tracedat_close(t);

	last = query_int(db, "SELECT max(ts) FROM ev_sched_process_exec");
	CHECK(last > query_int(db, "SELECT max(ts) FROM ev_task_rename"));
	f.s = store_open(db, STORE_LIVE, err, sizeof(err));
	if (!f.s) {
		check_failures++;
		fprintf(stderr, "reopening: %s\n", err);
		return;
	}
	CHECK_INT(store_mark_unclean(f.s, (uint64_t)last + 1000000000, 2, &marked), 0);
	CHECK_INT(store_close_open_history(f.s, (uint64_t)last + 1000000000), 0);
	CHECK_INT(store_close(f.s), 0);
	end = query_int(db, "SELECT end_ts FROM capture");
	CHECK_INT(end, last);
	CHECK_INT(marked, 1000000000);
	CHECK_INT(query_int(db, "SELECT count(*) FROM comm_history WHERE end_ts IS NULL"), 0);
	{
		char sql[200];

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM comm_history WHERE "
			 "start_ts <= %lld AND end_ts > %lld", end, end);
		CHECK_INT(query_int(db, sql), 0);
	}
}

/* A running slice's row of its own (store_show_running) begun before
 * retention's cutoff is not written there again at every commit, for
 * each cut to delete: the oldest row, it held the size limit's measure
 * back (the cuts deleted it alone). One begun after the cutoff is
 * written, and goes at the round that does not show it again. */
static long long running_rows(const char *db)
{
	return query_int(db, "SELECT count(*) FROM dv_sched WHERE n = -1");
}

static void show_one(struct store *s, const struct derive_slice *d)
{
	CHECK_INT(store_begin(s), 0);
	store_running_round(s);
	if (d)
		CHECK_INT(store_show_running(s, d), 0);
	CHECK_INT(store_running_done(s), 0);
	CHECK_INT(store_commit(s), 0);
}

static void running_row_behind_retention(void)
{
	char db[4200];
	struct tracedat *t;
	struct feed f = { 0 };
	long long first, last;
	struct derive_slice d = { .cpu = 0, .pid = 10, .hid = 1, .prio = 120, .end_state = -1,
				  .start_err = -1, .end_err = -1, .off_dur = -1, .wake_dur = -1,
				  .dur = 1000 };

	snprintf(db, sizeof(db), "%s/running.db", dir);
	if (feed_live(&f, trace, db, &t))
		return;
	first = query_int(db, "SELECT min(ts) FROM ev_sched_switch");
	last = query_int(db, "SELECT max(ts) FROM ev_sched_switch");
	CHECK(last > first);
	/* the first half goes at the next commit */
	store_set_max_age(f.s, (uint64_t)(last - first) / 2);
	show_one(f.s, NULL);
	CHECK(query_int(db, "SELECT min(ts) FROM ev_sched_switch") > first);
	d.ts = (uint64_t)first + 1000;
	show_one(f.s, &d);
	CHECK_INT(running_rows(db), 0);
	d.ts = (uint64_t)last - 1000;
	show_one(f.s, &d);
	CHECK_INT(running_rows(db), 1);
	show_one(f.s, NULL);
	CHECK_INT(running_rows(db), 0);
	pipeline_free(f.p);
	CHECK_INT(store_close(f.s), 0);
	tracedat_close(t);
}

int main(void)
{
	const char *data = getenv("TESTDATA");

	if (!data) {
		fprintf(stderr, "TESTDATA not set\n");
		return 1;
	}
	snprintf(trace, sizeof(trace), "%s/sched-v7.dat", data);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	sqlite3_config(SQLITE_CONFIG_GETMALLOC, &real);
	{
		sqlite3_mem_methods m = real;

		m.xMalloc = fail_malloc;
		m.xRealloc = fail_realloc;
		sqlite3_config(SQLITE_CONFIG_MALLOC, &m);
	}
	if (!getenv("FAULTS_LIVE_ONLY"))
		RUN(faults_import_fails_cleanly_or_succeeds);
	RUN(faults_live_batches_retry_and_lose_nothing);
	RUN(killed_capture_ends_at_its_last_event);
	RUN(running_row_behind_retention);
	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", dir);
	}
	return check_done("test_store_faults");
}
