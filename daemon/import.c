/* import.c — see import.h. */
#define _GNU_SOURCE
#include "import.h"
#include "grow.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "pipeline.h"
#include "privs.h"
#include "store.h"
#include "tracedat.h"

#define PROGRESS_EVERY 8192	/* records between clock reads */

struct import {
	const struct import_opts *o;
	struct tracedat *td;
	struct store *store;
	struct pipeline *pipe;
	uint64_t *cpu_last;		/* per CPU: its last record's ts (0: none) */
	size_t ncpus;			/* ... slots allocated */
	uint64_t records, total;	/* total known only with progress */
	int progress;
	struct timespec start, last_draw;
	int failed;
	int not_ns;			/* the timestamps read are not all ns */
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void draw_progress(struct import *im, int done)
{
	struct timespec now;
	double secs, pct;
	char bar[31];
	int fill;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!done && since(&im->last_draw, &now) < 0.1)
		return;
	im->last_draw = now;
	secs = since(&im->start, &now);
	pct = im->total ? 100.0 * (double)im->records / (double)im->total : 100.0;
	if (pct > 100.0)
		pct = 100.0;
	fill = (int)(pct * 30 / 100);
	memset(bar, '#', (size_t)fill);
	memset(bar + fill, '.', (size_t)(30 - fill));
	bar[30] = '\0';
	fprintf(stderr, "\r[%s] %5.1f%%  %llu events  %.0f events/s%s", bar, pct,
		(unsigned long long)im->records,
		secs > 0 ? (double)im->records / secs : 0.0, done ? "\n" : "");
	fflush(stderr);
}

static int count_record(void *ctx, const void *data, int size, int cpu,
			uint64_t ts, int64_t missed)
{
	(void)size; (void)cpu; (void)ts; (void)missed;
	if (data)
		(*(uint64_t *)ctx)++;
	return interrupted ? 1 : 0;
}

static int on_record(void *ctx, const void *data, int size, int cpu,
		     uint64_t ts, int64_t missed)
{
	struct import *im = ctx;

	if (!data) {
		pipeline_gap(im->pipe, cpu, ts);
		return 0;
	}
	if (missed && pipeline_lost(im->pipe, cpu, ts, missed > 0 ? missed : -1))
		goto fail;
	if (pipeline_record(im->pipe, data, size, cpu, ts))
		goto fail;
	if (cpu >= 0 && cpu < 1 << 16) {
		if (grow_array(&im->cpu_last, &im->ncpus, sizeof(*im->cpu_last),
			       (size_t)cpu + 1, 1))
			goto fail;
		im->cpu_last[cpu] = ts;
	}
	if (++im->records % PROGRESS_EVERY == 0) {
		if (interrupted)
			return 1;
		if (im->progress)
			draw_progress(im, 0);
	}
	return 0;
fail:
	im->failed = 1;
	return 1;
}

/* The names of the buffers that have records, joined by sep; how many. */
static int buffers_with_records(struct tracedat *td, const char *sep,
				char *buf, size_t size)
{
	size_t len = 0;
	int n = 0;

	buf[0] = '\0';
	for (int i = 0; i < tracedat_buffers(td); i++)
		if (tracedat_buffer_has_records(td, i) && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
						n++ ? sep : "",
						tracedat_buffer_name(td, i));
	return n;
}

/* Selects the buffers to read: --buffer's, or the one buffer with records.
 * Several buffers are one timeline only to a reader who knows what they
 * hold: an event recorded in two is two rows, and two buffers' switches
 * on one CPU make one chain of slices of neither. So with several
 * holding records the user chooses. On success *spec is what was
 * selected (NULL: all) and *desc the capture's `buffer` text. */
