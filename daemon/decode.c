/* decode.c — see decode.h.
 *
 * At setup every event id gets a small table of field descriptors looked up
 * by name in its format; per record, decoding is a type lookup in an array
 * and a few bounds-checked loads. */
#include "decode.h"
#include "json.h"
#include "numtext.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

enum slot { S_P0, S_P1, S_C0, S_C1, S_V0, S_V1, S_V2, S_STR, S_COUNT };

/* F_TAIL: an array declared without a size (`char buf[]`, size 0 in the
 * format: ftrace's print, bputs, raw_data...): the rest of the record. */
enum fld_kind { F_NONE = 0, F_NUM, F_ARRAY, F_DATA_LOC, F_REL_LOC, F_TAIL };

struct fld {
	uint16_t offset;
	uint16_t size;
	uint8_t kind;		/* enum fld_kind */
	uint8_t is_signed;
};

struct layout {
	enum decode_kind kind;
	int names_task;
	int tlb_flush;		/* tlb:tlb_flush: reason read into switch_mm */
	struct fld reason;
	struct tep_event *event;
	struct fld f[S_COUNT];
};

struct decode {
	struct tep_handle *tep;
	bool swap;			/* file endianness differs from ours */
	struct fld common_type;
	struct fld common_pid;
	int max_id;
	struct layout **by_id;		/* max_id + 1 entries, NULL = unknown */
	size_t comm_width;
	bool static_comm, dynamic_comm;	/* kinds of comm fields seen */
	bool present[DECODE_KIND_COUNT];
	uint64_t field_errors;
};

/* Which format fields fill which slots, per kind. Alternatives for one
 * slot are listed in order of preference. */
struct slot_map {
	enum slot slot;
	const char *names[3];
};

struct kind_map {
	enum decode_kind kind;
	const char *system;
	const char *name;
	struct slot_map slots[8];
};

static const struct kind_map kind_maps[] = {
	{ DECODE_SCHED_SWITCH, "sched", "sched_switch", {
		{ S_C0, { "prev_comm" } }, { S_P0, { "prev_pid" } },
		{ S_V0, { "prev_prio" } }, { S_V1, { "prev_state" } },
		{ S_C1, { "next_comm" } }, { S_P1, { "next_pid" } },
		{ S_V2, { "next_prio" } } } },
	{ DECODE_SCHED_WAKEUP, "sched", "sched_wakeup", {
		{ S_C0, { "comm" } }, { S_P0, { "pid" } },
		{ S_V0, { "prio" } }, { S_V1, { "target_cpu" } } } },
	{ DECODE_SCHED_WAKEUP_NEW, "sched", "sched_wakeup_new", {
		{ S_C0, { "comm" } }, { S_P0, { "pid" } },
		{ S_V0, { "prio" } }, { S_V1, { "target_cpu" } } } },
	{ DECODE_SCHED_WAKING, "sched", "sched_waking", {
		{ S_C0, { "comm" } }, { S_P0, { "pid" } },
		{ S_V0, { "prio" } }, { S_V1, { "target_cpu" } } } },
	{ DECODE_SCHED_PROCESS_FORK, "sched", "sched_process_fork", {
		{ S_C0, { "parent_comm" } }, { S_P0, { "parent_pid" } },
		{ S_C1, { "child_comm" } }, { S_P1, { "child_pid" } } } },
	{ DECODE_SCHED_PROCESS_EXEC, "sched", "sched_process_exec", {
		{ S_STR, { "filename" } }, { S_P0, { "pid" } },
		{ S_P1, { "old_pid" } } } },
	{ DECODE_SCHED_PROCESS_EXIT, "sched", "sched_process_exit", {
		{ S_C0, { "comm" } }, { S_P0, { "pid" } },
		{ S_V0, { "prio" } } } },
	{ DECODE_SCHED_PROCESS_FREE, "sched", "sched_process_free", {
		{ S_C0, { "comm" } }, { S_P0, { "pid" } },
		{ S_V0, { "prio" } } } },
	{ DECODE_SCHED_MIGRATE_TASK, "sched", "sched_migrate_task", {
		{ S_C0, { "comm" } }, { S_P0, { "pid" } },
		{ S_V0, { "prio" } }, { S_V1, { "orig_cpu" } },
		{ S_V2, { "dest_cpu" } } } },
	{ DECODE_TASK_RENAME, "task", "task_rename", {
		{ S_P0, { "pid" } }, { S_C0, { "oldcomm" } },
		{ S_C1, { "newcomm" } } } },
	{ DECODE_TASK_NEWTASK, "task", "task_newtask", {
		{ S_P0, { "pid" } }, { S_C0, { "comm" } },
		{ S_V0, { "clone_flags" } } } },
	/* The most frequent sched event after the switch: typed, not JSON. */
	{ DECODE_SCHED_STAT_RUNTIME, "sched", "sched_stat_runtime", {
		{ S_C0, { "comm" } }, { S_P0, { "pid" } },
		{ S_V0, { "runtime" } }, { S_V1, { "vruntime" } } } },
};

