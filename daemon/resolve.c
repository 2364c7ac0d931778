/* resolve.c — see resolve.h.
 *
 * Layout: pids index a two-level table (chunks of 1024 entries allocated on
 * first use, so memory follows the pids actually seen). Each entry has the
 * row id of its current interval and the cached name, zero-padded to the
 * comm width so the unchanged-name path is one bounded compare. */
#include "resolve.h"
#include "grow.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_SHIFT RESOLVE_CHUNK_SHIFT
#define CHUNK_SIZE (1u << CHUNK_SHIFT)
#define CLONE_THREAD_FLAG 0x00010000ULL

enum { E_UNKNOWN = 0, E_ALIVE = RESOLVE_ALIVE, E_DEAD };

/* resolve_entry.pending: the next event that names the pid takes the
 * slow path, after a task_rename (to see the new name confirmed or a late
 * old one) or a saved_cmdlines seed (to see the trace confirm it).
 * PENDING_DEFERRED: a pid nothing has shown, with a saved_cmdlines name
 * waiting in its cache slot (resolve_seed). The kernel's cache holds
 * thousands of pids, nearly all dead: a name becomes a row only when an
 * event of the pid that carries no name of it comes (hid_slow), from that
 * event on. An event naming the pid, or its birth, makes the waiting name
 * moot: it is dropped. Every other lookup sees an unknown pid. */
enum { PENDING_NONE = 0, PENDING_RENAME, PENDING_SNAPSHOT, PENDING_DEFERRED,
       PENDING_PROC };

/* The kernel emits task_rename before it copies the new name: an event
 * in between (an interrupt on that CPU, a wakeup from another) still
 * carries the old one. Such a late old name within RESOLVE_LATE_RENAME_NS
 * of the rename moves the boundary instead of counting as two more
 * renames. */


struct resolve {
	struct resolve_hot hot;	/* first: the inline hot paths read it */
	unsigned width_shift;	/* width == 1 << width_shift */
	struct resolve_entry bad;	/* every negative pid (corrupt input) */
	char *bad_comm;

	/* rows (in hot): rows[0] unused, ids start at 1 */
	uint32_t nrows, rows_cap;
	uint32_t *dirty;
	size_t ndirty, dirty_cap;

	char *names;		/* interned comms, width bytes each, id 1.. */
	uint8_t *name_len;
	uint32_t nnames, names_cap, lens_cap;
	uint32_t *slots;	/* open addressing: comm id or 0 */
	uint32_t nslots;

	uint32_t *idle;		/* per-CPU idle row */
	uint64_t updates;

	int32_t (*pre)[2];	/* resolve_note_tgid: (pid, tgid), sorted
				 * by pid when pre_sorted */
	size_t npre, pre_cap;
	bool pre_sorted;

	uint64_t deferred_ts;	/* the waiting saved_cmdlines names' time */
	bool deferring;		/* some were deferred at deferred_ts */
	uint64_t snapshot_end;	/* the /proc snapshot read before (resolve_snapshot_end) */
};

static uint32_t hash_bytes(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

/* grow_array for the tables whose sizes are 32-bit. */
static bool grow(void *p, uint32_t *cap, size_t elem, uint32_t need)
{
	size_t c = *cap;

	if (need <= *cap)
		return true;
	if (need > UINT32_MAX / 2 || grow_array(p, &c, elem, need, 0))
		return false;
	*cap = (uint32_t)c;
	return true;
}

static bool rehash(struct resolve *r, uint32_t nslots)
{
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return false;
	for (uint32_t id = 1; id <= r->nnames; id++) {
		const char *s = r->names + (size_t)id * r->hot.width;
		uint32_t i = hash_bytes(s, r->name_len[id]) & (nslots - 1);

		while (slots[i])
			i = (i + 1) & (nslots - 1);
		slots[i] = id;
	}
	free(r->slots);
	r->slots = slots;
	r->nslots = nslots;
	return true;
}

/* Interns a name (already cut to width - 1). 0 on allocation failure. */
static uint32_t intern(struct resolve *r, const char *s, size_t len)
{
	uint32_t i, id;

	if ((r->nnames + 1) * 2 > r->nslots && !rehash(r, r->nslots ? r->nslots * 2 : 256))
		return 0;
	i = hash_bytes(s, len) & (r->nslots - 1);
	while ((id = r->slots[i])) {
		if (r->name_len[id] == len &&
		    !memcmp(r->names + (size_t)id * r->hot.width, s, len))
			return id;
		i = (i + 1) & (r->nslots - 1);
	}
	if (!grow(&r->name_len, &r->lens_cap, 1, r->nnames + 2) ||
	    !grow(&r->names, &r->names_cap, r->hot.width, r->nnames + 2))
		return 0;
	id = ++r->nnames;
	memset(r->names + (size_t)id * r->hot.width, 0, r->hot.width);
	memcpy(r->names + (size_t)id * r->hot.width, s, len);
	r->name_len[id] = (uint8_t)len;
	r->slots[i] = id;
	return id;
}

struct resolve *resolve_new(size_t comm_width)
{
	struct resolve *r;

	if (comm_width < 2 || comm_width > 255) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	/* A power of two of at least 8: whole-word compares, and an entry's
	 * name is found with a shift. */
	r->hot.width = 8;
	r->width_shift = 3;
	while (r->hot.width < comm_width) {
		r->hot.width <<= 1;
		r->width_shift++;
	}
	r->hot.late_pid = -1;
	r->bad_comm = calloc(1, r->hot.width);
	r->idle = calloc(RESOLVE_MAX_CPUS, sizeof(*r->idle));
	if (!r->bad_comm || !r->idle || !rehash(r, 256)) {
		resolve_free(r);
		return NULL;
	}
	return r;
}

void resolve_free(struct resolve *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->hot.nchunks; i++)
		free(r->hot.chunks[i]);
	free(r->hot.chunks);
	free(r->bad_comm);
	free(r->hot.rows);
	free(r->dirty);
	free(r->names);
	free(r->name_len);
	free(r->slots);
	free(r->idle);
	free(r->pre);
	free(r);
}

/* The entry of a pid and where its cached name lives. */
static __attribute__((noinline)) struct resolve_entry *
entry_slow(struct resolve *r, int32_t pid, char **comm)
{
	size_t c, off;

	if (pid < 0) {
		*comm = r->bad_comm;
		return &r->bad;
	}
	c = (uint32_t)pid >> CHUNK_SHIFT;
	off = (uint32_t)pid & (CHUNK_SIZE - 1);
	if (c >= r->hot.nchunks &&
	    grow_array(&r->hot.chunks, &r->hot.nchunks, sizeof(*r->hot.chunks),
		       (size_t)c + 1, 1))
		return NULL;
	if (!r->hot.chunks[c]) {
		r->hot.chunks[c] = calloc(1, sizeof(struct resolve_chunk) + CHUNK_SIZE * r->hot.width);
		if (!r->hot.chunks[c])
			return NULL;
	}
	*comm = r->hot.chunks[c]->comm + off * r->hot.width;
	return &r->hot.chunks[c]->e[off];
}

/* The entry of a pid: one shift, one mask, two loads when its chunk
 * exists (negative pids land in the slow path through the cast). */
