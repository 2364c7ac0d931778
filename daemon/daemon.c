/* daemon.c — see daemon.h.
 *
 * One loop: wait for the CPUs (poll, woken by buffer_percent or the commit
 * timer), read and merge what they have, name and queue it (the store's
 * writer thread does the SQLite work), and every --commit-ms commit the
 * batch together with the ring buffer's loss counters. */
#define _GNU_SOURCE
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <grp.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "config.h"
#include "live.h"
#include "log.h"
#include "notify.h"
#include "pipeline.h"
#include "cgroups.h"
#include "seed.h"
#include "serverctl.h"
#include "ship.h"
#include "shipctl.h"
#include "store.h"

static volatile sig_atomic_t stop_signal, hup_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_hup(int sig)
{
	(void)sig;
	hup_signal = 1;
}

/* Losses are warned about at most once per this many seconds. */
#define LOST_WARN_INTERVAL_S 10

struct capture {
	struct daemon_opts *o;		/* the settings now (SIGHUP changes some) */
	struct live *live;
	struct store *store;
	struct pipeline *pipe;
	int64_t id;
	uint64_t lost_total, events_at_status, status_ts;
	uint64_t lost_at_commit;	/* lost_total at the last commit */
	uint64_t lost_reported;		/* lost_total at the last warning */
	struct log_ratelimit lost_warn;
	int failed;
	int restored;			/* times the instance was set back */
	int restored_lost;		/* ... after events went untraced */
	struct serverctl server;		/* the query server */
	struct shipctl ship;		/* shipping to ClickHouse */
	char host[256];			/* the host's name there */
	int lock_fd;			/* the database's lock (lock_db) */
	int ready_fd;			/* tells the daemonizing parent, -1: done */
	struct timespec started;	/* CLOCK_MONOTONIC at READY */
	int proc_is_hosts;		/* /proc numbers tasks as the trace does */
	int64_t clock_offset;		/* realtime - ts, the last stored */
	int64_t clock_err;		/* its uncertainty */
	int clock_stored;		/* a reading was stored */
};

/* A paired reading of the trace clock and CLOCK_REALTIME, stored when it
 * is the first or the offset moved by a microsecond or more beyond the two
 * readings' uncertainty (a step of the time of day, NTP's slewing). */
static int clock_reading(struct capture *c)
{
	uint64_t ts;
	int64_t rt, err, off;

	if (live_clock_pair(c->live, &ts, &rt, &err))
		return 0;
	off = rt - (int64_t)ts;
	if (c->clock_stored &&
	    llabs(off - c->clock_offset) < 1000 + err + c->clock_err)
		return 0;
	c->clock_offset = off;
	c->clock_err = err;
	c->clock_stored = 1;
	return store_clock(c->store, c->id, ts, rt, err);
}

/* The database's directory, as make_parent_dir found or made it. */
struct db_dir {
	char path[PATH_MAX];
	int created;		/* commd made it: its mode and group are ours */
};

/* The server's user reads the database: group commd, when it exists,
 * gets the file (by its descriptor, which follows no link; SQLite gives
 * the -wal and -shm it makes the file's owner and mode), the WAL files
 * already there (opened without following a link: called before SQLite
 * has them open), and the directory only when commd created it. */
static void share_db(const struct db_dir *d, int db_fd, const char *db)
{
	struct group *gr = getgrnam("commd");
	gid_t gid = gr ? gr->gr_gid : 0;
	mode_t mode = gr ? 0640 : 0600;

	if (d->created && gr && chown(d->path, 0, gid) == 0)
		chmod(d->path, 0750);
	if (fchown(db_fd, 0, gid) == 0)
		fchmod(db_fd, mode);
	for (int i = 0; i < 2; i++) {
		char side[PATH_MAX + 8];
		int fd;

		snprintf(side, sizeof(side), "%s%s", db, i ? "-shm" : "-wal");
		fd = open(side, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fchown(fd, 0, gid) == 0)
			fchmod(fd, mode);
		close(fd);
	}
}

