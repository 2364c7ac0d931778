/* commq.c — the commd query client.
 *
 * `commq --db FILE [SQL]` runs SQL on a database file directly, read-only.
 * Without --db, commq will ask the daemon over its socket (not written
 * yet).  Either way rows go to the formatter (output.h) one at a time, so
 * a result of any size streams.
 */
#include "log.h"
#include "output.h"
#include "sqlfuncs.h"

#include <ctype.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_USAGE 2

/* How long to wait for the daemon to finish committing a batch before a
 * query gives up with "database is locked". */
#define BUSY_TIMEOUT_MS 5000

struct options {
	const char *db;			/* --db FILE; NULL means socket mode */
	const char *sql;		/* the SQL argument; NULL: read stdin */
	struct output_spec spec;	/* how results are printed */
	int header;			/* -header 1, -noheader 0, unset -1 */
	bool help;			/* --help was given */
};

enum option_kind { OPT_DB, OPT_MODE, OPT_HEADER, OPT_SEPARATOR,
		   OPT_NULLVALUE, OPT_HELP };

static const struct option_def {
	const char *name;		/* spelled after one or two dashes */
	enum option_kind kind;		/* what it sets */
	int arg;			/* the mode, or the header flag */
	bool has_value;			/* takes the next argument */
} option_defs[] = {
	{ "db",        OPT_DB,        0,             true  },
	{ "column",    OPT_MODE,      OUTPUT_COLUMN, false },
	{ "list",      OPT_MODE,      OUTPUT_LIST,   false },
	{ "csv",       OPT_MODE,      OUTPUT_CSV,    false },
	{ "json",      OPT_MODE,      OUTPUT_JSON,   false },
	{ "line",      OPT_MODE,      OUTPUT_LINE,   false },
	{ "header",    OPT_HEADER,    1,             false },
	{ "noheader",  OPT_HEADER,    0,             false },
	{ "separator", OPT_SEPARATOR, 0,             true  },
	{ "nullvalue", OPT_NULLVALUE, 0,             true  },
	{ "help",      OPT_HELP,      0,             false },
	{ "h",         OPT_HELP,      0,             false },
};

static const char usage_line[] = "usage: commq --db FILE [options] [SQL]\n";

static const char help_text[] =
	"Runs SQL (the argument, or every statement on stdin) on a commd\n"
	"database file, read-only.\n"
	"\n"
	"  --db FILE          the database (opened read-only, never created)\n"
	"  -column            aligned columns with a header (the default)\n"
	"  -list              fields separated by '|'\n"
	"  -csv               comma-separated values\n"
	"  -json              one JSON array of objects per statement\n"
	"  -line              one 'name = value' line per field\n"
	"  -header, -noheader print column names or not (default: on in\n"
	"                     column mode, off in list and csv, as sqlite3)\n"
	"  -separator SEP     field separator for -list and -csv\n"
	"  -nullvalue TEXT    text shown for NULL\n"
	"  -help              this text\n"
	"\n"
	"Options take one dash or two, and may come before or after --db;\n"
	"'--' ends them.\n";

static int usage_error(const char *what, const char *arg)
{
	log_error("%s%s", what, arg);
	fputs(usage_line, stderr);
	fputs("Try 'commq --help'.\n", stderr);
	return -1;
}

/* Options look like sqlite3's (-csv, -separator X) and may also take two
 * dashes or an '=' (--separator=X). */
static int parse_option(const char *arg, char **argv, int argc, int *i,
			struct options *opt)
{
	const char *name = arg + (arg[1] == '-' ? 2 : 1);
	size_t len = strcspn(name, "=");
	const char *value = name[len] ? name + len + 1 : NULL;
	const struct option_def *def = NULL;

	for (size_t k = 0; k < sizeof(option_defs) / sizeof(*option_defs); k++)
		if (strlen(option_defs[k].name) == len &&
		    !strncmp(option_defs[k].name, name, len))
			def = &option_defs[k];
	if (!def)
		return usage_error("unknown option: ", arg);
	if (def->has_value && !value) {
		if (*i + 1 >= argc)
			return usage_error("missing value after ", arg);
		value = argv[++*i];
	} else if (!def->has_value && value) {
		return usage_error("option takes no value: ", arg);
	}
	switch (def->kind) {
	case OPT_DB:
		if (!*value)
			return usage_error("--db needs a file name", "");
		opt->db = value;
		break;
	case OPT_MODE:
		opt->spec.mode = def->arg;
		break;
	case OPT_HEADER:
		opt->header = def->arg;
		break;
	case OPT_SEPARATOR:
		opt->spec.separator = value;
		break;
	case OPT_NULLVALUE:
		opt->spec.nullvalue = value;
		break;
	case OPT_HELP:
		opt->help = true;
		break;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct options *opt)
{
	bool options_done = false;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!options_done && !strcmp(arg, "--")) {
			options_done = true;
		} else if (!options_done && arg[0] == '-' && arg[1]) {
			if (parse_option(arg, argv, argc, &i, opt) < 0)
				return -1;
		} else if (opt->sql) {
			return usage_error("more than one SQL argument: ", arg);
		} else {
			opt->sql = arg;
		}
	}
	/* sqlite3's habits: column mode is for people and shows names;
	 * list and csv are for scripts and do not, unless asked. */
	if (opt->header < 0)
		opt->header = opt->spec.mode == OUTPUT_COLUMN;
	opt->spec.header = opt->header;
	return 0;
}

