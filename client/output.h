/* output.h — how commq prints query results.
 *
 * A result is fed in as it arrives: output_begin() with the columns, then
 * output_row() once per row, then output_end().  The module never needs a
 * whole result in memory (column mode holds at most a bounded sample, see
 * output.c), and it knows nothing about where rows come from, so the same
 * formatter serves --db mode (SQLite) and socket mode (the wire protocol).
 *
 * The formats follow the sqlite3 shell (3.40) byte for byte, except where
 * output.c says otherwise: column mode keeps one row per line and sizes its
 * columns from a sample, and JSON reals use the value's own text.
 *
 * Every function returning int returns 0, or -1 with errno set (ENOMEM, or
 * EIO when writing to the stream failed).  Nothing here logs.
 */
#ifndef COMMQ_OUTPUT_H
#define COMMQ_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum output_mode {
	OUTPUT_COLUMN,		/* aligned columns, like sqlite3 -column */
	OUTPUT_LIST,		/* fields joined by a separator ('|') */
	OUTPUT_CSV,		/* RFC 4180-ish, quoted as sqlite3 quotes */
	OUTPUT_JSON,		/* one array of objects per result */
	OUTPUT_LINE,		/* "name = value", a blank line between rows */
	OUTPUT_TABLE,		/* column mode in an ASCII frame (sqlite3 -table) */
	OUTPUT_BOX,		/* the same framed with box-drawing characters */
};

struct output_spec {
	enum output_mode mode;	/* layout of the rows */
	bool header;		/* print column names (column, list, csv) */
	const char *separator;	/* list/csv field separator; NULL: '|' or ',' */
	const char *nullvalue;	/* text shown for NULL; NULL: "" (not json) */
};

/* A value's storage class; it decides quoting in csv and json. */
enum output_type {
	OUTPUT_NULL,
	OUTPUT_INTEGER,
	OUTPUT_FLOAT,
	OUTPUT_TEXT,
	OUTPUT_BLOB,
};

struct output_column {
	const char *name;	/* column name as the query spells it */
	const char *decl_type;	/* declared type, NULL for expressions; no
				 * format uses it yet: sqlite3's go by each
				 * value's storage class */
};

struct output_value {
	enum output_type type;	/* storage class of this value */
	const char *text;	/* NUL-terminated text; ignored for OUTPUT_NULL */
	size_t len;		/* bytes in text (a blob may hold NULs) */
};

/* Returns a formatter writing to out, or NULL with errno set.  spec is
 * copied, but the strings it points to must outlive the formatter.  The
 * stream stays the caller's. */
struct output *output_new(const struct output_spec *spec, FILE *out);

/* Starts a result with ncols (at least 1, else EINVAL) columns.  Names
 * and types are copied.  A formatter is reused for result after result. */
int output_begin(struct output *o, const struct output_column *cols,
		 int ncols);

/* Formats one row: ncols values, in column order.  Values need to stay
 * valid only for the call. */
int output_row(struct output *o, const struct output_value *values);

/* Finishes the current result (writes whatever was held back, closes the
 * json array).  A result with no rows prints nothing, as in sqlite3.  Call it
 * after an error too: the rows already given are still printed. */
int output_end(struct output *o);

/* Frees the formatter (and a result left unfinished).  Accepts NULL. */
void output_free(struct output *o);

/* A sink: an output whose results go to callbacks instead of a stream,
 * for code that consumes rows itself (commq's reports).  The same three
 * calls above drive it, so a sink is handed to local_run()/remote_run()
 * like any formatter.  A callback returns 0, or -1 with errno set; that
 * -1 comes back from output_begin/row/end (a failed row stops the query
 * with "printing results: ..."). */
struct output_sink {
	int (*begin)(void *ctx, const struct output_column *cols, int ncols);
	int (*row)(void *ctx, const struct output_value *values, int ncols);
	int (*end)(void *ctx);
};

/* Returns a sink calling cb with ctx (either may need to outlive it), or
 * NULL with errno set.  Free it with output_free(). */
struct output *output_new_sink(const struct output_sink *cb, void *ctx);

#endif
