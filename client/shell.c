/* shell.c — see shell.h.
 *
 * The dot commands are SQL on sqlite_schema sent the same way as the
 * user's, so they work alike on a file (--db) and over the socket.
 */
#include "shell.h"
#include "grow.h"

#include "log.h"

#include <ctype.h>
#include <editline/readline.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROMPT          "commq> "
#define PROMPT_MORE     "   ...> "
#define HISTORY_LINES   2000
#define DOT_ARGS_MAX    8

/* ---- gathering lines into batches ---- */

struct batch {
	char *sql;		/* lines so far, NUL-terminated */
	size_t len, cap;
};

static int batch_add(struct batch *b, const char *line)
{
	size_t n = strlen(line);

	if (grow_array(&b->sql, &b->cap, 1, b->len + n + 2, 0))
		return -1;
	memcpy(b->sql + b->len, line, n);
	b->len += n;
	b->sql[b->len++] = '\n';
	b->sql[b->len] = '\0';
	return 0;
}

/* Whether z holds only blanks and whole comments: sqlite3 skips such
 * lines between statements. */
static bool all_blank(const char *z)
{
	for (; *z; z++) {
		if (isspace((unsigned char)*z))
			continue;
		if (z[0] == '/' && z[1] == '*') {
			for (z += 2; *z && !(z[0] == '*' && z[1] == '/'); z++)
				;
			if (!*z)
				return false;
			z++;
		} else if (z[0] == '-' && z[1] == '-') {
			for (z += 2; *z && *z != '\n'; z++)
				;
			if (!*z)
				return true;
		} else {
			return false;
		}
	}
	return true;
}

/* ---- dot commands ---- */

static const char help_text[] =
	".headers on|off        show column names or not\n"
	".help                  this text\n"
	".mode [MODE]           output mode: column (or table), list, csv,\n"
	"                       json, line; without MODE, the current one\n"
	".quit, .exit           leave\n"
	".schema [TABLE]        CREATE statements, of TABLE (a LIKE pattern)\n"
	"                       and its indexes and triggers, or of all but\n"
	"                       the internal ev_* and dv_* tables\n"
	".tables [PATTERN]      tables and views (LIKE PATTERN), without the\n"
	"                       internal ev_*, dv_* and sqlite_* ones\n"
	"Statements end with ';'; several may share a line.\n";

static const struct {
	const char *name;
	enum output_mode mode;
} modes[] = {
	{ "column", OUTPUT_COLUMN },
	{ "table", OUTPUT_TABLE },
	{ "box", OUTPUT_BOX },
	{ "list", OUTPUT_LIST },
	{ "csv", OUTPUT_CSV },
	{ "json", OUTPUT_JSON },
	{ "line", OUTPUT_LINE },
};

/* Splits a dot command into words; '...' and "..." keep blanks.  Returns
 * the number of words, or -1 when there are too many. */
static int split_words(char *s, char **words, int max)
{
	int n = 0;

	for (;;) {
		char quote = 0;
		char *out;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			return n;
		if (n == max)
			return -1;
		if (*s == '\'' || *s == '"')
			quote = *s++;
		words[n++] = out = s;
		for (; *s; s++) {
			if (quote ? *s == quote : isspace((unsigned char)*s))
				break;
			*out++ = *s;
		}
		if (*s)
			s++;
		*out = '\0';
	}
}

/* Appends s as an SQL string literal to dst (size bytes), "" when it does
 * not fit. */
static int sql_quote(char *dst, size_t size, const char *s)
{
	size_t n = 0;

	if (size < 3)
		return -1;
	dst[n++] = '\'';
	for (; *s; s++) {
		if (n + 4 > size)
			return -1;
		if (*s == '\'')
			dst[n++] = '\'';
		dst[n++] = *s;
	}
	dst[n++] = '\'';
	dst[n] = '\0';
	return 0;
}

/* Runs sql printing a plain list (one value a line), whatever the
 * mode. */
static int run_listing(struct shell *sh, const char *sql)
{
	struct output_spec spec = { .mode = OUTPUT_LIST };
	struct output *out = output_new(&spec, stdout);
	int ret;

	if (!out) {
		log_error("%s", strerror(errno));
		return -1;
	}
	ret = sh->run(sh->ctx, sql, out);
	output_free(out);
	return ret;
}

