/* output.c — see output.h.
 *
 * The byte-level rules (which csv fields get quoted, how json escapes, the
 * line mode's minimum name width of 5) were checked against the sqlite3
 * 3.40 shell, so that what people already pipe sqlite3 into keeps working.
 */
#include "output.h"
#include "json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* sqlite3 buffers a whole result to size its columns.  commq sizes them
 * from the first COLUMN_SAMPLE rows and streams the rest at those widths,
 * so a huge result costs bounded memory; a wider value further down simply
 * pushes the rest of its line to the right. */
#define COLUMN_SAMPLE 1000

struct output {
	struct output_spec spec;	/* copied; strings are the caller's */
	FILE *out;			/* destination, owned by the caller */
	int ncols;			/* columns of the current result */
	char **names;			/* their names, copied at begin */
	size_t nrows;			/* rows given in the current result */
	size_t name_width;		/* line mode: widest name, at least 5 */
	size_t *widths;			/* column mode: width of each column */
	char **sample;			/* column mode: rendered rows held back */
	size_t sample_rows;		/* rows in sample */
	bool streaming;			/* column mode: sample written out */
	bool tty;			/* out is a terminal: data is escaped */
	const struct output_sink *sink;	/* not NULL: rows go to callbacks */
	void *sink_ctx;			/* their first argument */
	int sink_ncols;			/* columns of the sink's result */
};

static const char *null_text(const struct output *o)
{
	return o->spec.nullvalue ? o->spec.nullvalue : "";
}

static const char *separator(const struct output *o)
{
	if (o->spec.separator)
		return o->spec.separator;
	return o->spec.mode == OUTPUT_CSV ? "," : "|";
}

/* Text a value shows in list, csv, line and column mode.  Like sqlite3,
 * a blob is shown as its bytes up to the first NUL. */
static const char *shown(const struct output *o, const struct output_value *v)
{
	return v->type == OUTPUT_NULL ? null_text(o) : v->text;
}

/* The length of a C1 control (U+0080..U+009F, which terminals may take
 * as escape sequences: U+009B is CSI) at s in UTF-8, or of a lone byte
 * 0x80..0x9F that is no UTF-8; 0 when s holds neither. */
static size_t c1_at(const unsigned char *s)
{
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	if (s[0] >= 0x80 && s[0] <= 0x9f)
		return 1;	/* a continuation byte where none belongs */
	return 0;
}

/* Writes data to a terminal so that it cannot steer it: control bytes
 * (but tab and newline) in caret notation (^[ for ESC, ^? for DEL), C1
 * controls as \xHH. Anywhere else the bytes go out as they are. */
static void put_data_n(const struct output *o, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	size_t k;

	if (!o->tty) {
		fwrite(s, 1, len, o->out);
		return;
	}
	while (p < end) {
		if (*p < 0x20 && *p != '\t' && *p != '\n') {
			fputc('^', o->out);
			fputc(*p ^ 0x40, o->out);
			p++;
		} else if (*p == 0x7f) {
			fputs("^?", o->out);
			p++;
		} else if ((k = c1_at(p)) && p + k <= end) {
			fprintf(o->out, "\\x%02x", p[k - 1]);
			p += k;
		} else {
			fputc(*p++, o->out);
		}
	}
}

static void put_data(const struct output *o, const char *s)
{
	put_data_n(o, s, strlen(s));
}

static int check_stream(const struct output *o)
{
	if (!ferror(o->out))
		return 0;
	errno = errno ? errno : EIO;
	return -1;
}

static void put_repeat(FILE *out, int c, size_t n)
{
	while (n--)
		fputc(c, out);
}

/* ---- column mode ---- */

/* Characters on screen: UTF-8 continuation bytes take no column.  Wide
 * (East Asian) characters count one, as in sqlite3 3.40. */
static size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Renders s as one line of a cell into dst (if not NULL), stores its width
 * in *width and returns its length in bytes.  Tabs expand to 8-column stops
 * as in sqlite3; other control characters print in caret notation (^J for a
 * newline) where sqlite3 would wrap the cell over several lines: a row stays
 * one line, so it can be streamed and grepped. */