static inline struct resolve_entry *entry(struct resolve *r, int32_t pid, char **comm)
{
	uint32_t c = (uint32_t)pid >> CHUNK_SHIFT, off;
	struct resolve_chunk *ch;

	if (__builtin_expect(c < r->hot.nchunks && (ch = r->hot.chunks[c]) != NULL, 1)) {
		off = (uint32_t)pid & (CHUNK_SIZE - 1);
		*comm = ch->comm + off * r->hot.width;
		return &ch->e[off];
	}
	return entry_slow(r, pid, comm);
}

/* Is the cached (zero-padded, width bytes) name the same as comm? When
 * the field is a fixed array of the cache's width (char[16] in every
 * sched event today) the kernel padded it with zeros too, so the test is
 * a few word compares; otherwise bytes and the terminator. No libc call:
 * this runs for every name of every event. */
static inline bool same_name(const struct resolve *r, const char *cached,
			     const char *comm, size_t len, size_t field_size)
{
	uint64_t a, b, c, d;

	if (field_size == 16 && r->hot.width == 16) {
		memcpy(&a, cached, 8);
		memcpy(&b, comm, 8);
		memcpy(&c, cached + 8, 8);
		memcpy(&d, comm + 8, 8);
		if (((a ^ b) | (c ^ d)) == 0)
			return true;
	} else if (field_size == r->hot.width) {
		uint64_t diff = 0;

		for (size_t i = 0; i < r->hot.width; i += 8) {
			memcpy(&a, cached + i, 8);
			memcpy(&b, comm + i, 8);
			diff |= a ^ b;
		}
		if (!diff)
			return true;
	}
	/* A dynamic string, or garbage after the NUL of a fixed one: the
	 * cache must end at len, and the len bytes match. Overlapping loads
	 * cover them without reading past comm's end. */
	if (len >= r->hot.width || cached[len] != '\0')
		return false;
	if (len >= 8) {
		size_t i;

		for (i = 0; i + 8 <= len; i += 8) {
			memcpy(&a, cached + i, 8);
			memcpy(&b, comm + i, 8);
			if (a != b)
				return false;
		}
		memcpy(&a, cached + len - 8, 8);
		memcpy(&b, comm + len - 8, 8);
		return a == b;
	}
	if (len >= 4) {
		uint32_t w, x, y, z;

		memcpy(&w, cached, 4);
		memcpy(&x, comm, 4);
		memcpy(&y, cached + len - 4, 4);
		memcpy(&z, comm + len - 4, 4);
		return ((w ^ x) | (y ^ z)) == 0;
	}
	for (size_t i = 0; i < len; i++)
		if (cached[i] != comm[i])
			return false;
	return true;
}

static void mark_dirty(struct resolve *r, uint32_t hid)
{
	struct resolve_row *row = &r->hot.rows[hid];

	if (row->dirty)
		return;
	if (grow_array(&r->dirty, &r->dirty_cap, sizeof(*r->dirty), r->ndirty + 1, 0))
		return;	/* out of memory: the row is not rewritten */
	row->dirty = 1;
	r->dirty[r->ndirty++] = hid;
}

static uint32_t new_row(struct resolve *r, int32_t pid, int32_t tgid,
			uint32_t comm_id, enum resolve_source src, uint64_t ts)
{
	struct resolve_row *row;
	uint32_t hid;

	if (!grow(&r->hot.rows, &r->rows_cap, sizeof(*r->hot.rows), r->nrows + 2))
		return 0;
	hid = ++r->nrows;
	row = &r->hot.rows[hid];
	memset(row, 0, sizeof(*row));
	row->pid = pid;
	row->tgid = tgid;
	row->comm_id = comm_id;
	row->source = comm_id ? (uint8_t)src : RESOLVE_SRC_NONE;
	row->start_ts = ts;
	row->end_ts = RESOLVE_OPEN;
	row->life = hid;
	mark_dirty(r, hid);
	return hid;
}

void resolve_note_tgid(struct resolve *r, int32_t pid, int32_t tgid)
{
	if (pid <= 0 || tgid <= 0 ||
	    grow_array(&r->pre, &r->pre_cap, sizeof(*r->pre), r->npre + 1, 0))
		return;
	r->pre[r->npre][0] = pid;
	r->pre[r->npre][1] = tgid;
	r->npre++;
	r->pre_sorted = false;
}

