/* live.c — see live.h. */
#define _GNU_SOURCE
#include "live.h"
#include "daemon.h"
#include "pages.h"
#include "grow.h"
#include "log.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <tracefs/tracefs.h>

/* What commd stores, plus the task events that name tasks exactly. */
static const char default_events[] = DAEMON_DEFAULT_EVENTS;
static const char naming_events[] = "task:task_rename,task:task_newtask";
/* Where the kernel has them: the moves between cgroups (cgroup_history). */
static const char *const cgroup_events[] = { "cgroup_attach_task", "cgroup_transfer_tasks" };

struct live {
	struct tracefs_instance *inst;
	char *name;
	struct tep_handle *tep;
	int ncpus;
	struct pages *pages;		/* the CPUs' trace_pipe_raw, read */
	struct pollfd *pfds;
	size_t subbuf;			/* sub-buffer size in bytes */
	char *events;			/* "system:name,..." enabled */
	char clock[40];			/* trace_clock */
	int mono;			/* it is CLOCK_MONOTONIC */
	int stacks;			/* the stacktrace trigger is set */
	uint64_t trace_now;		/* live_trace_now's last answer */
	uint64_t offset;		/* added to every trace clock time */
	struct look *looks;		/* per CPU: its stats file, last read */
};

/* A CPU's per_cpu/cpuN/stats, kept open (a read at offset 0 costs 2.3 µs
 * here, an open, read and close 8 µs), and its counters at the last
 * look: drops the kernel counts only there become losses in the CPU's
 * records, placed by the time of the look that first saw them. */
struct look {
	int fd;				/* -1: not open (yet) */
	uint64_t read, dropped, overrun;
	uint64_t read_base;		/* events read before buffer resets */
};

static uint64_t look_cpu(void *ctx, int cpu);

uint64_t live_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int write_file(struct live *l, const char *file, const char *val)
{
	return tracefs_instance_file_write(l->inst, file, val) < 0 ? -1 : 0;
}

/* "now ts:" of per_cpu/cpuN/stats: "SECONDS.MICROSECONDS" for clocks in
 * nanoseconds, a plain count for the others (counter, x86-tsc). */
static uint64_t parse_now_ts(const char *v, uint64_t *res)
{
	const char *dot;
	uint64_t sec, us = 0;
	int digits = 0;

	while (*v == ' ')
		v++;
	sec = strtoull(v, NULL, 10);
	dot = strchr(v, '.');
	*res = 1;
	if (!dot)
		return sec;
	*res = 1000;
	for (dot++; digits < 6; digits++) {
		us *= 10;
		if (*dot >= '0' && *dot <= '9')
			us += (uint64_t)(*dot++ - '0');
	}
	return sec * 1000000000ull + us * 1000;
}

uint64_t live_trace_now(struct live *l)
{
	struct live_cpu_stats st;
	uint64_t now = 0;

	if (l->mono)
		now = live_now() + l->offset;
	else
		for (int cpu = 0; cpu < l->ncpus && !now; cpu++)
			if (pages_fd(l->pages, cpu) >= 0 && !live_cpu_stats(l, cpu, &st))
				now = st.now_ts;
	if (now > l->trace_now)
		l->trace_now = now;
	return l->trace_now;
}

static int64_t realtime_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The trace clocks that count nanoseconds (the kernel's trace_clocks[]
 * in_ns): those a clock_gettime reads directly, and the others. */
static const struct { const char *name; clockid_t id; } direct[] = {
	{ "mono", CLOCK_MONOTONIC }, { "mono_raw", CLOCK_MONOTONIC_RAW },
	{ "boot", CLOCK_BOOTTIME }, { "tai", CLOCK_TAI },
};
static const char *const by_stats[] = { "local", "global", "perf" };

