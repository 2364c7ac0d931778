/* store_rows.c — operations run on the connection: the row virtual tables (store_impl.h). */
#include "store_impl.h"

/* Every table's columns begin with its key (ts, cpu, n) and hid (but
 * dv_sched's: ts, cpu, n, dur, hid, schema 010; ev_sched_switch's: ts,
 * cpu, n, next_pid, hid, schema 024). A row is made in its table's order:
 * `INSERT ... SELECT *` then puts each column where SQLite builds the
 * record, with no copy. */
static const struct { const char *name; int ncols; } event_table[TABLE_COUNT] = {
	/* ... end_err, then off_dur, off_state, off_cpu, off_hid (018),
	 * wake_latency (030) */
	[TABLE_SCHED] = { "dv_sched", 15 },
	[TABLE_WAKEUP_LATENCY] = { "dv_wakeup_latency", 6 },
	[DECODE_OTHER] = { "ev_other", 6 },
	/* next_pid first (schema 024), then hid and its other fields,
	 * then next_hid, slice_dur, slice_state, wake_latency, off_dur,
	 * off_state, off_cpu, off_hid */
	[DECODE_SCHED_SWITCH] = { "ev_sched_switch", 19 },
	/* its own fields, then latency, run_cpu, run_hid */
	[DECODE_SCHED_WAKEUP] = { "ev_sched_wakeup", 11 },
	[DECODE_SCHED_WAKEUP_NEW] = { "ev_sched_wakeup_new", 11 },
	[DECODE_SCHED_WAKING] = { "ev_sched_waking", 11 },
	[DECODE_SCHED_PROCESS_FORK] = { "ev_sched_process_fork", 8 },
	[DECODE_SCHED_PROCESS_EXEC] = { "ev_sched_process_exec", 7 },
	[DECODE_SCHED_PROCESS_EXIT] = { "ev_sched_process_exit", 7 },
	[DECODE_SCHED_PROCESS_FREE] = { "ev_sched_process_free", 7 },
	[DECODE_SCHED_MIGRATE_TASK] = { "ev_sched_migrate_task", 9 },
	[DECODE_TASK_RENAME] = { "ev_task_rename", 7 },
	[DECODE_TASK_NEWTASK] = { "ev_task_newtask", 7 },
	[DECODE_SCHED_STAT_RUNTIME] = { "ev_sched_stat_runtime", 8 },
};

const char *st_table_name(int kind)
{
	return kind >= 0 && kind < TABLE_COUNT ? event_table[kind].name : NULL;
}

/* Events reach SQLite through a virtual table per event table, not through
 * bound parameters: `INSERT INTO ev_x SELECT * FROM commd_rows_N` reads
 * the batch's pending rows of that table straight from their ops. A
 * multi-row INSERT of bound values pays, per column, a bind call and the
 * VM's copy of it out of the VALUES co-routine; here it is one
 * sqlite3_result_* per column, and one statement runs a few hundred rows.
 * The modules are eponymous (no CREATE VIRTUAL TABLE): nothing of them is
 * in the database file, and only the writer's connection has them. */
enum { V_NULL, V_INT, V_TEXT };

struct val {
	uint8_t t;		/* V_* */
	uint32_t len;
	int64_t i;
	const char *s;
};

#define MAX_COLS 20

struct row {
	struct val c[MAX_COLS];
};

static inline void v_int(struct row *r, int col, int64_t v)
{
	r->c[col].t = V_INT;
	r->c[col].i = v;
}

static inline void v_id(struct row *r, int col, int64_t id)
{
	r->c[col].t = id ? V_INT : V_NULL;
	r->c[col].i = id;
}

static inline void v_opt(struct row *r, int col, const struct op *o,
			 unsigned bit, int64_t v)
{
	r->c[col].t = (o->has & bit) ? V_INT : V_NULL;
	r->c[col].i = v;
}

static inline void v_text(struct row *r, int col, const struct batch *b,
			  uint32_t off, uint32_t len, int present)
{
	/* An empty name (prctl(PR_SET_NAME, "")) is text, not NULL: a batch
	 * whose texts are all empty has no arena at all. */
	r->c[col].t = present ? V_TEXT : V_NULL;
	r->c[col].s = len ? b->text + off : "";
	r->c[col].len = len;
}

