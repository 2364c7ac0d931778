/* decode.h — raw event bytes plus the event formats in, typed events out.
 *
 * Pure: no I/O, no SQLite, no allocation per event. Every field offset and
 * size comes from the format (tep_find_field at setup), never from a
 * hard-coded layout: comm fields may be char[16], char[64] or __data_loc
 * strings depending on the kernel, and fields may be missing altogether on
 * older kernels (they are then flagged absent, not invented).
 *
 * A decode_event points into the record's bytes; it is valid only as long
 * as the record is. */
#ifndef COMMD_DECODE_H
#define COMMD_DECODE_H

#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct tep_event;

enum decode_kind {
	DECODE_OTHER = 0,	/* any event without a table of its own */
	DECODE_SCHED_SWITCH,
	DECODE_SCHED_WAKEUP,
	DECODE_SCHED_WAKEUP_NEW,
	DECODE_SCHED_WAKING,
	DECODE_SCHED_PROCESS_FORK,
	DECODE_SCHED_PROCESS_EXEC,
	DECODE_SCHED_PROCESS_EXIT,
	DECODE_SCHED_PROCESS_FREE,
	DECODE_SCHED_MIGRATE_TASK,
	DECODE_TASK_RENAME,
	DECODE_TASK_NEWTASK,
	DECODE_SCHED_STAT_RUNTIME,
	DECODE_KIND_COUNT
};

/* A string field: not NUL-terminated, len excludes any padding. */
struct decode_str {
	const char *s;		/* NULL when the field is absent or bad */
	uint32_t len;
	uint32_t size;		/* a fixed array's size (s points at all of
				 * it); DECODE_STR_NUL for a dynamic string
				 * whose NUL is in the record; else 0 */
};
#define DECODE_STR_NUL UINT32_MAX

/* Field slots, by kind (absent fields have their bit clear in `has`):
 *   SCHED_SWITCH   c0 prev_comm p0 prev_pid v0 prev_prio v1 prev_state
 *                  c1 next_comm p1 next_pid v2 next_prio
 *   SCHED_WAKEUP*, SCHED_WAKING
 *                  c0 comm p0 pid v0 prio v1 target_cpu
 *   PROCESS_FORK   c0 parent_comm p0 parent_pid c1 child_comm p1 child_pid
 *   PROCESS_EXEC   str filename p0 pid p1 old_pid
 *   PROCESS_EXIT/FREE  c0 comm p0 pid v0 prio
 *   MIGRATE_TASK   c0 comm p0 pid v0 prio v1 orig_cpu v2 dest_cpu
 *   TASK_RENAME    p0 pid c0 oldcomm c1 newcomm
 *   TASK_NEWTASK   p0 pid c0 comm v0 clone_flags
 *   SCHED_STAT_RUNTIME c0 comm p0 pid v0 runtime v1 vruntime
 *   OTHER          c0 comm p0 pid when the event names one task by both
 *                  (names_task set), e.g. sched_stat_runtime */
enum {
	DECODE_HAS_P0 = 1 << 0, DECODE_HAS_P1 = 1 << 1,
	DECODE_HAS_C0 = 1 << 2, DECODE_HAS_C1 = 1 << 3,
	DECODE_HAS_V0 = 1 << 4, DECODE_HAS_V1 = 1 << 5, DECODE_HAS_V2 = 1 << 6,
	DECODE_HAS_STR = 1 << 7,
};

struct decode_event {
	enum decode_kind kind;
	unsigned has;			/* DECODE_HAS_* of the slots present */
	int names_task;			/* OTHER: c0/p0 name one task */
	int switch_mm;			/* a tlb_flush "on task switch": fired
					 * inside a context switch, from prev */
	int cpu;
	uint64_t ts;			/* trace clock, ns */
	int32_t pid;			/* common_pid */
	struct tep_event *event;	/* its format (system, name, fields) */
	const void *data;		/* the record's bytes */
	int size;
	int32_t p[2];
	struct decode_str c[2];
	int64_t v[3];
	struct decode_str str;
};

struct decode;

/* Builds the per-event field tables from the formats in tep. The decoder
 * keeps a reference to tep (not owned). NULL with errno on failure. */
struct decode *decode_new(struct tep_handle *tep);
void decode_free(struct decode *d);

/* Decodes one record. Returns 0, or -1 when the bytes are not an event of
 * a known format (unknown type id, too short for its common fields); a
 * field that does not fit in the record is marked absent and counted. */
int decode_record(struct decode *d, const void *data, int size, int cpu,
		  uint64_t ts, struct decode_event *out);

/* The widest comm field in the formats (at least 16): the width the comm
 * cache must hold. Dynamic strings are cut to this width. */
size_t decode_comm_width(const struct decode *d);

/* Does the format set contain this event (so the source can deliver it)? */
int decode_has_event(const struct decode *d, enum decode_kind kind);

/* Fields that did not fit in their record so far. */
uint64_t decode_field_errors(const struct decode *d);

/* Writes the event's own fields (everything but common_*) as a JSON object
 * into buf, NUL-terminated. Returns its length; when that is len or more
 * the object did not fit and buf holds "" (as snprintf, call again with
 * more than the length returned). For the generic events table: not on
 * the hot path. */
size_t decode_fields_json(const struct decode *d, const struct decode_event *ev,
			  char *buf, size_t len);

/* One field of ev read through its format, inside the record only (for
 * the rare events read field by field: cgroup moves, kernel stacks): a
 * number, a string (char array or __data_loc), an array of 4- or 8-byte
 * numbers (at most max, as many as the record holds). -1 (or -1 as the
 * count) when the field is absent, of another kind or outside the record. */
struct tep_format_field;
int decode_field_num(const struct decode *d, const struct decode_event *ev,
		     const struct tep_format_field *ff, int64_t *out);
int decode_field_str(const struct decode *d, const struct decode_event *ev,
		     const struct tep_format_field *ff, struct decode_str *out);
long decode_field_array(const struct decode *d, const struct decode_event *ev,
			const struct tep_format_field *ff, uint64_t *out, long max);

/* Table name for a kind ("sched_switch"...), "events" for OTHER. */
const char *decode_kind_name(enum decode_kind kind);

#endif