int live_clock_in_ns(const struct live *l)
{
	for (size_t i = 0; i < sizeof(direct) / sizeof(*direct); i++)
		if (!strcmp(l->clock, direct[i].name))
			return 1;
	for (size_t i = 0; i < sizeof(by_stats) / sizeof(*by_stats); i++)
		if (!strcmp(l->clock, by_stats[i]))
			return 1;
	return 0;
}

int live_clock_pair(struct live *l, uint64_t *ts, int64_t *realtime,
		    int64_t *err)
{
	struct live_cpu_stats st = { 0 };
	int64_t r1, r2;
	int k = -1, stats = 0;

	for (size_t i = 0; i < sizeof(direct) / sizeof(*direct); i++)
		if (!strcmp(l->clock, direct[i].name))
			k = (int)i;
	for (size_t i = 0; i < sizeof(by_stats) / sizeof(*by_stats); i++)
		stats |= !strcmp(l->clock, by_stats[i]);
	if (k < 0 && !stats)
		return -1;	/* not in nanoseconds (counter, x86-tsc...) */
	r1 = realtime_ns();
	if (k >= 0) {
		struct timespec t;

		clock_gettime(direct[k].id, &t);
		*ts = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec +
		      l->offset;
	} else {
		for (int cpu = 0; cpu < l->ncpus && !st.now_ts; cpu++)
			if (pages_fd(l->pages, cpu) >= 0)
				live_cpu_stats(l, cpu, &st);
		if (!st.now_ts)
			return -1;
		*ts = st.now_ts;	/* (with the offset) */
	}
	r2 = realtime_ns();
	*realtime = r1 + (r2 - r1) / 2;
	/* Half the bracket, and the stats file's microsecond. */
	*err = (r2 - r1 + 1) / 2 + (k >= 0 ? 0 : 1000);
	return 0;
}

const char *live_clock(const struct live *l)
{
	return l->clock;
}

/* Enables one "system:event", "system" or "event" (looked for in sched
 * and task). Returns 0 or -1. */
static int enable_one(struct live *l, char *item)
{
	char *colon = strchr(item, ':');

	if (colon) {
		*colon = '\0';
		return tracefs_event_enable(l->inst, item, colon + 1);
	}
	if (tracefs_event_enable(l->inst, item, NULL) == 0)
		return 0;
	if (tracefs_event_enable(l->inst, "sched", item) == 0)
		return 0;
	return tracefs_event_enable(l->inst, "task", item);
}

/* --stacks: the instance's own trigger on its sched_switch records the
 * kernel stack (an ftrace kernel_stack event, right after the switch on
 * its CPU) of every switch out in state S or D; nothing global. */
static const char stack_trigger[] = "stacktrace if prev_state & 3";

static int set_stack_trigger(struct live *l, int on)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "%s%s", on ? "" : "!", stack_trigger);
	return tracefs_instance_file_write(l->inst, "events/sched/sched_switch/trigger",
					   cmd) < 0 ? -1 : 0;
}

/* The kernel's symbols, for the stacks' addresses (as root the real
 * ones; a kptr_restrict'ed /proc/kallsyms shows zeros, and the frames
 * are then printed as addresses). */
static int load_kallsyms(struct live *l)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC), rc = -1;

	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n;

		if (grow_array(&buf, &cap, 1, len + 65536 + 1, 0))
			goto out;
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0)
			goto out;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	rc = tep_parse_kallsyms(l->tep, buf);
out:
	free(buf);
	close(fd);
	return rc;
}

/* The instance's enabled events (set_event), comma-separated; NULL when
 * it cannot be read. */
static char *read_set_event(struct live *l)
{
	char *set = tracefs_instance_file_read(l->inst, "set_event", NULL);
	size_t len;

	if (!set)
		return NULL;
	for (char *p = set; *p; p++)
		if (*p == '\n')
			*p = ',';
	len = strlen(set);
	if (len && set[len - 1] == ',')
		set[len - 1] = '\0';
	return set;
}