static size_t render_cell(const char *s, char *dst, size_t *width, bool tty)
{
	size_t n = 0, w = 0, k;

	for (; *s; s++) {
		unsigned char c = *s;

		if (tty && (k = c1_at((const unsigned char *)s))) {
			/* a C1 control, on a terminal: \xHH */
			if (dst)
				snprintf(dst + n, 5, "\\x%02x", (unsigned char)s[k - 1]);
			n += 4;
			w += 4;
			s += k - 1;
		} else if (c == '\t') {
			do {
				if (dst)
					dst[n] = ' ';
				n++;
			} while (++w % 8);
		} else if (c < 0x20 || c == 0x7f) {
			if (dst) {
				dst[n] = '^';
				dst[n + 1] = c ^ 0x40;
			}
			n += 2;
			w += 2;
		} else {
			if (dst)
				dst[n] = c;
			n++;
			w += (c & 0xc0) != 0x80;
		}
	}
	if (dst)
		dst[n] = '\0';
	*width = w;
	return n;
}

/* Returns s rendered for a cell (malloc'd), growing *max to its width. */
static char *render(const struct output *o, const char *s, size_t *max)
{
	size_t w;
	char *r = malloc(render_cell(s, NULL, &w, o->tty) + 1);

	if (r)
		render_cell(s, r, &w, o->tty);
	if (w > *max)
		*max = w;
	return r;
}

/* The frames of table and box mode, as sqlite3 draws them: a rule's
 * left, middle and right corner for the top, below the header and the
 * bottom, the rule's fill and the vertical bar. */
struct frame {
	const char *corner[3][3];
	const char *fill, *bar;
};

static const struct frame table_frame = {
	{ { "+", "+", "+" }, { "+", "+", "+" }, { "+", "+", "+" } }, "-", "|",
};
static const struct frame box_frame = {
	{ { "\u250c", "\u252c", "\u2510" }, { "\u251c", "\u253c", "\u2524" },
	  { "\u2514", "\u2534", "\u2518" } }, "\u2500", "\u2502",
};

static const struct frame *frame_of(const struct output *o)
{
	return o->spec.mode == OUTPUT_TABLE ? &table_frame :
	       o->spec.mode == OUTPUT_BOX ? &box_frame : NULL;
}

enum { RULE_TOP, RULE_HEADER, RULE_BOTTOM };

static void frame_rule(struct output *o, const struct frame *f, int which)
{
	for (int i = 0; i < o->ncols; i++) {
		fputs(f->corner[which][i ? 1 : 0], o->out);
		for (size_t k = 0; k < o->widths[i] + 2; k++)
			fputs(f->fill, o->out);
	}
	fputs(f->corner[which][2], o->out);
	fputc('\n', o->out);
}

/* Writes one line of cells, each padded to its column's width and two
 * spaces apart (sqlite3 pads the last one too); in a frame, between bars,
 * a header's names centred as sqlite3 centres them. */
static void column_line(struct output *o, char *const *cells, bool header)
{
	const struct frame *f = frame_of(o);

	for (int i = 0; i < o->ncols; i++) {
		size_t w = text_width(cells[i]);
		size_t pad = w < o->widths[i] ? o->widths[i] - w : 0;
		size_t left = f && header ? pad / 2 : 0;

		if (f)
			fprintf(o->out, "%s ", f->bar);
		else if (i)
			fputs("  ", o->out);
		put_repeat(o->out, ' ', left);
		fputs(cells[i], o->out);
		put_repeat(o->out, ' ', pad - left);
		if (f)
			fputc(' ', o->out);
	}
	if (f)
		fputs(f->bar, o->out);
	fputc('\n', o->out);
}

/* Writes the header and the sample, frees the sample, and from now on
 * rows go straight out at the widths found so far. */
static int column_flush(struct output *o)
{
	char **names = NULL;
	size_t unused = 0;
	int ret = -1;

	const struct frame *f = frame_of(o);

	/* A frame always has its header, as in sqlite3. */
	if (o->spec.header || f) {
		names = calloc(o->ncols, sizeof(*names));
		if (!names)
			goto out;
		for (int i = 0; i < o->ncols; i++)
			if (!(names[i] = render(o, o->names[i], &unused)))
				goto out;
		if (f)
			frame_rule(o, f, RULE_TOP);
		column_line(o, names, true);
		if (f) {
			frame_rule(o, f, RULE_HEADER);
		} else {
			for (int i = 0; i < o->ncols; i++) {
				if (i)
					fputs("  ", o->out);
				put_repeat(o->out, '-', o->widths[i]);
			}
			fputc('\n', o->out);
		}
	}
	for (size_t r = 0; r < o->sample_rows; r++) {
		char **cells = o->sample + r * o->ncols;

		column_line(o, cells, false);
		for (int i = 0; i < o->ncols; i++) {
			free(cells[i]);
			cells[i] = NULL;
		}
	}
	o->sample_rows = 0;
	o->streaming = true;
	ret = check_stream(o);
out:
	for (int i = 0; names && i < o->ncols; i++)
		free(names[i]);
	free(names);
	return ret;
}

