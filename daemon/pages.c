/* pages.c — see pages.h. */
#define _GNU_SOURCE
#include "pages.h"
#include "merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

struct page {
	struct page *next;
	int len;
	unsigned char data[];
};

/* A loss a CPU holds until its records reach its time. */
struct lost_at {
	uint64_t ts;
	int64_t count;			/* -1: unknown */
};

struct cpu {
	int fd;
	struct page *head, *tail;	/* read, not yet fully emitted */
	struct kbuffer *kbuf;		/* iterates head */
	void *event;			/* current event of head, NULL = none */
	unsigned long long ts;
	int64_t missed;			/* flagged on head's first event */
	int cut;			/* a page was cut short (corrupt): the
					 * next page's first event says so */
	uint64_t watermark;		/* no later event can come before this */
	int absent;			/* no buffer yet: offline when the
					 * instance was made (ENODEV) */
	int drained;			/* its last read found it empty */
	struct lost_at *lost;		/* losses waiting for their place */
	int nlost, lost_cap;
};


struct pages {
	struct tep_handle *tep;		/* the page header's format */
	int ncpus;
	struct cpu *cpus;
	size_t subbuf;			/* sub-buffer size in bytes */
	struct page *free_pages;
	int nfree;			/* pages on free_pages */
	int more;			/* a read stopped short: pages remain */
	int per_call;			/* pages a read takes from a CPU */
	pages_look_fn *look;		/* called before each CPU's read */
	void *look_ctx;
	struct merge heap;		/* the CPUs holding a record or a loss,
					 * by its time (cpu_key) */
};

/* What one pages_read takes from each CPU: 1 MiB (256 sub-buffers of 4
 * KiB), and from all of them 16 MiB, so that a machine of many CPUs takes
 * fewer from each (64 KiB on 256 CPUs), but never fewer than 16
 * sub-buffers (past 256 CPUs the whole exceeds 16 MiB).  A burst is
 * worked through in steps, so commits, watchdog pings and the query
 * server's watch keep their pace, and the pages held (read and not yet
 * merged, and kept for the next read) stay few: at 1 MiB a CPU, 256 CPUs
 * held 256 MiB after a burst on all of them. */
#define READ_BYTES_PER_CPU (1u << 20)
#define READ_BYTES_IN_ALL (16u << 20)
#define READ_PAGES_MIN 16


static struct page *page_get(struct pages *l)
{
	struct page *p = l->free_pages;

	if (p) {
		l->free_pages = p->next;
		l->nfree--;
		return p;
	}
	return malloc(sizeof(*p) + l->subbuf);
}

/* Keeps one read's worth of pages for the next read, frees the rest: a
 * burst does not leave the daemon holding the ring buffer's size. */
static void page_put(struct pages *l, struct page *p)
{
	if (l->nfree >= l->per_call * l->ncpus) {
		free(p);
		return;
	}
	p->next = l->free_pages;
	l->free_pages = p;
	l->nfree++;
}

/* The ring-buffer page format (kernel/trace/ring_buffer.c; kbuffer reads
 * the same): a u64 timestamp, a long "commit" (bytes of events, with the
 * missed-events flags above them), then the events. */
#define COMMIT_MASK ((1u << 27) - 1)
#define MISSING_EVENTS (1ull << 31)
#define MISSING_STORED (1ull << 30)

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* kbuffer trusts the page: a commit past the bytes read, or an event
 * length that runs past the commit or back onto itself, makes it read
 * outside the page or loop for ever. The page comes from the kernel, but
 * costs one pass over the event headers to check, walking them as kbuffer
 * will: a page that does not hold together is cut at its last good event
 * (its commit rewritten, in our copy). Returns 1 when it was cut. */