static int on_record(void *ctx, const void *data, int size, int cpu,
		     uint64_t ts, int64_t missed)
{
	struct capture *c = ctx;

	if (missed == TRACEDAT_GAP) {
		pipeline_gap(c->pipe, cpu, ts);
		return 0;
	}
	if (missed) {
		c->lost_total += missed > 0 ? (uint64_t)missed : 0;
		if (pipeline_lost(c->pipe, cpu, ts, missed > 0 ? missed : -1))
			goto fail;
	}
	/* (no record: a loss the CPU's stats counted, in its place) */
	if (data && pipeline_record(c->pipe, data, size, cpu, ts))
		goto fail;
	return 0;
fail:
	c->failed = 1;
	return 1;
}

static void reload(struct capture *c);

/* Once a commit: is the instance still capturing as set up? Another
 * program may have turned it off (trace-cmd reset -a does, to every
 * instance it cannot remove). It is set back, loudly, and every CPU gets
 * a lost_events row of unknown count: what happened in between was not
 * traced. */
static int check_instance(struct capture *c)
{
	char what[512];
	/* Before it is set back: what is stamped later was traced. */
	uint64_t ts = live_trace_now(c->live);
	int rc = live_check(c->live, what, sizeof(what));

	if (rc == 0)
		return 0;
	if (rc < 0) {
		log_error("instance %s was changed by another program (%s) and cannot be "
			  "set back: %s", c->o->instance, what, strerror(errno));
		return -1;
	}
	c->restored++;
	if (rc == 2) {
		log_warning("instance %s was changed by another program (%s): set back; "
			    "only events were added, nothing was lost", c->o->instance, what);
		return 0;
	}
	for (int cpu = 0; cpu < live_ncpus(c->live); cpu++)
		if (live_lost(c->live, cpu, ts))
			return -1;
	c->restored_lost++;
	log_warning("instance %s was changed by another program (%s%s): set back; what "
		    "was not traced in between is lost, a lost_events row of unknown count "
		    "per CPU", c->o->instance, what,
		    strstr(what, "tracing_on 0") ? ", as trace-cmd reset -a does" : "");
	return 0;
}

#define TRIM_NS (30ull * 1000000000)	/* malloc_trim every 30 s */
#define COMMIT_BATCHES 12	/* ~100 k rows: commit without waiting */

/* New losses since the last commit: one warning line, at most every
 * LOST_WARN_INTERVAL_S, with what was lost since the last line and how
 * many warnings were held back. */
static void warn_losses(struct capture *c, uint64_t now)
{
	uint64_t suppressed;

	if (c->lost_total == c->lost_at_commit)
		return;
	c->lost_at_commit = c->lost_total;
	if (!log_ratelimit(&c->lost_warn, now, &suppressed))
		return;
	if (suppressed)
		log_warning("ring buffer full: %llu events lost since the last warning "
			    "(%llu in all; %llu more warnings suppressed, at most one per %d s); "
			    "a larger buffer-kb helps",
			    (unsigned long long)(c->lost_total - c->lost_reported),
			    (unsigned long long)c->lost_total,
			    (unsigned long long)suppressed, LOST_WARN_INTERVAL_S);
	else
		log_warning("ring buffer full: %llu events lost (%llu in all); a larger "
			    "buffer-kb helps",
			    (unsigned long long)(c->lost_total - c->lost_reported),
			    (unsigned long long)c->lost_total);
	c->lost_reported = c->lost_total;
}

static int commit(struct capture *c)
{
	uint64_t now = live_now();

	/* The shipper holds wakeup_latency back to the oldest wakeup still
	 * pending: its row is stored when the task runs, perhaps long
	 * after the rows the shipper passes meanwhile.  Not to one pending
	 * for longer than SHIP_WAKE_HOLD_NS, which the shipper no longer
	 * waits for: the newer ones it held back with it were let go too,
	 * and their rows, stored later, behind its cursor. */
	if (c->o->clickhouse) {
		uint64_t last = pipeline_last_ts(c->pipe);

		store_hold_wakeups(c->store, pipeline_oldest_wakeup(c->pipe,
				   last > (uint64_t)SHIP_WAKE_HOLD_NS ? last - SHIP_WAKE_HOLD_NS : 0));
	}
	/* (the tasks running now, on their switch-in's row: a window up to
	 * now has them, however long ago they were switched in) */
	if (pipeline_show_open(c->pipe) ||
	    pipeline_sync_names(c->pipe) ||
	    clock_reading(c) ||
	    store_commit_async(c->store) || store_begin(c->store)) {
		log_error("%s: %s", c->o->db, store_errmsg(c->store));
		return -1;
	}
	warn_losses(c, now);
	return 0;
}

