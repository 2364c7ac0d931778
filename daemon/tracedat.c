/* tracedat.c — see tracedat.h. */
#include "tracedat.h"
#include "grow.h"
#include "kallsyms.h"
#include "merge.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

/* The first bytes of every trace.dat: 0x17 0x08 0x44 "tracing", then the
 * version as a NUL-terminated decimal string. */
static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/* libtracecmd 1.x (trace-cmd 3.x) exports these but declares them only in
 * its private header; CMakeLists.txt checks at build time that the library
 * has them. Nothing else of that header is used. */
int tracecmd_cpus(struct tracecmd_input *handle);
struct tep_record *tracecmd_peek_data(struct tracecmd_input *handle, int cpu);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
const char *tracecmd_get_cpustats(struct tracecmd_input *handle);
unsigned long tracecmd_get_flags(struct tracecmd_input *handle);
const char *tracecmd_get_uname(struct tracecmd_input *handle);
/* How an instance is named where its own name would be taken for the top
 * buffer or for all of them (--buffer instances/top). */
#define INSTANCE_PREFIX "instances/"

/* Of its enum tracecmd_flags: the timestamps are nanoseconds. */
#define TRACECMD_FL_IN_USECS_ (1 << 2)

struct buffer {
	struct tracecmd_input *handle;
	const char *name;		/* "top" or the instance's (owned by
					 * libtracecmd) */
	char *label;			/* "instances/NAME" for an instance
					 * called top or all, else NULL */
	int has_records;
	int selected;
	uint64_t records;		/* delivered so far */
	int stats_ns;			/* its clock counts ns (CPU stats);
					 * -1 unknown */
	struct cpu_stat *cs;		/* per CPU, from the CPU stats */
	int ncs;			/* CPUs in it */
	size_t cs_cap;
	/* per CPU (ncpus of them: tracecmd_cpus), its records delivered
	 * so far and the first one's stamp */
	uint64_t *cpu_records, *cpu_first;
	int ncpus;
};

/* A CPU's counters in the CPU stats trace-cmd saved when it stopped. */
struct cpu_stat {
	uint64_t dropped;		/* "dropped events" */
	uint64_t read, entries;		/* "read events", "entries" */
	int has_read;			/* both said */
};

struct tracedat {
	struct tracecmd_input *handle;	/* the file, and its top buffer */
	struct buffer *buf;		/* [0] the top one, then the instances */
	int nbuf;
	int version;
	uint64_t date_offset;		/* record --date's, taken back off */
	tracedat_record_fn fn;
	void *ctx;
};