/* Enables each event of a comma-separated list. Returns 0, or -1 with
 * the event that could not be enabled in bad. */
static int enable_list(struct live *l, const char *list, char *bad, size_t badlen)
{
	char *all = strdup(list), *save = NULL, *item;
	int rc = 0;

	snprintf(bad, badlen, "%s", all ? "" : "(out of memory)");
	if (!all)
		return -1;
	for (item = strtok_r(all, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save)) {
		char copy[256];

		while (*item == ' ')
			item++;
		if (!*item)
			continue;
		snprintf(copy, sizeof(copy), "%s", item);
		if (enable_one(l, copy)) {
			snprintf(bad, badlen, "%s", item);
			rc = -1;
		}
	}
	free(all);
	return rc;
}

static int enable_events(struct live *l, const char *list, char *err, size_t errlen)
{
	size_t len = strlen(list) + sizeof(naming_events) + 2;
	char *all = malloc(len), bad[256];
	int rc;

	if (!all)
		return -1;
	snprintf(all, len, "%s,%s", list, naming_events);
	rc = enable_list(l, all, bad, sizeof(bad));
	free(all);
	for (size_t i = 0; !rc && i < sizeof(cgroup_events) / sizeof(*cgroup_events); i++)
		(void)tracefs_event_enable(l->inst, "cgroup", cgroup_events[i]);
	if (rc) {
		snprintf(err, errlen, "cannot enable event '%s' in instance %s", bad, l->name);
	} else {
		/* What the kernel says is enabled, for the capture row (and
		 * what live_check() holds the instance to). */
		char *set = read_set_event(l);

		l->events = set ? set : strdup("");
	}
	return rc;
}

/* The formats decode needs: the sub-buffer header and the events enabled
 * (l->events), nothing more. Loading whole systems, /proc/kallsyms and the
 * printk formats (what tracefs_local_events_system() does) costs a tenth
 * of a second of CPU at every start and serves only text printing, which
 * commd does not do. Returns 0 or -1 (errno set). */
static int load_formats(struct live *l)
{
	char *buf, *list, *save = NULL, *item;
	int size, rc = 0;

	l->tep = tep_alloc();
	if (!l->tep)
		return -1;
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf || size <= 0 ||
	    tep_parse_header_page(l->tep, buf, size, sizeof(long))) {
		free(buf);
		errno = errno ? errno : EINVAL;
		return -1;
	}
	free(buf);
	tep_set_cpus(l->tep, (int)sysconf(_SC_NPROCESSORS_CONF));
	tep_set_long_size(l->tep, tep_get_header_page_size(l->tep));
	list = strdup(l->events ? l->events : "");
	if (!list)
		return -1;
	for (item = strtok_r(list, ",", &save); item && !rc;
	     item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':');

		if (!colon)
			continue;
		*colon = '\0';
		buf = tracefs_event_file_read(NULL, item, colon + 1, "format", &size);
		if (!buf || size <= 0) {
			errno = errno ? errno : EINVAL;
			rc = -1;
		} else {
			/* As libtracefs does, a format libtraceevent cannot
			 * parse is not fatal: its records count as
			 * undecodable. */
			tep_parse_event(l->tep, buf, size, item);
		}
		free(buf);
	}
	free(list);
	if (!rc && l->stacks) {
		buf = tracefs_event_file_read(NULL, "ftrace", "kernel_stack", "format", &size);
		if (!buf || size <= 0 || tep_parse_event(l->tep, buf, size, "ftrace")) {
			errno = errno ? errno : EINVAL;
			rc = -1;
		}
		free(buf);
		if (!rc && load_kallsyms(l))
			log_warning("cannot read /proc/kallsyms: stacks are stored as "
				    "addresses");
	}
	return rc;
}

/* A stale instance of our name is removed; one with an open reader (a
 * running commd) cannot be and is reported busy. */