/* Events whose `comm` and `pid` fields name one and the same task, so the
 * comm cache may learn from them. sched_process_wait is absent on purpose:
 * it carries the waiter's comm with the waited-for pid. */
static const struct { const char *system, *name; } naming_events[] = {
	{ "sched", "sched_stat_wait" }, { "sched", "sched_stat_sleep" },
	{ "sched", "sched_stat_iowait" }, { "sched", "sched_stat_blocked" },
	{ "sched", "sched_pi_setprio" }, { "sched", "sched_kthread_stop" },
	{ "sched", "sched_process_hang" }, { "sched", "sched_wait_task" },
	{ "sched", "sched_prepare_exec" }, { "sched", "sched_move_numa" },
	/* the task a signal is sent to, the one whose oom_score_adj
	 * changes: their own task->comm, copied there */
	{ "signal", "signal_generate" }, { "oom", "oom_score_adj_update" },
	{ NULL, NULL }
};

static const char *const kind_names[DECODE_KIND_COUNT] = {
	[DECODE_OTHER] = "events",
	[DECODE_SCHED_SWITCH] = "sched_switch",
	[DECODE_SCHED_WAKEUP] = "sched_wakeup",
	[DECODE_SCHED_WAKEUP_NEW] = "sched_wakeup_new",
	[DECODE_SCHED_WAKING] = "sched_waking",
	[DECODE_SCHED_PROCESS_FORK] = "sched_process_fork",
	[DECODE_SCHED_PROCESS_EXEC] = "sched_process_exec",
	[DECODE_SCHED_PROCESS_EXIT] = "sched_process_exit",
	[DECODE_SCHED_PROCESS_FREE] = "sched_process_free",
	[DECODE_SCHED_MIGRATE_TASK] = "sched_migrate_task",
	[DECODE_TASK_RENAME] = "task_rename",
	[DECODE_TASK_NEWTASK] = "task_newtask",
	[DECODE_SCHED_STAT_RUNTIME] = "sched_stat_runtime",
};

const char *decode_kind_name(enum decode_kind kind)
{
	if ((unsigned)kind >= DECODE_KIND_COUNT)
		return "events";
	return kind_names[kind];
}