static int column_row(struct output *o, const struct output_value *values)
{
	size_t nc = o->ncols;
	char **cells;

	if (!o->streaming && o->sample_rows == COLUMN_SAMPLE &&
	    column_flush(o) < 0)
		return -1;
	/* Grow the sample a row at a time up to its cap: a 3-row result
	 * should not cost 1000 rows of pointers.  Once streaming, slot 0 is
	 * reused for every row. */
	if (!o->streaming) {
		char **s = realloc(o->sample,
				   (o->sample_rows + 1) * nc * sizeof(*s));
		if (!s)
			return -1;
		o->sample = s;
	}
	cells = o->sample + (o->streaming ? 0 : o->sample_rows * nc);
	memset(cells, 0, nc * sizeof(*cells));
	for (size_t i = 0; i < nc; i++) {
		size_t w = 0;

		if (!(cells[i] = render(o, shown(o, &values[i]), &w)))
			goto fail;
		if (!o->streaming && w > o->widths[i])
			o->widths[i] = w;
	}
	if (!o->streaming) {
		o->sample_rows++;
		return 0;
	}
	column_line(o, cells, false);
	for (size_t i = 0; i < nc; i++)
		free(cells[i]);
	return check_stream(o);
fail:
	for (size_t i = 0; i < nc; i++)
		free(cells[i]);
	return -1;
}

/* ---- csv, json, line, list ---- */

/* sqlite3 quotes a field that is empty, holds a space, a control or
 * non-ASCII byte, a quote or an apostrophe, or the separator. */
static void csv_field(struct output *o, const char *s)
{
	bool quote = !*s || strstr(s, separator(o));

	for (const char *p = s; *p && !quote; p++) {
		unsigned char c = *p;

		quote = c <= ' ' || c == '"' || c == '\'' || c >= 0x7f;
	}
	if (!quote) {
		fputs(s, o->out);
		return;
	}
	fputc('"', o->out);
	for (const char *run = s;; s++) {
		/* Each run up to a quote goes out whole (escaped on a
		 * terminal), then the quote doubled. */
		if (*s == '"' || !*s) {
			put_data_n(o, run, (size_t)(s - run));
			if (!*s)
				break;
			fputs("\"\"", o->out);
			run = s + 1;
		}
	}
	fputc('"', o->out);
}

static void put_file(void *ctx, const char *p, size_t n)
{
	fwrite(p, 1, n, ctx);
}

/* common/json.h's rules; on a terminal the C1 controls are escaped too. */
static void json_string(FILE *out, const char *s, size_t len, bool tty)
{
	json_string_to(put_file, out, s, len, tty ? JSON_TTY : 0);
}

static void json_value(FILE *out, const struct output_value *v, bool tty)
{
	switch (v->type) {
	case OUTPUT_NULL:
		fputs("null", out);
		break;
	case OUTPUT_FLOAT:
		/* SQLite spells infinity "Inf", which is not JSON; sqlite3
		 * writes a number that overflows to it instead. */
		if (!strcmp(v->text, "Inf") || !strcmp(v->text, "-Inf"))
			fputs(v->text[0] == '-' ? "-1e999" : "1e999", out);
		else
			fputs(v->text, out);
		break;
	case OUTPUT_INTEGER:
		fputs(v->text, out);
		break;
	case OUTPUT_TEXT:
		/* Text ends at its first NUL, as in every other mode. */
		json_string(out, v->text, strlen(v->text), tty);
		break;
	case OUTPUT_BLOB:
		json_string(out, v->text, v->len, tty);
		break;
	}
}

static void json_row(struct output *o, const struct output_value *values)
{
	fputs(o->nrows ? ",\n{" : "[{", o->out);
	for (int i = 0; i < o->ncols; i++) {
		if (i)
			fputc(',', o->out);
		json_string(o->out, o->names[i], strlen(o->names[i]), o->tty);
		fputc(':', o->out);
		json_value(o->out, &values[i], o->tty);
	}
	fputc('}', o->out);
}

static void line_row(struct output *o, const struct output_value *values)
{
	if (o->nrows)
		fputc('\n', o->out);
	for (int i = 0; i < o->ncols; i++) {
		size_t w = strlen(o->names[i]);

		if (w < o->name_width)
			put_repeat(o->out, ' ', o->name_width - w);
		put_data(o, o->names[i]);
		fputs(" = ", o->out);
		put_data(o, shown(o, &values[i]));
		fputc('\n', o->out);
	}
}