static int reclaim(const char *name, char *err, size_t errlen)
{
	struct tracefs_instance *old;

	if (!tracefs_instance_exists(name))
		return 0;
	old = tracefs_instance_alloc(NULL, name);
	if (!old) {
		snprintf(err, errlen, "instance %s: %s", name, strerror(errno));
		return -1;
	}
	/* Nothing is written to it before it is known to be stale: a busy
	 * instance belongs to a running commd whose capture must go on. */
	if (tracefs_instance_destroy(old)) {
		snprintf(err, errlen, "instance %s is busy (another commd is "
			 "reading it?): %s", name, strerror(errno));
		tracefs_instance_free(old);
		return -1;
	}
	tracefs_instance_free(old);
	return 0;
}

static int open_cpus(struct live *l, char *err, size_t errlen)
{
	char file[64];

	l->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (l->ncpus <= 0)
		l->ncpus = 1;
	l->pages = pages_new(l->tep, l->ncpus, l->subbuf);
	l->pfds = calloc((size_t)l->ncpus, sizeof(*l->pfds));
	l->looks = calloc((size_t)l->ncpus, sizeof(*l->looks));
	if (!l->pages || !l->pfds || !l->looks) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < l->ncpus; i++)
		l->looks[i].fd = -1;
	pages_set_look(l->pages, look_cpu, l);
	for (int i = 0; i < l->ncpus; i++) {
		int fd;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", i);
		fd = tracefs_instance_file_open(l->inst, file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		l->pfds[i].fd = -1;
		if (fd < 0)
			continue;	/* a possible but absent CPU has no buffer */
		if (pages_add_cpu(l->pages, i, fd)) {
			snprintf(err, errlen, "cannot parse the ring buffer's page header");
			return -1;
		}
		l->pfds[i].fd = fd;
		l->pfds[i].events = POLLIN;
	}
	return 0;
}

struct live *live_open(const struct live_opts *o, char *err, size_t errlen)
{
	const char *dir = NULL;
	char val[64], *s;
	struct live *l;

	if (tracefs_tracing_dir_is_mounted(true, &dir) < 0 || !dir) {
		snprintf(err, errlen, "tracefs is not mounted and cannot be: %s",
			 strerror(errno));
		return NULL;
	}
	/* Only the instances folder is written: under systemd's
	 * ProtectKernelTunables= the tracefs root itself is read-only. */
	{
		char inst_dir[PATH_MAX];
		int denied;

		snprintf(inst_dir, sizeof(inst_dir), "%s/instances", dir);
		denied = access(inst_dir, W_OK);
		if (denied)
			snprintf(err, errlen, "%s: %s (commd needs root)", inst_dir,
				 strerror(errno));
		free((char *)dir);	/* the caller's copy (libtracefs strdup()s it) */
		dir = NULL;
		if (denied)
			return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l || !(l->name = strdup(o->instance))) {
		snprintf(err, errlen, "out of memory");
		free(l);
		return NULL;
	}
	if (reclaim(o->instance, err, errlen))
		goto fail;
	l->inst = tracefs_instance_create(o->instance);
	if (!l->inst) {
		snprintf(err, errlen, "cannot create tracefs instance %s: %s",
			 o->instance, strerror(errno));
		goto fail;
	}
	/* The instance is ours to configure: off while we set it up, its
	 * clock (every event of the traced load is stamped with it: "local",
	 * sched_clock, is the cheapest; "mono", CLOCK_MONOTONIC, cost the
	 * messaging benchmark 3.7% against local's 0.0% here), non-overwrite
	 * (data already in the buffer is never lost to newer data; drops are
	 * counted in stats). */
	write_file(l, "tracing_on", "0");
	snprintf(l->clock, sizeof(l->clock), "%s", o->clock ? o->clock : "local");
	if (write_file(l, "trace_clock", l->clock)) {
		s = tracefs_instance_file_read(l->inst, "trace_clock", NULL);
		if (s && strchr(s, '\n'))
			*strchr(s, '\n') = '\0';
		snprintf(err, errlen, "trace clock '%s' is not offered by this kernel "
			 "(offered: %s)", l->clock, s ? s : "unknown");
		free(s);
		goto fail;
	}
	l->mono = !strcmp(l->clock, "mono");
	write_file(l, "options/overwrite", "0");
	write_file(l, "buffer_percent", "25");
	if (o->buffer_kb) {
		snprintf(val, sizeof(val), "%zu", o->buffer_kb);
		if (write_file(l, "buffer_size_kb", val)) {
			snprintf(err, errlen, "cannot set buffer_size_kb to %zu: %s",
				 o->buffer_kb, strerror(errno));
			goto fail;
		}
	}
	l->subbuf = (size_t)getpagesize();
	s = tracefs_instance_file_read(l->inst, "buffer_subbuf_size_kb", NULL);
	if (s) {
		long kb = strtol(s, NULL, 10);

		if (kb > 0 && kb <= 1024)
			l->subbuf = (size_t)kb * 1024;
		free(s);
	}
	if (enable_events(l, o->events ? o->events : default_events, err, errlen))
		goto fail;
	if (o->stacks) {
		if (set_stack_trigger(l, 1)) {
			snprintf(err, errlen, "--stacks: cannot set '%s' on sched_switch "
				 "in instance %s: %s", stack_trigger, l->name, strerror(errno));
			goto fail;
		}
		l->stacks = 1;
	}
	if (load_formats(l)) {
		snprintf(err, errlen, "cannot read the event formats from %s: %s",
			 tracefs_tracing_dir(), strerror(errno));
		goto fail;
	}
	if (open_cpus(l, err, errlen))
		goto fail;
	return l;
fail:
	live_close(l);
	return NULL;
}