static int choose_buffers(struct import *im, const char **spec,
			  char *desc, size_t desclen, char *err, size_t errlen)
{
	struct tracedat *td = im->td;
	const char *want = im->o->buffer;
	size_t len;
	int with;

	with = buffers_with_records(td, ", ", desc, desclen);
	if (!want && with > 1) {
		snprintf(err, errlen, "%d buffers have records (%s): import one "
			 "with --buffer NAME, or merge them with --buffer all",
			 with, desc);
		return -1;
	}
	if (!want)	/* the one with records; the top one when none has */
		want = with ? desc : "top";
	*spec = strcmp(want, "all") ? want : NULL;
	if (tracedat_select(td, *spec)) {
		len = (size_t)snprintf(err, errlen, "no buffer '%s' in the file "
				       "(it has:", want);
		for (int i = 0; i < tracedat_buffers(td) && len < errlen; i++)
			len += (size_t)snprintf(err + len, errlen - len, "%s %s",
						i ? "," : "",
						tracedat_buffer_name(td, i));
		if (len < errlen)
			snprintf(err + len, errlen - len, ")");
		return -1;
	}
	if (*spec && *spec != desc)
		snprintf(desc, desclen, "%s", *spec);
	else if (!buffers_with_records(td, ",", desc, desclen))
		snprintf(desc, desclen, "top");
	return 0;
}

/* The events the kernel dropped from a full buffer not in overwrite mode
 * ("dropped events" in the file's CPU stats): no page flags them, so no
 * record says where. They become a lost_events row at the end of that
 * CPU's records (the capture's end when it has none), as the live capture
 * records them at its next look at the counters; a kernel_dropped_events
 * stats row per CPU, and one warning line. */
struct file_drops {
	struct import *im;
	int64_t capture;
	uint64_t total;
	char list[512];
};

static int on_dropped(void *ctx, const char *buffer, int cpu, uint64_t count)
{
	struct file_drops *fd = ctx;
	struct import *im = fd->im;
	uint64_t ts = cpu >= 0 && (size_t)cpu < im->ncpus && im->cpu_last[cpu] ? im->cpu_last[cpu] :
		      pipeline_last_ts(im->pipe);
	size_t len = strlen(fd->list);
	int top = !strcmp(buffer, "top");

	fd->total += count;
	snprintf(fd->list + len, sizeof(fd->list) - len, "%s%s%sCPU %d: %llu",
		 len ? ", " : "", top ? "" : buffer, top ? "" : " ", cpu,
		 (unsigned long long)count);
	if (pipeline_lost(im->pipe, cpu, ts, (int64_t)count) ||
	    store_stat(im->store, fd->capture, "kernel_dropped_events", cpu,
		       (int64_t)count))
		return -1;
	return 0;
}

/* A CPU whose oldest records trace-cmd itself left out of the file
 * (record -m keeps each CPU's newest): its records begin at first, the
 * others' earlier. Up to there any task may have run on it unseen: a
 * lost_events row from the capture's first event to first (the views
 * give no wait or sleep across it), and whatever derive gave a wait or
 * a time off the CPUs that began before it is voided (store_unknown_
 * before, once, from the latest such CPU's first record). */
struct file_trunc {
	struct import *im;
	uint64_t until, total;
	char list[512];
};

static int on_truncated(void *ctx, const char *buffer, int cpu, uint64_t missing,
			uint64_t first)
{
	struct file_trunc *ft = ctx;
	struct import *im = ft->im;
	size_t len = strlen(ft->list);
	int top = !strcmp(buffer, "top");

	/* Its records begin with the capture's: what is missing is not
	 * before them (records a corrupt page took, say short: the
	 * undecodable ones are counted apart), and nothing is unknown. */
	if (first <= pipeline_first_ts(im->pipe))
		return 0;
	ft->total += missing;
	if (first > ft->until)
		ft->until = first;
	snprintf(ft->list + len, sizeof(ft->list) - len, "%s%s%sCPU %d: %llu",
		 len ? ", " : "", top ? "" : buffer, top ? "" : " ", cpu,
		 (unsigned long long)missing);
	return store_lost(im->store, cpu, first, pipeline_first_ts(im->pipe),
			  (int64_t)missing);
}

