/* packed — what one SQLite row per event costs, against events packed in
 * blocks: a measurement for issue 17's points 4 and 6 and issue 18's
 * point 6, which ask ingest to cost less than one row per event can.
 *
 *   packed IN.db OUTDIR [ROWS_PER_BLOCK] [RUNS]
 *
 * Reads every ev_sched_switch row of IN (a commd database: its 19
 * columns, in key order) into memory, then stores them three ways, each
 * into its own file in OUTDIR, committing every 10,000 rows:
 *
 *   keyed   one row each in a WITHOUT ROWID table keyed (ts, cpu, n), as
 *           commd stores them, through an eponymous virtual table and one
 *           INSERT ... SELECT a commit, as commd's writer does;
 *   rowid   one row each appended to a rowid table, the same way (no key,
 *           no window: the cheapest one row per event can be);
 *   packed  ROWS_PER_BLOCK rows (256) a row of a table keyed by the
 *           block's last ts: each column frame-of-reference coded (its
 *           minimum, then every value's distance from it in 1, 2, 4 or 8
 *           bytes, 0 for NULL), read back through the virtual table
 *           `packed`, which takes ts bounds from the WHERE clause.
 *
 * Prints the CPU time per row of each (the best of RUNS), each file's
 * size, and the same queries timed on keyed and packed: a 1 s and a 60 s
 * window, one task's switches (a scan of all), a GROUP BY of all. Every
 * answer must agree between the two or the program fails. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#define NCOL 19
#define COMMIT_ROWS 10000

static const char *const cols =
	"ts, cpu, n, next_pid, hid, prev_pid, prev_comm, prev_prio, prev_state, "
	"next_comm, next_prio, next_hid, slice_dur, slice_state, wake_latency, "
	"off_dur, off_state, off_cpu, off_hid";
static const char *const decl =
	"ts INTEGER NOT NULL, cpu INTEGER NOT NULL, n INTEGER NOT NULL, "
	"next_pid INTEGER, hid INTEGER NOT NULL, prev_pid INTEGER, prev_comm INTEGER, "
	"prev_prio INTEGER, prev_state INTEGER, next_comm INTEGER, next_prio INTEGER, "
	"next_hid INTEGER, slice_dur INTEGER, slice_state INTEGER, wake_latency INTEGER, "
	"off_dur INTEGER, off_state INTEGER, off_cpu INTEGER, off_hid INTEGER";

struct row {
	int64_t v[NCOL];
	uint32_t null;		/* bit c: column c is NULL */
};

static struct row *rows;
static size_t nrows;

static void die(sqlite3 *db, const char *what)
{
	fprintf(stderr, "packed: %s: %s\n", what, db ? sqlite3_errmsg(db) : "failed");
	exit(1);
}

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double wall_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "packed: %s: %s\n", sql, msg ? msg : "?");
		exit(1);
	}
}

static void load(const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char sql[512];
	size_t cap = 0;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		die(db, path);
	snprintf(sql, sizeof(sql), "SELECT %s FROM ev_sched_switch ORDER BY ts, cpu, n", cols);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		die(db, "reading ev_sched_switch");
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct row *r;

		if (nrows == cap) {
			cap = cap ? cap * 2 : 65536;
			rows = realloc(rows, cap * sizeof(*rows));
			if (!rows)
				die(NULL, "memory");
		}
		r = &rows[nrows++];
		r->null = 0;
		for (int c = 0; c < NCOL; c++) {
			r->v[c] = sqlite3_column_int64(st, c);
			if (sqlite3_column_type(st, c) == SQLITE_NULL)
				r->null |= 1u << c;
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* The rows in memory as an eponymous virtual table, `src`, from row
 * `src_from` to `src_to` (what one commit stores). */
static size_t src_from, src_to;

struct src_cursor {
	sqlite3_vtab_cursor base;
	size_t i;
};

static int src_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		       sqlite3_vtab **out, char **err)
{
	char sql[600];

	(void)aux, (void)argc, (void)argv, (void)err;
	snprintf(sql, sizeof(sql), "CREATE TABLE x(%s)", cols);
	if (sqlite3_declare_vtab(db, sql) != SQLITE_OK)
		return SQLITE_ERROR;
	*out = sqlite3_malloc(sizeof(**out));
	if (!*out)
		return SQLITE_NOMEM;
	memset(*out, 0, sizeof(**out));
	return SQLITE_OK;
}

static int vt_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

static int src_best(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	(void)vt;
	info->estimatedCost = (double)COMMIT_ROWS;
	return SQLITE_OK;
}

static int src_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct src_cursor *c = sqlite3_malloc(sizeof(*c));

	(void)vt;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int vt_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int src_filter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc,
		      sqlite3_value **argv)
{
	(void)num, (void)str, (void)argc, (void)argv;
	((struct src_cursor *)cur)->i = src_from;
	return SQLITE_OK;
}