static void apply_retention(struct capture *c)
{
	store_set_max_bytes(c->store, (uint64_t)c->o->max_db_mb << 20);
	store_set_max_age(c->store, c->o->max_age_s * 1000000000ull);
}

/* SIGHUP: the settings are computed again (file, environment, command
 * line). What can change at run time changes, each change logged; what
 * needs a restart is logged when it differs; a bad file changes nothing. */
/* One setting that SIGHUP found changed: applied, or for the next start. */
static void reload_said(void *ctx, const char *name, const char *was,
			const char *now, int applied)
{
	const int *level = ctx;	/* the old log level, the new one */

	if (!applied) {
		log_warning("reload: %s changed from '%s' to '%s': takes effect at the "
			    "next restart", name, was, now);
		return;
	}
	if (!strcmp(name, "log-level")) {
		/* Said at the more verbose of the two levels, so it shows. */
		log_set_max_priority(level[1] > level[0] ? level[1] : level[0]);
		log_notice("reload: %s %s -> %s", name, was, now);
		log_set_max_priority(level[1]);
		return;
	}
	log_notice("reload: %s %s -> %s", name, was, now);
}

static void reload(struct capture *c)
{
	struct daemon_opts n, *o = c->o;
	char err[1024];
	int changed, level[2];

	hup_signal = 0;
	if (!o->reload) {
		log_notice("SIGHUP: no configuration to reload");
		return;
	}
	if (o->reload(&n, err, sizeof(err))) {
		log_error("reloading the configuration: %s; keeping the current settings", err);
		return;
	}
	level[0] = o->log_level;
	level[1] = n.log_level;
	changed = config_reload(o, &n, reload_said, level);
	if (changed)
		apply_retention(c);
	else
		log_notice("reload: no setting that can change at run time changed");
	config_free(&n);
}

static void status(struct capture *c, uint64_t now)
{
	uint64_t events = pipeline_events(c->pipe);
	double secs = (double)(now - c->status_ts) / 1e9;
	char msg[240];

	if (secs <= 0)
		return;
	int n = snprintf(msg, sizeof(msg), "STATUS=%.0f events/s, %llu events, %llu lost",
			 (double)(events - c->events_at_status) / secs,
			 (unsigned long long)events, (unsigned long long)c->lost_total);

	/* what waits to be shipped, in seconds of trace */
	if (c->ship.url && n > 0 && (size_t)n < sizeof(msg)) {
		int64_t last = (int64_t)pipeline_last_ts(c->pipe);

		if (c->ship.shipped < 0)
			snprintf(msg + n, sizeof(msg) - (size_t)n, ", ClickHouse: nothing shipped yet");
		else
			snprintf(msg + n, sizeof(msg) - (size_t)n, ", ClickHouse backlog %.1f s",
				 last > c->ship.shipped ? (double)(last - c->ship.shipped) / 1e9 : 0.0);
	}
	notify_send(msg);
	c->events_at_status = events;
	c->status_ts = now;
}

/* Final counters: what the kernel says it handed us, per CPU, so a reader
 * can check that nothing read was lost on the way to the table. */