static void fld_from_format(struct fld *f, const struct tep_format_field *ff)
{
	memset(f, 0, sizeof(*f));
	if (ff && ff->size == 0 && ff->offset >= 0 && ff->offset <= 0xffff &&
	    (ff->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) ==
	    TEP_FIELD_IS_ARRAY) {
		f->offset = (uint16_t)ff->offset;
		f->is_signed = !!(ff->flags & TEP_FIELD_IS_SIGNED);
		f->kind = F_TAIL;
		return;
	}
	if (!ff || ff->offset < 0 || ff->offset > 0xffff || ff->size <= 0 ||
	    ff->size > 0xffff)
		return;
	f->offset = (uint16_t)ff->offset;
	f->size = (uint16_t)ff->size;
	f->is_signed = !!(ff->flags & TEP_FIELD_IS_SIGNED);
	if (ff->flags & TEP_FIELD_IS_DYNAMIC)
		f->kind = (ff->flags & TEP_FIELD_IS_RELATIVE) ? F_REL_LOC : F_DATA_LOC;
	else if (ff->flags & TEP_FIELD_IS_ARRAY)
		f->kind = F_ARRAY;
	else if (ff->size == 1 || ff->size == 2 || ff->size == 4 || ff->size == 8)
		f->kind = F_NUM;
}

static inline __attribute__((always_inline)) uint64_t
load(const struct decode *d, const uint8_t *p, unsigned size,
		     bool is_signed)
{
	uint64_t v = 0;
	uint32_t u32;
	uint16_t u16;

	switch (size) {
	case 1:
		return is_signed ? (uint64_t)(int64_t)(int8_t)p[0] : p[0];
	case 2:
		memcpy(&u16, p, 2);
		if (d->swap)
			u16 = __builtin_bswap16(u16);
		return is_signed ? (uint64_t)(int64_t)(int16_t)u16 : u16;
	case 4:
		memcpy(&u32, p, 4);
		if (d->swap)
			u32 = __builtin_bswap32(u32);
		return is_signed ? (uint64_t)(int64_t)(int32_t)u32 : u32;
	case 8:
		memcpy(&v, p, 8);
		return d->swap ? __builtin_bswap64(v) : v;
	}
	return 0;
}

static inline __attribute__((always_inline)) bool
read_num(const struct decode *d, const struct fld *f,
		     const uint8_t *data, int size, int64_t *out)
{
	if (f->kind != F_NUM || f->offset + f->size > size)
		return false;
	*out = (int64_t)load(d, data + f->offset, f->size, f->is_signed);
	return true;
}

/* Where the bytes of a char array or a __data_loc/__rel_loc field are in
 * the record, and how many the record gives it. */
static bool field_bytes(const struct decode *d, const struct fld *f,
			const uint8_t *data, int size, uint32_t *off, uint32_t *len)
{
	uint32_t loc;

	switch (f->kind) {
	case F_ARRAY:
		*off = f->offset;
		*len = f->size;
		break;
	case F_DATA_LOC:
	case F_REL_LOC:
		if (f->offset + 4 > size)
			return false;
		loc = (uint32_t)load(d, data + f->offset, 4, false);
		*off = loc & 0xffff;
		*len = loc >> 16;
		if (f->kind == F_REL_LOC)
			*off += f->offset + f->size;
		break;
	case F_TAIL:
		if (f->offset > size)
			return false;
		*off = f->offset;
		*len = (uint32_t)(size - f->offset);
		break;
	default:
		return false;
	}
	return (uint64_t)*off + *len <= (uint64_t)size;
}

/* Finds the bytes of a char array or a __data_loc/__rel_loc string. */
static bool read_str(const struct decode *d, const struct fld *f,
		     const uint8_t *data, int size, struct decode_str *out)
{
	uint32_t off, len;

	if (!field_bytes(d, f, data, size, &off, &len))
		return false;
	out->s = (const char *)data + off;
	out->len = (uint32_t)strnlen(out->s, len);
	/* A fixed array's size; for a dynamic string, whether its NUL is
	 * inside the record (the comm cache may then read comm[len]). */
	if (f->kind == F_ARRAY)
		out->size = len;
	else
		out->size = out->len < len ? DECODE_STR_NUL : 0;
	return true;
}