static int src_next(sqlite3_vtab_cursor *cur)
{
	((struct src_cursor *)cur)->i++;
	return SQLITE_OK;
}

static int src_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct src_cursor *)cur)->i >= src_to;
}

static int src_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct row *r = &rows[((struct src_cursor *)cur)->i];

	if (r->null >> col & 1)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, r->v[col]);
	return SQLITE_OK;
}

static int vt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
	*out = (sqlite3_int64)((struct src_cursor *)cur)->i;
	return SQLITE_OK;
}

static const sqlite3_module src_module = {
	.xConnect = src_connect, .xBestIndex = src_best, .xDisconnect = vt_disconnect,
	.xOpen = src_open, .xClose = vt_close, .xFilter = src_filter, .xNext = src_next,
	.xEof = src_eof, .xColumn = src_column, .xRowid = vt_rowid,
};

/* A block: NCOL column headers (minimum, width), then each column's
 * values, column after column. A value is stored as its distance from the
 * minimum plus one, 0 standing for NULL; width 0: every value NULL. */
struct colhdr {
	int64_t min;
	uint8_t width;
	uint8_t pad[7];
};

static size_t encode(const struct row *r, size_t n, unsigned char *out)
{
	struct colhdr *h = (struct colhdr *)out;
	unsigned char *p = out + NCOL * sizeof(*h);

	for (int c = 0; c < NCOL; c++) {
		int64_t min = INT64_MAX, max = INT64_MIN;
		uint64_t span;

		for (size_t i = 0; i < n; i++) {
			if (r[i].null >> c & 1)
				continue;
			if (r[i].v[c] < min)
				min = r[i].v[c];
			if (r[i].v[c] > max)
				max = r[i].v[c];
		}
		memset(&h[c], 0, sizeof(h[c]));
		if (min > max)
			continue;	/* all NULL: width 0 */
		span = (uint64_t)max - (uint64_t)min + 1;
		h[c].min = min;
		h[c].width = span < 0xff ? 1 : span < 0xffff ? 2 : span < 0xffffffffu ? 4 : 8;
		for (size_t i = 0; i < n; i++) {
			uint64_t d = r[i].null >> c & 1 ? 0 : (uint64_t)r[i].v[c] - (uint64_t)min + 1;

			switch (h[c].width) {
			case 1: *p = (unsigned char)d; break;
			case 2: { uint16_t x = (uint16_t)d; memcpy(p, &x, 2); break; }
			case 4: { uint32_t x = (uint32_t)d; memcpy(p, &x, 4); break; }
			default: memcpy(p, &d, 8);
			}
			p += h[c].width;
		}
	}
	return (size_t)(p - out);
}

/* The packed blocks as a virtual table with the columns of the rows. */
struct pk_vtab {
	sqlite3_vtab base;
	sqlite3 *db;
	int64_t span;		/* the longest a block lasts, ts first to last */
};

struct pk_cursor {
	sqlite3_vtab_cursor base;
	sqlite3_stmt *st;	/* the blocks of the window */
	const unsigned char *data;
	const struct colhdr *h;
	size_t off[NCOL];
	int64_t cnt, i;
	int eof;
};

static int pk_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		      sqlite3_vtab **out, char **err)
{
	struct pk_vtab *vt;
	sqlite3_stmt *st;
	char sql[600];

	(void)aux, (void)argc, (void)argv, (void)err;
	snprintf(sql, sizeof(sql), "CREATE TABLE x(%s)", cols);
	if (sqlite3_declare_vtab(db, sql) != SQLITE_OK)
		return SQLITE_ERROR;
	vt = sqlite3_malloc(sizeof(*vt));
	if (!vt)
		return SQLITE_NOMEM;
	memset(vt, 0, sizeof(*vt));
	vt->db = db;
	if (sqlite3_prepare_v2(db, "SELECT max(t1 - t0) FROM blocks", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		vt->span = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	*out = &vt->base;
	return SQLITE_OK;
}

/* idxNum bit 1: a lower bound on ts, bit 2: an upper bound (argv in that
 * order). SQLite checks every bound again: the blocks give a superset. */
static int pk_best(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	int lo = -1, hi = -1, num = 0, argi = 1;

	(void)vt;
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];

		if (!c->usable || c->iColumn != 0)
			continue;
		if ((c->op == SQLITE_INDEX_CONSTRAINT_GE || c->op == SQLITE_INDEX_CONSTRAINT_GT ||
		     c->op == SQLITE_INDEX_CONSTRAINT_EQ) && lo < 0)
			lo = i;
		if ((c->op == SQLITE_INDEX_CONSTRAINT_LE || c->op == SQLITE_INDEX_CONSTRAINT_LT ||
		     c->op == SQLITE_INDEX_CONSTRAINT_EQ) && hi < 0)
			hi = i;
	}
	if (lo >= 0) {
		info->aConstraintUsage[lo].argvIndex = argi++;
		num |= 1;
	}
	if (hi >= 0) {
		info->aConstraintUsage[hi].argvIndex = argi++;
		num |= 2;
	}
	info->idxNum = num;
	info->estimatedCost = num == 3 ? 1e3 : num ? 1e6 : 1e7;
	info->estimatedRows = num == 3 ? 1000 : num ? 1000000 : 10000000;
	return SQLITE_OK;
}