const char *live_events(const struct live *l)
{
	return l->events ? l->events : "";
}

struct tep_handle *live_tep(struct live *l)
{
	return l->tep;
}

int live_ncpus(const struct live *l)
{
	return l->ncpus;
}

int live_start(struct live *l)
{
	return write_file(l, "tracing_on", "1");
}

int live_stop(struct live *l)
{
	return write_file(l, "tracing_on", "0");
}

/* The clock in brackets of a trace_clock file's text, into buf. */
static const char *bracketed(const char *text, char *buf, size_t len)
{
	const char *a = text ? strchr(text, '[') : NULL;
	const char *b = a ? strchr(a, ']') : NULL;

	snprintf(buf, len, "%.*s", b ? (int)(b - a - 1) : 0, b ? a + 1 : "");
	return buf;
}

/* Appends ", item" (or the first item) to what, as far as it fits. */
static void add_change(char *what, size_t len, const char *name, const char *value)
{
	size_t n = strlen(what);

	if (n + 1 < len)
		snprintf(what + n, len - n, "%s%s %s", n ? ", " : "", name, value);
}

/* Whether every event of want (comma-separated) is in have. */
static int all_in(const char *want, const char *have)
{
	size_t hl = strlen(have);

	for (const char *w = want; *w;) {
		size_t n = strcspn(w, ",");
		const char *h = have;
		int found = 0;

		while (!found && (h = memmem(h, hl - (size_t)(h - have), w, n))) {
			found = (h == have || h[-1] == ',') && (h[n] == ',' || !h[n]);
			h++;
		}
		if (n && !found)
			return 0;
		w += n + (w[n] == ',');
	}
	return 1;
}