static int file_truncated(struct import *im)
{
	struct file_trunc ft = { .im = im };

	if (tracedat_truncated(im->td, on_truncated, &ft))
		return -1;
	if (!ft.total)
		return 0;
	log_warning("%s: the file holds fewer records than trace-cmd read (%s "
		    "missing; record -m keeps each CPU's newest only, a damaged file "
		    "loses some): before such a CPU's first record nothing of it is "
		    "known (lost_events rows from the capture's start), and no wait "
		    "or sleep begun before %.6f s into the capture is given",
		    im->o->input, ft.list,
		    (double)(ft.until - pipeline_first_ts(im->pipe)) / 1e9);
	return store_unknown_before(im->store, ft.until);
}

static int file_drops(struct import *im, int64_t capture)
{
	struct file_drops fd = { .im = im, .capture = capture };

	if (tracedat_dropped(im->td, on_dropped, &fd))
		return -1;
	if (fd.total)
		log_warning("%s: the kernel dropped %llu events (%s): a full buffer "
			    "not in overwrite mode, and no record says where; each "
			    "CPU's are one lost_events row at its last record",
			    im->o->input, (unsigned long long)fd.total, fd.list);
	return 0;
}

/* The capture's clock: the one the file names, when it is the clock of
 * the buffers read (trace-cmd saves one for the file, its first
 * instance's). Says when timestamps, and so every duration and latency,
 * are not nanoseconds, and when merged buffers count different units. */
static const char *capture_clock(struct import *im)
{
	struct tracedat *td = im->td;
	const char *clock = tracedat_clock(td), *other = NULL;
	char ns_list[512] = "", other_list[512] = "";
	int ns = -2, mixed = 0;

	for (int i = 0; i < tracedat_buffers(td); i++) {
		int n = tracedat_buffer_ns(td, i);
		const char *name = tracedat_buffer_name(td, i);
		char *list = n == 1 ? ns_list : other_list;
		size_t len = strlen(list);

		if (!tracedat_selected(td, i) || !tracedat_buffer_has_records(td, i))
			continue;
		snprintf(list + len, sizeof(ns_list) - len, "%s%s", len ? ", " : "", name);
		if (!tracedat_buffer_clock(td, i))
			other = name;
		if (ns != -2 && n != ns)
			mixed = 1;
		ns = n;
	}
	im->not_ns = mixed || ns == 0;
	if (mixed) {
		log_warning("%s: the buffers merged count time in different units "
			    "(nanoseconds: %s; other: %s): their timestamps do not "
			    "compare (--buffer NAME imports one)", im->o->input,
			    ns_list, other_list);
		return NULL;
	}
	if (clock && other) {
		log_warning("%s: the file's trace clock '%s' is not buffer %s's "
			    "(its CPU stats count in other units): capture.clock "
			    "left empty", im->o->input, clock, other);
		clock = NULL;
	}
	if (ns == 0) {
		const char *units = tracedat_clock_units(clock);

		log_warning("%s: the trace clock%s%s%s counts %s, not nanoseconds: "
			    "so do timestamps, durations and latencies", im->o->input,
			    clock ? " '" : "", clock ? clock : "", clock ? "'" : "",
			    units ? units : "the clock's units");
	}
	return clock;
}

/* A stats row per buffer read: its records (a merge's share of each). */
static int buffer_stats(struct import *im, int64_t capture)
{
	char name[300];

	for (int i = 0; i < tracedat_buffers(im->td); i++) {
		if (!tracedat_selected(im->td, i))
			continue;
		snprintf(name, sizeof(name), "buffer_records:%s",
			 tracedat_buffer_name(im->td, i));
		if (store_stat(im->store, capture, name, -1,
			       (int64_t)tracedat_buffer_records(im->td, i)))
			return -1;
	}
	return 0;
}

/* The recording machine's name and kernel release from the file's uname
 * ("Linux vm 6.18.44-fc-v769 x86_64": sysname, nodename, release,
 * machine), as a live capture stores its own. Empty when the file does
 * not say: the importing machine is not the one that recorded. */