static int check_header(int fd, int *version, char *err, size_t errlen)
{
	unsigned char buf[sizeof(magic) + 16];
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "not a regular file");
		return -1;
	}
	n = pread(fd, buf, sizeof(buf), 0);
	if (n < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	if (n == 0) {
		snprintf(err, errlen, "empty file, not a trace.dat");
		return -1;
	}
	if ((size_t)n < sizeof(magic) + 2 || memcmp(buf, magic, sizeof(magic))) {
		snprintf(err, errlen, "not a trace.dat file (bad magic at offset 0)");
		return -1;
	}
	*version = 0;
	for (size_t i = sizeof(magic); i < (size_t)n && buf[i]; i++) {
		if (buf[i] < '0' || buf[i] > '9' || *version > 1000) {
			*version = -1;
			break;
		}
		*version = *version * 10 + (buf[i] - '0');
	}
	if (*version != 6 && *version != 7) {
		snprintf(err, errlen, "unsupported trace.dat version (offset %zu): "
			 "only 6 and 7 are read", sizeof(magic));
		return -1;
	}
	/* After the version's NUL: the endianness (0 little, 1 big), the
	 * size of a long (4 or 8), the page size (4 bytes, in the file's
	 * byte order): checked here, before libtracecmd divides by it. */
	{
		size_t at = sizeof(magic);
		uint32_t page;

		while (at < (size_t)n && buf[at])
			at++;
		at++;
		if ((size_t)n < at + 6) {
			snprintf(err, errlen, "truncated header (offset %zu): no endianness, "
				 "long size and page size", at);
			return -1;
		}
		if (buf[at] > 1) {
			snprintf(err, errlen, "bad endianness byte %u (offset %zu): 0 (little) "
				 "or 1 (big)", buf[at], at);
			return -1;
		}
		if (buf[at + 1] != 4 && buf[at + 1] != 8) {
			snprintf(err, errlen, "unsupported long size %u (offset %zu): only 4 and "
				 "8 are read", buf[at + 1], at + 1);
			return -1;
		}
		if (buf[at])
			page = (uint32_t)buf[at + 2] << 24 | (uint32_t)buf[at + 3] << 16 |
			       (uint32_t)buf[at + 4] << 8 | buf[at + 5];
		else
			page = (uint32_t)buf[at + 5] << 24 | (uint32_t)buf[at + 4] << 16 |
			       (uint32_t)buf[at + 3] << 8 | buf[at + 2];
		if (page < 64 || page > (1u << 24) || (page & (page - 1))) {
			snprintf(err, errlen, "bad page size %u (offset %zu): a power of two "
				 "from 64 bytes to 16 MiB", page, at + 2);
			return -1;
		}
	}
	return 0;
}

/* Whether a buffer holds a record: a peek at each CPU's first one. The
 * iteration starts from the records peeked at: nothing is read twice. */
static int holds_records(struct tracecmd_input *h)
{
	for (int cpu = 0; cpu < tracecmd_cpus(h); cpu++)
		if (tracecmd_peek_data(h, cpu))
			return 1;
	return 0;
}

static struct buffer *find_buffer(struct tracedat *t, const char *name)
{
	for (int i = 1; i < t->nbuf; i++)
		if (!strcmp(t->buf[i].name, name))
			return &t->buf[i];
	return NULL;
}

/* A CPU's counter of the CPU stats (which: 0 dropped events, 1 read
 * events, 2 entries); CPUs past what a machine can have (a corrupt file)
 * are left out. */
static void set_stat(struct buffer *b, long cpu, const char *v, int which)
{
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	struct cpu_stat *c;

	if (cpu < 0 || cpu >= 1 << 16 || end == v || *end)
		return;
	if (cpu >= b->ncs) {
		if (grow_array(&b->cs, &b->cs_cap, sizeof(*b->cs), (size_t)cpu + 1, 1))
			return;
		b->ncs = (int)cpu + 1;
	}
	c = &b->cs[cpu];
	if (which == 0)
		c->dropped = n;
	else if (which == 1)
		c->read = n, c->has_read |= 1;
	else
		c->entries = n, c->has_read |= 2;
}

/* The CPU stats trace-cmd saved when it stopped, every buffer's in one
 * text: the top buffer's first, then each instance's after a line
 * "Buffer: NAME"; per CPU a line "CPU: N", then the lines of the kernel's
 * per_cpu/cpuN/stats ("now ts: ...", "dropped events: N"...). */
static void read_cpustats(struct tracedat *t)
{
	const char *text = tracecmd_get_cpustats(t->handle);
	struct buffer *b = &t->buf[0];
	char *copy, *line, *save = NULL;
	long cpu = -1;

	if (!text || !(copy = strdup(text)))
		return;
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		*v++ = '\0';
		v += strspn(v, " ");
		if (!strcmp(line, "Buffer")) {
			b = find_buffer(t, v);
			cpu = -1;
		} else if (!strcmp(line, "CPU")) {
			cpu = strtol(v, NULL, 10);
		} else if (b && !strcmp(line, "dropped events")) {
			set_stat(b, cpu, v, 0);
		} else if (b && !strcmp(line, "read events")) {
			set_stat(b, cpu, v, 1);
		} else if (b && !strcmp(line, "entries")) {
			set_stat(b, cpu, v, 2);
		} else if (b && !strcmp(line, "now ts"))
			/* The kernel prints the time of a clock counting
			 * nanoseconds as seconds with a fraction, and the
			 * others' (counter, uptime, x86-tsc) as one number. */
			b->stats_ns = strchr(v, '.') != NULL;
	}
	free(copy);
}

