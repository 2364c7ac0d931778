/* store_rows.c — operations run on the connection: the row virtual tables (store_impl.h). */
#include "store_impl.h"

static const struct { const char *name; int ncols; } event_table[TABLE_COUNT] = {
	[TABLE_SCHED] = { "dv_sched", 9 },
	[TABLE_WAKEUP_LATENCY] = { "dv_wakeup_latency", 5 },
	[DECODE_OTHER] = { "ev_other", 5 },
	/* its own fields, then slice_dur, slice_prio, wake_latency,
	 * wake_hid, waker_hid (schema 004) */
	[DECODE_SCHED_SWITCH] = { "ev_sched_switch", 15 },
	[DECODE_SCHED_WAKEUP] = { "ev_sched_wakeup", 7 },
	[DECODE_SCHED_WAKEUP_NEW] = { "ev_sched_wakeup_new", 7 },
	[DECODE_SCHED_WAKING] = { "ev_sched_waking", 7 },
	[DECODE_SCHED_PROCESS_FORK] = { "ev_sched_process_fork", 7 },
	[DECODE_SCHED_PROCESS_EXEC] = { "ev_sched_process_exec", 6 },
	[DECODE_SCHED_PROCESS_EXIT] = { "ev_sched_process_exit", 6 },
	[DECODE_SCHED_PROCESS_FREE] = { "ev_sched_process_free", 6 },
	[DECODE_SCHED_MIGRATE_TASK] = { "ev_sched_migrate_task", 8 },
	[DECODE_TASK_RENAME] = { "ev_task_rename", 6 },
	[DECODE_TASK_NEWTASK] = { "ev_task_newtask", 6 },
	[DECODE_SCHED_STAT_RUNTIME] = { "ev_sched_stat_runtime", 7 },
};

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

#define MAX_COLS 16

struct row {
	struct val c[MAX_COLS];
};

static inline void v_int(struct row *r, int col, int64_t v)
{
	r->c[col].t = V_INT;
	r->c[col].i = v;
}

static inline void v_id(struct row *r, int col, uint32_t id)
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