static int page_check(struct pages *l, struct page *p)
{
	int long_size = tep_get_long_size(l->tep);
	size_t hdr, avail;
	uint64_t flags;
	uint32_t size, off = 0;
	int cut = 0, rewrite = 0;

	if (!long_size)
		long_size = tep_get_header_page_size(l->tep);
	hdr = long_size == 8 ? 16 : 12;
	if ((size_t)p->len < hdr) {
		memset(p->data + 8, 0, hdr - 8);	/* no events */
		return 1;
	}
	if (long_size == 8) {
		memcpy(&flags, p->data + 8, 8);
	} else {
		flags = rd32(p->data + 8);
	}
	size = (uint32_t)flags & COMMIT_MASK;
	avail = (size_t)p->len - hdr;
	if (size > avail) {
		size = (uint32_t)avail;
		cut = 1;
	}
	if ((flags & MISSING_EVENTS) && (flags & MISSING_STORED) &&
	    size + (size_t)long_size > avail) {
		flags &= ~MISSING_STORED;	/* the count is not there */
		cut = 1;
	}
	while (off < size) {
		const unsigned char *e = p->data + hdr + off;
		uint32_t type_len, next;
		int32_t len = 0;

		if (size - off < 4)
			break;
		type_len = rd32(e) & 31;
		if (type_len == 0 || type_len >= KBUFFER_TYPE_PADDING) {
			if (size - off < 8) {
				/* Padding too short for a length: the end. */
				if (type_len == KBUFFER_TYPE_PADDING) {
					size = off;
					rewrite = 1;
				}
				break;
			}
			len = (int32_t)rd32(e + 4);
		}
		switch (type_len) {
		case KBUFFER_TYPE_PADDING:
			/* The rest of the page, or a discarded event. */
			next = off + 4 + (uint32_t)len;
			if (len < 0 || next <= off)
				goto bad;
			break;
		case KBUFFER_TYPE_TIME_EXTEND:
		case KBUFFER_TYPE_TIME_STAMP:
			next = off + 8;
			break;
		case 0:
			if (len < 4 || len > (int32_t)(size - off))
				goto bad;
			next = off + 8 + (((uint32_t)len - 4 + 3) & ~3u);
			if (next > size)
				goto bad;
			break;
		default:
			next = off + 4 + type_len * 4;
			if (next > size)
				goto bad;
			break;
		}
		off = next;
		continue;
bad:
		break;
	}
	if (off < size) {
		size = off;
		cut = 1;
		/* A stored count would be read at the new end. */
		flags &= ~MISSING_STORED;
	}
	if (cut || rewrite) {
		flags = (flags & ~(uint64_t)COMMIT_MASK) | size;
		if (long_size == 8) {
			memcpy(p->data + 8, &flags, 8);
		} else {
			uint32_t f32 = (uint32_t)flags;

			memcpy(p->data + 8, &f32, 4);
		}
	}
	return cut;
}

/* Positions the CPU on the first event of its head page, dropping pages
 * that turn out empty. */
static void cpu_load(struct pages *l, struct cpu *c)
{
	while (c->head) {
		int cut = page_check(l, c->head);

		if (kbuffer_load_subbuffer(c->kbuf, c->head->data) == 0) {
			c->missed = kbuffer_missed_events(c->kbuf);
			c->event = kbuffer_read_event(c->kbuf, &c->ts);
			if (c->event) {
				/* What a cut page lost comes before this. */
				if (c->cut && !c->missed)
					c->missed = -1;
				c->cut = cut;
				return;
			}
		}
		c->cut |= cut;
		struct page *p = c->head;

		c->head = p->next;
		if (!c->head)
			c->tail = NULL;
		page_put(l, p);
	}
	c->event = NULL;
}

static void cpu_next(struct pages *l, struct cpu *c)
{
	c->missed = 0;
	c->event = kbuffer_next_event(c->kbuf, &c->ts);
	if (!c->event) {
		struct page *p = c->head;

		c->head = p->next;
		if (!c->head)
			c->tail = NULL;
		page_put(l, p);
		cpu_load(l, c);
	}
}

/* Reads the pages the CPU has now, at most `max` of them (0: all).
 * Returns 1 when it stopped at `max` with pages left, 0 when the CPU was
 * found empty, -1 on an error. */
