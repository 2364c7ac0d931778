/* sqlfuncs.c — see sqlfuncs.h. */
#include "sqlfuncs.h"
#include "grow.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

/* The row whose interval holds ts (the newest where two meet at a
 * rename), else, when ts is before the pid's first row and that row does
 * not begin with the task's birth (it was alive before the capture saw it),
 * that first row. Outside every lifetime (before a birth, after an exit,
 * between two lifetimes): no row. */
static const char comm_at_sql[] =
	"SELECT comm, tgid FROM ("
	" SELECT comm, tgid, 0 AS k, -start_ts AS o, -id AS i FROM comm_history"
	"  WHERE pid = ?1 AND start_ts <= ?2 AND (end_ts IS NULL OR end_ts >= ?2)"
	" UNION ALL"
	" SELECT comm, tgid, 1, start_ts, id FROM ("
	"  SELECT comm, tgid, start_ts, id, source FROM comm_history"
	"   WHERE pid = ?1 ORDER BY start_ts, id LIMIT 1)"
	"  WHERE start_ts > ?2"
	"    AND source NOT IN ('task_newtask', 'sched_process_fork')"
	") ORDER BY k, o, i LIMIT 1";

/* A thread-group leader's name at ts: its row then, else its last one
 * before (a leader that exited while its threads ran on), else its first. */
static const char leader_at_sql[] =
	"SELECT comm, tgid FROM ("
	" SELECT comm, tgid, 0 AS k, -start_ts AS o FROM comm_history"
	"  WHERE pid = ?1 AND start_ts <= ?2"
	" UNION ALL"
	" SELECT comm, tgid, 1, start_ts FROM comm_history"
	"  WHERE pid = ?1 AND start_ts > ?2"
	") ORDER BY k, o LIMIT 1";

static int lookup(sqlite3 *db, const char *sql, sqlite3_int64 pid,
		  sqlite3_int64 ts, sqlite3_stmt **out)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, pid);
	sqlite3_bind_int64(st, 2, ts);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		*out = NULL;
		return 0;
	}
	*out = st;
	return 1;
}

static void comm_at(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_stmt *st;
	int rc;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	rc = lookup(sqlite3_context_db_handle(ctx), comm_at_sql,
		    sqlite3_value_int64(argv[0]), sqlite3_value_int64(argv[1]), &st);
	if (rc < 0) {
		sqlite3_result_error(ctx, "comm_at: comm_history is not readable", -1);
		return;
	}
	if (rc > 0) {
		sqlite3_result_value(ctx, sqlite3_column_value(st, 0));
		sqlite3_finalize(st);
	}
}

static void process_comm(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3 *db = sqlite3_context_db_handle(ctx);
	sqlite3_int64 ts, tgid;
	sqlite3_stmt *st;
	int rc;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	ts = sqlite3_value_int64(argv[1]);
	rc = lookup(db, comm_at_sql, sqlite3_value_int64(argv[0]), ts, &st);
	if (rc <= 0) {
		if (rc < 0)
			sqlite3_result_error(ctx, "process_comm: comm_history is not readable", -1);
		return;
	}
	if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
		sqlite3_finalize(st);
		return;
	}
	tgid = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	if (lookup(db, leader_at_sql, tgid, ts, &st) > 0) {
		sqlite3_result_value(ctx, sqlite3_column_value(st, 0));
		sqlite3_finalize(st);
	}
}

/* ---- state_name(state): the kernel's letters ---- */

/* The letters of recent kernels (their sched_switch __print_flags table),
 * for a database whose captures do not say. */
static const char default_states[] = STATE_LETTERS_TODAY;

/* The connection's letters, read again only when the database changed
 * (another connection's commit: SQLITE_FCNTL_DATA_VERSION; its own
 * writes: total_changes): a query of millions of rows pays for one
 * look-up, not one a row. */
struct state_map {
	unsigned int version;		/* another connection's commits */
	sqlite3_int64 changes;		/* this connection's own */
	int valid;
	char map[256];
};

/* Whether what a cache read from db may be stale: another connection's
 * commits (SQLITE_FCNTL_DATA_VERSION) or this one's own writes since; the
 * cache is marked fresh. */
static bool db_changed(sqlite3 *db, unsigned int *version,
		       sqlite3_int64 *changes, int *valid)
{
	unsigned int v = 0;

	sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, &v);
	if (*valid && *version == v && *changes == sqlite3_total_changes64(db))
		return false;
	*version = v;
	*changes = sqlite3_total_changes64(db);
	*valid = 1;
	return true;
}

