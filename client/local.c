/* local.c — see local.h. */
#include "local.h"

#include "sqlfuncs.h"

#include <ctype.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long to wait for the daemon to finish committing a batch before a
 * query gives up with "database is locked". */
#define BUSY_TIMEOUT_MS 5000

/* The deadline is looked at every this many virtual machine steps: about
 * every 10-100 microseconds. */
#define PROGRESS_STEPS 1000

struct local {
	sqlite3 *db;			/* opened read-only */
	const char *path;		/* the file, the caller's string */
	int version;			/* its PRAGMA user_version */
	struct timespec deadline;	/* of the running batch */
	bool has_deadline;		/* timeout_ms was not 0 */
	bool timed_out;			/* the progress handler cut it off */
};

static int past_deadline(void *arg)
{
	struct local *l = arg;
	struct timespec now;

	if (!l->has_deadline)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec < l->deadline.tv_sec ||
	    (now.tv_sec == l->deadline.tv_sec &&
	     now.tv_nsec < l->deadline.tv_nsec))
		return 0;
	l->timed_out = true;
	return 1;
}

struct local *local_open(const char *path, struct query_error *err)
{
	struct local *l = calloc(1, sizeof(*l));

	if (!l) {
		query_error_set(err, -1, "%s", strerror(ENOMEM));
		return NULL;
	}
	/* READONLY without CREATE: a mistyped path is an error, never a new
	 * empty database.  A "file:" URI cannot widen this either: SQLite
	 * refuses a mode= less strict than these flags. */
	if (sqlite3_open_v2(path, &l->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		query_error_set(err, -1, "%s: %s", path,
				l->db ? sqlite3_errmsg(l->db) : "out of memory");
		local_close(l);
		return NULL;
	}
	/* The daemon may be committing a batch into this very file. */
	sqlite3_busy_timeout(l->db, BUSY_TIMEOUT_MS);
	sqlite3_progress_handler(l->db, PROGRESS_STEPS, past_deadline, l);
	commd_sql_register(l->db);
	l->path = path;
	l->version = commd_schema_count;
	{
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(l->db, "PRAGMA user_version", -1, &st,
				       NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW)
			l->version = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	return l;
}

void local_close(struct local *l)
{
	if (!l)
		return;
	sqlite3_close(l->db);
	free(l);
}

/* Copies sql into dst as one line (whitespace runs become one space) for
 * an error message, truncated to size. */
static void one_line(char *dst, size_t size, const char *sql)
{
	size_t n = 0;
	bool gap = false;

	for (; *sql && n + 2 < size; sql++) {
		if (isspace((unsigned char)*sql) || iscntrl((unsigned char)*sql)) {
			gap = n > 0;
			continue;
		}
		if (gap)
			dst[n++] = ' ';
		gap = false;
		dst[n++] = *sql;
	}
	dst[n] = '\0';
}

static enum output_type output_type(int sqlite_type)
{
	switch (sqlite_type) {
	case SQLITE_INTEGER:
		return OUTPUT_INTEGER;
	case SQLITE_FLOAT:
		return OUTPUT_FLOAT;
	case SQLITE_BLOB:
		return OUTPUT_BLOB;
	case SQLITE_NULL:
		return OUTPUT_NULL;
	default:
		return OUTPUT_TEXT;
	}
}

/* Fills values with the current row.  The texts are sqlite3_column_text's,
 * which is also what the sqlite3 shell prints (reals as %!.15g). */
static int fetch_row(sqlite3_stmt *stmt, struct output_value *values,
		     int ncols)
{
	for (int i = 0; i < ncols; i++) {
		struct output_value *v = &values[i];

		/* The type first: asking for text converts the value. */
		v->type = output_type(sqlite3_column_type(stmt, i));
		v->text = NULL;
		v->len = 0;
		if (v->type == OUTPUT_NULL)
			continue;
		v->text = (const char *)sqlite3_column_text(stmt, i);
		v->len = sqlite3_column_bytes(stmt, i);
		if (!v->text) {
			/* An empty blob has no text; no memory has none
			 * either, but then SQLite says so. */
			if (sqlite3_errcode(sqlite3_db_handle(stmt)) == SQLITE_NOMEM) {
				errno = ENOMEM;
				return -1;
			}
			v->text = "";
		}
	}
	return 0;
}

/* The error SQLite reports, or the deadline's. */
static void sqlite_error(struct local *l, const struct query_limits *lim,
			 const char *sql, const char *stmt_sql,
			 struct query_error *err)
{
	int offset = sqlite3_error_offset(l->db);

	if (l->timed_out) {
		query_error_set(err, -1, "query cut off at its deadline (%.3g s)",
				lim->timeout_ms / 1000.0);
		return;
	}
	/* The offset is in the statement; make it the batch's. */
	if (offset >= 0 && stmt_sql)
		offset += (int)(stmt_sql - sql);
	query_error_set(err, offset, "%s", sqlite3_errmsg(l->db));
	/* A file an older commd wrote lacks what came since: say so. */
	if (l->version < commd_schema_count &&
	    !strncmp(sqlite3_errmsg(l->db), "no such ", 8))
		query_error_set(err, offset, "%s (%s was written by an older commd, "
				"schema %d of %d: `commd migrate %s` brings it up to date, "
				"as the daemon does when it opens it)",
				sqlite3_errmsg(l->db), l->path, l->version,
				commd_schema_count, l->path);
}

/* Runs one prepared statement; *rows counts rows over the batch.  Returns
 * 0, 1 when the row limit was reached, or -1 with err set. */
static int run_statement(struct local *l, sqlite3_stmt *stmt,
			 const char *sql, const char *stmt_sql,
			 const struct query_limits *lim, uint64_t *rows,
			 struct output *out, struct query_error *err)
{
	int ncols = sqlite3_column_count(stmt);
	struct output_column *cols = NULL;
	struct output_value *values = NULL;
	bool begun = false;
	int rc, ret = -1;

	/* The file is open read-only already; refusing here names the
	 * statement, and also stops writes to temp tables, which a read-only
	 * file would allow. */
	if (!sqlite3_stmt_readonly(stmt)) {
		char line[200];

		one_line(line, sizeof(line), sqlite3_sql(stmt));
		query_error_set(err, -1, "--db is read-only: %s", line);
		return -1;
	}
	if (ncols > 0) {
		cols = calloc(ncols, sizeof(*cols));
		values = calloc(ncols, sizeof(*values));
		if (!cols || !values)
			goto print_error;
		for (int i = 0; i < ncols; i++) {
			cols[i].name = sqlite3_column_name(stmt, i);
			cols[i].decl_type = sqlite3_column_decltype(stmt, i);
		}
		if (output_begin(out, cols, ncols) < 0)
			goto print_error;
		begun = true;
	}
	for (;;) {
		if (lim->row_limit && *rows >= lim->row_limit) {
			/* Cut if a row was left (here, or in a statement
			 * after this one: local_run looks). */
			err->cut = sqlite3_step(stmt) == SQLITE_ROW;
			ret = 1;
			goto out;
		}
		rc = sqlite3_step(stmt);
		if (rc != SQLITE_ROW)
			break;
		if (fetch_row(stmt, values, ncols) < 0 ||
		    output_row(out, values) < 0)
			goto print_error;
		++*rows;
	}
	if (rc != SQLITE_DONE) {
		sqlite_error(l, lim, sql, stmt_sql, err);
		goto out;
	}
	ret = 0;
	goto out;
print_error:
	query_error_set(err, -1, "printing results: %s", strerror(errno));
out:
	/* Rows printed before a runtime error stay printed (column mode may
	 * still hold some back); the exit status tells the result is cut. */
	if (begun && output_end(out) < 0 && ret >= 0) {
		query_error_set(err, -1, "printing results: %s", strerror(errno));
		ret = -1;
	}
	free(cols);
	free(values);
	return ret;
}

int local_run(struct local *l, const char *sql,
	      const struct query_limits *lim, struct output *out,
	      struct query_error *err)
{
	const char *p = sql;
	uint64_t rows = 0;

	l->timed_out = false;
	l->has_deadline = lim->timeout_ms != 0;
	if (l->has_deadline) {
		clock_gettime(CLOCK_MONOTONIC, &l->deadline);
		l->deadline.tv_sec += lim->timeout_ms / 1000;
		l->deadline.tv_nsec += (long)(lim->timeout_ms % 1000) * 1000000;
		if (l->deadline.tv_nsec >= 1000000000) {
			l->deadline.tv_sec++;
			l->deadline.tv_nsec -= 1000000000;
		}
	}
	while (*p) {
		sqlite3_stmt *stmt = NULL;
		const char *tail = NULL;
		int ret;

		if (sqlite3_prepare_v2(l->db, p, -1, &stmt, &tail) != SQLITE_OK) {
			sqlite_error(l, lim, sql, p, err);
			return -1;
		}
		if (!stmt) {
			/* Only a comment, blanks or a lone ';' was eaten. */
			if (tail == p)
				break;
			p = tail;
			continue;
		}
		ret = run_statement(l, stmt, sql, p, lim, &rows, out, err);
		sqlite3_finalize(stmt);
		if (ret < 0)
			return -1;
		if (ret > 0) {
			err->cut = err->cut || sql_has_statement(tail);
			break;
		}
		p = tail;
	}
	return 0;
}