static int final_stats(struct capture *c)
{
	uint64_t read = 0;

	for (int cpu = 0; cpu < live_ncpus(c->live); cpu++) {
		struct live_cpu_stats st;

		if (live_cpu_stats(c->live, cpu, &st))
			continue;
		read += st.read_total;
		if (store_stat(c->store, c->id, "kernel_read_events", cpu,
			       (int64_t)st.read_total) ||
		    store_stat(c->store, c->id, "kernel_dropped_events", cpu, (int64_t)st.dropped) ||
		    store_stat(c->store, c->id, "kernel_overrun", cpu, (int64_t)st.overrun))
			return -1;
	}
	if (c->restored &&
	    store_stat(c->store, c->id, "instance_restored", -1, c->restored))
		return -1;
	return store_stat(c->store, c->id, "kernel_read_events", -1, (int64_t)read);
}

/* Opens (creating it 0640; share_db makes it 0600 without a group commd)
 * and locks the database file; a symlink there is refused. One writer per
 * database: an flock on the file itself (SQLite's own locks are fcntl
 * locks, which flock does not disturb). */
static int lock_db(const char *db)
{
	int fd;

	fd = open(db, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0) {
		log_error("%s: %s", db, errno == ELOOP ?
			  "a symbolic link; commd opens the database itself only" :
			  strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		log_error("%s: another commd is writing this database", db);
		close(fd);
		return -1;
	}
	return fd;	/* held until exit */
}

/* The database's directory: made (0750) when missing, else it must be one
 * only root can write; commd changes nothing of a directory it did not
 * make. */
static int make_parent_dir(const char *db, struct db_dir *d)
{
	char copy[PATH_MAX];
	struct stat st;

	snprintf(copy, sizeof(copy), "%s", db);
	snprintf(d->path, sizeof(d->path), "%s", dirname(copy));
	d->created = 0;
	if (mkdir(d->path, 0750) == 0) {
		d->created = 1;
		return 0;
	}
	if (errno != EEXIST) {
		log_error("%s: %s", d->path, strerror(errno));
		return -1;
	}
	if (stat(d->path, &st)) {
		log_error("%s: %s", d->path, strerror(errno));
		return -1;
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		log_error("%s: other users can write this directory; put the "
			  "database in one only root can write (--db)", d->path);
		return -1;
	}
	return 0;
}

/* Without --foreground: the parent waits until the child is capturing (or
 * has failed, its error already on stderr) and exits with its status. */
static int daemonize(int *ready_fd)
{
	int p[2];
	pid_t pid;
	char st = 1;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &st, 1) != 1)
			st = 1;
		_exit(st);
	}
	close(p[0]);
	setsid();
	*ready_fd = p[1];
	return 0;
}

static void ready(int *ready_fd)
{
	int fd;
	char ok = 0;

	if (*ready_fd < 0)
		return;
	if (write(*ready_fd, &ok, 1) < 0)
		log_warning("cannot tell the parent we are ready");
	close(*ready_fd);
	*ready_fd = -1;
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
}

/* The loop's timers, in CLOCK_MONOTONIC ns: what runs when, in one place.
 * A timer whose period is 0 is off; commit runs while ingesting, retry
 * while paused. */
enum { T_COMMIT, T_TRIM, T_WATCHDOG, T_RETRY, NTIMERS };

struct timers {
	uint64_t next[NTIMERS];
	uint64_t period[NTIMERS];
};

static void timer_reset(struct timers *t, int which, uint64_t now)
{
	t->next[which] = now + t->period[which];
}

static int timer_due(const struct timers *t, int which, uint64_t now)
{
	return t->period[which] && now >= t->next[which];
}

/* Everything up to READY: the database, the socket and the query server,
 * the instance, the capture row, tracing on, the snapshots. 0, or -1
 * (logged). */