/* A slice's time off the CPUs before it, from column col on (schema 018):
 * off_dur, off_state, off_cpu, off_hid; NULL when not known. */
static void off_cols(struct row *r, int col, const struct op *o, int known)
{
	known = known && o->off_dur >= 0;
	v_int(r, col, o->off_dur);
	v_int(r, col + 1, o->off_state);
	v_int(r, col + 2, o->off_cpu);
	v_id(r, col + 3, known ? o->off_hid : 0);
	if (!known)
		r->c[col].t = r->c[col + 1].t = r->c[col + 2].t = V_NULL;
}

/* One event's columns, in its table's order; n is the key's third part. */
static void event_row(struct row *r, const struct op *o, const struct batch *b,
		      uint32_t n)
{
	v_int(r, 0, (int64_t)o->ts);
	v_int(r, 1, o->cpu);
	v_int(r, 2, n);
	v_int(r, 3, o->hid);
	if (o->kind == TABLE_SCHED) {
		/* ts, cpu, n, dur, hid, prio, end_state, lost, start_err,
		 * end_err (in slice_dur); negative: NULL */
		v_int(r, 3, o->v[0]);
		v_int(r, 4, o->hid);
		v_int(r, 5, o->p[0]);
		if (o->p[0] == DERIVE_PRIO_UNKNOWN)
			r->c[5].t = V_NULL;
		v_int(r, 6, o->v[1]);
		if (o->v[1] < 0)
			r->c[6].t = V_NULL;
		v_int(r, 7, o->p[1]);
		v_int(r, 8, o->v[2]);
		if (o->v[2] < 0)
			r->c[8].t = V_NULL;
		v_int(r, 9, o->slice_dur);
		if (o->slice_dur < 0)
			r->c[9].t = V_NULL;
		off_cols(r, 10, o, 1);
		v_int(r, 14, o->wake_latency);
		if (o->wake_latency < 0)
			r->c[14].t = V_NULL;
		return;
	}
	if (o->kind == TABLE_WAKEUP_LATENCY) {
		/* ts, cpu, n, hid, latency, waker_hid */
		v_int(r, 4, o->v[0]);
		v_id(r, 5, o->ids[0]);
		return;
	}
	switch (o->kind) {
	case DECODE_SCHED_SWITCH:
		/* In the file's order (a column list in the INSERT would
		 * cost a copy of every column of every row). */
		v_opt(r, 3, o, DECODE_HAS_P1, o->p[1]);
		v_int(r, 4, o->hid);
		v_opt(r, 5, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 6, o->ids[0]);
		v_opt(r, 7, o, DECODE_HAS_V0, o->v[0]);
		v_opt(r, 8, o, DECODE_HAS_V1, o->v[1]);
		v_id(r, 9, o->ids[1]);
		v_opt(r, 10, o, DECODE_HAS_V2, o->v[2]);
		v_id(r, 11, o->next_hid);
		v_opt(r, 12, o, OP_HAS_SLICE, o->slice_dur);
		v_opt(r, 13, o, OP_HAS_SLICE, o->slice_state);
		if (o->slice_state < 0)
			r->c[13].t = V_NULL;
		v_opt(r, 14, o, OP_HAS_SWITCH_WAKE, o->wake_latency);
		off_cols(r, 15, o, !!(o->has & OP_HAS_SLICE));
		break;
	case DECODE_SCHED_WAKEUP:
	case DECODE_SCHED_WAKEUP_NEW:
	case DECODE_SCHED_WAKING:
		v_opt(r, 4, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 5, o->ids[0]);
		v_opt(r, 6, o, DECODE_HAS_V0, o->v[0]);
		v_opt(r, 7, o, DECODE_HAS_V1, o->v[1]);
		v_opt(r, 8, o, OP_HAS_WAKE, o->latency);
		v_opt(r, 9, o, OP_HAS_WAKE, o->run_cpu);
		v_id(r, 10, (o->has & OP_HAS_WAKE) ? o->run_hid : 0);
		break;
	case DECODE_SCHED_STAT_RUNTIME:
		v_opt(r, 4, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 5, o->ids[0]);
		v_opt(r, 6, o, DECODE_HAS_V0, o->v[0]);
		v_opt(r, 7, o, DECODE_HAS_V1, o->v[1]);
		break;
	case DECODE_SCHED_PROCESS_FORK:
		v_opt(r, 4, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 5, o->ids[0]);
		v_opt(r, 6, o, DECODE_HAS_P1, o->p[1]);
		v_id(r, 7, o->ids[1]);
		break;
	case DECODE_SCHED_PROCESS_EXEC:
		v_text(r, 4, b, o->text, o->text_len, o->has & DECODE_HAS_STR);
		v_opt(r, 5, o, DECODE_HAS_P0, o->p[0]);
		v_opt(r, 6, o, DECODE_HAS_P1, o->p[1]);
		break;
	case DECODE_SCHED_PROCESS_EXIT:
	case DECODE_SCHED_PROCESS_FREE:
		v_opt(r, 4, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 5, o->ids[0]);
		v_opt(r, 6, o, DECODE_HAS_V0, o->v[0]);
		break;
	case DECODE_SCHED_MIGRATE_TASK:
		v_opt(r, 4, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 5, o->ids[0]);
		v_opt(r, 6, o, DECODE_HAS_V0, o->v[0]);
		v_opt(r, 7, o, DECODE_HAS_V1, o->v[1]);
		v_opt(r, 8, o, DECODE_HAS_V2, o->v[2]);
		break;
	case DECODE_TASK_RENAME:
		v_opt(r, 4, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 5, o->ids[0]);
		v_id(r, 6, o->ids[1]);
		break;
	case DECODE_TASK_NEWTASK:
		v_opt(r, 4, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 5, o->ids[0]);
		v_opt(r, 6, o, DECODE_HAS_V0, o->v[0]);
		break;
	case DECODE_OTHER:
	default:
		v_int(r, 4, o->type);
		v_text(r, 5, b, o->text, o->text_len, o->has & DECODE_HAS_STR);
		break;
	}
}