int live_check(struct live *l, char *what, size_t len)
{
	char *on = tracefs_instance_file_read(l->inst, "tracing_on", NULL);
	char *set = read_set_event(l);
	char *clk = tracefs_instance_file_read(l->inst, "trace_clock", NULL);
	char cur[40];
	/* (set_event reads as nothing when no event is enabled) */
	int events_changed = strcmp(set ? set : "", l->events);
	int clock_changed = clk && strcmp(bracketed(clk, cur, sizeof(cur)), l->clock);
	int off = on && atoi(on) == 0;
	int rc = 0;

	if (len)
		what[0] = '\0';
	if (off)
		add_change(what, len, "tracing_on", "0");
	if (events_changed) {
		char quoted[400];

		snprintf(quoted, sizeof(quoted), "'%s'", set ? set : "");
		add_change(what, len, "events", quoted);
	}
	if (clock_changed)
		add_change(what, len, "trace_clock", cur);
	if (off || events_changed || clock_changed) {
		rc = 1;
		/* Off while it is set up again, as at the start. */
		if (write_file(l, "tracing_on", "0") ||
		    (clock_changed && write_file(l, "trace_clock", l->clock)))
			rc = -1;
		if (rc == 1 && events_changed) {
			char bad[256];

			tracefs_event_disable(l->inst, NULL, NULL);
			if (enable_list(l, l->events, bad, sizeof(bad)))
				rc = -1;
		}
		if (rc == 1 && live_start(l))
			rc = -1;
		/* Events only added cost nothing. */
		if (rc == 1 && !off && !clock_changed && all_in(l->events, set ? set : ""))
			rc = 2;
	}
	free(on);
	free(set);
	free(clk);
	return rc;
}

int live_wait(struct live *l, int timeout_ms)
{
	int n;

	/* A CPU without a buffer yet is read again at each pass (the
	 * caller's timeout bounds the wait), not polled: poll would say
	 * POLLERR at once, every time. */
	for (int i = 0; i < l->ncpus; i++)
		l->pfds[i].fd = pages_absent(l->pages, i) ? -1 : pages_fd(l->pages, i);
	n = poll(l->pfds, (nfds_t)l->ncpus, pages_more(l->pages) ? 0 : timeout_ms);

	/* A debugger attaching can leak the kernel's internal restart codes
	 * (ERESTART_RESTARTBLOCK, 516) out of poll: a wait cut short, like
	 * EINTR, not a failure. */
	if (n < 0 && errno > 511 && errno < 530)
		errno = EINTR;
	return n < 0 ? -1 : 0;
}

struct shifted {
	tracedat_record_fn fn;
	void *ctx;
	uint64_t offset;
};

static int shifted_record(void *ctx, const void *data, int size, int cpu,
			  uint64_t ts, int64_t missed)
{
	struct shifted *s = ctx;

	return s->fn(s->ctx, data, size, cpu, ts + s->offset, missed);
}

long live_read(struct live *l, int final, tracedat_record_fn fn, void *ctx,
	       char *err, size_t errlen)
{
	struct shifted s = { fn, ctx, l->offset };
	/* the last clock reading; each CPU's own look before its read
	 * (look_cpu) comes later */
	uint64_t limit = final ? 0 : l->mono ? live_now() + l->offset : l->trace_now;

	if (!l->offset)
		return pages_read(l->pages, limit, final, fn, ctx, err, errlen);
	/* the pages hold the clock's own times */
	limit = limit > l->offset ? limit - l->offset : limit ? 1 : 0;
	return pages_read(l->pages, limit, final, shifted_record, &s, err, errlen);
}

void live_set_offset(struct live *l, uint64_t offset)
{
	l->offset = offset;
	l->trace_now = 0;
}

bool live_cpu_online(int cpu)
{
	char path[64];
	FILE *f;
	int c;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "re");
	if (!f)
		return true;
	c = fgetc(f);
	fclose(f);
	return c != '0';
}

/* A time of this capture as the pages hold it: the clock's own. */
static uint64_t raw_ts(const struct live *l, uint64_t ts)
{
	return ts > l->offset ? ts - l->offset : 0;
}