/* Returns all of in as a NUL-terminated string (malloc'd), or NULL. */
static char *read_all(FILE *in)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;

	for (;;) {
		size_t n;

		if (cap - len < 4096) {
			char *b = realloc(buf, cap ? cap * 2 : 65536);

			if (!b)
				goto fail;
			buf = b;
			cap = cap ? cap * 2 : 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, in);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(in)) {
		errno = errno ? errno : EIO;
		goto fail;
	}
	buf[len] = '\0';
	return buf;
fail:
	free(buf);
	return NULL;
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

static int run_statement(sqlite3 *db, sqlite3_stmt *stmt, struct output *out)
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
		char sql[200];

		one_line(sql, sizeof(sql), sqlite3_sql(stmt));
		log_error("--db is read-only: %s", sql);
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
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (fetch_row(stmt, values, ncols) < 0 ||
		    output_row(out, values) < 0)
			goto print_error;
	}
	if (rc != SQLITE_DONE) {
		log_error("%s", sqlite3_errmsg(db));
		goto out;
	}
	ret = 0;
	goto out;
print_error:
	log_error("printing results: %s", strerror(errno));
out:
	/* Rows printed before a runtime error stay printed (column mode may
	 * still hold some back); the exit status tells the result is cut. */
	if (begun && output_end(out) < 0 && ret == 0) {
		log_error("printing results: %s", strerror(errno));
		ret = -1;
	}
	free(cols);
	free(values);
	return ret;
}

/* Runs every statement in sql in order; stops at the first error. */
static int run_script(sqlite3 *db, const char *sql, struct output *out)
{
	while (*sql) {
		sqlite3_stmt *stmt = NULL;
		const char *tail = NULL;
		int ret;

		if (sqlite3_prepare_v2(db, sql, -1, &stmt, &tail) != SQLITE_OK) {
			log_error("%s", sqlite3_errmsg(db));
			return -1;
		}
		if (!stmt) {
			/* Only a comment, blanks or a lone ';' was eaten. */
			if (tail == sql)
				break;
			sql = tail;
			continue;
		}
		ret = run_statement(db, stmt, out);
		sqlite3_finalize(stmt);
		if (ret < 0)
			return -1;
		sql = tail;
	}
	return 0;
}

static int run_db(const struct options *opt)
{
	sqlite3 *db = NULL;
	struct output *out = NULL;
	char *input = NULL;
	const char *sql = opt->sql;
	int ret = -1;

	/* READONLY without CREATE: a mistyped path is an error, never a new
	 * empty database.  A "file:" URI cannot widen this either: SQLite
	 * refuses a mode= less strict than these flags. */
	if (sqlite3_open_v2(opt->db, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		log_error("%s: %s", opt->db,
			  db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	/* The daemon may be committing a batch into this very file. */
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	commd_sql_register(db);
	if (!sql) {
		input = read_all(stdin);
		if (!input) {
			log_error("reading SQL from stdin: %s", strerror(errno));
			goto out;
		}
		sql = input;
	}
	out = output_new(&opt->spec, stdout);
	if (!out) {
		log_error("%s", strerror(errno));
		goto out;
	}
	ret = run_script(db, sql, out);
out:
	output_free(out);
	free(input);
	sqlite3_close(db);
	return ret;
}

static int run_socket(const struct options *opt)
{
	(void)opt;
	log_error("asking commd over its socket is not written yet; "
		  "use --db FILE");
	return -1;
}

int main(int argc, char **argv)
{
	struct options opt = { .header = -1, .spec = { .mode = OUTPUT_COLUMN } };
	int ret;

	log_set_program("commq");
	if (parse_args(argc, argv, &opt) < 0)
		return EXIT_USAGE;
	if (opt.help) {
		fputs(usage_line, stdout);
		fputs(help_text, stdout);
		return fflush(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
	}
	ret = opt.db ? run_db(&opt) : run_socket(&opt);
	/* stdout is buffered: a full disk or a closed pipe may show only
	 * now, and a cut result must not exit 0. */
	if (fflush(stdout) != 0 && ret == 0) {
		log_error("printing results: %s", strerror(errno));
		ret = -1;
	}
	return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