/* Exported by libtracecmd 1.3 (tracecmd_open_head is an open() and these
 * two), not declared in its header. */
struct tracecmd_input *tracecmd_alloc_fd(int fd, int flags);
int tracecmd_read_headers(struct tracecmd_input *handle, int state);
void tracecmd_set_flag(struct tracecmd_input *handle, int flag);

/* libtracecmd's handle flag (trace-cmd-private.h, the same bit since its
 * first versions) that keeps timestamps as recorded: without it a file
 * recorded with `trace-cmd record --date` has every timestamp moved by
 * the file's time-of-day offset. commd keeps the trace clock in ts and
 * the offset apart (clock_map): tracedat_date_offset measures it with a
 * second handle that has the flag, and the records are moved back. */
#define TRACEDAT_FL_IGNORE_DATE (1 << 0)

/* Timestamps past 2000-01-01 in ns: the date offset was applied (a trace
 * clock counting from boot is nowhere near); below it no offset was. */
#define TRACEDAT_WALL_MIN_NS 946684800000000000ull

struct tracedat *tracedat_open(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	return tracedat_open_fd(fd, err, errlen);
}

struct tracedat *tracedat_open_fd(int fd, char *err, size_t errlen)
{
	enum kallsyms_mode mode;
	struct tracedat *t;
	int n, init;

	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		close(fd);
		return NULL;
	}
	if (check_header(fd, &t->version, err, errlen)) {
		close(fd);
		goto fail;
	}
	/* libtracecmd reports its own troubles on stderr; ours is the one
	 * line the user needs. */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	/* tracecmd_open is these two steps, but when the second fails half
	 * way (a CPU's data past the end of a truncated file, say) it closes
	 * a handle whose per-CPU lists were never set up and crashes
	 * (libtracecmd 1.3). Such a handle is left to the process's exit
	 * instead — the import parses in a child of its own — all but its
	 * event formats, which are freed now. */
	lseek(fd, 0, SEEK_SET);
	/* The file's kallsyms are parsed when a stack needs them
	 * (kallsyms.h). */
	mode = kallsyms_mode(KALLSYMS_LATER);
	t->handle = tracecmd_alloc_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS |
					  TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!t->handle)
		close(fd);
	else if (tracecmd_read_headers(t->handle, 0) < 0) {
		kallsyms_forget(tracecmd_get_tep(t->handle));
		tracecmd_close(t->handle);
		t->handle = NULL;
	}
	if (!t->handle) {
		kallsyms_mode(mode);
		snprintf(err, errlen, "corrupt trace.dat (headers or sections unreadable)");
		goto fail;
	}
	init = tracecmd_init_data(t->handle);
	kallsyms_mode(mode);
	if (init < 0) {
		struct tep_handle *tep = tracecmd_get_tep(t->handle);

		kallsyms_forget(tep);
		if (tep)
			tep_free(tep);
		t->handle = NULL;
		snprintf(err, errlen, "corrupt trace.dat (CPU data unreadable: "
			 "truncated or bad offsets)");
		goto fail;
	}
	if (!tracecmd_get_tep(t->handle)) {
		snprintf(err, errlen, "corrupt trace.dat (no event formats)");
		goto fail;
	}
	n = tracecmd_buffer_instances(t->handle);
	if (n < 0)
		n = 0;
	t->buf = calloc((size_t)n + 1, sizeof(*t->buf));
	if (!t->buf) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	t->buf[t->nbuf++] = (struct buffer){ .handle = t->handle, .name = "top" };
	for (int i = 0; i < n; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(t->handle, i);
		const char *name = tracecmd_buffer_instance_name(t->handle, i);

		if (!b) {
			snprintf(err, errlen, "corrupt trace.dat (buffer %d unreadable)", i);
			goto fail;
		}
		t->buf[t->nbuf++] = (struct buffer){ .handle = b,
						     .name = name ? name : "?" };
		if (!strcmp(t->buf[t->nbuf - 1].name, "top") ||
		    !strcmp(t->buf[t->nbuf - 1].name, "all")) {
			size_t len = strlen(INSTANCE_PREFIX) + strlen(t->buf[t->nbuf - 1].name) + 1;

			if (!(t->buf[t->nbuf - 1].label = malloc(len))) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			snprintf(t->buf[t->nbuf - 1].label, len, "%s%s", INSTANCE_PREFIX,
				 t->buf[t->nbuf - 1].name);
		}
	}
	for (int i = 0; i < t->nbuf; i++) {
		t->buf[i].has_records = holds_records(t->buf[i].handle);
		t->buf[i].selected = 1;
		t->buf[i].stats_ns = -1;
	}
	read_cpustats(t);
	return t;