static void recorded_on(struct tracedat *td, char *host, size_t hostlen,
			char *kernel, size_t kernellen)
{
	const char *u = tracedat_uname(td), *word[3];
	size_t len[3] = { 0, 0, 0 };

	host[0] = kernel[0] = '\0';
	for (int i = 0; u && i < 3; i++) {
		u += strspn(u, " ");
		word[i] = u;
		len[i] = strcspn(u, " ");
		u += len[i];
	}
	if (!len[2])
		return;
	snprintf(host, hostlen, "%.*s", (int)(len[1] < hostlen ? len[1] : hostlen - 1),
		 word[1]);
	snprintf(kernel, kernellen, "%.*s",
		 (int)(len[2] < kernellen ? len[2] : kernellen - 1), word[2]);
}

/* The parsing child becomes nobody (uid and gid 65534 where there is no
 * such user) with no capability and no way back: a file crafted to
 * exploit libtracecmd or libtraceevent gets a process that can write
 * nothing of root's but the database it was handed. */
static int drop_root(void)
{
	struct passwd *pw = getpwnam("nobody");
	char err[256];

	if (privs_drop(pw ? pw->pw_uid : 65534, pw ? pw->pw_gid : 65534, NULL, 0,
		       err, sizeof(err))) {
		log_error("import: before parsing: %s", err);
		return -1;
	}
	return 0;
}

/* The boot an import's rows ship under (capture.boot; ClickHouse keys
 * them by host, boot, ts): the recording's own, the same at every import
 * of the file, so that shipping it again replaces rows instead of adding
 * them. trace-cmd's trace id when the file has one, else a hash of what
 * tells the recording apart: its kernel, size, first and last stamps and
 * events. */