static void add_layout(struct decode *d, struct tep_event *ev)
{
	struct layout *l;
	size_t i, j;

	/* A corrupt file may give two formats one id: the first one wins. */
	if (ev->id < 0 || ev->id > d->max_id || d->by_id[ev->id])
		return;
	l = calloc(1, sizeof(*l));
	if (!l)
		return;
	l->event = ev;
	l->kind = DECODE_OTHER;
	for (i = 0; i < sizeof(kind_maps) / sizeof(kind_maps[0]); i++) {
		const struct kind_map *m = &kind_maps[i];

		if (strcmp(ev->name, m->name) || strcmp(ev->system, m->system))
			continue;
		l->kind = m->kind;
		for (j = 0; j < 8 && m->slots[j].names[0]; j++) {
			const struct slot_map *sm = &m->slots[j];
			struct tep_format_field *ff = NULL;

			for (int k = 0; k < 3 && sm->names[k] && !ff; k++)
				ff = tep_find_field(ev, sm->names[k]);
			fld_from_format(&l->f[sm->slot], ff);
		}
		break;
	}
	if (!strcmp(ev->system, "tlb") && !strcmp(ev->name, "tlb_flush")) {
		fld_from_format(&l->reason, tep_find_field(ev, "reason"));
		l->tlb_flush = l->reason.kind == F_NUM;
	}
	if (l->kind == DECODE_OTHER) {
		for (i = 0; naming_events[i].name; i++) {
			if (strcmp(ev->name, naming_events[i].name) ||
			    strcmp(ev->system, naming_events[i].system))
				continue;
			fld_from_format(&l->f[S_C0], tep_find_field(ev, "comm"));
			fld_from_format(&l->f[S_P0], tep_find_field(ev, "pid"));
			l->names_task = l->f[S_C0].kind != F_NONE &&
					l->f[S_P0].kind == F_NUM;
			break;
		}
	}
	/* The cache must hold the widest fixed comm any format declares. */
	for (i = S_C0; i <= S_C1; i++) {
		if (l->f[i].kind == F_ARRAY && l->f[i].size > d->comm_width)
			d->comm_width = l->f[i].size;
		if (l->f[i].kind == F_DATA_LOC || l->f[i].kind == F_REL_LOC)
			d->dynamic_comm = true;
		else if (l->f[i].kind == F_ARRAY)
			d->static_comm = true;
	}
	d->present[l->kind] = true;
	d->by_id[ev->id] = l;
}

struct decode *decode_new(struct tep_handle *tep)
{
	struct tep_event **events;
	struct decode *d;
	int i, n;

	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->tep = tep;
	d->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	d->comm_width = 16;
	n = tep_get_events_count(tep);
	events = tep_list_events(tep, TEP_EVENT_SORT_ID);
	if (!events || n <= 0) {
		errno = ENOENT;
		goto fail;
	}
	d->max_id = -1;
	for (i = 0; i < n && events[i]; i++)
		if (events[i]->id > d->max_id)
			d->max_id = events[i]->id;
	if (d->max_id < 0 || d->max_id > 1 << 20) {
		errno = ERANGE;
		goto fail;
	}
	d->by_id = calloc((size_t)d->max_id + 1, sizeof(*d->by_id));
	if (!d->by_id)
		goto fail;
	fld_from_format(&d->common_type, tep_find_common_field(events[0], "common_type"));
	fld_from_format(&d->common_pid, tep_find_common_field(events[0], "common_pid"));
	if (d->common_type.kind != F_NUM || d->common_pid.kind != F_NUM) {
		errno = EINVAL;
		goto fail;
	}
	for (i = 0; i < n && events[i]; i++)
		add_layout(d, events[i]);
	/* Dynamic comm strings have no declared width: when no format
	 * declares a fixed one, hold the kernel's long task name size (64). */
	if (d->dynamic_comm && !d->static_comm)
		d->comm_width = 64;
	return d;
fail:
	decode_free(d);
	return NULL;
}

void decode_free(struct decode *d)
{
	if (!d)
		return;
	if (d->by_id)
		for (int i = 0; i <= d->max_id; i++)
			free(d->by_id[i]);
	free(d->by_id);
	free(d);
}

size_t decode_comm_width(const struct decode *d)
{
	return d->comm_width;
}