static void list_row(struct output *o, const struct output_value *values)
{
	bool csv = o->spec.mode == OUTPUT_CSV;

	for (int i = 0; !o->nrows && o->spec.header && i < o->ncols; i++) {
		if (i)
			fputs(separator(o), o->out);
		if (csv)
			csv_field(o, o->names[i]);
		else
			put_data(o, o->names[i]);
	}
	if (!o->nrows && o->spec.header)
		fputc('\n', o->out);
	for (int i = 0; i < o->ncols; i++) {
		if (i)
			fputs(separator(o), o->out);
		/* NULL is never quoted: "" would read back as empty text. */
		if (csv && values[i].type != OUTPUT_NULL)
			csv_field(o, values[i].text);
		else
			put_data(o, shown(o, &values[i]));
	}
	fputc('\n', o->out);
}

/* ---- the interface ---- */

struct output *output_new(const struct output_spec *spec, FILE *out)
{
	struct output *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->spec = *spec;
	o->out = out;
	o->tty = out && isatty(fileno(out));
	return o;
}

struct output *output_new_sink(const struct output_sink *cb, void *ctx)
{
	struct output *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->sink = cb;
	o->sink_ctx = ctx;
	return o;
}

static int sink_result(int ret)
{
	if (ret < 0 && !errno)
		errno = EIO;
	return ret < 0 ? -1 : 0;
}

/* Drops the current result's state, written or not. */
static void reset(struct output *o)
{
	for (size_t i = 0; i < o->sample_rows * o->ncols; i++)
		free(o->sample[i]);
	for (int i = 0; o->names && i < o->ncols; i++)
		free(o->names[i]);
	free(o->sample);
	free(o->names);
	free(o->widths);
	o->sample = o->names = NULL;
	o->widths = NULL;
	o->ncols = 0;
	o->nrows = o->sample_rows = 0;
	o->streaming = false;
}

int output_begin(struct output *o, const struct output_column *cols,
		 int ncols)
{
	reset(o);
	if (ncols < 1) {
		errno = EINVAL;
		return -1;
	}
	if (o->sink) {
		o->sink_ncols = ncols;
		errno = 0;
		return sink_result(o->sink->begin(o->sink_ctx, cols, ncols));
	}
	o->names = calloc(ncols, sizeof(*o->names));
	o->widths = calloc(ncols, sizeof(*o->widths));
	if (!o->names || !o->widths)
		goto fail;
	o->ncols = ncols;
	o->name_width = 5;
	for (int i = 0; i < ncols; i++) {
		const char *name = cols[i].name ? cols[i].name : "";

		if (!(o->names[i] = strdup(name)))
			goto fail;
		if (strlen(name) > o->name_width)
			o->name_width = strlen(name);
		/* sqlite3 sizes columns by their names even with the
		 * header off. */
		render_cell(name, NULL, &o->widths[i], o->tty);
	}
	return 0;
fail:
	reset(o);
	errno = ENOMEM;
	return -1;
}

int output_row(struct output *o, const struct output_value *values)
{
	int ret = 0;

	if (o->sink) {
		errno = 0;
		return sink_result(o->sink->row(o->sink_ctx, values,
						o->sink_ncols));
	}
	switch (o->spec.mode) {
	case OUTPUT_COLUMN:
	case OUTPUT_TABLE:
	case OUTPUT_BOX:
		ret = column_row(o, values);
		break;
	case OUTPUT_JSON:
		json_row(o, values);
		break;
	case OUTPUT_LINE:
		line_row(o, values);
		break;
	case OUTPUT_LIST:
	case OUTPUT_CSV:
		list_row(o, values);
		break;
	}
	if (ret < 0)
		return -1;
	o->nrows++;
	return check_stream(o);
}

int output_end(struct output *o)
{
	int ret = 0;

	if (o->sink) {
		errno = 0;
		return sink_result(o->sink->end(o->sink_ctx));
	}
	if (frame_of(o) || o->spec.mode == OUTPUT_COLUMN) {
		if (!o->streaming && o->sample_rows)
			ret = column_flush(o);
		if (ret == 0 && frame_of(o) && o->nrows)
			frame_rule(o, frame_of(o), RULE_BOTTOM);
	} else if (o->spec.mode == OUTPUT_JSON && o->nrows)
		fputs("]\n", o->out);
	reset(o);
	if (ret < 0)
		return -1;
	return check_stream(o);
}

void output_free(struct output *o)
{
	if (!o)
		return;
	reset(o);
	free(o);
}