/* One event's columns, in its table's order. */
static void event_row(struct row *r, const struct op *o, const struct batch *b)
{
	v_int(r, 0, (int64_t)o->ts);
	v_int(r, 1, o->cpu);
	v_int(r, 2, o->hid);
	if (o->kind == TABLE_SCHED) {
		/* ts, dur, cpu, hid, prio, end_state, lost, start_err,
		 * end_err (v[2], slice_dur); negative: NULL */
		v_int(r, 1, o->v[0]);
		v_int(r, 2, o->cpu);
		v_int(r, 3, o->hid);
		v_int(r, 4, o->p[0]);
		if (o->p[0] == DERIVE_PRIO_UNKNOWN)
			r->c[4].t = V_NULL;
		v_int(r, 5, o->v[1]);
		if (o->v[1] < 0)
			r->c[5].t = V_NULL;
		v_int(r, 6, o->p[1]);
		v_int(r, 7, o->v[2]);
		if (o->v[2] < 0)
			r->c[7].t = V_NULL;
		v_int(r, 8, o->slice_dur);
		if (o->slice_dur < 0)
			r->c[8].t = V_NULL;
		return;
	}
	if (o->kind == TABLE_WAKEUP_LATENCY) {
		/* ts, cpu, hid, latency, waker_hid */
		v_int(r, 3, o->v[0]);
		v_id(r, 4, o->ids[0]);
		return;
	}
	switch (o->kind) {
	case DECODE_SCHED_SWITCH:
		v_opt(r, 3, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 4, o->ids[0]);
		v_opt(r, 5, o, DECODE_HAS_V0, o->v[0]);
		v_opt(r, 6, o, DECODE_HAS_V1, o->v[1]);
		v_opt(r, 7, o, DECODE_HAS_P1, o->p[1]);
		v_id(r, 8, o->ids[1]);
		v_opt(r, 9, o, DECODE_HAS_V2, o->v[2]);
		v_opt(r, 10, o, OP_HAS_SLICE, o->slice_dur);
		v_opt(r, 11, o, OP_HAS_SLICE_PRIO, o->slice_prio);
		v_opt(r, 12, o, OP_HAS_WAKE, o->wake_latency);
		v_id(r, 13, (o->has & OP_HAS_WAKE) ? o->wake_hid : 0);
		v_id(r, 14, (o->has & OP_HAS_WAKE) ? o->waker_hid : 0);
		break;
	case DECODE_SCHED_WAKEUP:
	case DECODE_SCHED_WAKEUP_NEW:
	case DECODE_SCHED_WAKING:
	case DECODE_SCHED_STAT_RUNTIME:
		v_opt(r, 3, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 4, o->ids[0]);
		v_opt(r, 5, o, DECODE_HAS_V0, o->v[0]);
		v_opt(r, 6, o, DECODE_HAS_V1, o->v[1]);
		break;
	case DECODE_SCHED_PROCESS_FORK:
		v_opt(r, 3, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 4, o->ids[0]);
		v_opt(r, 5, o, DECODE_HAS_P1, o->p[1]);
		v_id(r, 6, o->ids[1]);
		break;
	case DECODE_SCHED_PROCESS_EXEC:
		v_text(r, 3, b, o->text, o->text_len, o->has & DECODE_HAS_STR);
		v_opt(r, 4, o, DECODE_HAS_P0, o->p[0]);
		v_opt(r, 5, o, DECODE_HAS_P1, o->p[1]);
		break;
	case DECODE_SCHED_PROCESS_EXIT:
	case DECODE_SCHED_PROCESS_FREE:
		v_opt(r, 3, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 4, o->ids[0]);
		v_opt(r, 5, o, DECODE_HAS_V0, o->v[0]);
		break;
	case DECODE_SCHED_MIGRATE_TASK:
		v_opt(r, 3, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 4, o->ids[0]);
		v_opt(r, 5, o, DECODE_HAS_V0, o->v[0]);
		v_opt(r, 6, o, DECODE_HAS_V1, o->v[1]);
		v_opt(r, 7, o, DECODE_HAS_V2, o->v[2]);
		break;
	case DECODE_TASK_RENAME:
		v_opt(r, 3, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 4, o->ids[0]);
		v_id(r, 5, o->ids[1]);
		break;
	case DECODE_TASK_NEWTASK:
		v_opt(r, 3, o, DECODE_HAS_P0, o->p[0]);
		v_id(r, 4, o->ids[0]);
		v_opt(r, 5, o, DECODE_HAS_V0, o->v[0]);
		break;
	case DECODE_OTHER:
	default:
		v_int(r, 3, o->type);
		v_text(r, 4, b, o->text, o->text_len, o->has & DECODE_HAS_STR);
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
	char sql[160];
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
	const struct store *s = c->src->s;
	const struct pending *pd = &s->pending[c->src->kind];

	if (c->i < pd->n)
		event_row(&c->row, &s->cur->ops[pd->idx[c->i]], s->cur);
}

static int rows_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr,
		       int argc, sqlite3_value **argv)
{
	struct rows_cursor *c = (struct rows_cursor *)cur;

	(void)idx;
	(void)idxstr;
	(void)argc;
	(void)argv;
	c->i = 0;
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

/* Rows of one table stay in their order. */
static int flush_kind(struct store *s, int kind, const struct batch *b)
{
	struct pending *pd = &s->pending[kind];
	int rc;

	s->cur = b;
	rc = st_step(s, s->ins[kind], "storing events");
	pd->n = 0;
	return rc;
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
		return st_step(s, st, "storing lost events");
	case OP_CLOCK:
		st = s->misc[ST_CLOCK];
		sqlite3_bind_int64(st, 1, o->v[0]);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)o->ts);
		sqlite3_bind_int64(st, 3, o->v[1]);
		sqlite3_bind_int64(st, 4, o->v[2]);
		return st_step(s, st, "storing a clock reading");
	case OP_BEGIN:
		return st_step(s, s->misc[ST_BEGIN], "BEGIN");
	case OP_COMMIT: {
		int64_t wake = __atomic_load_n(&s->max_wake_latency, __ATOMIC_RELAXED);
		int save = s->retain && wake > s->wake_saved;

		if (st_flush_events(s, b) ||
		    (save && st_set_db_stat(s, "max_wake_latency", wake)) ||
		    st_step(s, s->misc[ST_COMMIT], "COMMIT"))
			return -1;
		if (save)
			s->wake_saved = wake;
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
	char name[32], sql[160];

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
	return 0;
}