int decode_has_event(const struct decode *d, enum decode_kind kind)
{
	return (unsigned)kind < DECODE_KIND_COUNT && d->present[kind];
}

uint64_t decode_field_errors(const struct decode *d)
{
	return d->field_errors;
}

int decode_record(struct decode *d, const void *data, int size, int cpu,
		  uint64_t ts, struct decode_event *out)
{
	const uint8_t *p = data;
	const struct layout *l;
	int64_t type, pid;
	unsigned bit;

	if (!read_num(d, &d->common_type, p, size, &type) ||
	    !read_num(d, &d->common_pid, p, size, &pid) ||
	    type < 0 || type > d->max_id || !(l = d->by_id[type])) {
		errno = EBADMSG;
		return -1;
	}
	out->kind = l->kind;
	out->names_task = l->names_task;
	out->event = l->event;
	out->cpu = cpu;
	out->ts = ts;
	out->pid = (int32_t)pid;
	out->data = data;
	out->size = size;
	out->has = 0;
	out->switch_mm = 0;
	if (l->tlb_flush) {
		int64_t reason;

		/* TLB_FLUSH_ON_TASK_SWITCH */
		out->switch_mm = read_num(d, &l->reason, p, size, &reason) &&
				 reason == 0;
	}
	if (l->kind == DECODE_OTHER && !l->names_task)
		return 0;

	for (int s = 0; s < S_COUNT; s++) {
		const struct fld *f = &l->f[s];
		int64_t v;
		bool ok;

		if (f->kind == F_NONE)
			continue;
		bit = 1u << s;
		switch (s) {
		case S_P0:
		case S_P1:
			ok = read_num(d, f, p, size, &v);
			if (ok)
				out->p[s - S_P0] = (int32_t)v;
			break;
		case S_C0:
		case S_C1:
			ok = read_str(d, f, p, size, &out->c[s - S_C0]);
			break;
		case S_STR:
			ok = read_str(d, f, p, size, &out->str);
			break;
		default:
			ok = read_num(d, f, p, size, &out->v[s - S_V0]);
			break;
		}
		if (ok)
			out->has |= bit;
		else
			d->field_errors++;
	}
	if (l->names_task && (out->has & (DECODE_HAS_C0 | DECODE_HAS_P0)) !=
			     (DECODE_HAS_C0 | DECODE_HAS_P0))
		out->names_task = 0;
	return 0;
}

/* JSON into a bounded buffer; pos counts what the whole object needs,
 * written or not. */
struct jbuf {
	char *buf;
	size_t len, pos;
};

static void jputc(struct jbuf *j, char c)
{
	if (j->pos + 1 < j->len)
		j->buf[j->pos] = c;
	j->pos++;
}

static void jputs(struct jbuf *j, const char *s)
{
	while (*s)
		jputc(j, *s++);
}

static void jput(void *ctx, const char *p, size_t n)
{
	struct jbuf *j = ctx;

	if (j->pos + n < j->len) {	/* all of it fits: at once */
		memcpy(j->buf + j->pos, p, n);
		j->pos += n;
		return;
	}
	while (n--)
		jputc(j, *p++);
}

/* A JSON string of the bytes up to n or a NUL, as common/json.h writes
 * them: text kept as it is, so that json_extract() gives back the
 * kernel's string; what is not text escaped byte by byte. */
static void jstr(struct jbuf *j, const char *s, size_t n)
{
	json_string_to(jput, j, s, strnlen(s, n), 0);
}

static void jnum(struct jbuf *j, int64_t v, bool is_signed)
{
	char tmp[NUMTEXT_MAX], *e = tmp + sizeof(tmp);
	char *q = is_signed ? numtext_i64(e, v) : numtext_u64(e, (uint64_t)v);

	jput(j, q, (size_t)(e - q));
}

/* Whether the event's layout is all fixed: no __data_loc/__rel_loc field,
 * whose data would follow the last field. */