fail:
	tracedat_close(t);
	return NULL;
}

void tracedat_close(struct tracedat *t)
{
	if (!t)
		return;
	if (t->handle)
		kallsyms_forget(tracecmd_get_tep(t->handle));
	for (int i = 0; i < t->nbuf; i++) {
		if (i)
			tracecmd_close(t->buf[i].handle);
		free(t->buf[i].cs);
		free(t->buf[i].cpu_records);
		free(t->buf[i].cpu_first);
		free(t->buf[i].label);
	}
	free(t->buf);
	if (t->handle)
		tracecmd_close(t->handle);
	free(t);
}

struct tep_handle *tracedat_tep(struct tracedat *t)
{
	return tracecmd_get_tep(t->handle);
}

int tracedat_version(const struct tracedat *t)
{
	return t->version;
}

int tracedat_buffers(const struct tracedat *t)
{
	return t->nbuf;
}

const char *tracedat_buffer_name(const struct tracedat *t, int i)
{
	if (i < 0 || i >= t->nbuf)
		return NULL;
	return t->buf[i].label ? t->buf[i].label : t->buf[i].name;
}

int tracedat_buffer_has_records(const struct tracedat *t, int i)
{
	return i >= 0 && i < t->nbuf && t->buf[i].has_records;
}

uint64_t tracedat_buffer_records(const struct tracedat *t, int i)
{
	return i >= 0 && i < t->nbuf ? t->buf[i].records : 0;
}

int tracedat_select(struct tracedat *t, const char *name)
{
	int found = -1;

	/* "top" is the top buffer even beside an instance called so, which
	 * is "instances/top"; any instance may be named that way. */
	if (name && !strncmp(name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX))) {
		for (int i = 1; found < 0 && i < t->nbuf; i++)
			if (!strcmp(t->buf[i].name, name + strlen(INSTANCE_PREFIX)))
				found = i;
	}
	for (int i = 0; name && found < 0 && i < t->nbuf; i++)
		if (!strcmp(t->buf[i].name, name))
			found = i;
	if (name && found < 0)
		return -1;
	for (int i = 0; i < t->nbuf; i++)
		t->buf[i].selected = !name || i == found;
	return 0;
}

int tracedat_selected(const struct tracedat *t, int i)
{
	return i >= 0 && i < t->nbuf && t->buf[i].selected;
}

const char *tracedat_uname(const struct tracedat *t)
{
	return tracecmd_get_uname(t->handle);
}

const char *tracedat_clock(const struct tracedat *t)
{
	return tracecmd_get_trace_clock(t->handle);
}