/* The virtual table of one event table: its rows are the pending ones. */
struct rows_vtab {
	sqlite3_vtab base;
	const struct rows_src *src;
};

struct rows_cursor {
	sqlite3_vtab_cursor base;
	const struct rows_src *src;
	size_t i;
	struct row row;
};

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			sqlite3_vtab **out, char **err)
{
	const struct rows_src *src = aux;
	struct rows_vtab *vt;
	char sql[256];
	int n = 0, rc;

	(void)argc;
	(void)argv;
	(void)err;
	n += snprintf(sql + n, sizeof(sql) - (size_t)n, "CREATE TABLE x(");
	for (int c = 0; c < src->s->ncols[src->kind]; c++)
		n += snprintf(sql + n, sizeof(sql) - (size_t)n, "%sc%d", c ? "," : "", c);
	snprintf(sql + n, sizeof(sql) - (size_t)n, ")");
	rc = sqlite3_declare_vtab(db, sql);
	if (rc != SQLITE_OK)
		return rc;
	vt = sqlite3_malloc(sizeof(*vt));
	if (!vt)
		return SQLITE_NOMEM;
	memset(vt, 0, sizeof(*vt));
	vt->src = src;
	*out = &vt->base;
	return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

static int rows_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	(void)vt;
	info->estimatedCost = 1;
	info->estimatedRows = ROWS_PER_FLUSH;
	return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct rows_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->src = ((struct rows_vtab *)vt)->src;
	*out = &c->base;
	return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

static void rows_load(struct rows_cursor *c)
{
	struct store *s = c->src->s;
	struct pending *pd = &s->pending[c->src->kind];

	pd->at = c->i;
	if (c->i < pd->n)
		event_row(&c->row, &s->cur->ops[pd->idx[c->i]], s->cur, pd->key[c->i]);
}

static int rows_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr,
		       int argc, sqlite3_value **argv)
{
	struct rows_cursor *c = (struct rows_cursor *)cur;

	(void)idx;
	(void)idxstr;
	(void)argc;
	(void)argv;
	c->i = c->src->s->pending[c->src->kind].from;
	rows_load(c);
	return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *cur)
{
	struct rows_cursor *c = (struct rows_cursor *)cur;

	c->i++;
	rows_load(c);
	return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *cur)
{
	const struct rows_cursor *c = (const struct rows_cursor *)cur;

	return c->i >= c->src->s->pending[c->src->kind].n;
}