static int cpu_drain(struct pages *l, struct cpu *c, int max, char *err,
		     size_t errlen)
{
	int was_empty = c->head == NULL, pages = 0, full = 0;

	for (;;) {
		struct page *p;
		ssize_t n;

		if (max && pages == max) {
			full = 1;
			break;
		}
		p = page_get(l);
		if (!p) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		n = read(c->fd, p->data, l->subbuf);
		if (n <= 0) {
			page_put(l, p);
			if (n == 0 || errno == EAGAIN || errno == EINTR)
				break;
			/* A CPU that was offline when the instance was made
			 * has no buffer until it comes online (the kernel
			 * makes it then): nothing to read yet, not a failure. */
			if (errno == ENODEV) {
				c->absent = 1;
				break;
			}
			snprintf(err, errlen, "reading trace_pipe_raw: %s", strerror(errno));
			return -1;
		}
		pages++;
		c->absent = 0;
		p->len = (int)n;
		if ((size_t)n < l->subbuf)
			memset(p->data + n, 0, l->subbuf - (size_t)n);
		p->next = NULL;
		if (c->tail)
			c->tail->next = p;
		else
			c->head = p;
		c->tail = p;
	}
	if (was_empty)
		cpu_load(l, c);
	return full;
}

/* A loss goes after the CPU's records stamped no later than it, before
 * the later ones: it is the CPU's next when its record is later. */
static bool cpu_loss(const struct cpu *c)
{
	return c->nlost && (!c->event || c->ts > c->lost[0].ts);
}

/* The time of the CPU's next record or loss; false when it has neither. */
static bool cpu_key(const struct cpu *c, uint64_t *ts)
{
	if (cpu_loss(c))
		*ts = c->lost[0].ts;
	else if (c->event)
		*ts = c->ts;
	else
		return false;
	return true;
}

long pages_read(struct pages *l, uint64_t now, int final,
		tracedat_record_fn fn, void *ctx, char *err, size_t errlen)
{
	uint64_t limit = UINT64_MAX;
	long n = 0;

	if (final)
		now = 0;

	l->more = 0;
	for (int i = 0; i < l->ncpus; i++) {
		struct cpu *c = &l->cpus[i];
		int r;

		if (c->fd < 0)
			continue;
		/* Taken before the read: whatever the CPU writes after we
		 * find it empty is stamped later than this. The latest look
		 * (the CPU's own, right before its read, or an earlier
		 * CPU's) is the nearest such time. */
		if (l->look) {
			uint64_t t = l->look(l->look_ctx, i);

			if (t > now)
				now = t;
		}
		c->watermark = now;
		r = cpu_drain(l, c, final ? 0 : l->per_call, err, errlen);
		if (r < 0)
			return -1;
		c->drained = r == 0;
		if (r > 0) {
			/* Not found empty: what it has beyond the last page
			 * read is unknown, so the merge goes no further than
			 * that page's start (its header's timestamp, no
			 * later than any event on it). */
			uint64_t start;

			memcpy(&start, c->tail->data, sizeof(start));
			if (start < c->watermark)
				c->watermark = start;
			l->more = 1;
		}
		if (!final && c->watermark < limit)
			limit = c->watermark;
	}
	merge_clear(&l->heap);
	for (int i = 0; i < l->ncpus; i++) {
		uint64_t ts;

		if (cpu_key(&l->cpus[i], &ts))
			merge_add(&l->heap, i, ts);
	}
	for (;;) {
		struct cpu *best;
		uint64_t best_ts, next_ts = 0;
		int cpu;
		bool more;

		/* the earliest record or loss of all (on a tie the lowest
		 * CPU's), as far as the merge may go */
		if (!merge_top(&l->heap, &cpu, &best_ts) || best_ts > limit)
			break;
		best = &l->cpus[cpu];
		if (cpu_loss(best)) {
			int64_t count = best->lost[0].count;

			best->nlost--;
			memmove(best->lost, best->lost + 1, (size_t)best->nlost * sizeof(*best->lost));
			more = cpu_key(best, &next_ts);
			merge_next(&l->heap, more, next_ts);
			if (fn(ctx, NULL, 0, cpu, best_ts, count))
				return -2;
			continue;
		}
		if (fn(ctx, best->event, kbuffer_event_size(best->kbuf), cpu,
		       best->ts, best->missed))
			return -2;
		n++;
		cpu_next(l, best);
		more = cpu_key(best, &next_ts);
		merge_next(&l->heap, more, next_ts);
		/* The CPU's next record, or its loss waiting with no record
		 * before it (the CPU found empty), says events were lost
		 * after this one: the gap is told before the other CPUs'
		 * records in it. */
		if (best->event ? best->missed || (best->nlost && best->ts > best->lost[0].ts) :
		    best->nlost && best->drained)
			if (fn(ctx, NULL, 0, cpu, best_ts, TRACEDAT_GAP))
				return -2;
	}
	return n;
}