static int dot_tables(struct shell *sh, char **argv, int argc)
{
	char sql[1024], pattern[512] = "";

	if (argc > 1) {
		char quoted[400];

		if (sql_quote(quoted, sizeof(quoted), argv[1]) < 0) {
			log_error(".tables: pattern too long");
			return -1;
		}
		snprintf(pattern, sizeof(pattern),
			 " and name like %s escape '\\'", quoted);
	}
	/* GLOB, not LIKE: in LIKE '_' matches any character, and 'ev_%'
	 * would hide the events table too.  ev_* hold the events, dv_* the
	 * derived tables, under the views of the same names. */
	snprintf(sql, sizeof(sql),
		 "select name from sqlite_schema "
		 "where type in ('table', 'view') and name not glob 'sqlite_*' "
		 "and name not glob 'ev_*' and name not glob 'dv_*'%s "
		 "order by 1", pattern);
	return run_listing(sh, sql);
}

static int dot_schema(struct shell *sh, char **argv, int argc)
{
	char sql[1536], which[1024];

	if (argc > 1) {
		char quoted[400];

		if (sql_quote(quoted, sizeof(quoted), argv[1]) < 0) {
			log_error(".schema: table name too long");
			return -1;
		}
		snprintf(which, sizeof(which),
			 "(name like %s escape '\\' or tbl_name like %s "
			 "escape '\\')", quoted, quoted);
	} else {
		snprintf(which, sizeof(which), "tbl_name not glob 'ev_*' "
			 "and tbl_name not glob 'dv_*'");
	}
	snprintf(sql, sizeof(sql),
		 "select sql || ';' from sqlite_schema "
		 "where sql is not null and name not glob 'sqlite_*' and %s "
		 "order by tbl_name, type not in ('table', 'view'), name",
		 which);
	return run_listing(sh, sql);
}

/* Rebuilds the formatter for sh->spec and sh->header. */
static int new_output(struct shell *sh)
{
	struct output *out;

	/* sqlite3's habits: column mode is for people and shows names;
	 * list and csv are for scripts and do not, unless asked. */
	sh->spec.header = sh->header < 0 ? sh->spec.mode == OUTPUT_COLUMN
					 : sh->header;
	out = output_new(&sh->spec, stdout);
	if (!out)
		return -1;
	output_free(sh->out);
	sh->out = out;
	return 0;
}

static int dot_mode(struct shell *sh, char **argv, int argc)
{
	if (argc < 2) {
		for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++)
			if (modes[i].mode == sh->spec.mode) {
				printf("current output mode: %s\n", modes[i].name);
				break;
			}
		return 0;
	}
	for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++) {
		if (strcmp(argv[1], modes[i].name))
			continue;
		sh->spec.mode = modes[i].mode;
		if (new_output(sh) < 0) {
			log_error("%s", strerror(errno));
			return -1;
		}
		return 0;
	}
	log_error(".mode: unknown mode '%s' (column, table, list, csv, "
		  "json, line)", argv[1]);
	return -1;
}

static int dot_headers(struct shell *sh, char **argv, int argc)
{
	static const char *const on[] = { "on", "yes", "true", "1" };
	static const char *const off[] = { "off", "no", "false", "0" };
	int header = -1;

	for (size_t i = 0; argc == 2 && i < sizeof(on) / sizeof(*on); i++) {
		if (!strcasecmp(argv[1], on[i]))
			header = 1;
		if (!strcasecmp(argv[1], off[i]))
			header = 0;
	}
	if (header < 0) {
		log_error("usage: .headers on|off");
		return -1;
	}
	sh->header = header;
	if (new_output(sh) < 0) {
		log_error("%s", strerror(errno));
		return -1;
	}
	return 0;
}