static int rows_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct val *v = &((struct rows_cursor *)cur)->row.c[col];

	if (v->t == V_INT)
		sqlite3_result_int64(ctx, v->i);
	else if (v->t == V_TEXT)
		sqlite3_result_text(ctx, v->s, (int)v->len, SQLITE_STATIC);
	else
		sqlite3_result_null(ctx);
	return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
	*out = (sqlite3_int64)((struct rows_cursor *)cur)->i;
	return SQLITE_OK;
}

static const sqlite3_module rows_module = {
	.iVersion = 0,
	.xCreate = NULL,	/* eponymous only */
	.xConnect = rows_connect,
	.xBestIndex = rows_best_index,
	.xDisconnect = rows_disconnect,
	.xOpen = rows_open,
	.xClose = rows_close,
	.xFilter = rows_filter,
	.xNext = rows_next,
	.xEof = rows_eof,
	.xColumn = rows_column,
	.xRowid = rows_rowid,
};

/* A row's key is taken (a CPU whose clock went back, a database that
 * outlived a reboot): the next n free for its ts and CPU. */
static int free_n(struct store *s, int kind, const struct op *o, uint32_t *n)
{
	sqlite3_stmt *st = s->next_n[kind];
	int rc;

	sqlite3_bind_int64(st, 1, (sqlite3_int64)o->ts);
	sqlite3_bind_int(st, 2, o->cpu);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = (uint32_t)sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 0 : st_fail(s, "finding a free key");
}

/* Rows of one table stay in their order. INSERT OR FAIL keeps the rows
 * before one whose key is taken: that one gets a free n, and the
 * insert goes on from it. */
static int flush_kind(struct store *s, int kind, const struct batch *b)
{
	struct pending *pd = &s->pending[kind];
	int rc;

	s->cur = b;
	pd->from = 0;
	for (;;) {
		rc = sqlite3_step(s->ins[kind]);
		sqlite3_reset(s->ins[kind]);
		if (rc == SQLITE_DONE)
			break;
		if (rc != SQLITE_CONSTRAINT_PRIMARYKEY || pd->at >= pd->n) {
			pd->n = 0;
			return st_fail(s, "storing events");
		}
		pd->from = pd->at;
		if (free_n(s, kind, &b->ops[pd->idx[pd->at]], &pd->key[pd->at])) {
			pd->n = 0;
			return -1;
		}
	}
	pd->n = 0;
	return 0;
}

/* The key's n of an event of kind at ts on cpu (rows of a CPU come in
 * its order: the same ts twice counts up). */
static uint32_t key_n(struct store *s, int kind, int cpu, uint64_t ts)
{
	struct key_seq *k;
	size_t i = cpu >= 0 ? (size_t)cpu : 0;

	if (i >= s->nseq[kind] &&
	    grow_array(&s->seq[kind], &s->nseq[kind], sizeof(*s->seq[kind]), i + 1, 1))
		return 0;	/* no memory: a taken key finds a free one */
	k = &s->seq[kind][i];
	if (k->used && k->ts == ts)
		return ++k->n;
	k->used = 1;
	k->ts = ts;
	k->n = 0;
	return 0;
}

void st_forget_keys(struct store *s)
{
	for (int k = 0; k < TABLE_COUNT; k++)
		for (size_t i = 0; i < s->nseq[k]; i++)
			s->seq[k][i].used = 0;
}