static int cmp_pre(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* The tgid a lifetime of pid that begins without a birth starts with:
 * the pre-tracing snapshot's, while pid was never seen before. */
static int32_t first_tgid(struct resolve *r, const struct resolve_entry *e,
			  int32_t pid)
{
	const int32_t (*hit)[2];

	if (e->state != E_UNKNOWN || !r->npre)
		return RESOLVE_TGID_UNKNOWN;
	if (!r->pre_sorted) {
		qsort(r->pre, r->npre, sizeof(*r->pre), cmp_pre);
		r->pre_sorted = true;
	}
	hit = bsearch(&pid, r->pre, r->npre, sizeof(*r->pre), cmp_pre);
	return hit ? (*hit)[1] : RESOLVE_TGID_UNKNOWN;
}

/* A lifetime of pid that begins without a birth, at ts (e its slot, not
 * alive): its first row; `first` when pid was never seen before. */
static uint32_t new_life(struct resolve *r, const struct resolve_entry *e, int32_t pid,
			 uint32_t comm_id, enum resolve_source src, uint64_t ts)
{
	uint32_t hid = new_row(r, pid, first_tgid(r, e, pid), comm_id, src, ts);

	if (hid)
		r->hot.rows[hid].first = e->state == E_UNKNOWN;
	return hid;
}

static void end_row(struct resolve *r, uint32_t hid, uint64_t ts)
{
	struct resolve_row *row = &r->hot.rows[hid];

	if (row->end_ts != RESOLVE_OPEN)
		return;
	row->end_ts = ts < row->start_ts ? row->start_ts : ts;
	mark_dirty(r, hid);
}

/* e's task (pid) takes a new name (id; 0: one not known yet) at ts in
 * the same lifetime: its row ends there and the next begins. Returns the
 * new row (0: no room; e keeps none then). */
static uint32_t next_row(struct resolve *r, struct resolve_entry *e, int32_t pid,
			 uint32_t id, enum resolve_source src, uint64_t ts)
{
	const struct resolve_row old = r->hot.rows[e->hid];
	uint32_t hid;

	end_row(r, e->hid, ts);
	hid = new_row(r, pid, old.tgid, id, src, ts);
	if (hid) {
		r->hot.rows[hid].life = old.life;
		r->hot.rows[hid].parent = old.parent;
		r->hot.rows[hid].prev = e->hid;
	}
	r->updates++;
	return hid;
}

/* e's rename (prev_hid to hid) moves to ts + 1: the event at ts still
 * showed, or came inside what showed, the old name. That event's row is
 * the old one (resolve_hid, next), and the rows stored since the rename
 * are moved back (resolve_take_moved). */
static void move_rename(struct resolve *r, struct resolve_entry *e, int32_t pid,
			uint64_t ts)
{
	r->hot.rows[e->prev_hid].end_ts = ts + 1;
	r->hot.rows[e->hid].start_ts = ts + 1;
	mark_dirty(r, e->prev_hid);
	mark_dirty(r, e->hid);
	r->hot.late_pid = pid;
	r->hot.late_hid = e->prev_hid;
	r->hot.moved_pid = pid;
}

static uint32_t idle_row(struct resolve *r, int cpu, uint64_t ts)
{
	if (cpu < 0 || cpu >= RESOLVE_MAX_CPUS)
		cpu = RESOLVE_MAX_CPUS - 1;
	if (!r->idle[cpu])
		r->idle[cpu] = new_row(r, 0, 0, 0, RESOLVE_SRC_NONE, ts);
	return r->idle[cpu];
}

static size_t cut(const struct resolve *r, size_t len)
{
	return len < r->hot.width ? (len < 255 ? len : 254) : r->hot.width - 1;
}

static uint32_t name_slow(struct resolve *r, int32_t pid, int cpu,
			  const char *comm, size_t len, size_t field_size,
			  uint64_t ts, enum resolve_source src);

uint32_t resolve_name(struct resolve *r, int32_t pid, int cpu,
		      const char *comm, size_t len, uint64_t ts,
		      enum resolve_source src)
{
	return resolve_name_field(r, pid, cpu, comm, len, 0, ts, src);
}

/* Not the hottest path: another width, a dynamic string, the idle task. */
static __attribute__((noinline)) uint32_t
name_mid(struct resolve *r, int32_t pid, int cpu, const char *comm, size_t len,
	 size_t field_size, uint64_t ts, enum resolve_source src)
{
	uint32_t c = (uint32_t)pid >> CHUNK_SHIFT, off, id;
	struct resolve_chunk *ch;

	if (pid > 0 && c < r->hot.nchunks && (ch = r->hot.chunks[c])) {
		off = (uint32_t)pid & (CHUNK_SIZE - 1);
		if (ch->e[off].comm_id && !ch->e[off].pending &&
		    same_name(r, ch->comm + ((size_t)off << r->width_shift), comm,
			      len, field_size)) {
#ifdef RESOLVE_ALWAYS_COPY
			memset(ch->comm + ((size_t)off << r->width_shift), 0, r->hot.width);
			memcpy(ch->comm + ((size_t)off << r->width_shift), comm,
			       len < r->hot.width ? len : r->hot.width - 1);
#endif
			return ch->e[off].comm_id;
		}
	} else if (pid == 0 && (unsigned)cpu < RESOLVE_MAX_CPUS && r->idle[cpu]) {
		/* Switches to and from idle are half of all switches. */
		id = r->hot.rows[r->idle[cpu]].comm_id;
		if (id && same_name(r, r->names + ((size_t)id << r->width_shift),
				    comm, len, field_size))
			return id;
	}
	return name_slow(r, pid, cpu, comm, len, field_size, ts, src);
}

/* The hot path, small enough to need no stack frame: a pid whose chunk
 * exists, alive, named, not mid-rename, and a char[16] field compared with
 * two word loads against the zero-padded cache. */
uint32_t resolve_name_field(struct resolve *r, int32_t pid, int cpu,
			    const char *comm, size_t len, size_t field_size,
			    uint64_t ts, enum resolve_source src)
{
	uint32_t c = (uint32_t)pid >> CHUNK_SHIFT, off;
	const struct resolve_entry *e;
	const char *cached;
	struct resolve_chunk *ch;
	uint64_t a, b, x, y;

	if (__builtin_expect(r->hot.width == 16 && pid > 0 && c < r->hot.nchunks &&
			     (ch = r->hot.chunks[c]) != NULL, 1)) {
		off = (uint32_t)pid & (CHUNK_SIZE - 1);
		e = &ch->e[off];
		cached = ch->comm + ((size_t)off << 4);
		if (field_size == 16) {
			memcpy(&a, cached, 8);
			memcpy(&b, comm, 8);
			memcpy(&x, cached + 8, 8);
			memcpy(&y, comm + 8, 8);
		} else if (field_size == RESOLVE_NUL_TERMINATED && len >= 7 && len < 16) {
			/* comm[0..len] with its NUL: two overlapping loads
			 * cover it, and the cache's padding must match too. */
			memcpy(&a, cached, 8);
			memcpy(&b, comm, 8);
			memcpy(&x, cached + len - 7, 8);
			memcpy(&y, comm + len - 7, 8);
		} else {
			goto mid;
		}
		if (e->comm_id && !e->pending && ((a ^ b) | (x ^ y)) == 0) {
#ifdef RESOLVE_ALWAYS_COPY
			/* bench/ only: the cost of copying whether or not it
			 * changed. */
			memcpy(ch->comm + ((size_t)off << 4), comm, 16);
#endif
			return e->comm_id;
		}
	}
mid:
	return name_mid(r, pid, cpu, comm, len, field_size, ts, src);
}

/* Whether comm (len bytes) is, byte by byte, either the old name's or
 * the new one's (both zero-padded to the cache's width): what a reader
 * on another CPU sees while __set_task_comm copies a new name over the
 * old (it takes no lock: "1" read of "\\" becoming "123456789012345",
 * the first byte copied and the old name's NUL after it). */
static bool torn_between(const struct resolve *r, const char *old, const char *cur,
			 const char *comm, size_t len)
{
	for (size_t i = 0; i < r->hot.width; i++) {
		char c = i < len ? comm[i] : 0;

		if (c != old[i] && c != cur[i])
			return false;
	}
	return true;
}

static __attribute__((noinline)) uint32_t
name_slow(struct resolve *r, int32_t pid, int cpu, const char *comm, size_t len,
	  size_t field_size, uint64_t ts, enum resolve_source src)
{
	struct resolve_entry *e;
	char *cached;
	uint32_t id;

	len = cut(r, len);
	if (pid == 0) {
		uint32_t hid = idle_row(r, cpu, ts);

		/* Switches to and from idle are half of all switches: the
		 * idle row's name is compared before anything is hashed. */
		if (hid && (id = r->hot.rows[hid].comm_id) &&
		    same_name(r, r->names + (size_t)id * r->hot.width, comm, len, field_size))
			return id;
		id = intern(r, comm, len);
		if (hid && !r->hot.rows[hid].comm_id && id) {
			r->hot.rows[hid].comm_id = id;
			r->hot.rows[hid].source = (uint8_t)src;
			mark_dirty(r, hid);
		}
		return id;
	}
	e = entry(r, pid, &cached);
	if (!e)
		return 0;
	if (e->pending == PENDING_DEFERRED) {
		/* The trace's own name: the waiting one is moot. */
		e->pending = PENDING_NONE;
		memset(cached, 0, r->hot.width);
	}
	/* The hot path: same lifetime, same name. The cached bytes are
	 * zero-padded, so a name of len bytes matches when its bytes match
	 * and the cache ends right there. */
	if (e->comm_id && same_name(r, cached, comm, len, field_size)) {
		if (e->pending == PENDING_SNAPSHOT &&
		    r->hot.rows[e->hid].source == RESOLVE_SRC_SAVED_CMDLINES &&
		    src != RESOLVE_SRC_SAVED_CMDLINES) {
			/* The trace names the task as the kernel's cache
			 * did: a task, not just a cached name. */
			r->hot.rows[e->hid].source = (uint8_t)src;
			mark_dirty(r, e->hid);
		}
		e->pending = 0;		/* the rename is confirmed */
		return e->comm_id;
	}
	if (e->pending == PENDING_PROC) {
		struct resolve_row *row = &r->hot.rows[e->hid];

		e->pending = 0;
		/* The name /proc gave at the start, and this is the task's
		 * first event since: /proc was read after tracing began, up
		 * to snapshot_end, so the name read may be one the task took
		 * after this event (its rename traced after it). Here is the
		 * name the task had from the start: the snapshot's row takes
		 * it, events already stored under that row with it. */
		if (e->state == E_ALIVE && e->comm_id && row->source == RESOLVE_SRC_PROC &&
		    ts < r->snapshot_end && (id = intern(r, comm, len))) {
			row->comm_id = id;
			row->source = (uint8_t)src;
			mark_dirty(r, e->hid);
			e->comm_id = id;
			memset(cached, 0, r->hot.width);
			memcpy(cached, comm, len);
			return id;
		}
	}
	if (e->pending == PENDING_RENAME && e->state == E_ALIVE) {
		struct resolve_row *old = &r->hot.rows[e->prev_hid], *cur = &r->hot.rows[e->hid];

		e->pending = 0;
		if (old->comm_id && ts + 1 >= cur->start_ts &&
		    ts < cur->start_ts + RESOLVE_LATE_RENAME_NS &&
		    same_name(r, r->names + (size_t)old->comm_id * r->hot.width, comm,
			      len, field_size)) {
			move_rename(r, e, pid, ts);
			e->pending = PENDING_RENAME;	/* more late events may follow */
			return old->comm_id;
		}
		if (old->comm_id && ts + 1 >= cur->start_ts &&
		    ts < cur->start_ts + RESOLVE_LATE_RENAME_NS)
			e->pending = PENDING_RENAME;	/* (for the torn read below) */
	}
	/* Read while the kernel copied the name a traced rename gave (on
	 * another CPU, within a microsecond of it): bytes of the old name
	 * and of the new. Not a name the task had: the rename's, which
	 * holds from the rename on (a new row there split its slice under
	 * a name nobody set). */
	if (e->pending == PENDING_RENAME && e->state == E_ALIVE && e->comm_id) {
		const struct resolve_row *old = &r->hot.rows[e->prev_hid];

		if (old->comm_id &&
		    torn_between(r, r->names + (size_t)old->comm_id * r->hot.width, cached,
				 comm, len))
			return e->comm_id;
		e->pending = 0;
	}

	id = intern(r, comm, len);
	if (!id)
		return 0;
	if (e->state != E_ALIVE) {
		e->hid = new_life(r, e, pid, id, src, ts);
		e->state = E_ALIVE;
		e->fresh = 0;
		e->exited = 0;
	} else if (!e->comm_id) {
		/* The lifetime's first name names it from its start. */
		struct resolve_row *row = &r->hot.rows[e->hid];

		row->comm_id = id;
		row->source = (uint8_t)src;
		mark_dirty(r, e->hid);
	} else {
		e->hid = next_row(r, e, pid, id, src, ts);	/* a new name */
	}
	e->comm_id = id;
	memset(cached, 0, r->hot.width);
	memcpy(cached, comm, len);
	return id;
}

int resolve_late_again(struct resolve *r, int32_t pid, uint64_t ts)
{
	struct resolve_entry *e;
	struct resolve_row *old, *cur;
	char *cached;

	if (pid <= 0 || !(e = entry(r, pid, &cached)) || e->state != E_ALIVE ||
	    e->pending != PENDING_RENAME || !e->prev_hid || !e->hid)
		return 0;
	old = &r->hot.rows[e->prev_hid];
	cur = &r->hot.rows[e->hid];
	if (old->end_ts != cur->start_ts || ts + 1 < cur->start_ts ||
	    ts >= cur->start_ts + RESOLVE_LATE_RENAME_NS)
		return 0;
	move_rename(r, e, pid, ts);
	return 1;
}

void resolve_unnamed_from(struct resolve *r, int32_t pid, uint64_t ts)
{
	struct resolve_entry *e;
	char *cached;
	uint32_t hid;

	if (pid <= 0 || !(e = entry(r, pid, &cached)) || e->state != E_ALIVE ||
	    !e->comm_id || !e->hid)
		return;
	if (r->hot.rows[e->hid].start_ts >= ts) {
		/* (the row began here: it is the name that is unknown) */
		r->hot.rows[e->hid].comm_id = 0;
		mark_dirty(r, e->hid);
	} else {
		if (!(hid = next_row(r, e, pid, 0, RESOLVE_SRC_EXEC, ts)))
			return;
		e->hid = hid;
	}
	e->comm_id = 0;
	e->pending = 0;
	memset(cached, 0, r->hot.width);
}

uint32_t resolve_intern(struct resolve *r, const char *comm, size_t len)
{
	return intern(r, comm, cut(r, len));
}

int resolve_named_as(struct resolve *r, int32_t pid, const char *comm, size_t len,
		     size_t field_size)
{
	struct resolve_entry *e;
	char *cached;
	size_t n;

	if (pid <= 0 || !(e = entry(r, pid, &cached)) || e->state != E_ALIVE ||
	    !e->comm_id)
		return -1;
	if (same_name(r, cached, comm, cut(r, len), field_size))
		return 1;
	/* the field cut a longer name the cache holds (a cache of wider
	 * names: task names longer than 15 bytes elsewhere) */
	n = cut(r, len);
	return field_size && field_size != RESOLVE_NUL_TERMINATED && n + 1 >= field_size &&
	       n < r->hot.width && cached[n] != '\0' && !memcmp(cached, comm, n);
}

int resolve_is_named(struct resolve *r, int32_t pid)
{
	struct resolve_entry *e;
	char *cached;

	if (pid == 0)
		return 1;
	e = entry(r, pid, &cached);
	return e && e->state == E_ALIVE && e->comm_id;
}

uint32_t resolve_named_hid(struct resolve *r, int32_t pid)
{
	struct resolve_entry *e;
	char *cached;

	if (pid <= 0)
		return 0;
	e = entry(r, pid, &cached);
	return e && e->state == E_ALIVE && e->comm_id ? e->hid : 0;
}

static uint32_t hid_slow(struct resolve *r, int32_t pid, int cpu, uint64_t ts);
static void undefer(struct resolve *r, int32_t pid, struct resolve_entry *e,
		    char *cached, uint64_t ts);

uint32_t resolve_hid(struct resolve *r, int32_t pid, int cpu, uint64_t ts)
{
	uint32_t c = (uint32_t)pid >> CHUNK_SHIFT, hid;
	struct resolve_entry *e;
	struct resolve_chunk *ch;

	if (__builtin_expect(r->hot.late_pid >= 0, 0)) {
		/* This event's own fields showed its pid's pre-rename name. */
		int32_t late = r->hot.late_pid;

		r->hot.late_pid = -1;
		if (late == pid) {
			return r->hot.late_hid;	/* named: not counted */
		}
	}
	if (__builtin_expect(pid > 0 && c < r->hot.nchunks && (ch = r->hot.chunks[c]), 1)) {
		e = &ch->e[(uint32_t)pid & (CHUNK_SIZE - 1)];
		if (e->state == E_ALIVE) {
			e->fresh = 0;
			hid = e->hid;
			/* Only events of a still unnamed row need counting:
			 * a named row never becomes unnamed. */
			if (__builtin_expect(!e->comm_id, 0))
				r->hot.rows[hid].events++;
			return hid;
		}
	} else if (pid == 0 && (unsigned)cpu < RESOLVE_MAX_CPUS && r->idle[cpu]) {
		return r->idle[cpu];	/* named swapper/N at the latest */
	}
	return hid_slow(r, pid, cpu, ts);
}

static __attribute__((noinline)) uint32_t
hid_slow(struct resolve *r, int32_t pid, int cpu, uint64_t ts)
{
	struct resolve_entry *e;
	char *cached;
	uint32_t hid;

	if (pid == 0) {
		hid = idle_row(r, cpu, ts);
	} else {
		e = entry(r, pid, &cached);
		if (!e)
			return 0;
		if (__builtin_expect(e->pending == PENDING_DEFERRED, 0))
			undefer(r, pid, e, cached, ts);
		if (e->state != E_ALIVE) {
			e->hid = new_life(r, e, pid, 0, RESOLVE_SRC_NONE, ts);
			e->comm_id = 0;
			e->state = E_ALIVE;
			e->exited = 0;
			memset(cached, 0, r->hot.width);
		}
		e->fresh = 0;
		hid = e->hid;
	}
	if (hid && !r->hot.rows[hid].comm_id)
		r->hot.rows[hid].events++;
	return hid;
}

/* How far before its birth a task's first event may be stamped: the
 * "local" trace clock is each CPU's own and not kept in step, so a child
 * that runs at once on another CPU can show up stamped a little before
 * the task_newtask that made it, and is seen (and merged) first. */
#define BIRTH_SKEW_NS 1000000ull

/* The /proc snapshot is read just after tracing starts: a task in it may
 * have been born after the start, its birth traced and read after the
 * snapshot. Within this long after the snapshot's time a birth of a
 * snapshot's task that did not exit is that task's. */
#define SNAPSHOT_BIRTH_NS 5000000000ull

/* Whether pid's current lifetime is the child of a birth at ts, seen
 * first: through a CPU whose clock runs behind (it began no earlier than
 * BIRTH_SKEW_NS before ts), or in the /proc snapshot taken after tracing
 * started (SNAPSHOT_BIRTH_NS); no birth began it and it has not exited. Then the
 * birth's facts go to its rows instead of a lifetime of their own. */
static int adopt_birth(struct resolve *r, struct resolve_entry *e,
		       int32_t tgid, int32_t parent, uint64_t ts)
{
	struct resolve_row *cur = &r->hot.rows[e->hid];
	uint32_t life = cur->life;
	struct resolve_row *first = &r->hot.rows[life];

	/* A saved_cmdlines name the trace never confirmed, alone in the
	 * lifetime: a dead pid's. Just before a birth (an event of the new
	 * task stamped before it, undefer) the lifetime is the new task's,
	 * without that name; earlier it is the dead task's. */
	bool stale = first->source == RESOLVE_SRC_SAVED_CMDLINES &&
		     e->hid == life && e->pending == PENDING_SNAPSHOT;

	if (e->exited || first->born ||
	    (first->source == RESOLVE_SRC_SAVED_CMDLINES && !stale) ||
	    first->start_ts + (first->source == RESOLVE_SRC_PROC ? SNAPSHOT_BIRTH_NS
								  : BIRTH_SKEW_NS) < ts)
		return 0;
	if (stale) {
		first->comm_id = 0;
		first->source = RESOLVE_SRC_NONE;
		e->comm_id = 0;
		e->pending = PENDING_NONE;
	}
	for (uint32_t hid = life; hid <= e->hid; hid++) {
		struct resolve_row *row = &r->hot.rows[hid];

		if (row->pid != cur->pid || row->life != life)
			continue;
		if (tgid != RESOLVE_TGID_UNKNOWN && row->tgid == RESOLVE_TGID_UNKNOWN)
			row->tgid = tgid;
		if (parent > 0 && !row->parent)
			row->parent = parent;
		mark_dirty(r, hid);
	}
	first->born = 1;
	if (ts < first->start_ts)
		first->start_ts = ts;
	e->fresh = 1;
	return 1;
}

void resolve_birth(struct resolve *r, int32_t pid, int32_t parent,
		   uint64_t clone_flags, int flags_known, uint64_t ts,
		   enum resolve_source src)
{
	int32_t tgid = RESOLVE_TGID_UNKNOWN;
	struct resolve_entry *e, *pe;
	char *cached, *pc;

	(void)src;
	if (pid <= 0)
		return;
	if (flags_known) {
		tgid = pid;
		if (clone_flags & CLONE_THREAD_FLAG) {
			pe = parent > 0 ? entry(r, parent, &pc) : NULL;
			tgid = pe && pe->hid ? r->hot.rows[pe->hid].tgid
					     : RESOLVE_TGID_UNKNOWN;
		}
	}
	e = entry(r, pid, &cached);
	if (!e)
		return;
	if (e->state == E_ALIVE && e->fresh) {
		/* The second tracepoint of the same clone. */
		struct resolve_row *row = &r->hot.rows[e->hid];

		if (tgid != RESOLVE_TGID_UNKNOWN &&
		    row->tgid == RESOLVE_TGID_UNKNOWN) {
			row->tgid = tgid;
			mark_dirty(r, e->hid);
		}
		if (parent > 0 && !row->parent) {
			row->parent = parent;
			mark_dirty(r, e->hid);
		}
		return;
	}
	if (e->state == E_ALIVE && e->hid && adopt_birth(r, e, tgid, parent, ts))
		return;
	if (e->state == E_ALIVE)
		end_row(r, e->hid, ts);
	e->hid = new_row(r, pid, tgid, 0, RESOLVE_SRC_NONE, ts);
	if (e->hid) {
		r->hot.rows[e->hid].parent = parent > 0 ? parent : 0;
		r->hot.rows[e->hid].born = 1;
	}
	e->comm_id = 0;
	e->state = E_ALIVE;
	e->fresh = 1;
	e->pending = 0;
	e->exited = 0;
	memset(cached, 0, r->hot.width);
}

void resolve_exit(struct resolve *r, int32_t pid, uint64_t ts)
{
	struct resolve_entry *e;
	char *cached;

	/* (a lifetime begun under a pid gone, its row open: its own exit) */
	if (pid > 0 && (e = entry(r, pid, &cached)) && e->state == E_ALIVE &&
	    (!e->exited || (e->exited == RESOLVE_GONE && e->hid &&
			    r->hot.rows[e->hid].end_ts == RESOLVE_OPEN))) {
		e->exited = RESOLVE_EXITED;
		end_row(r, e->hid, ts);
	}
}

uint64_t resolve_exec_took(struct resolve *r, int32_t pid, int32_t old_pid)
{
	struct resolve_entry *e, *t;
	struct resolve_row *cur, *row;
	char *cached;
	uint32_t h, life;

	if (pid <= 0 || old_pid <= 0 || pid == old_pid ||
	    !(e = entry(r, pid, &cached)) || e->state != E_ALIVE || !e->hid ||
	    !(t = entry(r, old_pid, &cached)) || t->state != E_ALIVE || !t->comm_id)
		return 0;
	cur = &r->hot.rows[e->hid];
	life = cur->life;
	if (life == e->hid)
		return 0;	/* a lifetime began at the rename already */
	/* the row the rename's old name began: the current one's, or the
	 * one before it (the program's name) */
	for (h = e->hid; h && h != life; h = row->prev) {
		row = &r->hot.rows[h];
		if (row->comm_id == t->comm_id && row->prev &&
		    r->hot.rows[row->prev].comm_id != t->comm_id)
			break;
		if (h != e->hid)
			return 0;
	}
	if (!h || h == life)
		return 0;
	for (uint32_t k = h; k; k = k == e->hid ? 0 : k + 1) {
		row = &r->hot.rows[k];
		if (row->pid != pid || row->life != life)
			continue;
		row->life = h;
		row->parent = 0;
		mark_dirty(r, k);
	}
	r->hot.rows[h].prev = 0;
	return r->hot.rows[h].start_ts;
}

/* Whether tid's lifetime was cloned by leader, or by a task so cloned
 * (a few steps up): the lifetimes a thread of leader's process has when
 * the trace saw them all begin. */
static int cloned_by(struct resolve *r, int32_t tid, int32_t leader)
{
	const struct resolve_entry *e;
	int32_t q = tid;

	for (int i = 0; i < 8; i++) {
		/* (a task between that died and was freed: its row says) */
		if (!(e = resolve_slot(r, q)) || !e->hid)
			return 0;
		q = r->hot.rows[r->hot.rows[e->hid].life].parent;
		if (q == leader)
			return 1;
		if (q <= 0 || q == tid)
			return 0;
	}
	return 0;
}

int resolve_took_leader(struct resolve *r, int32_t tid, int32_t leader,
			int shown, int elsewhere)
{
	const struct resolve_entry *l = resolve_slot(r, leader),
				   *t = resolve_slot(r, tid);

	/* the thread that execs does not exit first (de_thread kills the
	 * others: one of them is not it) */
	if (tid == leader || !l || l->state != E_ALIVE || !l->exited ||
	    !t || t->exited || !resolve_same_process(r, tid, leader))
		return 0;
	/* a process not known (no task_newtask, no tgid recorded): a
	 * leader gone, dead switch-out and all, that shows again with no
	 * birth, by the task running here if this event shows the pid
	 * under its name or the leader cloned it (the task believed to run
	 * here may not: a switch in left out); one exited that runs on
	 * elsewhere, if this event shows the pid under tid's name */
	if (r->hot.rows[t->hid].tgid == leader)
		return 1;
	if (l->exited == RESOLVE_GONE)
		return shown || cloned_by(r, tid, leader);
	return shown && elsewhere;
}

/* pid's lifetime of the thread that took it begins at ts, unnamed. Its
 * parent is the leader's: a thread shares its leader's parent, and keeps
 * it through the exec (getppid() after it is the process's parent). */
static int took_life(struct resolve *r, struct resolve_entry *e, char *cached,
		     int32_t pid, uint64_t ts)
{
	int32_t tgid = r->hot.rows[e->hid].tgid;
	int32_t parent = r->hot.rows[e->hid].parent;

	e->hid = new_row(r, pid, tgid == RESOLVE_TGID_UNKNOWN ? pid : tgid, 0,
			 RESOLVE_SRC_NONE, ts);
	if (e->hid)
		r->hot.rows[e->hid].parent = parent;
	e->comm_id = 0;
	e->fresh = 0;
	e->pending = 0;
	/* exited stays until the exec (resolve_exec_leader): until then the
	 * pid is the exited leader's for resolve_took_leader */
	e->exited = e->exited ? e->exited : RESOLVE_EXITED;
	memset(cached, 0, r->hot.width);
	return e->hid != 0;
}

int resolve_took_pid(struct resolve *r, int32_t pid, uint64_t ts)
{
	struct resolve_entry *e;
	char *cached;

	if (pid <= 0 || !(e = entry(r, pid, &cached)) || e->state != E_ALIVE ||
	    !e->exited || !e->hid)
		return 0;
	if (r->hot.rows[e->hid].end_ts == RESOLVE_OPEN)
		return 0;	/* taken already */
	/* From the rename: the pids change hands in de_thread, just before
	 * it, but the leader may have exited long before (pthread_exit),
	 * and until the swap the thread ran under its own tid. */
	return took_life(r, e, cached, pid, ts);
}

/* pid's entry when its task was switched out dead and nothing has begun
 * a lifetime under the pid since (its row ended), else NULL. */
static struct resolve_entry *gone_ended(struct resolve *r, int32_t pid, char **cached)
{
	struct resolve_entry *e;

	if (pid <= 0 || !(e = entry(r, pid, cached)) || e->state != E_ALIVE ||
	    e->exited != RESOLVE_GONE || !e->hid ||
	    r->hot.rows[e->hid].end_ts == RESOLVE_OPEN)
		return NULL;
	return e;
}

int resolve_took_gone(struct resolve *r, int32_t pid)
{
	struct resolve_entry *e;
	char *cached;

	if (!(e = gone_ended(r, pid, &cached)))
		return 0;
	return took_life(r, e, cached, pid, r->hot.rows[e->hid].end_ts);
}

void resolve_reborn(struct resolve *r, int32_t pid)
{
	struct resolve_entry *e;
	char *cached;

	if (!(e = gone_ended(r, pid, &cached)))
		return;
	e->state = E_DEAD;
	e->comm_id = 0;		/* the hot path's "alive and named" */
	e->fresh = 0;
}

/* The same where the leader's exit was not seen (a CPU left out, or no
 * sched_process_exit recorded): its lifetime ends at ts. */
static int took_unseen(struct resolve *r, int32_t pid, uint64_t ts)
{
	struct resolve_entry *e;
	char *cached;

	if (pid <= 0 || !(e = entry(r, pid, &cached)) || e->state != E_ALIVE ||
	    e->exited || !e->hid)
		return 0;
	end_row(r, e->hid, ts);
	return took_life(r, e, cached, pid, ts);
}

/* pid's lifetime begun at ts is named as row `from` (the task's own
 * name, under the pid it had before the swap); its row. */
static uint32_t name_as(struct resolve *r, int32_t pid, uint64_t ts, uint32_t from)
{
	const char *comm;
	size_t len;
	uint32_t id;

	id = from && from <= r->nrows ? r->hot.rows[from].comm_id : 0;
	if (id && (comm = resolve_comm(r, id, &len)))
		resolve_name(r, pid, -1, comm, len, ts, RESOLVE_SRC_EXEC_SWAP);
	return resolve_hid(r, pid, -1, ts);	/* else named by its next name */
}

uint32_t resolve_took_from(struct resolve *r, int32_t pid, uint64_t ts,
			   int32_t tid, uint32_t from, int unseen)
{
	struct resolve_entry *t;
	char *cached;

	if (!resolve_took_pid(r, pid, ts) && !(unseen && took_unseen(r, pid, ts)))
		return 0;
	/* the tid is gone here (its exec's sched_process_exec, later, is
	 * only the bound the trace gives otherwise) */
	if (tid > 0 && (t = entry(r, tid, &cached)) && t->state == E_ALIVE && t->hid)
		end_row(r, t->hid, ts);
	return name_as(r, pid, ts, from);
}

int resolve_same_process(struct resolve *r, int32_t tid, int32_t leader)
{
	const struct resolve_entry *t = resolve_slot(r, tid);
	int32_t tgid;

	if (tid <= 0 || leader <= 0 || !t || t->state != E_ALIVE || !t->hid)
		return 0;
	tgid = r->hot.rows[t->hid].tgid;
	return tgid == leader || tgid == RESOLVE_TGID_UNKNOWN;
}

int resolve_gave_tid(struct resolve *r, int32_t leader, int32_t tid, int shown)
{
	const struct resolve_entry *l = resolve_slot(r, leader),
				   *t = resolve_slot(r, tid);

	if (leader == tid || !l || l->state != E_ALIVE ||
	    l->exited != RESOLVE_EXITED || !t || t->exited ||
	    !resolve_same_process(r, tid, leader))
		return 0;
	/* a process not known: only if the event shows tid under the
	 * leader's name (its switch-out, its runtime) */
	return r->hot.rows[t->hid].tgid == leader || shown;
}

uint32_t resolve_swap_tid(struct resolve *r, int32_t tid, uint64_t ts, uint32_t from)
{
	struct resolve_entry *e;
	char *cached;
	int32_t tgid;

	if (tid <= 0 || !(e = entry(r, tid, &cached)) || e->state != E_ALIVE ||
	    e->exited || !e->hid)
		return 0;
	tgid = r->hot.rows[e->hid].tgid;
	end_row(r, e->hid, ts);
	e->hid = new_row(r, tid, tgid, 0, RESOLVE_SRC_NONE, ts);
	e->comm_id = 0;
	e->fresh = 0;
	e->pending = 0;
	e->exited = RESOLVE_EXITED;	/* the leader's exit, under tid now */
	memset(cached, 0, r->hot.width);
	return e->hid ? name_as(r, tid, ts, from) : 0;
}

void resolve_exec_leader(struct resolve *r, int32_t pid)
{
	struct resolve_entry *e;
	char *cached;

	if (pid > 0 && (e = entry(r, pid, &cached)) && e->state == E_ALIVE)
		e->exited = 0;
}

void resolve_ran_dead(struct resolve *r, int32_t pid, uint64_t ts, int dead)
{
	struct resolve_entry *e;
	struct resolve_row *row;
	char *cached;

	if (pid <= 0 || !(e = entry(r, pid, &cached)) || e->state != E_ALIVE ||
	    (!e->exited && !dead))
		return;
	if (e->exited == RESOLVE_GONE) {
		/* a lifetime begun under the pid since (resolve_took_gone, a
		 * thread's swap before its exec): its own last switch-out
		 * ends it */
		if (dead && e->hid)
			end_row(r, e->hid, ts);
		return;
	}
	row = &r->hot.rows[e->hid];
	if (!e->exited) {
		end_row(r, e->hid, ts);
	} else if (row->end_ts == RESOLVE_OPEN || row->end_ts < ts) {
		row->end_ts = ts < row->start_ts ? row->start_ts : ts;
		mark_dirty(r, e->hid);
	}
	if (dead)
		e->exited = RESOLVE_GONE;
}

void resolve_seen_from(struct resolve *r, uint32_t hid, uint64_t ts)
{
	struct resolve_row *row;

	if (!hid || hid > r->nrows)
		return;
	row = &r->hot.rows[hid];
	if (!row->first || row->born || row->life != hid || row->start_ts <= ts)
		return;
	row->start_ts = ts;
	mark_dirty(r, hid);
}

int resolve_moved_rows(struct resolve *r, int32_t pid, uint32_t *before,
		       uint32_t *after)
{
	struct resolve_entry *e;
	char *cached;

	if (pid <= 0 || !(e = entry(r, pid, &cached)) || e->state != E_ALIVE ||
	    e->pending != PENDING_RENAME || !e->prev_hid)
		return 0;
	*before = e->prev_hid;
	*after = e->hid;
	return 1;
}

void resolve_ran_until(struct resolve *r, uint32_t hid, uint64_t ts)
{
	struct resolve_entry *e;
	struct resolve_row *cur;
	char *cached;

	if (!hid || hid > r->nrows || r->hot.rows[hid].pid <= 0 ||
	    !(e = entry(r, r->hot.rows[hid].pid, &cached)) || e->state != E_ALIVE ||
	    e->exited != RESOLVE_EXITED || !e->hid)
		return;
	cur = &r->hot.rows[e->hid];
	if (cur->life != r->hot.rows[hid].life || cur->end_ts == RESOLVE_OPEN ||
	    cur->end_ts >= ts)
		return;
	cur->end_ts = ts;
	mark_dirty(r, e->hid);
}

void resolve_ran_again(struct resolve *r, int32_t pid)
{
	struct resolve_entry *e;
	char *cached;

	if (pid <= 0 || !(e = entry(r, pid, &cached)) || e->state != E_ALIVE ||
	    e->exited != RESOLVE_EXITED || r->hot.rows[e->hid].end_ts == RESOLVE_OPEN)
		return;
	r->hot.rows[e->hid].end_ts = RESOLVE_OPEN;
	mark_dirty(r, e->hid);
}

uint32_t resolve_rename(struct resolve *r, int32_t pid, int cpu,
			const char *comm, size_t len, size_t field_size,
			uint64_t ts)
{
	struct resolve_entry *e;
	uint32_t before, id;
	char *cached;

	if (pid <= 0 || !(e = entry(r, pid, &cached)))
		return resolve_name_field(r, pid, cpu, comm, len, field_size,
					  ts + 1, RESOLVE_SRC_RENAME);
	before = e->state == E_ALIVE && e->comm_id ? e->hid : 0;
	e->pending = 0;
	id = resolve_name_field(r, pid, cpu, comm, len, field_size, ts + 1,
				RESOLVE_SRC_RENAME);
	if (before && e->hid != before) {
		e->prev_hid = before;
		e->pending = PENDING_RENAME;
	}
	return id;
}

void resolve_set_tgid(struct resolve *r, int32_t pid, int32_t tgid)
{
	struct resolve_entry *e;
	char *cached;

	if (pid <= 0 || !(e = entry(r, pid, &cached)) || e->state != E_ALIVE ||
	    r->hot.rows[e->hid].tgid == tgid)
		return;
	r->hot.rows[e->hid].tgid = tgid;
	mark_dirty(r, e->hid);
}

void resolve_death(struct resolve *r, int32_t pid, uint64_t ts, int need_exit)
{
	struct resolve_entry *e;
	char *cached;

	if (pid <= 0)
		return;
	e = entry(r, pid, &cached);
	/* sched_process_free runs from an RCU callback, often after the pid
	 * was reaped and born again: only a task seen exiting dies here. */
	if (!e || e->state != E_ALIVE || (need_exit && !e->exited))
		return;
	end_row(r, e->hid, ts);		/* no-op after an exit: it ended there */
	e->state = E_DEAD;
	e->comm_id = 0;		/* the hot path's "alive and named" */
	e->fresh = 0;
}

static void seed(struct resolve *r, int32_t pid, int32_t tgid,
		 const char *comm, size_t len, uint64_t ts,
		 enum resolve_source src, bool may_defer)
{
	struct resolve_entry *e;
	char *cached;

	if (pid <= 0)
		return;
	e = entry(r, pid, &cached);
	if (!e)
		return;
	if (may_defer && src == RESOLVE_SRC_SAVED_CMDLINES &&
	    tgid == RESOLVE_TGID_UNKNOWN && e->state == E_UNKNOWN && !e->hid &&
	    !e->pending && len && (!r->deferring || r->deferred_ts == ts)) {
		/* Waits in the cache slot for an event of pid. */
		memset(cached, 0, r->hot.width);
		memcpy(cached, comm, cut(r, len));
		e->pending = PENDING_DEFERRED;
		r->deferred_ts = ts;
		r->deferring = true;
		return;
	}
	if (e->state == E_ALIVE && e->comm_id) {
		/* The trace's own name wins; a snapshot may still add the
		 * tgid it did not know. */
		if (tgid != RESOLVE_TGID_UNKNOWN &&
		    r->hot.rows[e->hid].tgid == RESOLVE_TGID_UNKNOWN) {
			r->hot.rows[e->hid].tgid = tgid;
			mark_dirty(r, e->hid);
		}
		return;
	}
	resolve_name(r, pid, -1, comm, len, ts, src);
	if (tgid != RESOLVE_TGID_UNKNOWN && e->hid) {
		r->hot.rows[e->hid].tgid = tgid;
		mark_dirty(r, e->hid);
	}
	if (src == RESOLVE_SRC_SAVED_CMDLINES && e->state == E_ALIVE && e->comm_id)
		e->pending = PENDING_SNAPSHOT;
	if (src == RESOLVE_SRC_PROC && e->state == E_ALIVE && e->comm_id)
		e->pending = PENDING_PROC;
}

void resolve_snapshot_end(struct resolve *r, uint64_t ts)
{
	r->snapshot_end = ts;
}

void resolve_seed(struct resolve *r, int32_t pid, int32_t tgid,
		  const char *comm, size_t len, uint64_t ts,
		  enum resolve_source src)
{
	seed(r, pid, tgid, comm, len, ts, src, true);
}

/* An event of pid at ts that names no task: the waiting saved_cmdlines
 * name names it, in a row from ts on (from the seeds' time if the event
 * came before it). No event before this one spoke of pid, so the row
 * adds nothing to time already stored. */
static void undefer(struct resolve *r, int32_t pid, struct resolve_entry *e,
		    char *cached, uint64_t ts)
{
	char name[256];		/* a width is at most 256 (resolve_new) */
	size_t len = strnlen(cached, r->hot.width);

	memcpy(name, cached, len);
	memset(cached, 0, r->hot.width);
	e->pending = PENDING_NONE;
	seed(r, pid, RESOLVE_TGID_UNKNOWN, name, len,
	     ts > r->deferred_ts ? ts : r->deferred_ts,
	     RESOLVE_SRC_SAVED_CMDLINES, false);
}

void resolve_name_unnamed(struct resolve *r,
			  const char *(*lookup)(void *ctx, int32_t pid),
			  void *ctx, enum resolve_source src)
{
	char idle[32];

	for (uint32_t hid = 1; hid <= r->nrows; hid++) {
		struct resolve_row *row = &r->hot.rows[hid];
		const char *name = NULL;
		enum resolve_source s = src;

		if (row->comm_id)
			continue;
		if (row->pid == 0) {
			for (int cpu = 0; cpu < RESOLVE_MAX_CPUS; cpu++) {
				if (r->idle[cpu] != hid)
					continue;
				snprintf(idle, sizeof(idle), "swapper/%d", cpu);
				name = idle;
				s = RESOLVE_SRC_IDLE;
				break;
			}
		} else if (lookup) {
			name = lookup(ctx, row->pid);
		}
		if (!name)
			continue;
		row->comm_id = intern(r, name, cut(r, strlen(name)));
		row->source = row->comm_id ? (uint8_t)s : RESOLVE_SRC_NONE;
		mark_dirty(r, hid);
	}
}

void resolve_close_all(struct resolve *r, uint64_t ts)
{
	for (uint32_t hid = 1; hid <= r->nrows; hid++)
		end_row(r, hid, ts);
}

uint32_t resolve_row_count(const struct resolve *r)
{
	return r->nrows;
}

const struct resolve_row *resolve_row(const struct resolve *r, uint32_t hid)
{
	return hid && hid <= r->nrows ? &r->hot.rows[hid] : NULL;
}

uint32_t resolve_comm_count(const struct resolve *r)
{
	return r->nnames;
}

const char *resolve_comm(const struct resolve *r, uint32_t id, size_t *len)
{
	if (!id || id > r->nnames)
		return NULL;
	*len = r->name_len[id];
	return r->names + (size_t)id * r->hot.width;
}

static const char *const source_names[RESOLVE_SRC_COUNT] = {
	[RESOLVE_SRC_NONE] = "none",
	[RESOLVE_SRC_SCHED_SWITCH] = "sched_switch",
	[RESOLVE_SRC_SCHED_WAKEUP] = "sched_wakeup",
	[RESOLVE_SRC_SCHED_WAKEUP_NEW] = "sched_wakeup_new",
	[RESOLVE_SRC_SCHED_WAKING] = "sched_waking",
	[RESOLVE_SRC_FORK] = "sched_process_fork",
	[RESOLVE_SRC_EXEC] = "sched_process_exec",
	[RESOLVE_SRC_EXIT] = "sched_process_exit",
	[RESOLVE_SRC_FREE] = "sched_process_free",
	[RESOLVE_SRC_MIGRATE] = "sched_migrate_task",
	[RESOLVE_SRC_RENAME] = "task_rename",
	[RESOLVE_SRC_NEWTASK] = "task_newtask",
	[RESOLVE_SRC_EVENT] = "event",
	[RESOLVE_SRC_CMDLINES] = "trace.dat cmdlines",
	[RESOLVE_SRC_PROC] = "proc",
	[RESOLVE_SRC_SAVED_CMDLINES] = "saved_cmdlines",
	[RESOLVE_SRC_IDLE] = "idle",
	[RESOLVE_SRC_EXEC_SWAP] = "exec_swap",
};

const char *resolve_source_name(enum resolve_source src)
{
	return (unsigned)src < RESOLVE_SRC_COUNT ? source_names[src] : "none";
}

size_t resolve_dirty(const struct resolve *r, const uint32_t **hids)
{
	*hids = r->dirty;
	return r->ndirty;
}

void resolve_clear_dirty(struct resolve *r)
{
	for (size_t i = 0; i < r->ndirty; i++)
		r->hot.rows[r->dirty[i]].dirty = 0;
	r->ndirty = 0;
}

uint64_t resolve_unnamed_events(const struct resolve *r)
{
	uint64_t n = 0;

	for (uint32_t hid = 1; hid <= r->nrows; hid++)
		if (!r->hot.rows[hid].comm_id)
			n += r->hot.rows[hid].events;
	return n;
}

uint64_t resolve_tasks_without_tgid(const struct resolve *r)
{
	uint8_t *known = calloc((size_t)r->nrows + 1, 1);
	uint64_t n = 0;

	if (!known)
		return 0;
	for (uint32_t hid = 1; hid <= r->nrows; hid++) {
		const struct resolve_row *row = &r->hot.rows[hid];

		if (row->pid <= 0 || row->life > r->nrows)
			continue;
		if (row->tgid != RESOLVE_TGID_UNKNOWN)
			known[row->life] |= 1;
		if (row->source != RESOLVE_SRC_SAVED_CMDLINES)
			known[row->life] |= 2;
	}
	/* A lifetime made of a saved_cmdlines name alone is a name the
	 * kernel's cache held for a pid /proc did not know, not a task. */
	for (uint32_t hid = 1; hid <= r->nrows; hid++) {
		const struct resolve_row *row = &r->hot.rows[hid];

		n += row->pid > 0 && row->life == hid && known[hid] == 2;
	}
	free(known);
	return n;
}

uint64_t resolve_updates(const struct resolve *r)
{
	return r->updates;
}

uint32_t resolve_name_own(struct resolve *r, int32_t pid, int cpu,
			  const char *comm, size_t len, size_t field_size,
			  uint64_t ts, enum resolve_source src, uint32_t *hid)
{
	uint32_t id = resolve_name_field(r, pid, cpu, comm, len, field_size, ts, src);

	if (hid)
		*hid = resolve_hid(r, pid, cpu, ts);
	return id;
}