static bool fixed_layout(const struct tep_event *event)
{
	for (const struct tep_format_field *ff = event->format.fields; ff; ff = ff->next)
		if (ff->flags & TEP_FIELD_IS_DYNAMIC)
			return false;
	return true;
}

/* How many elements of a numeric array field this record holds; -1 when
 * it does not hold the field. An array declared without a size runs to
 * the record's end. So does the last field of an event laid out all
 * fixed: the kernel writes a stack trace (ftrace's kernel_stack, declared
 * `caller[8]`) as long as it is, shorter or longer. Past the declared end
 * only whole 8-byte steps count: what is shorter may be the struct's tail
 * padding (under 8 bytes) and the ring buffer's rounding to 4. */
static long array_count(const struct decode_event *ev,
			const struct tep_format_field *ff, const struct fld *f)
{
	unsigned es = (unsigned)ff->elementsize;
	long n = f->kind == F_TAIL ? 0 : (long)(f->size / es);
	long end = (long)f->offset + (long)n * (long)es;

	if (f->kind == F_TAIL || (!ff->next && fixed_layout(ev->event))) {
		long rest = (long)ev->size - (long)f->offset;

		if (rest < 0)
			return -1;
		if (f->kind == F_TAIL || rest < (long)f->size)
			return rest / (long)es;
		return n + ((long)ev->size - end) / 8 * 8 / (long)es;
	}
	return end <= ev->size ? n : -1;
}

int decode_field_num(const struct decode *d, const struct decode_event *ev,
		     const struct tep_format_field *ff, int64_t *out)
{
	struct fld f;

	fld_from_format(&f, ff);
	return read_num(d, &f, ev->data, ev->size, out) ? 0 : -1;
}

int decode_field_str(const struct decode *d, const struct decode_event *ev,
		     const struct tep_format_field *ff, struct decode_str *out)
{
	struct fld f;

	fld_from_format(&f, ff);
	return read_str(d, &f, ev->data, ev->size, out) ? 0 : -1;
}

long decode_field_array(const struct decode *d, const struct decode_event *ev,
			const struct tep_format_field *ff, uint64_t *out, long max)
{
	struct fld f;
	long n;

	fld_from_format(&f, ff);
	if (!ff || (f.kind != F_ARRAY && f.kind != F_TAIL) ||
	    (ff->elementsize != 4 && ff->elementsize != 8) ||
	    (n = array_count(ev, ff, &f)) < 0)
		return -1;
	if (n > max)
		n = max;
	for (long i = 0; i < n; i++)
		out[i] = load(d, (const uint8_t *)ev->data + f.offset + i * ff->elementsize,
			      (unsigned)ff->elementsize, false);
	return n;
}

/* Whether the print format hands the field itself to a %s: REC->name,
 * __get_str(name), or no argument parsed at all (nothing says otherwise).
 * ftrace's raw_data reads its `char buf[]` only as (int)REC->buf[0]. */
static bool printed_as_text(const struct tep_event *event, const struct tep_format_field *ff)
{
	const struct tep_print_arg *a = event->print_fmt.args;

	if (!a)
		return true;
	for (; a; a = a->next)
		if ((a->type == TEP_PRINT_FIELD && a->field.name && !strcmp(a->field.name, ff->name)) ||
		    (a->type == TEP_PRINT_STRING && a->string.string &&
		     !strcmp(a->string.string, ff->name)))
			return true;
	return false;
}

/* A char field is text, stored as a JSON string up to its first NUL, when
 * it is a fixed array of char (comm[16]: after the NUL may lie what a
 * longer name left), or when its event prints it as a string and nothing
 * but zeros follows its first NUL. An array running to the record's end may end in up to 3 bytes of
 * the ring buffer's rounding to 4, whatever they hold. Anything else is
 * bytes: what trace_marker_raw got, a binary blob, the u8 or unsigned
 * char arrays of addresses (libtraceevent flags every array of a type
 * naming char, u8 or s8 a string: __u8 saddr[4] of 10.0.0.1 is not "\n"). */