/* OP_PATCH: the derived columns of a row an earlier batch wrote. */
static int run_patch(struct store *s, const struct op *o)
{
	sqlite3_stmt *st = o->kind < TABLE_COUNT ? s->patch[o->kind] : NULL;

	if (!st)
		return 0;
	if (o->kind == DECODE_SCHED_SWITCH) {
		if (o->slice_dur < 0)	/* store_slice_unshow */
			sqlite3_bind_null(st, 1);
		else
			sqlite3_bind_int64(st, 1, o->slice_dur);
		if (o->slice_state < 0)
			sqlite3_bind_null(st, 2);
		else
			sqlite3_bind_int64(st, 2, o->slice_state);
		if (o->off_dur >= 0) {
			sqlite3_bind_int64(st, 7, o->off_dur);
			sqlite3_bind_int(st, 8, o->off_state);
			sqlite3_bind_int(st, 9, o->off_cpu);
			if (o->off_hid)
				sqlite3_bind_int64(st, 10, o->off_hid);
			else
				sqlite3_bind_null(st, 10);
		} else {
			for (int i = 7; i <= 10; i++)
				sqlite3_bind_null(st, i);
		}
	} else {
		sqlite3_bind_int64(st, 1, o->latency);
		sqlite3_bind_int(st, 2, o->run_cpu);
		sqlite3_bind_int64(st, 3, o->run_hid);
	}
	sqlite3_bind_int64(st, 4, (sqlite3_int64)o->ts);
	sqlite3_bind_int(st, 5, o->cpu);
	sqlite3_bind_int(st, 6, o->p[0]);
	return st_step(s, st, "storing a derived answer");
}

/* An idle slice's row (dv_open_idle: ts, cpu, dur, hid, prio, start_err). */
static int run_idle(struct store *s, const struct op *o)
{
	sqlite3_stmt *st = s->misc[ST_IDLE];

	sqlite3_bind_int64(st, 1, (int64_t)o->ts);
	sqlite3_bind_int(st, 2, o->cpu);
	sqlite3_bind_int64(st, 3, o->v[0]);
	sqlite3_bind_int64(st, 4, o->hid);
	if (o->p[0] == DERIVE_PRIO_UNKNOWN)
		sqlite3_bind_null(st, 5);
	else
		sqlite3_bind_int(st, 5, o->p[0]);
	if (o->v[2] < 0)
		sqlite3_bind_null(st, 6);
	else
		sqlite3_bind_int64(st, 6, o->v[2]);
	return st_step(s, st, "storing an idle slice's row");
}

/* OP_RUNNING: a running slice's own row, in place of the one before. */
static int run_running(struct store *s, const struct op *o, const struct batch *b)
{
	bool idle = o->has & OP_IDLE_OLD;
	sqlite3_stmt *st = s->misc[idle ? ST_IDLE_DROP : ST_RUNNING_DROP];
	struct row r;

	if (o->has & OP_DROP_OLD) {
		sqlite3_bind_int64(st, 1, o->ids[0]);
		sqlite3_bind_int(st, 2, o->cpu);
		if (!idle)
			sqlite3_bind_int(st, 3, RUNNING_N);
		if (st_step(s, st, "dropping a running slice's row"))
			return -1;
	}
	if (!(o->has & OP_NEW_ROW))
		return 0;
	if (o->has & OP_IDLE_NEW)
		return run_idle(s, o);
	event_row(&r, o, b, 0);
	r.c[2].i = RUNNING_N;
	st = s->misc[ST_RUNNING];
	for (int c = 0; c < event_table[TABLE_SCHED].ncols; c++) {
		if (r.c[c].t == V_INT)
			sqlite3_bind_int64(st, c + 1, r.c[c].i);
		else
			sqlite3_bind_null(st, c + 1);
	}
	return st_step(s, st, "storing a running slice's row");
}

int st_flush_events(struct store *s, const struct batch *b)
{
	for (int k = 0; k < TABLE_COUNT; k++)
		if (s->pending[k].n && flush_kind(s, k, b))
			return -1;
	return 0;
}

static void bind_history(sqlite3_stmt *st, const struct op *o,
			 const struct batch *b)
{
	sqlite3_bind_int64(st, 1, o->hid);
	sqlite3_bind_int(st, 2, o->p[0]);	/* unused by the UPDATE */
	if (o->p[1] == RESOLVE_TGID_UNKNOWN)
		sqlite3_bind_null(st, 3);
	else
		sqlite3_bind_int(st, 3, o->p[1]);
	bind_text(st, 4, b, o->text, o->text_len, o->ids[0] != 0);
	sqlite3_bind_int64(st, 5, o->v[0]);
	if ((uint64_t)o->v[1] == RESOLVE_OPEN)
		sqlite3_bind_null(st, 6);
	else
		sqlite3_bind_int64(st, 6, o->v[1]);
	sqlite3_bind_text(st, 7, resolve_source_name(o->type), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, o->ids[1]);
	if (o->v[2] > 0)
		sqlite3_bind_int64(st, 9, o->v[2]);
	else
		sqlite3_bind_null(st, 9);
}