static const char *state_map_of(sqlite3_context *ctx)
{
	struct state_map *m = sqlite3_user_data(ctx);
	sqlite3 *db = sqlite3_context_db_handle(ctx);
	sqlite3_stmt *st = NULL;

	if (!m)
		return default_states;
	if (!db_changed(db, &m->version, &m->changes, &m->valid))
		return m->map;
	snprintf(m->map, sizeof(m->map), "%s", default_states);
	if (sqlite3_prepare_v2(db, "SELECT states FROM capture WHERE states IS NOT NULL"
			       " ORDER BY id DESC LIMIT 1", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(m->map, sizeof(m->map), "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return m->map;
}

const char *state_letters(const char *map, uint64_t v, char *out, size_t size)
{
	const char *p;
	char zero[8] = "R";
	uint64_t preempt = 0;
	size_t n = 0;

	if (!map)
		map = default_states;
	if (size < 4)
		return "";
	out[0] = '\0';
	for (p = map; *p; p += strcspn(p, ","), p += *p == ',') {
		char *end;
		uint64_t bit;
		size_t k;

		if (*p == '+') {
			preempt = strtoull(p + 1, NULL, 10);
			continue;
		}
		bit = strtoull(p, &end, 10);
		if (*end != ':')
			continue;
		k = strcspn(end + 1, ",");
		if (bit == 0) {
			snprintf(zero, sizeof(zero), "%.*s", (int)(k < 7 ? k : 7), end + 1);
			continue;
		}
		if ((v & bit) && n + k + 2 < size)
			n += (size_t)snprintf(out + n, size - n, "%s%.*s",
					      n ? "|" : "", (int)k, end + 1);
	}
	if (!n)
		n = (size_t)snprintf(out, size, "%s", zero);
	if (preempt && (v & preempt) && n + 1 < size)
		out[n++] = '+', out[n] = '\0';
	return out;
}

static void state_name(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char out[64];

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	sqlite3_result_text(ctx, state_letters(state_map_of(ctx),
					       (uint64_t)sqlite3_value_int64(argv[0]),
					       out, sizeof(out)),
			    -1, SQLITE_TRANSIENT);
}

/* ---- wall(ts): the time of day ---- */

/* The clock readings (clock_map) with their captures' spans, newest
 * capture first, each capture's readings by ts; read again only when the
 * database changed, as the state letters are. */
struct wall_reading {
	sqlite3_int64 capture, lo, hi;	/* the capture's span (hi: INT64_MAX
					 * while it runs) */
	sqlite3_int64 ts, offset;	/* realtime - ts from ts on */
};

struct wall_map {
	unsigned int version;
	sqlite3_int64 changes;
	int valid;
	struct wall_reading *r;
	size_t n;
};

static void wall_map_free(void *p)
{
	struct wall_map *m = p;

	if (m)
		free(m->r);
	free(m);
}

static void wall_map_load(struct wall_map *m, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;

	m->n = 0;
	if (sqlite3_prepare_v2(db, "SELECT c.id, c.start_ts, c.end_ts, m.ts,"
			       " m.realtime - m.ts FROM clock_map m JOIN capture c"
			       " ON c.id = m.capture ORDER BY c.id DESC, m.ts",
			       -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return;		/* a database older than clock_map */
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct wall_reading *w;

		if (grow_array(&m->r, &cap, sizeof(*m->r), m->n + 1, 0))
			break;
		w = &m->r[m->n++];
		w->capture = sqlite3_column_int64(st, 0);
		w->lo = sqlite3_column_int64(st, 1);
		w->hi = sqlite3_column_type(st, 2) == SQLITE_NULL ? INT64_MAX
								  : sqlite3_column_int64(st, 2);
		w->ts = sqlite3_column_int64(st, 3);
		w->offset = sqlite3_column_int64(st, 4);
	}
	sqlite3_finalize(st);
}

/* The offset for ts: the newest capture whose span holds it, its latest
 * reading at or before ts (its first when ts comes before them all). */
static bool wall_offset(const struct wall_map *m, sqlite3_int64 ts,
			sqlite3_int64 *offset)
{
	for (size_t i = 0; i < m->n;) {
		size_t j = i, k;

		while (j < m->n && m->r[j].capture == m->r[i].capture)
			j++;
		if (ts >= m->r[i].lo && ts <= m->r[i].hi) {
			for (k = i; k + 1 < j && m->r[k + 1].ts <= ts; k++)
				;
			*offset = m->r[k].offset;
			return true;
		}
		i = j;
	}
	return false;
}

size_t commd_format_wall(sqlite3_int64 ns, char *out, size_t size)
{
	time_t sec = (time_t)(ns >= 0 ? ns / 1000000000 : (ns - 999999999) / 1000000000);
	long frac = (long)(ns - (sqlite3_int64)sec * 1000000000);
	struct tm tm;
	size_t n;

	if (!gmtime_r(&sec, &tm) ||
	    !(n = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm)) ||
	    n + 12 > size)
		return 0;
	return n + (size_t)snprintf(out + n, size - n, ".%09ldZ", frac);
}

static void wall(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct wall_map *m = sqlite3_user_data(ctx);
	sqlite3 *db = sqlite3_context_db_handle(ctx);
	sqlite3_int64 ts, off;
	char out[48];

	(void)argc;
	if (!m || sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (db_changed(db, &m->version, &m->changes, &m->valid))
		wall_map_load(m, db);
	ts = sqlite3_value_int64(argv[0]);
	if (wall_offset(m, ts, &off) && commd_format_wall(ts + off, out, sizeof(out)))
		sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/* ---- printf()/format() with bounded work ----
 *
 * SQLite's own printf() spends time in proportion to the precision of a
 * %c conversion even when the result is over the length limit: one call
 * with precision 1e9 runs for seconds inside a single VM step, where no
 * interrupt reaches it. This one formats each conversion with
 * sqlite3_str_appendf() after checking that no width or precision is over
 * the connection's length limit, and writes %c itself. */

/* One conversion spec parsed from the format: flags, width, precision. */
struct spec {
	char flags[8];
	int nflags;
	int64_t width, precision;	/* -1: none */
	char conv;
};

static const char *parse_spec(const char *f, struct spec *sp, int *star_w,
			      int *star_p)
{
	sp->nflags = 0;
	sp->width = sp->precision = -1;
	*star_w = *star_p = 0;
	while (*f && strchr("-+ 0#!,", *f)) {
		if (sp->nflags < (int)sizeof(sp->flags) - 1)
			sp->flags[sp->nflags++] = *f;
		f++;
	}
	sp->flags[sp->nflags] = '\0';
	if (*f == '*') {
		*star_w = 1;
		f++;
	} else if (*f >= '0' && *f <= '9') {
		sp->width = 0;
		while (*f >= '0' && *f <= '9') {
			if (sp->width < INT32_MAX)
				sp->width = sp->width * 10 + (*f - '0');
			f++;
		}
	}
	if (*f == '.') {
		f++;
		sp->precision = 0;
		if (*f == '*') {
			*star_p = 1;
			f++;
		} else {
			while (*f >= '0' && *f <= '9') {
				if (sp->precision < INT32_MAX)
					sp->precision = sp->precision * 10 + (*f - '0');
				f++;
			}
		}
	}
	while (*f == 'l' || *f == 'h' || *f == 'L')
		f++;
	sp->conv = *f;
	return *f ? f + 1 : f;
}

/* %c: the first character (UTF-8) of the argument, precision times. */
static void append_char(sqlite3_str *out, const struct spec *sp, sqlite3_value *v)
{
	const unsigned char *t = v ? sqlite3_value_text(v) : NULL;
	int len = 0;
	int64_t n = sp->precision > 1 ? sp->precision : 1, pad;

	if (t && *t) {
		len = 1;
		if (*t >= 0xc0)
			while (len < 4 && (t[len] & 0xc0) == 0x80)
				len++;
	}
	pad = sp->width > n ? sp->width - n : 0;
	if (pad && !strchr(sp->flags, '-'))
		sqlite3_str_appendchar(out, (int)pad, ' ');
	for (int64_t i = 0; i < n && len && sqlite3_str_errcode(out) == SQLITE_OK; i++)
		sqlite3_str_append(out, (const char *)t, len);
	if (pad && strchr(sp->flags, '-'))
		sqlite3_str_appendchar(out, (int)pad, ' ');
}

static void bounded_printf(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3 *db = sqlite3_context_db_handle(ctx);
	int64_t limit = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1);
	const char *f;
	sqlite3_str *out;
	int arg = 1;

	if (argc < 1 || !(f = (const char *)sqlite3_value_text(argv[0])))
		return;
	out = sqlite3_str_new(db);
	while (*f && sqlite3_str_errcode(out) == SQLITE_OK) {
		const char *pct = strchr(f, '%');
		struct spec sp;
		char c_fmt[96];
		int star_w, star_p;

		if (!pct) {
			sqlite3_str_appendall(out, f);
			break;
		}
		sqlite3_str_append(out, f, (int)(pct - f));
		f = parse_spec(pct + 1, &sp, &star_w, &star_p);
		if (star_w) {
			sp.width = arg < argc ? sqlite3_value_int64(argv[arg++]) : 0;
			if (sp.width < 0) {
				sp.width = -sp.width;
				if (sp.nflags < (int)sizeof(sp.flags) - 1) {
					sp.flags[sp.nflags++] = '-';
					sp.flags[sp.nflags] = '\0';
				}
			}
		}
		if (star_p) {
			sp.precision = arg < argc ? sqlite3_value_int64(argv[arg++]) : 0;
			if (sp.precision < 0)
				sp.precision = -1;
		}
		if (sp.width > limit || sp.precision > limit) {
			sqlite3_free(sqlite3_str_finish(out));
			sqlite3_result_error_toobig(ctx);
			return;
		}
		if (sp.conv == '\0')
			break;
		if (sp.conv == '%') {
			sqlite3_str_appendchar(out, 1, '%');
			continue;
		}
		if (sp.conv == 'n')
			continue;
		if (sp.conv == 'c') {
			append_char(out, &sp, arg < argc ? argv[arg++] : NULL);
			continue;
		}
		/* One conversion, its width and precision written out. */
		{
			char w[24] = "", p[24] = "";
			const char *len = strchr("dixXopu", sp.conv) ? "ll" : "";
			char conv = sp.conv == 'p' ? 'X' : sp.conv == 'z' ? 's' : sp.conv;
			sqlite3_value *v = arg < argc ? argv[arg++] : NULL;

			if (sp.width >= 0)
				snprintf(w, sizeof(w), "%lld", (long long)sp.width);
			if (sp.precision >= 0)
				snprintf(p, sizeof(p), ".%lld", (long long)sp.precision);
			snprintf(c_fmt, sizeof(c_fmt), "%%%s%s%s%s%c", sp.flags, w, p, len, conv);
			if (strchr("dixXopu", sp.conv))
				sqlite3_str_appendf(out, c_fmt, (long long)(v ? sqlite3_value_int64(v) : 0));
			else if (strchr("feEgG", sp.conv))
				sqlite3_str_appendf(out, c_fmt, v ? sqlite3_value_double(v) : 0.0);
			else if (strchr("sqQwz", sp.conv))
				sqlite3_str_appendf(out, c_fmt,
						    v && sqlite3_value_type(v) != SQLITE_NULL ?
						    (const char *)sqlite3_value_text(v) : NULL);
			else
				sqlite3_str_append(out, pct, (int)(f - pct));
		}
		if (sqlite3_str_length(out) > limit)
			break;
	}
	if (sqlite3_str_errcode(out) == SQLITE_NOMEM) {
		sqlite3_free(sqlite3_str_finish(out));
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (sqlite3_str_errcode(out) != SQLITE_OK || sqlite3_str_length(out) > limit) {
		sqlite3_free(sqlite3_str_finish(out));
		sqlite3_result_error_toobig(ctx);
		return;
	}
	{
		int n = sqlite3_str_length(out);
		char *z = sqlite3_str_finish(out);

		sqlite3_result_text(ctx, z ? z : "", n, z ? sqlite3_free : SQLITE_TRANSIENT);
	}
}

int commd_sql_register_bounded(sqlite3 *db)
{
	int rc = sqlite3_create_function(db, "printf", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
					 NULL, bounded_printf, NULL, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(db, "format", -1,
					     SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
					     bounded_printf, NULL, NULL);
	return rc;
}

int commd_sql_register(sqlite3 *db)
{
	int rc;

	rc = sqlite3_create_function(db, "comm_at", 2,
				     SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
				     comm_at, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "state_name", 1, SQLITE_UTF8,
						calloc(1, sizeof(struct state_map)),
						state_name, NULL, NULL, free);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "wall", 1, SQLITE_UTF8,
						calloc(1, sizeof(struct wall_map)),
						wall, NULL, NULL, wall_map_free);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(db, "process_comm", 2,
					     SQLITE_UTF8 | SQLITE_DETERMINISTIC,
					     NULL, process_comm, NULL, NULL);
	return rc;
}

bool sql_has_statement(const char *rest)
{
	for (; rest && *rest; rest++)
		if (!strchr(" \t\r\n;", *rest))
			return true;
	return false;
}