static int pk_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct pk_cursor *c = sqlite3_malloc(sizeof(*c));

	(void)vt;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int pk_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_finalize(((struct pk_cursor *)cur)->st);
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int pk_block(struct pk_cursor *c)
{
	size_t o = NCOL * sizeof(struct colhdr);

	for (;;) {
		int rc = sqlite3_step(c->st);

		if (rc != SQLITE_ROW) {
			c->eof = 1;
			return rc == SQLITE_DONE ? SQLITE_OK : rc;
		}
		c->cnt = sqlite3_column_int64(c->st, 0);
		c->data = sqlite3_column_blob(c->st, 1);
		if (c->cnt > 0 && c->data)
			break;
	}
	c->h = (const struct colhdr *)c->data;
	for (int k = 0; k < NCOL; k++) {
		c->off[k] = o;
		o += (size_t)c->cnt * c->h[k].width;
	}
	c->i = 0;
	return SQLITE_OK;
}

static int pk_filter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc,
		     sqlite3_value **argv)
{
	struct pk_cursor *c = (struct pk_cursor *)cur;
	struct pk_vtab *vt = (struct pk_vtab *)cur->pVtab;
	int64_t lo = INT64_MIN, hi = INT64_MAX;
	int a = 0;

	(void)str, (void)argc;
	if (num & 1)
		lo = sqlite3_value_int64(argv[a++]);
	if (num & 2)
		hi = sqlite3_value_int64(argv[a++]);
	sqlite3_finalize(c->st);
	/* A block holding a row at ts in [lo, hi] ends at or after lo and
	 * at most span after hi. */
	if (sqlite3_prepare_v2(vt->db, "SELECT cnt, data FROM blocks WHERE t1 >= ?1 AND t1 <= ?2 "
			       "AND t0 <= ?3 ORDER BY t1", -1, &c->st, NULL) != SQLITE_OK)
		return SQLITE_ERROR;
	sqlite3_bind_int64(c->st, 1, lo);
	sqlite3_bind_int64(c->st, 2, hi > INT64_MAX - vt->span ? INT64_MAX : hi + vt->span);
	sqlite3_bind_int64(c->st, 3, hi);
	c->eof = 0;
	return pk_block(c);
}

static int pk_next(sqlite3_vtab_cursor *cur)
{
	struct pk_cursor *c = (struct pk_cursor *)cur;

	if (++c->i < c->cnt)
		return SQLITE_OK;
	return pk_block(c);
}

static int pk_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
	*out = ((struct pk_cursor *)cur)->i;
	return SQLITE_OK;
}

static int pk_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct pk_cursor *)cur)->eof;
}

static int pk_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct pk_cursor *c = (const struct pk_cursor *)cur;
	const unsigned char *p = c->data + c->off[col];
	uint64_t d;

	switch (c->h[col].width) {
	case 0: d = 0; break;
	case 1: d = p[c->i]; break;
	case 2: { uint16_t x; memcpy(&x, p + c->i * 2, 2); d = x; break; }
	case 4: { uint32_t x; memcpy(&x, p + c->i * 4, 4); d = x; break; }
	default: memcpy(&d, p + c->i * 8, 8);
	}
	if (d == 0)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, (int64_t)((uint64_t)c->h[col].min + d - 1));
	return SQLITE_OK;
}

static const sqlite3_module pk_module = {
	.xConnect = pk_connect, .xBestIndex = pk_best, .xDisconnect = vt_disconnect,
	.xOpen = pk_open, .xClose = pk_close, .xFilter = pk_filter, .xNext = pk_next,
	.xEof = pk_eof, .xColumn = pk_column, .xRowid = pk_rowid,
};