int st_run_op(struct store *s, const struct op *o, const struct batch *b)
{
	sqlite3_stmt *st;

	switch (o->op) {
	case OP_EVENT: {
		struct pending *pd = &s->pending[o->kind];

		pd->key[pd->n] = key_n(s, o->kind, o->cpu, o->ts);
		pd->idx[pd->n++] = (uint32_t)(o - b->ops);
		if (pd->n == ROWS_PER_FLUSH)
			return flush_kind(s, o->kind, b);
		return 0;
	}
	case OP_COMM:
		st = s->misc[ST_COMM];
		sqlite3_bind_int64(st, 1, o->hid);
		bind_text(st, 2, b, o->text, o->text_len, 1);
		return st_step(s, st, "storing comm");
	case OP_HISTORY:
		/* A row that may have been written (in this transaction or
		 * one before) is updated, or inserted when it was not. */
		if (o->has & OP_NEW_ROW) {
			bind_history(s->misc[ST_HISTORY], o, b);
			return st_step(s, s->misc[ST_HISTORY], "storing comm history");
		}
		bind_history(s->misc[ST_HISTORY_UPDATE], o, b);
		if (st_step(s, s->misc[ST_HISTORY_UPDATE], "updating comm history"))
			return -1;
		if (sqlite3_changes(s->db))
			return 0;
		bind_history(s->misc[ST_HISTORY], o, b);
		return st_step(s, s->misc[ST_HISTORY], "storing comm history");
	case OP_TYPE:
		st = s->misc[ST_TYPE];
		sqlite3_bind_int64(st, 1, o->type);
		bind_text(st, 2, b, o->text, o->text_len, 1);
		bind_text(st, 3, b, o->text2, o->text2_len, 1);
		return st_step(s, st, "storing event type");
	case OP_LOST:
		st = s->misc[ST_LOST];
		sqlite3_bind_int(st, 1, o->cpu);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)o->ts);
		if (o->v[0] < 0)
			sqlite3_bind_null(st, 3);
		else
			sqlite3_bind_int64(st, 3, o->v[0]);
		if (o->v[1])
			sqlite3_bind_int64(st, 4, o->v[1]);
		else
			sqlite3_bind_null(st, 4);
		return st_step(s, st, "storing lost events");
	case OP_CLOCK:
		st = s->misc[ST_CLOCK];
		sqlite3_bind_int64(st, 1, o->v[0]);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)o->ts);
		sqlite3_bind_int64(st, 3, o->v[1]);
		sqlite3_bind_int64(st, 4, o->v[2]);
		return st_step(s, st, "storing a clock reading");
	case OP_PATCH:
		return run_patch(s, o);
	case OP_RUNNING:
		return run_running(s, o, b);
	case OP_STACK:
		st = s->misc[ST_STACK];
		sqlite3_bind_int64(st, 1, o->v[0]);
		bind_text(st, 2, b, o->text, o->text_len, 1);
		return st_step(s, st, "storing a stack");
	case OP_SWITCH_STACK:
		st = s->misc[ST_SWITCH_STACK];
		sqlite3_bind_int64(st, 1, (sqlite3_int64)o->ts);
		sqlite3_bind_int(st, 2, o->cpu);
		sqlite3_bind_int64(st, 3, o->v[0]);
		return st_step(s, st, "storing a switch's stack");
	case OP_CGROUP: {
		static const char *const source[] = {
			[STORE_CG_PROC] = "proc", [STORE_CG_ATTACH] = "cgroup_attach_task",
			[STORE_CG_TRANSFER] = "cgroup_transfer_tasks",
			[STORE_CG_FORK] = "fork", [STORE_CG_EXIT] = "exit",
		};

		if (o->v[0] == CG_END_MOVED) {
			st = s->misc[ST_CGROUP_END_MOVED];
			sqlite3_bind_int(st, 1, o->p[0]);
			sqlite3_bind_int64(st, 2, (sqlite3_int64)o->ts);
			sqlite3_bind_int64(st, 3, o->v[1]);
			return st_step(s, st, "moving a cgroup_history row's end");
		}
		st = s->misc[ST_CGROUP_END];
		sqlite3_bind_int(st, 1, o->p[0]);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)o->ts);
		if (o->v[0] && st_step(s, st, "ending a cgroup_history row"))
			return -1;
		if (!o->has)
			return 0;
		st = s->misc[ST_CGROUP];
		sqlite3_bind_int(st, 1, o->p[0]);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)o->ts);
		bind_text(st, 3, b, o->text2, o->text2_len, 1);
		bind_text(st, 4, b, o->text, o->text_len, 1);
		sqlite3_bind_text(st, 5, o->type >= 0 &&
				  (size_t)o->type < sizeof(source) / sizeof(*source) ?
				  source[o->type] : "?", -1, SQLITE_STATIC);
		return st_step(s, st, "storing cgroup_history");
	}
	case OP_BEGIN:
		return st_step(s, s->misc[ST_BEGIN], "BEGIN");
	case OP_COMMIT: {
		int64_t wake = __atomic_load_n(&s->max_wake_latency, __ATOMIC_RELAXED);
		int save = s->retain && wake > s->wake_saved;

		int hold = o->v[0] >= 0 && o->v[0] != s->hold_saved;

		if (st_flush_events(s, b) ||
		    (save && st_set_db_stat(s, "max_wake_latency", wake)) ||
		    (hold && st_set_db_stat(s, "wake_pending_ts", o->v[0])) ||
		    st_step(s, s->misc[ST_COMMIT], "COMMIT"))
			return -1;
		if (save)
			s->wake_saved = wake;
		if (hold)
			s->hold_saved = o->v[0];
		st_trim(s);
		if (s->retain)
			st_checkpoint(s);
		return 0;
	}
	}
	return 0;
}