static const char *import_boot(struct import *im, char *boot, size_t len)
{
	uint64_t id = tracedat_traceid(im->td), h = 0xcbf29ce484222325ull;
	uint64_t v[4] = { pipeline_first_ts(im->pipe), pipeline_last_ts(im->pipe),
			  im->records, 0 };
	const char *u = tracedat_uname(im->td);
	struct stat st;

	if (id) {
		snprintf(boot, len, "trace-%016llx", (unsigned long long)id);
		return boot;
	}
	if (stat(im->o->input, &st) == 0)
		v[3] = (uint64_t)st.st_size;
	for (const char *c = u ? u : ""; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	for (size_t i = 0; i < sizeof(v); i++)
		h = (h ^ ((const unsigned char *)v)[i]) * 0x100000001b3ull;
	snprintf(boot, len, "file-%016llx", (unsigned long long)h);
	return boot;
}

/* The work itself, writing into tmp. Returns 0 or 1 (message logged). */
static int import_into(const struct import_opts *o, const char *tmp)
{
	struct import im = { .o = o };
	char err[1536], abs[PATH_MAX], buffers[1024], host[256], kernel[256], boot[64];
	const char *spec = NULL;
	int64_t capture;
	int rc = 1, fd, count_fd = -1, date_fd = -1;
	int64_t date_offset = 0;

	im.progress = o->progress < 0 ? isatty(STDERR_FILENO) : o->progress;
	/* What the parser needs, opened first: the file (twice with a
	 * progress bar: the count's pass reads it on its own), the database
	 * (journal off, exclusive: it needs no other file); then root is
	 * dropped, before a byte of the file is parsed. */
	fd = open(o->input, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && im.progress)
		count_fd = open(o->input, O_RDONLY | O_CLOEXEC);
	/* A third for the time-of-day offset, read apart from the records. */
	if (fd >= 0)
		date_fd = open(o->input, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		log_error("%s: %s", o->input, strerror(errno));
		return 1;
	}
	if (!realpath(o->input, abs))
		snprintf(abs, sizeof(abs), "%s", o->input);
	im.store = store_open(tmp, STORE_BULK, err, sizeof(err));
	if (!im.store) {
		log_error("%s: %s", tmp, err);
		close(fd);
		goto out;
	}
	if (o->drop_root && drop_root()) {
		close(fd);
		goto out;
	}
	im.td = tracedat_open_fd(fd, err, sizeof(err));	/* owns fd now */
	if (!im.td) {
		log_error("%s: %s", o->input, err);
		goto out;
	}
	if (choose_buffers(&im, &spec, buffers, sizeof(buffers), err, sizeof(err))) {
		log_error("%s: %s", o->input, err);
		goto out;
	}
	tracedat_date_offset(im.td, date_fd, &date_offset);
	date_fd = -1;		/* taken over */
	if (count_fd >= 0) {
		/* A first pass for the total: only when someone watches. */
		struct tracedat *counter = tracedat_open_fd(count_fd, err, sizeof(err));

		count_fd = -1;		/* the counter owns it */
		if (counter && tracedat_select(counter, spec) == 0)
			tracedat_iterate(counter, count_record, &im.total);
		tracedat_close(counter);
	}
	im.pipe = pipeline_new(tracedat_tep(im.td), im.store, err, sizeof(err));
	if (!im.pipe) {
		log_error("%s: corrupt trace.dat (%s)", o->input, err);
		goto out;
	}
	if (o->no_derived)
		pipeline_no_derived(im.pipe);
	/* a CPU with no record: a cpumask left it out (trace-cmd record -M) */
	for (int cpu = 0; cpu < tracedat_cpus(im.td); cpu++)
		if (!tracedat_cpu_has_records(im.td, cpu))
			pipeline_cpu_untraced(im.pipe, cpu);
	if (store_begin(im.store))
		goto store_fail;
	recorded_on(im.td, host, sizeof(host), kernel, sizeof(kernel));
	capture = store_capture_begin(im.store, abs, *kernel ? kernel : NULL,
				      *host ? host : NULL, 0, NULL,
				      capture_clock(&im), buffers);
	if (capture < 0)
		goto store_fail;
	if (im.not_ns)
		pipeline_clock_not_ns(im.pipe);
	/* (the views leave the CPUs left out alone: schema 035) */
	for (int cpu = 0; cpu < tracedat_cpus(im.td); cpu++)
		if (!tracedat_cpu_has_records(im.td, cpu) &&
		    store_stat(im.store, capture, "cpu_untraced", cpu, 1))
			goto store_fail;
	if (pipeline_store_states(im.pipe, capture))
		goto store_fail;
	clock_gettime(CLOCK_MONOTONIC, &im.start);
	if (tracedat_iterate(im.td, on_record, &im) || im.failed || interrupted) {
		if (im.failed)
			goto store_fail;
		if (interrupted) {
			log_error("%s: interrupted", o->input);
			goto out;
		}
		log_error("%s: reading its records: out of memory", o->input);
		goto out;
	}
	if (im.progress)
		draw_progress(&im, 1);
	if (file_drops(&im, capture) || file_truncated(&im))
		goto store_fail;
	/* trace-cmd record --date saves the time of day less the trace
	 * clock's time in ns: added to jiffies, cycles or counts it is no
	 * time of day at all. */
	if (date_offset && im.not_ns) {
		log_warning("%s: the file's time of day (record --date) is left out "
			    "(no clock_map row): its timestamps are not nanoseconds",
			    o->input);
		date_offset = 0;
	}
	pipeline_finish(im.pipe, tracedat_cmdline, im.td);
	if (pipeline_sync_names(im.pipe) ||
	    pipeline_write_stats(im.pipe, capture) ||
	    buffer_stats(&im, capture) ||
	    store_capture_end(im.store, capture, pipeline_first_ts(im.pipe),
			      pipeline_last_ts(im.pipe)) ||
	    (date_offset && im.records &&
	     store_clock(im.store, capture, pipeline_first_ts(im.pipe),
			 (int64_t)pipeline_first_ts(im.pipe) + date_offset,
			 1000 /* the file holds µs */)))
		goto store_fail;
	if (store_capture_boot(im.store, capture, import_boot(&im, boot, sizeof(boot))) ||
	    store_capture_events(im.store, capture, pipeline_events_seen(im.pipe)) ||
	    store_capture_cpus(im.store, capture, pipeline_cpus(im.pipe)))
		goto store_fail;
	if (store_commit(im.store))
		goto store_fail;
	if (pipeline_undecodable(im.pipe))
		log_warning("%s: %llu records not stored: the file has no format for "
			    "their event (one a trigger enabled?) or they are cut short "
			    "(stats: undecodable_records)", o->input,
			    (unsigned long long)pipeline_undecodable(im.pipe));
	if (pipeline_events(im.pipe) == 0 && im.records == 0)
		log_warning("%s: no events in %s%s", o->input,
			    o->buffer && spec ? "buffer " : "the file",
			    o->buffer && spec ? spec : "");
	rc = 0;
	goto out;
store_fail:
	log_error("%s: %s", tmp, store_errmsg(im.store));
out:
	if (count_fd >= 0)
		close(count_fd);
	if (date_fd >= 0)
		close(date_fd);
	pipeline_free(im.pipe);
	if (store_close(im.store) && rc == 0) {
		log_error("%s: closing the database failed", tmp);
		rc = 1;
	}
	tracedat_close(im.td);
	free(im.cpu_last);
	return rc;
}

static void remove_tmp(const char *tmp)
{
	char side[PATH_MAX + 16];

	unlink(tmp);
	snprintf(side, sizeof(side), "%s-journal", tmp);
	unlink(side);
	snprintf(side, sizeof(side), "%s-wal", tmp);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", tmp);
	unlink(side);
}

struct relay {
	char *held;		/* everything but progress, until the end */
	size_t len, cap;
};

static void relay_keep(struct relay *r, const char *p, size_t n)
{
	if (r->len + n + 1 > r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 4096;
		char *q;

		while (cap < r->len + n + 1)
			cap *= 2;
		if (cap > (1u << 20) || !(q = realloc(r->held, cap)))
			return;		/* past 1 MiB of noise: drop the rest */
		r->held = q;
		r->cap = cap;
	}
	memcpy(r->held + r->len, p, n);
	r->len += n;
	r->held[r->len] = '\0';
}

/* Reads the child's stderr until it closes; progress (lines starting with
 * '\r') goes straight to ours. */
static void relay_read(struct relay *r, int fd)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (buf[0] == '\r' && !r->len) {
			if (write(STDERR_FILENO, buf, (size_t)n) < 0)
				break;
		} else {
			relay_keep(r, buf, (size_t)n);
		}
	}
}