static int capture_open(struct capture *c, struct live_opts *lo)
{
	struct daemon_opts *o = c->o;
	char err[512], host[256] = "";
	struct utsname uts;
	struct db_dir dbdir;
	int64_t gap = 0, last;
	uint64_t now, raw, offset = 0;

	if (make_parent_dir(o->db, &dbdir) || (c->lock_fd = lock_db(o->db)) < 0)
		return -1;
	/* Before SQLite opens anything: closing a descriptor of a file drops
	 * every lock the process holds on it, SQLite's too. The WAL files it
	 * makes later take the database file's owner and mode. */
	share_db(&dbdir, c->lock_fd, o->db);
	c->store = store_open(o->db, STORE_LIVE, err, sizeof(err));
	if (!c->store) {
		log_error("%s: %s", o->db, err);
		return -1;
	}
	if (o->socket && strcmp(o->socket, "none")) {
		c->server.socket = o->socket;
		c->server.db = o->db;
		c->server.limits = &o->serve;
		c->server.listen_fd = server_listen(o->socket, &c->server.socket_created);
		if (c->server.listen_fd < 0)
			return -1;
		serverctl_watch(&c->server, live_now());
		if (c->server.pid < 0)
			return -1;
	}
	apply_retention(c);
	c->live = live_open(lo, err, sizeof(err));
	if (!c->live) {
		log_error("%s", err);
		return -1;
	}
	c->pipe = pipeline_new(live_tep(c->live), c->store, err, sizeof(err));
	if (!c->pipe) {
		log_error("%s", c->pipe ? "out of memory" : err);
		return -1;
	}
	if (!live_clock_in_ns(c->live))
		pipeline_clock_not_ns(c->pipe);
	/* Times stored from here on are the trace clock's, which starts
	 * again at every boot: where the database's live captures reach past
	 * its now (an earlier boot's), this capture's go on after them, as
	 * far as the time of day moved since their last clock reading (at
	 * least 1 s), so that the database keeps one ascending timeline. */
	raw = live_trace_now(c->live);
	if (store_live_last_ts(c->store, &last)) {
		log_error("%s: %s", o->db, store_errmsg(c->store));
		return -1;
	}
	if (raw && last >= 0 && (uint64_t)last >= raw) {
		struct timespec rt;
		int64_t at = last + 1000000000, then, then_rt;

		clock_gettime(CLOCK_REALTIME, &rt);
		if (store_last_clock(c->store, &then, &then_rt) > 0) {
			then += (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec - then_rt;
			if (then > at)
				at = then;
		}
		offset = (uint64_t)at - raw;
		live_set_offset(c->live, offset);
		log_info("the database's live captures reach %.3f s past the trace clock's "
			 "now (an earlier boot's): this capture's times are the clock's + "
			 "%" PRIu64 " ns (capture.ts_offset)", (double)(last - (int64_t)raw) / 1e9,
			 offset);
	}
	now = live_trace_now(c->live);
	if (uname(&uts) == 0)
		snprintf(host, sizeof(host), "%s", uts.nodename);
	if (store_mark_unclean(c->store, now, live_ncpus(c->live), &gap)) {
		log_error("%s: %s", o->db, store_errmsg(c->store));
		return -1;
	}
	if (gap)
		log_warning("the last capture did not stop cleanly: %.3f s before this "
			    "start are recorded as lost", (double)gap / 1e9);
	if (store_close_open_history(c->store, now) ||
	    (c->id = store_capture_begin(c->store, "live", uts.release, host, now,
					live_events(c->live), live_clock(c->live),
					o->instance)) < 0) {
		log_error("%s: %s", o->db, store_errmsg(c->store));
		return -1;
	}
	if (o->clickhouse) {
		c->ship.url = o->clickhouse;
		c->ship.db = o->db;
		snprintf(c->host, sizeof(c->host), "%s", o->host_name ? o->host_name : host);
		c->ship.host = c->host;
		c->ship.user = o->clickhouse_user;
		c->ship.password_file = o->clickhouse_password_file;
		c->ship.interval_s = o->clickhouse_interval_s;
		log_info("shipping to ClickHouse at %s as host %s", o->clickhouse, c->host);
	}
	c->proc_is_hosts = seed_proc_is_hosts() != 0;
	if (!c->proc_is_hosts)
		log_warning("running in a PID namespace other than the host's: the trace's "
			    "pids are the host's and this /proc is not, so no name is taken "
			    "from /proc; run commd in the host's PID namespace (--pid=host, "
			    "hostPID: true)");
	else if (seed_self_in_host_pidns() == 0)
		log_info("running in a PID namespace other than the host's, with the "
			 "host's /proc: names are taken from it");
	if (store_capture_ts_offset(c->store, c->id, offset) ||
	    pipeline_store_states(c->pipe, c->id) ||
	    store_capture_cpus(c->store, c->id, live_ncpus(c->live)) || clock_reading(c)) {
		log_error("%s: %s", o->db, store_errmsg(c->store));
		return -1;
	}
	/* Tracing first, then the snapshots: a task born in between is in
	 * /proc and has its birth traced (resolve_birth adopts the
	 * snapshot's row), where the other order would miss it in both. */
	/* The tgids alone just before: a task that exits after tracing starts
	 * and before the snapshot reaches it still gets its group. */
	if (c->proc_is_hosts)
		seed_tgids_from_proc(pipeline_resolver(c->pipe));
	if (store_begin(c->store) || live_start(c->live)) {
		log_error("cannot start capture: %s", store_errmsg(c->store));
		return -1;
	}
	if (c->proc_is_hosts) {
		int root = seed_cgroup_root();

		seed_from_proc(pipeline_resolver(c->pipe), now);
		cgroups_set_root(pipeline_cgroups(c->pipe), root);
		if (seed_cgroupns_is_hosts() != 0)
			seed_cgroups_from_proc(pipeline_cgroups(c->pipe), root, now);
		else
			log_warning("running in a cgroup namespace of its own: the cgroups "
				    "/proc shows are not the paths the kernel's events give, so "
				    "cgroup_history starts with the tasks' moves, not from "
				    "/proc (run commd with --cgroupns=host)");
	}
	seed_from_saved_cmdlines(pipeline_resolver(c->pipe), tracefs_tracing_dir(), now);
	resolve_snapshot_end(pipeline_resolver(c->pipe), live_trace_now(c->live));
	if (store_stat(c->store, c->id, "snapshot_ns", -1,
		       (int64_t)(live_trace_now(c->live) - now)) ||
	    pipeline_sync_names(c->pipe)) {
		log_error("cannot start capture: %s", store_errmsg(c->store));
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &c->started);
	{
		char age[32];

		log_info("capturing into %s (instance %s, %d CPUs, ring buffer %zu KiB each%s)",
			 o->db, o->instance, live_ncpus(c->live), lo->buffer_kb,
			 o->buffer_kb ? "" : ": auto, 1/64 of memory at most");
		if (o->max_db_mb)
			snprintf(err, sizeof(err), "at most %zu MiB of data", o->max_db_mb);
		else
			snprintf(err, sizeof(err), "data of any size");
		log_info("committing every %d ms; keeping %s, %s%s; trace clock %s",
			 o->commit_ms, err, o->max_age_s ? "the last " : "of any age",
			 o->max_age_s ? config_age_text(o->max_age_s, age, sizeof(age)) : "",
			 live_clock(c->live));
	}
	return 0;
}

/* The capture's one loop: read what the CPUs have, commit every
 * --commit-ms (sooner in a burst), and the housekeeping (SIGHUP, the
 * query server, trimming the heap, the systemd watchdog). A write that
 * fails (a full disk) makes it a paused loop: the ring buffer is not read
 * (the kernel counts what it drops: losses on resuming), queries go on
 * being served, and the held batch is tried again every second. Returns
 * 0 at SIGTERM/SIGINT, -1 on an error (logged). */
static int capture_loop(struct capture *c)
{
	struct daemon_opts *o = c->o;
	uint64_t now = live_now();
	struct timers t = { .period = {
		[T_COMMIT] = (uint64_t)o->commit_ms * 1000000,
		[T_TRIM] = TRIM_NS,
		[T_WATCHDOG] = notify_watchdog_usec() * 1000 / 2,
		[T_RETRY] = 1000000000ull,
	} };
	char err[512];
	int paused = 0;
	long n;

	for (int i = 0; i < NTIMERS; i++)
		timer_reset(&t, i, now);
	t.next[T_WATCHDOG] = now;
	c->status_ts = now;
	while (!stop_signal) {
		uint64_t wake = UINT64_MAX;
		int timeout;

		if (hup_signal) {
			reload(c);
			if (t.period[T_COMMIT] != (uint64_t)o->commit_ms * 1000000) {
				t.period[T_COMMIT] = (uint64_t)o->commit_ms * 1000000;
				timer_reset(&t, T_COMMIT, live_now());
			}
		}
		if (!paused && store_paused(c->store)) {
			char msg[600];

			paused = 1;
			log_warning("%s: %s; ingestion paused, retrying every second",
				    o->db, store_errmsg(c->store));
			snprintf(msg, sizeof(msg), "STATUS=paused: %s", store_errmsg(c->store));
			notify_send(msg);
			timer_reset(&t, T_RETRY, live_now());
		}
		now = live_now();
		for (int i = 0; i < NTIMERS; i++)
			if (t.period[i] && (i != T_COMMIT || !paused) &&
			    (i != T_RETRY || paused) && t.next[i] < wake)
				wake = t.next[i];
		timeout = wake > now ? (int)((wake - now) / 1000000) : 0;
		if (paused) {
			struct timespec ts = { timeout / 1000, (long)(timeout % 1000) * 1000000 };

			nanosleep(&ts, NULL);
		} else {
			if (live_wait(c->live, timeout) && errno != EINTR) {
				log_error("poll: %s", strerror(errno));
				return -1;
			}
			n = live_read(c->live, 0, on_record, c, err, sizeof(err));
			if (n == -1) {
				log_error("%s", err);
				return -1;
			}
			if (c->failed) {
				log_error("%s: %s", o->db, store_errmsg(c->store));
				return -1;
			}
		}
		now = live_now();
		/* A burst commits sooner than --commit-ms: the open
		 * transaction's batches stay in memory until its commit. */
		if (!paused && (timer_due(&t, T_COMMIT, now) ||
				store_uncommitted_batches(c->store) >= COMMIT_BATCHES)) {
			if (commit(c) || check_instance(c))
				return -1;
			status(c, now);
			timer_reset(&t, T_COMMIT, now);
		}
		if (paused && timer_due(&t, T_RETRY, now)) {
			store_retry(c->store);
			/* The writer runs the held batches again; give it a
			 * moment to say whether that worked. */
			for (int i = 0; i < 100 && !store_paused(c->store) &&
			     store_busy(c->store); i++) {
				struct timespec ts = { 0, 10000000 };

				nanosleep(&ts, NULL);
			}
			now = live_now();
			if (!store_paused(c->store)) {
				log_notice("%s: writing again; ingestion resumed", o->db);
				paused = 0;
				timer_reset(&t, T_COMMIT, now);
			}
			timer_reset(&t, T_RETRY, now);
		}
		if (!paused && timer_due(&t, T_TRIM, now)) {
			store_trim_spares(c->store);
			malloc_trim(0);
			timer_reset(&t, T_TRIM, now);
		}
		/* (it reaps a query server that died, and says so) */
		serverctl_watch(&c->server, now);
		if (c->ship.url && !paused) {
			shipctl_watch(&c->ship, now);
			store_set_ship_floor(c->store, c->ship.shipped);
		}
		if (timer_due(&t, T_WATCHDOG, now)) {
			notify_send("WATCHDOG=1");
			timer_reset(&t, T_WATCHDOG, now);
		}
	}
	return 0;
}

/* SIGTERM: tracing off, every page read and committed, the capture row
 * closed. 0, or -1 (logged). */
static int capture_drain(struct capture *c)
{
	struct daemon_opts *o = c->o;
	char err[512];
	long n;

	notify_send("STOPPING=1");
	log_info("stopping (%s): draining the buffers", strsignal(stop_signal));
	live_stop(c->live);
	n = live_read(c->live, 1, on_record, c, err, sizeof(err));
	if (n == -1 || c->failed) {
		log_error("%s", n == -1 ? err : store_errmsg(c->store));
		return -1;
	}
	for (int cpu = 0; cpu < live_ncpus(c->live); cpu++)
		if (!live_cpu_online(cpu))
			pipeline_cpu_gone(c->pipe, cpu);
	pipeline_finish(c->pipe, c->proc_is_hosts ? seed_proc_comm : NULL, NULL);
	if (commit(c) || store_commit(c->store) ||
	    pipeline_write_stats(c->pipe, c->id) || final_stats(c) ||
	    store_capture_end(c->store, c->id, pipeline_first_ts(c->pipe),
			      pipeline_last_ts(c->pipe)) ||
	    /* what is still open (cgroup memberships) ends with the capture */
	    store_close_open_history(c->store, pipeline_last_ts(c->pipe))) {
		log_error("%s: %s", o->db, store_errmsg(c->store));
		return -1;
	}
	{
		struct timespec ended;

		clock_gettime(CLOCK_MONOTONIC, &ended);
		log_info("stopped after %.1f s: stored %llu events, %llu lost%s",
			 (double)(ended.tv_sec - c->started.tv_sec) +
			 (double)(ended.tv_nsec - c->started.tv_nsec) / 1e9,
			 (unsigned long long)pipeline_events(c->pipe),
			 (unsigned long long)c->lost_total,
			 c->restored_lost ? ", more of unknown count while another program "
					   "had changed the instance" : "");
	}
	return 0;
}

/* Everything capture_open made, undone; the daemonizing parent told rc. */
static int capture_close(struct capture *c, int rc)
{
	/* the capture's end is stored: the shipper's last round reaches it */
	shipctl_stop(&c->ship);
	serverctl_stop(&c->server);
	pipeline_free(c->pipe);
	live_close(c->live);
	if (store_close(c->store) && rc == 0)
		rc = 1;
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	if (c->ready_fd >= 0) {
		char st = (char)rc;

		if (write(c->ready_fd, &st, 1) < 0)
			rc = 1;
	}
	return rc;
}

int daemon_run(const struct daemon_opts *opts)
{
	struct daemon_opts cur = *opts, *o = &cur;	/* strings stay the caller's */
	struct live_opts lo = { o->instance, o->buffer_kb, o->events, o->clock, o->stacks };
	struct capture c = { .o = o, .id = -1, .server = { .listen_fd = -1 },
			     .ship = { .out_fd = -1, .shipped = -1 },
			     .lock_fd = -1, .ready_fd = -1,
			     .lost_warn = { .interval_ns = LOST_WARN_INTERVAL_S * 1000000000ull } };
	struct sigaction sa;
	int rc = 1;

	/* Nothing commd makes is ever readable by others (no window in
	 * which an outsider could open the database or its WAL): 0640 and
	 * 0750 for group commd; the database is made 0600 without one. */
	umask(027);

	/* The ring buffers are kernel memory no one can reclaim while
	 * commd runs: by default sized to the machine (config.h), for the
	 * CPUs online (the kernel allocates a CPU's buffer when it comes
	 * online; a VM may list many more possible CPUs than it has). */
	if (!lo.buffer_kb)
		lo.buffer_kb = config_auto_buffer_kb(
			(uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE) / 1024,
			(int)sysconf(_SC_NPROCESSORS_ONLN));

	if (geteuid() != 0) {
		log_error("must run as root: tracefs instances are root's");
		return 1;
	}
	if (o->commit_ms <= 0) {
		log_error("--commit-ms must be positive");
		return 2;
	}
	if (!o->foreground && daemonize(&c.ready_fd)) {
		log_error("cannot daemonize: %s", strerror(errno));
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_hup;
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* The reader must not starve behind the load it traces: raise our
	 * own priority (before the writer thread exists, so it inherits). */
	setpriority(PRIO_PROCESS, 0, -10);
	if (capture_open(&c, &lo) == 0) {
		ready(&c.ready_fd);
		notify_send("READY=1");
		/* Big blocks (store batches) come from mmap and go back when
		 * freed; what bursts leave free in the heap is handed back now
		 * and then. */
		mallopt(M_MMAP_THRESHOLD, 256 << 10);
		if (capture_loop(&c) == 0 && capture_drain(&c) == 0)
			rc = 0;
	}
	return capture_close(&c, rc);
}