static sqlite3 *open_out(const char *path)
{
	sqlite3 *db;

	remove(path);
	if (sqlite3_open(path, &db) != SQLITE_OK)
		die(db, path);
	exec(db, "PRAGMA page_size = 16384; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
	return db;
}

/* One row an event, through `src` like commd's writer: CPU seconds. */
static double store_rows(const char *path, int keyed)
{
	sqlite3 *db = open_out(path);
	sqlite3_stmt *ins;
	char sql[900];
	double t;

	snprintf(sql, sizeof(sql), "CREATE TABLE t (%s%s)%s", decl,
		 keyed ? ", PRIMARY KEY (ts, cpu, n)" : "", keyed ? " WITHOUT ROWID" : "");
	exec(db, sql);
	if (sqlite3_create_module(db, "src", &src_module, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO t SELECT * FROM src", -1, &ins, NULL) != SQLITE_OK)
		die(db, "preparing the insert");
	t = cpu_now();
	for (size_t i = 0; i < nrows; i += COMMIT_ROWS) {
		src_from = i;
		src_to = i + COMMIT_ROWS < nrows ? i + COMMIT_ROWS : nrows;
		exec(db, "BEGIN");
		if (sqlite3_step(ins) != SQLITE_DONE)
			die(db, "inserting");
		sqlite3_reset(ins);
		exec(db, "COMMIT");
	}
	t = cpu_now() - t;
	sqlite3_finalize(ins);
	sqlite3_close(db);
	return t;
}

/* Blocks of per rows, one SQLite row each: CPU seconds. */
static double store_packed(const char *path, size_t per)
{
	sqlite3 *db = open_out(path);
	sqlite3_stmt *ins;
	unsigned char *buf = malloc(NCOL * (sizeof(struct colhdr) + 8 * per));
	double t;

	if (!buf)
		die(NULL, "memory");
	exec(db, "CREATE TABLE blocks (t1 INTEGER NOT NULL, seq INTEGER NOT NULL, "
		 "t0 INTEGER NOT NULL, cnt INTEGER NOT NULL, data BLOB NOT NULL, "
		 "PRIMARY KEY (t1, seq)) WITHOUT ROWID");
	if (sqlite3_prepare_v2(db, "INSERT INTO blocks VALUES (?, ?, ?, ?, ?)", -1, &ins, NULL) != SQLITE_OK)
		die(db, "preparing the insert");
	t = cpu_now();
	for (size_t i = 0; i < nrows; i += COMMIT_ROWS) {
		size_t end = i + COMMIT_ROWS < nrows ? i + COMMIT_ROWS : nrows;

		exec(db, "BEGIN");
		for (size_t b = i; b < end; b += per) {
			size_t n = b + per < end ? per : end - b;
			size_t len = encode(&rows[b], n, buf);

			sqlite3_bind_int64(ins, 1, rows[b + n - 1].v[0]);
			sqlite3_bind_int64(ins, 2, (sqlite3_int64)b);
			sqlite3_bind_int64(ins, 3, rows[b].v[0]);
			sqlite3_bind_int64(ins, 4, (sqlite3_int64)n);
			sqlite3_bind_blob(ins, 5, buf, (int)len, SQLITE_STATIC);
			if (sqlite3_step(ins) != SQLITE_DONE)
				die(db, "inserting a block");
			sqlite3_reset(ins);
		}
		exec(db, "COMMIT");
	}
	t = cpu_now() - t;
	sqlite3_finalize(ins);
	sqlite3_close(db);
	free(buf);
	return t;
}

static long long file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long long n = -1;

	if (f && fseek(f, 0, SEEK_END) == 0)
		n = ftell(f);
	if (f)
		fclose(f);
	return n;
}

/* The query's first row as text, and its best wall time of runs. */
static double query(sqlite3 *db, const char *sql, int runs, char *ans, size_t len)
{
	double best = 1e9;

	for (int r = 0; r < runs; r++) {
		sqlite3_stmt *st;
		double t = wall_now();
		size_t o = 0;

		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
			die(db, sql);
		ans[0] = 0;
		if (sqlite3_step(st) == SQLITE_ROW)
			for (int c = 0; c < sqlite3_column_count(st) && o + 1 < len; c++)
				o += (size_t)snprintf(ans + o, len - o, "%s%s", c ? "|" : "",
						      (const char *)sqlite3_column_text(st, c));
		while (sqlite3_step(st) == SQLITE_ROW)
			;
		sqlite3_finalize(st);
		t = wall_now() - t;
		if (t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	char keyed[4096], rowid[4096], pk[4096];
	size_t per = argc > 3 ? strtoul(argv[3], NULL, 10) : 256;
	int runs = argc > 4 ? atoi(argv[4]) : 3;
	double tk = 1e9, tr = 1e9, tp = 1e9;
	sqlite3 *dk, *dp;
	int64_t first, last, mid, busiest;
	const char *names[] = { "1 s window", "60 s window", "one task (all rows)", "group by (all rows)" };

	if (argc < 3 || per == 0 || runs < 1) {
		fprintf(stderr, "usage: packed IN.db OUTDIR [ROWS_PER_BLOCK] [RUNS]\n");
		return 2;
	}
	load(argv[1]);
	if (nrows < 2)
		die(NULL, "no switches in the database");
	snprintf(keyed, sizeof(keyed), "%s/keyed.db", argv[2]);
	snprintf(rowid, sizeof(rowid), "%s/rowid.db", argv[2]);
	snprintf(pk, sizeof(pk), "%s/packed.db", argv[2]);
	for (int r = 0; r < runs; r++) {
		double t;

		if ((t = store_rows(keyed, 1)) < tk)
			tk = t;
		if ((t = store_rows(rowid, 0)) < tr)
			tr = t;
		if ((t = store_packed(pk, per)) < tp)
			tp = t;
	}
	printf("rows                 %zu sched_switch rows, %zu a block, best of %d\n", nrows, per, runs);
	printf("keyed  (commd today) %.3f us/row  %lld bytes\n", tk * 1e6 / (double)nrows, file_size(keyed));
	printf("rowid  (no key)      %.3f us/row  %lld bytes\n", tr * 1e6 / (double)nrows, file_size(rowid));
	printf("packed               %.3f us/row  %lld bytes\n", tp * 1e6 / (double)nrows, file_size(pk));

	if (sqlite3_open(keyed, &dk) != SQLITE_OK || sqlite3_open(pk, &dp) != SQLITE_OK)
		die(NULL, "reopening");
	if (sqlite3_create_module(dp, "packed", &pk_module, NULL) != SQLITE_OK)
		die(dp, "registering packed");
	first = rows[0].v[0];
	last = rows[nrows - 1].v[0];
	mid = first + (last - first) / 2;
	{
		sqlite3_stmt *st;

		if (sqlite3_prepare_v2(dk, "SELECT next_pid FROM t WHERE next_pid > 0 GROUP BY next_pid "
				       "ORDER BY count(*) DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_ROW)
			die(dk, "finding the busiest task");
		busiest = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	printf("%-22s %10s %10s %7s  answer\n", "query", "keyed ms", "packed ms", "ratio");
	for (int q = 0; q < 4; q++) {
		char sk[512], sp[512], ak[256], ap[256];
		const char *body;
		double a, b;

		switch (q) {
		case 0: case 1:
			body = "SELECT count(*), sum(slice_dur) FROM %s WHERE ts BETWEEN %" PRId64 " AND %" PRId64;
			snprintf(sk, sizeof(sk), body, "t", mid, mid + (q ? 60 : 1) * 1000000000LL);
			snprintf(sp, sizeof(sp), body, "packed", mid, mid + (q ? 60 : 1) * 1000000000LL);
			break;
		case 2:
			body = "SELECT count(*), sum(slice_dur) FROM %s WHERE next_pid = %" PRId64;
			snprintf(sk, sizeof(sk), body, "t", busiest);
			snprintf(sp, sizeof(sp), body, "packed", busiest);
			break;
		default:
			body = "SELECT count(*), sum(c), sum(s) FROM (SELECT next_pid, count(*) AS c, "
			       "sum(slice_dur) AS s FROM %s GROUP BY next_pid)";
			snprintf(sk, sizeof(sk), body, "t");
			snprintf(sp, sizeof(sp), body, "packed");
		}
		a = query(dk, sk, runs + 2, ak, sizeof(ak));
		b = query(dp, sp, runs + 2, ap, sizeof(ap));
		printf("%-22s %10.1f %10.1f %6.2fx  %s\n", names[q], a * 1e3, b * 1e3, b / a, ak);
		if (strcmp(ak, ap)) {
			fprintf(stderr, "packed: %s: keyed says %s, packed %s\n", names[q], ak, ap);
			return 1;
		}
	}
	sqlite3_close(dk);
	sqlite3_close(dp);
	free(rows);
	return 0;
}