static bool text_field(const struct tep_event *event, const struct tep_format_field *ff,
		       const struct fld *f, const uint8_t *p, uint32_t n)
{
	uint32_t k = (uint32_t)strnlen((const char *)p, n), end = n;

	if (f->kind == F_ARRAY)
		return (ff->flags & TEP_FIELD_IS_STRING) && ff->type &&
		       strstr(ff->type, "char") && !strstr(ff->type, "unsigned");
	if (!(ff->flags & TEP_FIELD_IS_STRING) || !printed_as_text(event, ff))
		return false;
	if (f->kind == F_TAIL)
		end = n > 3 ? n - 3 : 0;
	for (uint32_t i = k + 1; i < end; i++)
		if (p[i])
			return false;
	return true;
}

/* The bytes of a dynamic field that is not text: its elements when the
 * type has a size that divides them, else byte by byte. */
static void jarray(struct jbuf *j, const struct decode *d, const uint8_t *p, uint32_t n,
		   const struct tep_format_field *ff, const struct fld *f)
{
	unsigned es = (unsigned)ff->elementsize;
	bool is_signed = f->is_signed;

	if ((ff->flags & TEP_FIELD_IS_STRING) || (es != 1 && es != 2 && es != 4 && es != 8) ||
	    n % es) {
		es = 1;		/* char, or a type of no such size: bytes */
		is_signed = false;
	}
	jputc(j, '[');
	for (uint32_t i = 0; i + es <= n; i += es) {
		if (i)
			jputc(j, ',');
		jnum(j, (int64_t)load(d, p + i, es, is_signed), is_signed);
	}
	jputc(j, ']');
}

size_t decode_fields_json(const struct decode *d, const struct decode_event *ev,
			  char *buf, size_t len)
{
	struct jbuf j = { buf, len, 0 };
	const struct tep_format_field *ff;
	bool first = true;

	jputc(&j, '{');
	for (ff = ev->event->format.fields; ff; ff = ff->next) {
		struct fld f;
		uint32_t off, n32;
		int64_t v;
		long n;

		fld_from_format(&f, ff);
		if (!first)
			jputc(&j, ',');
		first = false;
		jstr(&j, ff->name, strlen(ff->name));
		jputc(&j, ':');
		if ((ff->flags & TEP_FIELD_IS_STRING) || f.kind == F_DATA_LOC ||
		    f.kind == F_REL_LOC) {
			const uint8_t *p = (const uint8_t *)ev->data;

			if (!field_bytes(d, &f, ev->data, ev->size, &off, &n32))
				jputs(&j, "null");	/* not in the record */
			else if (text_field(ev->event, ff, &f, p + off, n32))
				jstr(&j, (const char *)p + off, n32);	/* to its NUL */
			else
				jarray(&j, d, p + off, n32, ff, &f);
		} else if (f.kind == F_NUM && read_num(d, &f, ev->data, ev->size, &v)) {
			jnum(&j, v, f.is_signed);
		} else if ((f.kind == F_ARRAY || f.kind == F_TAIL) &&
			   (ff->elementsize == 1 || ff->elementsize == 2 ||
			    ff->elementsize == 4 || ff->elementsize == 8) &&
			   (n = array_count(ev, ff, &f)) >= 0) {
			jputc(&j, '[');
			for (long i = 0; i < n; i++) {
				if (i)
					jputc(&j, ',');
				jnum(&j, (int64_t)load(d, (const uint8_t *)ev->data +
						       f.offset + i * ff->elementsize,
						       ff->elementsize, f.is_signed),
				     f.is_signed);
			}
			jputc(&j, ']');
		} else {
			jputs(&j, "null");
		}
	}
	jputc(&j, '}');
	/* A cut object is not JSON: none at all, and the size it needs. */
	if (len)
		buf[j.pos < len ? j.pos : 0] = '\0';
	return j.pos;
}