const char *tracedat_clock_units(const char *clock)
{
	if (!clock)
		return NULL;
	if (!strcmp(clock, "counter"))
		return "events";
	if (!strcmp(clock, "uptime"))
		return "jiffies";
	if (!strcmp(clock, "x86-tsc"))
		return "TSC cycles";
	return NULL;
}

/* Whether the kernel's clock of this name counts nanoseconds (its
 * trace_clocks[].in_ns). */
static int clock_counts_ns(const char *clock)
{
	return tracedat_clock_units(clock) == NULL;
}

int tracedat_buffer_ns(const struct tracedat *t, int i)
{
	const char *clock = tracedat_clock(t);
	int ns;

	if (i < 0 || i >= t->nbuf)
		return -1;
	ns = t->buf[i].stats_ns >= 0 ? t->buf[i].stats_ns :
	     clock ? clock_counts_ns(clock) : -1;
	/* trace-cmd record --tsc2nsec saves TSC cycles and how to turn them
	 * into nanoseconds (its TSC2NSEC option); libtracecmd then does, for
	 * every buffer, whatever clock name the file gives (a version 6 file
	 * names the top buffer's, `local`, for a buffer counting cycles), and
	 * says so with its flag. It also leaves that flag set for every clock
	 * it prints as seconds, uptime among them: uptime counts jiffies, and
	 * nothing turns them into nanoseconds. */
	if (ns == 0 && (tracecmd_get_flags(t->handle) & TRACECMD_FL_IN_USECS_) &&
	    !(clock && !strcmp(clock, "uptime")))
		ns = 1;
	return ns;
}

const char *tracedat_buffer_clock(const struct tracedat *t, int i)
{
	const char *clock = tracedat_clock(t);

	if (!clock || i < 0 || i >= t->nbuf ||
	    (t->buf[i].stats_ns >= 0 && t->buf[i].stats_ns != clock_counts_ns(clock)))
		return NULL;
	return clock;
}

int tracedat_dropped(const struct tracedat *t, tracedat_drop_fn fn, void *ctx)
{
	int rc = 0;

	for (int i = 0; !rc && i < t->nbuf; i++)
		for (int cpu = 0; !rc && t->buf[i].selected && cpu < t->buf[i].ncs; cpu++)
			if (t->buf[i].cs[cpu].dropped)
				rc = fn(ctx, tracedat_buffer_name(t, i), cpu,
					t->buf[i].cs[cpu].dropped);
	return rc;
}

/* The CPU stats count every event trace-cmd read and every one left in
 * the buffer, which it reads after (the file holds them all; a few
 * dozen may differ, -T's stacks); a CPU whose file holds fewer by this
 * much lost its first records to trace-cmd itself: record -m keeps only
 * the newest part of each CPU's data, and no record says so. */
#define TRUNCATED_MIN 1000

int tracedat_truncated(const struct tracedat *t, tracedat_trunc_fn fn, void *ctx)
{
	int rc = 0;

	for (int i = 0; !rc && i < t->nbuf; i++) {
		const struct buffer *b = &t->buf[i];

		for (int cpu = 0; !rc && b->selected && b->cpu_records && cpu < b->ncs &&
				  cpu < b->ncpus; cpu++) {
			const struct cpu_stat *c = &b->cs[cpu];
			uint64_t said = c->read + c->entries, got = b->cpu_records[cpu];

			if (c->has_read == 3 && got && said > got + TRUNCATED_MIN &&
			    said - got > said / 100)
				rc = fn(ctx, tracedat_buffer_name(t, i), cpu, said - got,
					b->cpu_first[cpu] - t->date_offset);
		}
	}
	return rc;
}

/* One record of a buffer's handle, handed on; next is the CPU's record
 * after it: one that says a loss came before it makes this one the CPU's
 * last before a gap, told before the other CPUs' records in it. */