/* Two losses with no record between them are one. */
static void lost_join(int64_t *have, int64_t count)
{
	*have = *have < 0 || count < 0 ? -1 : *have + count;
}

int pages_lost(struct pages *l, int cpu, uint64_t ts, int64_t count)
{
	struct cpu *c;

	if (!l || cpu < 0 || cpu >= l->ncpus || !count)
		return -1;
	c = &l->cpus[cpu];
	if (c->nlost && ts <= c->lost[c->nlost - 1].ts) {
		lost_join(&c->lost[c->nlost - 1].count, count);
		return 0;
	}
	if (c->nlost == c->lost_cap) {
		/* Losses wait while the merge cannot reach their time (a CPU
		 * read to its limit holds it back, read after read). */
		int cap = c->lost_cap ? 2 * c->lost_cap : 4;
		struct lost_at *more = realloc(c->lost, (size_t)cap * sizeof(*more));

		if (!more) {
			/* Out of memory: the count is kept, its place is the
			 * later one. */
			if (!c->nlost)
				return -1;
			lost_join(&c->lost[c->nlost - 1].count, count);
			c->lost[c->nlost - 1].ts = ts;
			return 0;
		}
		c->lost = more;
		c->lost_cap = cap;
	}
	c->lost[c->nlost].ts = ts;
	c->lost[c->nlost].count = count;
	c->nlost++;
	return 0;
}

void pages_set_look(struct pages *l, pages_look_fn *fn, void *ctx)
{
	l->look = fn;
	l->look_ctx = ctx;
}

int pages_per_call(int ncpus, size_t subbuf)
{
	size_t bytes = READ_BYTES_IN_ALL / (size_t)(ncpus > 0 ? ncpus : 1), n;

	if (bytes > READ_BYTES_PER_CPU)
		bytes = READ_BYTES_PER_CPU;
	n = bytes / (subbuf ? subbuf : 1);
	return n < READ_PAGES_MIN ? READ_PAGES_MIN : (int)n;
}

struct pages *pages_new(struct tep_handle *tep, int ncpus, size_t subbuf)
{
	struct pages *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->tep = tep;
	l->ncpus = ncpus;
	l->subbuf = subbuf;
	l->per_call = pages_per_call(ncpus, subbuf);
	l->cpus = calloc((size_t)ncpus, sizeof(*l->cpus));
	if (!l->cpus || merge_init(&l->heap, (size_t)ncpus)) {
		free(l->cpus);
		free(l);
		return NULL;
	}
	for (int i = 0; i < ncpus; i++)
		l->cpus[i].fd = -1;
	return l;
}

int pages_add_cpu(struct pages *l, int cpu, int fd)
{
	struct cpu *c;

	if (cpu < 0 || cpu >= l->ncpus) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	c = &l->cpus[cpu];
	c->kbuf = tep_kbuffer(l->tep);
	if (!c->kbuf) {
		close(fd);
		return -1;
	}
	c->fd = fd;
	return 0;
}

int pages_fd(const struct pages *l, int cpu)
{
	return l && cpu >= 0 && cpu < l->ncpus ? l->cpus[cpu].fd : -1;
}

int pages_absent(const struct pages *l, int cpu)
{
	return l && cpu >= 0 && cpu < l->ncpus && l->cpus[cpu].absent;
}

int pages_more(const struct pages *l)
{
	return l && l->more;
}

const unsigned char *pages_current(const struct pages *l, int cpu, size_t *len)
{
	const struct cpu *c = &l->cpus[cpu];

	if (!c->event || !c->head)
		return NULL;
	*len = l->subbuf;
	return c->head->data;
}

void pages_free(struct pages *l)
{
	struct page *p;

	if (!l)
		return;
	for (int i = 0; i < l->ncpus; i++) {
		struct cpu *c = &l->cpus[i];

		if (c->fd >= 0)
			close(c->fd);
		kbuffer_free(c->kbuf);
		free(c->lost);
		while ((p = c->head)) {
			c->head = p->next;
			free(p);
		}
	}
	while ((p = l->free_pages)) {
		l->free_pages = p->next;
		free(p);
	}
	merge_free(&l->heap);
	free(l->cpus);
	free(l);
}