/* An event table's INSERT, from its row source. */
int st_prepare_insert(struct store *s, int kind)
{
	char name[32], sql[256];

	s->ncols[kind] = event_table[kind].ncols;
	s->src[kind].s = s;
	s->src[kind].kind = kind;
	snprintf(name, sizeof(name), "commd_rows_%d", kind);
	if (sqlite3_create_module(s->db, name, &rows_module, &s->src[kind]) != SQLITE_OK)
		return st_fail(s, "registering the row source");
	snprintf(sql, sizeof(sql), "INSERT OR FAIL INTO %s SELECT * FROM %s",
		 event_table[kind].name, name);
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &s->ins[kind], NULL) != SQLITE_OK)
		return st_fail(s, "preparing insert");
	snprintf(sql, sizeof(sql), "SELECT coalesce(max(n) + 1, 0) FROM %s "
		 "WHERE ts = ?1 AND cpu = ?2", event_table[kind].name);
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &s->next_n[kind], NULL) != SQLITE_OK)
		return st_fail(s, "preparing insert");
	/* The derived columns of a row written before (OP_PATCH): found by
	 * its key's ts and cpu, and the task it switched in or woke. */
	if (kind == DECODE_SCHED_SWITCH)
		snprintf(sql, sizeof(sql), "UPDATE ev_sched_switch SET slice_dur = ?1, "
			 "slice_state = ?2, off_dur = ?7, off_state = ?8, off_cpu = ?9, "
			 "off_hid = ?10 WHERE ts = ?4 AND cpu = ?5 AND next_pid = ?6");
	else if (kind == DECODE_SCHED_WAKING || kind == DECODE_SCHED_WAKEUP ||
		 kind == DECODE_SCHED_WAKEUP_NEW)
		snprintf(sql, sizeof(sql), "UPDATE %s SET latency = ?1, run_cpu = ?2, "
			 "run_hid = ?3 WHERE ts = ?4 AND cpu = ?5 AND target_pid = ?6 "
			 "AND latency IS NULL", event_table[kind].name);
	else
		return 0;
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &s->patch[kind], NULL) != SQLITE_OK)
		return st_fail(s, "preparing update");
	return 0;
}