static int dot_command(struct shell *sh, const char *line)
{
	char *words[DOT_ARGS_MAX], *copy = strdup(line + 1);
	const char *cmd;
	int n, ret = -1;

	if (!copy) {
		log_error("%s", strerror(errno));
		return -1;
	}
	n = split_words(copy, words, DOT_ARGS_MAX);
	cmd = n > 0 ? words[0] : "";
	if (n < 0)
		log_error("too many arguments: %s", line);
	else if (!strcmp(cmd, "tables") && n <= 2)
		ret = dot_tables(sh, words, n);
	else if (!strcmp(cmd, "schema") && n <= 2)
		ret = dot_schema(sh, words, n);
	else if (!strcmp(cmd, "mode") && n <= 2)
		ret = dot_mode(sh, words, n);
	else if (!strcmp(cmd, "headers") || !strcmp(cmd, "header"))
		ret = dot_headers(sh, words, n);
	else if (!strcmp(cmd, "help") && n == 1)
		ret = fputs(help_text, stdout) < 0 ? -1 : 0;
	else if ((!strcmp(cmd, "quit") || !strcmp(cmd, "exit")) && n == 1) {
		sh->quit = true;
		ret = 0;
	} else
		log_error("unknown command or wrong arguments: %s "
			  "(.help lists the commands)", line);
	free(copy);
	return ret;
}

/* ---- the sources ---- */

int shell_init(struct shell *sh, shell_run_fn *run, void *ctx,
	       const struct output_spec *spec, int header)
{
	memset(sh, 0, sizeof(*sh));
	sh->run = run;
	sh->ctx = ctx;
	sh->spec = *spec;
	sh->header = header;
	return new_output(sh);
}

void shell_free(struct shell *sh)
{
	output_free(sh->out);
	sh->out = NULL;
}

int shell_run_text(struct shell *sh, const char *text)
{
	if (text[0] == '.')
		return dot_command(sh, text);
	if (all_blank(text))
		return 0;
	return sh->run(sh->ctx, text, sh->out);
}

/* Takes one line: a dot command, or more of the batch, which runs once
 * it ends a statement. */
static int take_line(struct shell *sh, struct batch *b, const char *line)
{
	int ret;

	if (b->len == 0) {
		if (all_blank(line))
			return 0;
		if (line[0] == '.')
			return dot_command(sh, line);
	}
	if (batch_add(b, line) < 0) {
		log_error("%s", strerror(errno));
		return -1;
	}
	if (!sqlite3_complete(b->sql))
		return 0;
	ret = sh->run(sh->ctx, b->sql, sh->out);
	b->len = 0;
	return ret;
}

/* At the end of the input, an unfinished last statement runs anyway (as
 * in sqlite3: a script's last ';' is often missing). */
static int take_rest(struct shell *sh, struct batch *b)
{
	int ret = 0;

	if (b->len && !all_blank(b->sql))
		ret = sh->run(sh->ctx, b->sql, sh->out);
	b->len = 0;
	return ret;
}

int shell_run_file(struct shell *sh, FILE *in, const char *name)
{
	struct batch b = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	while (!sh->quit && (n = getline(&line, &cap, in)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (take_line(sh, &b, line) < 0) {
			ret = -1;
			goto out;
		}
	}
	if (ferror(in)) {
		log_error("reading %s: %s", name, strerror(errno));
		ret = -1;
		goto out;
	}
	if (!sh->quit)
		ret = take_rest(sh, &b);
out:
	free(line);
	free(b.sql);
	return ret;
}

/* Creates the history file private (queries may say more than their
 * results), and leaves an existing one as it is. */
static void history_create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	if (fd >= 0)
		close(fd);
}

int shell_interactive(struct shell *sh, const char *history_path)
{
	struct batch b = { 0 };

	using_history();
	stifle_history(HISTORY_LINES);
	if (history_path)
		read_history(history_path);
	printf("Enter SQL statements ending with ';', or .help\n");
	while (!sh->quit) {
		char *line;

		fflush(stdout);
		line = readline(b.len ? PROMPT_MORE : PROMPT);
		if (!line) {
			/* ^D leaves the cursor after the prompt. */
			putchar('\n');
			break;
		}
		if (!all_blank(line))
			add_history(line);
		/* An error is printed; the next statement is read. */
		take_line(sh, &b, line);
		fflush(stdout);
		free(line);
	}
	if (!sh->quit)
		take_rest(sh, &b);
	if (history_path) {
		history_create(history_path);
		write_history(history_path);
	}
	free(b.sql);
	return 0;
}