static int on_record(struct tracedat *t, struct tracecmd_input *handle,
		     struct tep_record *rec, struct tep_record **next)
{
	for (int i = 0; i < t->nbuf; i++)
		if (t->buf[i].handle == handle) {
			struct buffer *b = &t->buf[i];

			b->records++;
			if (b->cpu_records && rec->cpu >= 0 && rec->cpu < b->ncpus &&
			    !b->cpu_records[rec->cpu]++)
				b->cpu_first[rec->cpu] = rec->ts;
			break;
		}
	int rc = t->fn(t->ctx, rec->data, rec->size, rec->cpu, rec->ts - t->date_offset,
		       rec->missed_events);

	*next = tracecmd_peek_data(handle, rec->cpu);
	if (!rc && *next && (*next)->missed_events)
		rc = t->fn(t->ctx, NULL, 0, rec->cpu, rec->ts - t->date_offset, TRACEDAT_GAP);
	return rc;
}

int tracedat_cpus(struct tracedat *t)
{
	int n = 0;

	for (int i = 0; i < t->nbuf; i++)
		if (t->buf[i].selected && tracecmd_cpus(t->buf[i].handle) > n)
			n = tracecmd_cpus(t->buf[i].handle);
	return n;
}

int tracedat_cpu_has_records(struct tracedat *t, int cpu)
{
	for (int i = 0; i < t->nbuf; i++)
		if (t->buf[i].selected && cpu < tracecmd_cpus(t->buf[i].handle) &&
		    tracecmd_peek_data(t->buf[i].handle, cpu))
			return 1;
	return 0;
}

/* Every record of the selected buffers' CPUs in timestamp order (ties:
 * buffer, then CPU order), each CPU's next timestamp kept (UINT64_MAX:
 * none left). commd's own loop, not tracecmd_iterate_events: libtracecmd
 * 3.1 goes on after a callback's non-zero return (an interrupted import
 * ran to the file's end), and ends every CPU's iteration, silently, at a
 * record flagged with missed events whose event has no format (its
 * missed-events callbacks look the event up). A CPU whose first record
 * says events were lost before it (an overwritten start) is in a gap
 * from the first record of all. */
int tracedat_iterate(struct tracedat *t, tracedat_record_fn fn, void *ctx)
{
	struct slot { struct tracecmd_input *h; int cpu; uint64_t ts; } *v;
	struct merge heap;
	uint64_t first = UINT64_MAX;
	size_t n = 0, cap = 0;
	int rc = 0;

	t->fn = fn;
	t->ctx = ctx;
	for (int i = 0; i < t->nbuf; i++)
		if (t->buf[i].selected) {
			int nc = tracecmd_cpus(t->buf[i].handle);

			cap += (size_t)nc;
			/* (counted from 0 each pass; none kept when out of
			 * memory: nothing is then said truncated) */
			free(t->buf[i].cpu_records);
			free(t->buf[i].cpu_first);
			t->buf[i].cpu_records = nc > 0 ? calloc((size_t)nc, sizeof(uint64_t)) : NULL;
			t->buf[i].cpu_first = nc > 0 ? calloc((size_t)nc, sizeof(uint64_t)) : NULL;
			if (!t->buf[i].cpu_records || !t->buf[i].cpu_first) {
				free(t->buf[i].cpu_records);
				free(t->buf[i].cpu_first);
				t->buf[i].cpu_records = t->buf[i].cpu_first = NULL;
			}
			t->buf[i].ncpus = t->buf[i].cpu_records ? nc : 0;
		}
	v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v || merge_init(&heap, cap)) {
		free(v);
		return -1;
	}
	for (int i = 0; i < t->nbuf; i++)
		for (int cpu = 0; t->buf[i].selected && cpu < tracecmd_cpus(t->buf[i].handle); cpu++) {
			struct tep_record *r = tracecmd_peek_data(t->buf[i].handle, cpu);

			v[n++] = (struct slot){ t->buf[i].handle, cpu, r ? r->ts : UINT64_MAX };
			if (r && r->ts < first)
				first = r->ts;
		}
	for (size_t i = 0; !rc && i < n; i++) {
		struct tep_record *r = v[i].ts == UINT64_MAX ? NULL :
				       tracecmd_peek_data(v[i].h, v[i].cpu);

		if (r && r->missed_events)
			rc = fn(ctx, NULL, 0, r->cpu, first - t->date_offset, TRACEDAT_GAP);
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].ts != UINT64_MAX)
			merge_add(&heap, (int)i, v[i].ts);
	while (!rc) {
		struct tep_record *r, *next;
		uint64_t ts;
		int best;

		/* the earliest record of all (on a tie the first slot's) */
		if (!merge_top(&heap, &best, &ts))
			break;
		r = tracecmd_read_data(v[best].h, v[best].cpu);
		if (!r) {
			v[best].ts = UINT64_MAX;	/* unreadable from here */
			merge_next(&heap, false, 0);
			continue;
		}
		/* (one peek for both: the gap's and the merge's; the record
		 * peeked holds its own page) */
		rc = on_record(t, v[best].h, r, &next);
		tracecmd_free_record(r);
		v[best].ts = next ? next->ts : UINT64_MAX;
		/* (a record stamped UINT64_MAX ends its CPU, as one first
		 * is left out above) */
		merge_next(&heap, v[best].ts != UINT64_MAX, v[best].ts);
	}
	merge_free(&heap);
	free(v);
	return rc;
}