/* A look at CPU cpu's counters: a reset buffer (writing trace_clock
 * does that) starts them again from 0; drops and overruns since the last
 * look are a loss of the CPU at the look's time, rounded up (the stats
 * give microseconds: an event stamped later than the look was written
 * after it). */
static void look_at(struct live *l, int cpu, const struct live_cpu_stats *st)
{
	struct look *k = &l->looks[cpu];
	uint64_t lost, ts;

	if (st->read < k->read || st->dropped < k->dropped || st->overrun < k->overrun) {
		k->read_base += k->read;
		k->read = k->dropped = k->overrun = 0;
	}
	lost = (st->dropped - k->dropped) + (st->overrun - k->overrun);
	k->read = st->read;
	k->dropped = st->dropped;
	k->overrun = st->overrun;
	if (!lost)
		return;
	ts = st->now_ts ? st->now_ts + st->now_res - 1 :
	     l->mono ? live_now() + l->offset : l->trace_now;
	pages_lost(l->pages, cpu, raw_ts(l, ts), lost > INT64_MAX ? INT64_MAX : (int64_t)lost);
}

int live_cpu_stats(struct live *l, int cpu, struct live_cpu_stats *out)
{
	char file[64], text[1024], *line, *save = NULL;
	struct look *k;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	if (!l->looks || cpu < 0 || cpu >= l->ncpus)
		return -1;
	k = &l->looks[cpu];
	if (k->fd < 0) {
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		k->fd = tracefs_instance_file_open(l->inst, file, O_RDONLY | O_CLOEXEC);
		if (k->fd < 0)
			return -1;
	}
	n = pread(k->fd, text, sizeof(text) - 1, 0);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		uint64_t v;

		if (!colon)
			continue;
		*colon = '\0';
		v = strtoull(colon + 1, NULL, 10);
		if (!strcmp(line, "entries"))
			out->entries = v;
		else if (!strcmp(line, "overrun"))
			out->overrun = v;
		else if (!strcmp(line, "commit overrun"))
			out->commit_overrun = v;
		else if (!strcmp(line, "bytes"))
			out->bytes = v;
		else if (!strcmp(line, "dropped events"))
			out->dropped = v;
		else if (!strcmp(line, "read events"))
			out->read = v;
		else if (!strcmp(line, "now ts"))
			out->now_ts = parse_now_ts(colon + 1, &out->now_res);
	}
	if (out->now_ts)
		out->now_ts += l->offset;
	if (out->now_ts > l->trace_now)
		l->trace_now = out->now_ts;
	look_at(l, cpu, out);
	out->read_total = k->read_base + out->read;
	return 0;
}

/* pages_read's look before it reads CPU cpu: drops since the last look
 * are placed at this one (the buffer stays full until the read that
 * follows), and its time is the CPU's bound for the merge (the pages'
 * own clock). */
static uint64_t look_cpu(void *ctx, int cpu)
{
	struct live *l = ctx;
	struct live_cpu_stats st;

	if (live_cpu_stats(l, cpu, &st) || !st.now_ts)
		return 0;
	return raw_ts(l, st.now_ts);
}

int live_lost(struct live *l, int cpu, uint64_t ts)
{
	return pages_lost(l->pages, cpu, raw_ts(l, ts), -1);
}

void live_close(struct live *l)
{
	if (!l)
		return;
	pages_free(l->pages);	/* closes the readers */
	for (int i = 0; l->looks && i < l->ncpus; i++)
		if (l->looks[i].fd >= 0)
			close(l->looks[i].fd);
	free(l->looks);
	if (l->inst) {
		/* The readers are closed: the instance can go. */
		tracefs_instance_file_write(l->inst, "tracing_on", "0");
		if (l->stacks)
			set_stack_trigger(l, 0);
		tracefs_instance_destroy(l->inst);
		tracefs_instance_free(l->inst);
	}
	if (l->tep)
		tep_free(l->tep);
	free(l->pfds);
	free(l->events);
	free(l->name);
	free(l);
}