/* Only commd's own lines reach the user, crash or not: libtracecmd
 * prints complaints of its own ("mmap: ...", "Can not mmap file, will
 * read instead") on files it then reads or rejects cleanly. */
static int relay_flush(struct relay *r)
{
	char *line, *save = NULL;
	int n = 0;

	if (r->held) {
		for (line = strtok_r(r->held, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			if (!strncmp(line, "commd: ", 7) || !strncmp(line, "<", 1)) {
				fprintf(stderr, "%s\n", line);
				n++;
			}
	}
	free(r->held);
	return n;
}

/* ASan reserves terabytes of address space for its shadow memory: with
 * an address-space limit it could not even start. */
#if defined(__SANITIZE_ADDRESS__)
#define IMPORT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IMPORT_ASAN 1
#endif
#endif

/* Limits for the parsing child: generous for real files, fatal for a
 * parser stuck in a loop or allocating what a corrupt size field says. */
static void limit_child(const char *input)
{
	struct rlimit rl;
	struct stat st;
	rlim_t cpu = 120, size = 0;

	if (stat(input, &st) == 0)
		size = (rlim_t)st.st_size;
	cpu += size >> 20;	/* +1 s per MiB */
	rl.rlim_cur = cpu;
	rl.rlim_max = cpu + 5;
	setrlimit(RLIMIT_CPU, &rl);
#ifndef IMPORT_ASAN
	/* Address space: 4 GiB plus twice the file (libtracecmd may hold a
	 * decompressed copy of a section). A malloc of what a corrupt size
	 * field says then fails instead of taking the machine's memory. */
	rl.rlim_cur = rl.rlim_max = ((rlim_t)4 << 30) + 2 * size;
	setrlimit(RLIMIT_AS, &rl);
#endif
}

int import_run(const struct import_opts *o)
{
	char tmp[PATH_MAX];
	struct sigaction sa;
	struct stat st;
	int status, rc;
	pid_t pid;

	if (stat(o->input, &st) != 0) {
		log_error("%s: %s", o->input, strerror(errno));
		return 1;
	}
	if (!o->force && stat(o->output, &st) == 0) {
		log_error("%s: exists; use --force to replace it", o->output);
		return 1;
	}
	/* The database is made under a name nobody can guess, created
	 * exclusively (no one's file or link is written through), then
	 * renamed into place. */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", o->output) >= (int)sizeof(tmp)) {
		log_error("%s: path too long", o->output);
		return 1;
	}
	{
		int fd = mkostemp(tmp, O_CLOEXEC);

		if (fd < 0) {
			log_error("%s: %s", tmp, strerror(errno));
			return 1;
		}
		close(fd);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (o->in_process) {
		rc = import_into(o, tmp);
	} else {
		struct import_opts child = *o;

		child.drop_root = geteuid() == 0;
		struct relay rl = { 0 };
		int pfd[2], said;

		/* The child's stderr comes through us: progress is passed on
		 * as it comes, the rest when the child is done — only
		 * commd's own lines (a library's complaints or a sanitizer's
		 * report of a crash are not the user's business: the file is
		 * corrupt, one line says so). */
		child.progress = o->progress < 0 ? isatty(STDERR_FILENO) : o->progress;
		fflush(NULL);
		if (pipe2(pfd, O_CLOEXEC)) {
			log_error("pipe: %s", strerror(errno));
			return 1;
		}
		pid = fork();
		if (pid < 0) {
			log_error("fork: %s", strerror(errno));
			return 1;
		}
		if (pid == 0) {
			/* Nothing of the import goes to stdout; libtracecmd
			 * printf()s some complaints there. */
			int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

			if (null >= 0)
				dup2(null, STDOUT_FILENO);
			dup2(pfd[1], STDERR_FILENO);
			limit_child(o->input);
			_exit(import_into(&child, tmp));
		}
		close(pfd[1]);
		relay_read(&rl, pfd[0]);
		close(pfd[0]);
		while (waitpid(pid, &status, 0) < 0) {
			if (errno != EINTR) {
				log_error("waitpid: %s", strerror(errno));
				status = 1 << 8;
				break;
			}
			if (interrupted)
				kill(pid, SIGTERM);
		}
		said = relay_flush(&rl);
		if (WIFSIGNALED(status)) {
			int sig = WTERMSIG(status);

			if (interrupted)
				log_error("%s: interrupted", o->input);
			else if (sig == SIGXCPU || sig == SIGKILL)
				log_error("%s: corrupt trace.dat (parsing did not finish: %s)",
					  o->input, strsignal(sig));
			else
				log_error("%s: corrupt trace.dat (the parser crashed: %s)",
					  o->input, strsignal(sig));
			rc = 1;
		} else {
			rc = WEXITSTATUS(status) ? 1 : 0;
			/* An exit without a word of commd's: a sanitizer's
			 * report of a library's fault, or a library's own
			 * exit. */
			if (rc && !said)
				log_error("%s: corrupt trace.dat (the parser ended with "
					  "exit status %d)", o->input, WEXITSTATUS(status));
		}
	}
	if (rc == 0 && interrupted)
		rc = 1;
	if (rc == 0) {
		if (o->force ? rename(tmp, o->output)
			     : renameat2(AT_FDCWD, tmp, AT_FDCWD, o->output,
					 RENAME_NOREPLACE)) {
			log_error("%s: %s", o->output, errno == EEXIST ?
				  "exists; use --force to replace it" : strerror(errno));
			rc = 1;
		}
	}
	if (rc)
		remove_tmp(tmp);
	return rc;
}