uint64_t tracedat_traceid(const struct tracedat *t)
{
	return tracecmd_get_traceid(t->handle);
}

const char *tracedat_cmdline(void *ctx, int32_t pid)
{
	struct tracedat *t = ctx;
	struct tep_handle *tep = tracecmd_get_tep(t->handle);

	if (pid <= 0 || !tep_is_pid_registered(tep, pid))
		return NULL;
	return tep_data_comm_from_pid(tep, pid);
}

int tracedat_date_offset(struct tracedat *t, int fd, int64_t *offset)
{
	enum kallsyms_mode mode;
	struct tracecmd_input *h;
	int ret = -1, bad;

	*offset = 0;
	if (fd < 0)
		return -1;
	/* Most files have no offset: the first timestamps say so, and the
	 * second handle (which decompresses a compressed file's first
	 * pages again) is spared. */
	for (int i = 0; i < t->nbuf; i++)
		if (tracecmd_get_first_ts(t->buf[i].handle) >= TRACEDAT_WALL_MIN_NS)
			ret = 0;
	if (ret) {
		close(fd);
		return 0;
	}
	ret = -1;
	lseek(fd, 0, SEEK_SET);
	h = tracecmd_alloc_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS |
				  TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!h) {
		close(fd);
		return -1;
	}
	/* A failed half-way read is left to the process's exit, as in
	 * tracedat_open_fd (the main handle read this file already). */
	tracecmd_set_flag(h, TRACEDAT_FL_IGNORE_DATE);
	mode = kallsyms_mode(KALLSYMS_NEVER);	/* timestamps only */
	bad = tracecmd_read_headers(h, 0) < 0 || tracecmd_init_data(h) < 0;
	kallsyms_mode(mode);
	if (bad)
		return -1;
	/* The same buffer with and without the offset: the first whose
	 * records give a first timestamp. */
	for (int i = 0; i < t->nbuf && ret; i++) {
		struct tracecmd_input *b = i ? tracecmd_buffer_instance_handle(h, i - 1) : h;
		unsigned long long with, without;

		if (!b)
			continue;
		without = tracecmd_get_first_ts(b);
		with = tracecmd_get_first_ts(t->buf[i].handle);
		if (with && without) {
			*offset = (int64_t)(with - without);
			ret = 0;
		}
		if (i)
			tracecmd_close(b);
	}
	tracecmd_close(h);
	if (ret == 0)
		t->date_offset = *offset;
	return ret;
}
