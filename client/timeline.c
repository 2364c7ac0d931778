/* timeline.c — see timeline.h.
 *
 * One batch of five statements, whose results come in order: the window
 * and the capture start, the CPUs (the lanes), then the sched slices, the
 * wakeups and the losses in the window, streamed into a grid of cells
 * (lane x column) made when the slices begin.  A cell keeps
 * the few comms covering most of it (a new comm replaces the smallest
 * when all places are taken), the idle and busy share of it, and flags
 * for a lost slice, a wakeup and a loss record.  Drawing walks each lane
 * and merges runs of columns that look the same into one rect, so a lane
 * costs at most one rect per column of each kind, whatever the trace.
 */
#include "timeline.h"
#include "tlpage.h"
#include "grow.h"

#include "log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DEFAULT_WIDTH	1200
#define MIN_WIDTH	300
#define MAX_WIDTH	20000
#define MARGIN_LEFT	72
#define MARGIN_RIGHT	16
#define TOP		44
#define LANE_H		24
#define LANE_GAP	4
#define LEGEND_MAX	12	/* comms in the legend */
#define LEGEND_ITEM_W	200
#define LEGEND_ROW_H	18
/* HTML can be zoomed: its columns are up to this many per pixel, as long
 * as the lanes hold at most HTML_MAX_CELLS of them (the file's size). */
#define HTML_COLS_PER_PX 4
#define HTML_MAX_CELLS	(1u << 15)
/* Cells at most (about 40 bytes each); many CPUs get coarser columns. */
#define MAX_CELLS	(4u << 20)
#define SLOTS		3	/* comms kept per cell */

enum { CELL_LOST = 1, CELL_WAKE = 2, CELL_LOSTEV = 4 };

struct cell {
	uint32_t id[SLOTS];	/* comm ids, where w[] > 0 */
	float w[SLOTS];		/* the part of the column each covers */
	float busy, idle;	/* parts covered by tasks, by the idle task */
	uint8_t flags;
};

struct comm {
	char *name;
	uint32_t hash;
	uint64_t ns;		/* time run inside the window */
	uint8_t palette;	/* 1..PALETTE: one of the busiest; 0: by hash */
};

struct timeline {
	struct report_sink_error err;

	/* from the first two queries */
	int64_t lo, hi, base;	/* window [lo, hi), capture start */
	char *source;		/* the capture's source, for the title */
	char *lo_wall;		/* the window's start as the time of day */
	bool have_window;
	int64_t *cpus;		/* sorted */
	int nlanes;
	size_t cpus_cap;

	/* the grid */
	int ncols;
	double cols_per_ns;
	struct cell *cells;	/* nlanes * ncols */

	/* interned comms: open addressing on hash, into comms[] */
	struct comm *comms;
	uint32_t ncomms;
	size_t comms_cap;
	uint32_t *table;	/* index + 1, 0: empty */
	uint32_t table_size;	/* a power of two */

	uint64_t slices, wakeups, losses;

	int stage;		/* the result being read, -1 before any */
	int plot_w, per_px;	/* for the grid: pixels, columns per pixel */
};

/* ---- colours ----
 *
 * The busiest comms of the window get colours of their own, far apart:
 * no two of these twelve are closer than 29 in CIELAB (CIE76 delta E;
 * tests/reports/timeline.sh checks it), nor within 40 of the idle grey.
 * The others: a hash of the name picks the hue. */
#define PALETTE 12
static const char *const palette[PALETTE] = {
	"#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4",
	"#f032e6", "#ffe119", "#469990", "#9a6324", "#bfef45", "#000075",
};

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

/* (No libm: commq links without it.) */
static double absd(double v)
{
	return v < 0 ? -v : v;
}

static double pow10i(int e)
{
	double v = 1;

	while (e-- > 0)
		v *= 10;
	return v;
}

/* HSL with the hue from the hash, saturation 50-79%, lightness 45-59%. */
static void hash_color(uint32_t h, char out[8])
{
	double hue = h % 360, sat = (50 + (h >> 10) % 30) / 100.0,
	       light = (45 + (h >> 20) % 15) / 100.0;
	double c = (1 - absd(2 * light - 1)) * sat;
	double hp = hue / 60, hmod = hp - 2 * (int)(hp / 2);
	double x = c * (1 - absd(hmod - 1));
	double r = 0, g = 0, b = 0, m = light - c / 2;

	if (hp < 1)
		r = c, g = x;
	else if (hp < 2)
		r = x, g = c;
	else if (hp < 3)
		g = c, b = x;
	else if (hp < 4)
		g = x, b = c;
	else if (hp < 5)
		r = x, b = c;
	else
		r = c, b = x;
	snprintf(out, 8, "#%02x%02x%02x", (unsigned)((r + m) * 255 + 0.5),
		 (unsigned)((g + m) * 255 + 0.5),
		 (unsigned)((b + m) * 255 + 0.5));
}

static void comm_color(const struct comm *c, char out[8])
{
	if (c->palette)
		snprintf(out, 8, "%s", palette[c->palette - 1]);
	else
		hash_color(c->hash, out);
}

void timeline_comm_color(const char *comm, int rank, char out[8])
{
	struct comm c = { .hash = fnv1a(comm), .palette = (uint8_t)rank };

	comm_color(&c, out);
}

/* ---- interning comms ---- */

static int table_grow(struct timeline *t)
{
	uint32_t size = t->table_size ? t->table_size * 2 : 256;
	uint32_t *table = calloc(size, sizeof(*table));

	if (!table)
		return -1;
	for (uint32_t i = 0; i < t->ncomms; i++) {
		uint32_t k = t->comms[i].hash & (size - 1);

		while (table[k])
			k = (k + 1) & (size - 1);
		table[k] = i + 1;
	}
	free(t->table);
	t->table = table;
	t->table_size = size;
	return 0;
}

/* The id of name, added if new; -1 when out of memory. */
static int64_t intern(struct timeline *t, const char *name)
{
	uint32_t h = fnv1a(name), k;

	if ((t->ncomms + 1) * 2 > t->table_size && table_grow(t) < 0)
		return -1;
	for (k = h & (t->table_size - 1); t->table[k];
	     k = (k + 1) & (t->table_size - 1)) {
		struct comm *c = &t->comms[t->table[k] - 1];

		if (c->hash == h && !strcmp(c->name, name))
			return t->table[k] - 1;
	}
	if (grow_array(&t->comms, &t->comms_cap, sizeof(*t->comms), (size_t)t->ncomms + 1, 0))
		return -1;
	t->comms[t->ncomms] = (struct comm){ .name = strdup(name), .hash = h };
	if (!t->comms[t->ncomms].name)
		return -1;
	t->table[k] = ++t->ncomms;
	return t->ncomms - 1;
}

/* ---- SQL ---- */

/* The window: --from/--to, else the capture's, else the slices'. */
void timeline_window_cte(struct sbuf *b, const struct report_args *a)
{
	sbuf_printf(b, "WITH w0(lo, hi) AS (SELECT ");
	if (a->from.set)
		report_time_sql(b, &a->from);
	else
		sbuf_printf(b, "coalesce((SELECT min(start_ts) FROM capture), "
			       SCHED_MIN_TS ")");
	sbuf_printf(b, ",\n  ");
	if (a->to.set)
		report_time_sql(b, &a->to);
	else
		sbuf_printf(b, "coalesce((SELECT max(end_ts) FROM capture), %s)",
			    report_newest_sql);
	sbuf_printf(b, ")");
	report_window_rows_cte(b);
	sbuf_printf(b, "\n");
}

enum { Q_WINDOW, Q_CPUS, Q_SLICES, Q_WAKEUPS, Q_LOST, NQUERIES };

static void build_sql(struct sbuf *q, const struct report_args *a)
{
	timeline_window_cte(q, a);
	sbuf_printf(q,
		    "SELECT w.lo, w.hi, %s AS base,\n"
		    "  (SELECT source FROM capture ORDER BY id LIMIT 1) AS source,\n  ",
		    report_base_sql);
	report_wall_sql(q, "w.lo");
	sbuf_printf(q, " AS lo_wall\nFROM w;\n");
	timeline_window_cte(q, a);
	sbuf_printf(q,
		    "SELECT cpu FROM wc UNION SELECT cpu FROM ws UNION\n"
		    "SELECT cpu FROM lost_events WHERE cpu IS NOT NULL ORDER BY cpu;\n");
	timeline_window_cte(q, a);
	sbuf_printf(q,
		    "SELECT s.cpu, s.ts, s.dur, s.pid, s.comm, s.lost FROM ws s\n"
		    "WHERE " IN_WINDOW ";\n");
	timeline_window_cte(q, a);
	sbuf_printf(q, "SELECT l.cpu, l.ts FROM wl l;\n");
	timeline_window_cte(q, a);
	sbuf_printf(q,
		    "SELECT l.cpu, l.ts, l.count FROM lost_events l, w\n"
		    "WHERE l.ts >= w.lo AND l.ts <= w.hi;\n");
}

/* ---- the sinks ---- */

static int expect_cols(struct timeline *t, int n, int want, const char *what)
{
	if (n == want)
		return 0;
	return report_fail(&t->err, EPROTO, "timeline: the %s came with %d columns, not %d",
		    what, n, want);
}

static int window_begin(void *ctx, const struct output_column *c, int n)
{
	(void)c;
	return expect_cols(ctx, n, 5, "window");
}

static int window_row(void *ctx, const struct output_value *v, int n)
{
	struct timeline *t = ctx;

	(void)n;
	if (v[0].type == OUTPUT_NULL || v[1].type == OUTPUT_NULL)
		return 0;
	t->lo = report_int(&v[0], 0);
	t->hi = report_int(&v[1], 0);
	t->base = report_int(&v[2], t->lo);
	if (v[3].type != OUTPUT_NULL && !(t->source = strdup(v[3].text)))
		return report_fail(&t->err, ENOMEM, "%s", strerror(ENOMEM));
	if (n > 4 && v[4].type != OUTPUT_NULL && !(t->lo_wall = strdup(v[4].text)))
		return report_fail(&t->err, ENOMEM, "%s", strerror(ENOMEM));
	t->have_window = true;
	return 0;
}


static int cpus_begin(void *ctx, const struct output_column *c, int n)
{
	(void)c;
	return expect_cols(ctx, n, 1, "CPU list");
}

static int cpus_row(void *ctx, const struct output_value *v, int n)
{
	struct timeline *t = ctx;

	(void)n;
	if (v[0].type == OUTPUT_NULL)
		return 0;
	if (grow_array(&t->cpus, &t->cpus_cap, sizeof(*t->cpus), (size_t)t->nlanes + 1, 0))
		return report_fail(&t->err, ENOMEM, "%s", strerror(ENOMEM));
	t->cpus[t->nlanes++] = report_int(&v[0], 0);
	return 0;
}


/* The lane of cpu, or -1 (a CPU that appeared since the lanes were
 * counted, in a database still being written). */
static int lane_of(const struct timeline *t, int64_t cpu)
{
	int lo = 0, hi = t->nlanes;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (t->cpus[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nlanes && t->cpus[lo] == cpu ? lo : -1;
}

static void cell_add(struct cell *c, uint32_t id, float w)
{
	int k, min = 0;

	c->busy += w;
	for (k = 0; k < SLOTS; k++)
		if (c->w[k] > 0 && c->id[k] == id) {
			c->w[k] += w;
			return;
		}
	for (k = 0; k < SLOTS; k++) {
		if (c->w[k] <= 0) {
			c->id[k] = id;
			c->w[k] = w;
			return;
		}
		if (c->w[k] < c->w[min])
			min = k;
	}
	if (w > c->w[min]) {
		c->id[min] = id;
		c->w[min] = w;
	}
}

/* The column of time ts, clamped into the grid. */
static int column_of(const struct timeline *t, int64_t ts)
{
	double x = (double)(ts - t->lo) * t->cols_per_ns;

	if (x < 0)
		return 0;
	if (x >= t->ncols)
		return t->ncols - 1;
	return (int)x;
}

static int slices_begin(void *ctx, const struct output_column *c, int n)
{
	(void)c;
	return expect_cols(ctx, n, 6, "slices");
}

static int slices_row(void *ctx, const struct output_value *v, int n)
{
	struct timeline *t = ctx;
	int lane = lane_of(t, report_int(&v[0], -1));
	int64_t ts = report_int(&v[1], 0), end = ts + report_int(&v[2], 0);
	int64_t pid = report_int(&v[3], -1);
	bool lost = report_int(&v[5], 0) != 0;
	int64_t id = -1;
	struct cell *row;
	double x0, x1;

	(void)n;
	if (lane < 0)
		return 0;
	t->slices++;
	row = t->cells + (size_t)lane * t->ncols;
	if (ts < t->lo)
		ts = t->lo;
	if (end > t->hi)
		end = t->hi;
	if (pid != 0) {
		id = intern(t, v[4].type == OUTPUT_NULL ? "<...>" : v[4].text);
		if (id < 0)
			return report_fail(&t->err, ENOMEM, "%s", strerror(ENOMEM));
		if (end > ts)
			t->comms[id].ns += (uint64_t)(end - ts);
	}
	if (end <= ts) {
		if (lost)
			row[column_of(t, ts)].flags |= CELL_LOST;
		return 0;
	}
	x0 = (double)(ts - t->lo) * t->cols_per_ns;
	x1 = (double)(end - t->lo) * t->cols_per_ns;
	if (x1 > t->ncols)
		x1 = t->ncols;
	for (int col = (int)x0; col < t->ncols && col < x1; col++) {
		double a = x0 > col ? x0 : col, b = x1 < col + 1 ? x1 : col + 1;
		float w = (float)(b - a);
		struct cell *c = &row[col];

		if (lost)
			c->flags |= CELL_LOST;
		if (w <= 0)
			continue;
		if (pid == 0)
			c->idle += w;
		else
			cell_add(c, (uint32_t)id, w);
	}
	return 0;
}


static int wakeups_begin(void *ctx, const struct output_column *c, int n)
{
	(void)c;
	return expect_cols(ctx, n, 2, "wakeups");
}

static int wakeups_row(void *ctx, const struct output_value *v, int n)
{
	struct timeline *t = ctx;
	int lane = lane_of(t, report_int(&v[0], -1));

	(void)n;
	if (lane < 0)
		return 0;
	t->wakeups++;
	t->cells[(size_t)lane * t->ncols +
		 column_of(t, report_int(&v[1], 0))].flags |= CELL_WAKE;
	return 0;
}


static int lost_begin(void *ctx, const struct output_column *c, int n)
{
	(void)c;
	return expect_cols(ctx, n, 3, "losses");
}

/* A loss on no known CPU marks every lane. */
static int lost_row(void *ctx, const struct output_value *v, int n)
{
	struct timeline *t = ctx;
	int col = column_of(t, report_int(&v[1], 0));
	int lane = v[0].type == OUTPUT_NULL ? -1
					    : lane_of(t, report_int(&v[0], -1));

	(void)n;
	t->losses++;
	for (int l = 0; l < t->nlanes; l++)
		if (lane < 0 ? v[0].type == OUTPUT_NULL : l == lane)
			t->cells[(size_t)l * t->ncols + col].flags |= CELL_LOSTEV;
	return 0;
}


/* The grid, once the window and the lanes are known.  Many CPUs get
 * coarser columns (MAX_CELLS), HTML finer ones while few enough. */
static int make_grid(struct timeline *t)
{
	size_t per_px = (size_t)t->per_px;

	if (!t->have_window || !t->nlanes)
		return report_fail(&t->err, ENODATA, "timeline: nothing to draw: the "
			    "database has no sched slices");
	if (t->hi <= t->lo)
		return report_fail(&t->err, EDOM, "timeline: the window is empty (%" PRId64
			    " .. %" PRId64 ")", t->lo, t->hi);
	while (per_px > 1 &&
	       (size_t)t->nlanes * t->plot_w * per_px > HTML_MAX_CELLS)
		per_px--;
	t->ncols = (size_t)t->nlanes * t->plot_w > MAX_CELLS
		   ? (int)(MAX_CELLS / t->nlanes) : (int)(t->plot_w * per_px);
	if (t->ncols < 1)
		t->ncols = 1;
	t->cols_per_ns = (double)t->ncols / (double)(t->hi - t->lo);
	t->cells = calloc((size_t)t->nlanes * t->ncols, sizeof(*t->cells));
	if (!t->cells)
		return report_fail(&t->err, ENOMEM, "%s", strerror(ENOMEM));
	return 0;
}

/* Each result to its own reader. */
static int tl_begin(void *ctx, const struct output_column *c, int n)
{
	static int (*const begin[NQUERIES])(void *,
					    const struct output_column *, int) = {
		window_begin, cpus_begin, slices_begin, wakeups_begin,
		lost_begin,
	};
	struct timeline *t = ctx;

	if (++t->stage >= NQUERIES)
		return report_fail(&t->err, EPROTO, "timeline: more results than asked for");
	if (begin[t->stage](ctx, c, n) < 0)
		return -1;
	return t->stage == Q_SLICES ? make_grid(t) : 0;
}

static int tl_row(void *ctx, const struct output_value *v, int n)
{
	static int (*const row[NQUERIES])(void *, const struct output_value *,
					  int) = {
		window_row, cpus_row, slices_row, wakeups_row, lost_row,
	};
	struct timeline *t = ctx;

	return row[t->stage](ctx, v, n);
}

static int tl_end(void *ctx)
{
	(void)ctx;
	return 0;
}

static const struct output_sink timeline_sink = { tl_begin, tl_row, tl_end };

/* ---- drawing ---- */

/* Text for XML: markup characters escaped; bytes that are not valid UTF-8,
 * and characters XML 1.0 forbids (controls, surrogates, U+FFFE/F), as
 * '?'. */
static void xml_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned c = *p;
		int len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2
			: (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
		uint32_t cp = len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
		bool ok = len > 0;

		if (len == 1) {
			switch (c) {
			case '&': fputs("&amp;", f); break;
			case '<': fputs("&lt;", f); break;
			case '>': fputs("&gt;", f); break;
			case '"': fputs("&quot;", f); break;
			case '\'': fputs("&#39;", f); break;
			default:
				fputc(c < 0x20 || c == 0x7f ? '?' : (int)c, f);
			}
			p++;
			continue;
		}
		for (int i = 1; ok && i < len; i++) {
			ok = (p[i] & 0xc0) == 0x80;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if (ok)
			ok = !(len == 2 && cp < 0x80) &&
			     !(len == 3 && cp < 0x800) &&
			     !(len == 4 && (cp < 0x10000 || cp > 0x10ffff)) &&
			     !(cp >= 0xd800 && cp <= 0xdfff) &&
			     cp != 0xfffe && cp != 0xffff &&
			     !(cp >= 0x80 && cp < 0xa0);
		if (!ok) {
			fputc('?', f);
			p++;
			continue;
		}
		fwrite(p, 1, (size_t)len, f);
		p += len;
	}
}

struct layout {
	int width, height;
	int plot_x, plot_w;
	int axis_y, legend_y;
	bool html;
};

static double col_x(const struct layout *L, const struct timeline *t, int c)
{
	return L->plot_x + (double)c * L->plot_w / t->ncols;
}

static int lane_y(int lane)
{
	return TOP + lane * (LANE_H + LANE_GAP);
}

/* A tick step of 1, 2 or 5 times a power of ten ns, for about one tick
 * per 100 px; *exp10 is the power. */
static int64_t tick_step(int64_t span, int plot_w, int *exp10)
{
	double want = (double)span / (plot_w / 100.0 > 1 ? plot_w / 100.0 : 1);
	int64_t p = 1;

	*exp10 = 0;
	for (;;) {
		static const int m[] = { 1, 2, 5 };

		for (int i = 0; i < 3; i++)
			if ((double)(p * m[i]) >= want)
				return p * m[i];
		if (p > INT64_MAX / 100)
			return p * 10;
		p *= 10;
		++*exp10;
	}
}

/* "+12.5ms": ns after the capture start, in the unit the step suits. */
static void format_offset(char *buf, size_t size, int64_t ns, int exp10)
{
	static const struct {
		int exp;
		const char *name;
	} units[] = { { 9, "s" }, { 6, "ms" }, { 3, "\xc2\xb5s" }, { 0, "ns" } };
	int u = 0, decimals;

	/* the largest unit at most ten steps */
	while (u < 3 && exp10 + 1 < units[u].exp)
		u++;
	decimals = units[u].exp > exp10 ? units[u].exp - exp10 : 0;
	snprintf(buf, size, "%s%.*f%s", ns < 0 ? "-" : "+", decimals,
		 absd((double)ns) / pow10i(units[u].exp), units[u].name);
}

static void draw_axis(FILE *f, const struct layout *L,
		      const struct timeline *t)
{
	int64_t span = t->hi - t->lo, off = t->lo - t->base, first;
	int exp10, grid_bottom = lane_y(t->nlanes) - LANE_GAP;
	int64_t step = tick_step(span, L->plot_w, &exp10);
	char label[64];

	/* the first multiple of step (relative to the base) in the window */
	first = off >= 0 ? (off + step - 1) / step * step : -(-off / step * step);
	fprintf(f, "<g id=\"grid\" stroke=\"#ddd\">\n");
	for (int64_t v = first; v <= off + span; v += step) {
		double x = L->plot_x + (double)(v - off) * L->plot_w / span;

		fprintf(f, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"/>\n",
			x, TOP, x, grid_bottom);
	}
	fprintf(f, "</g>\n");
	fprintf(f, "<g id=\"axis\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"#444\"/>\n", L->plot_x, L->axis_y,
		L->plot_x + L->plot_w, L->axis_y);
	for (int64_t v = first; v <= off + span; v += step) {
		double x = L->plot_x + (double)(v - off) * L->plot_w / span;

		format_offset(label, sizeof(label), v, exp10);
		fprintf(f, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
			"stroke=\"#444\"/><text x=\"%.2f\" y=\"%d\" "
			"text-anchor=\"middle\">%s</text>\n", x, L->axis_y, x,
			L->axis_y + 5, x, L->axis_y + 17, label);
	}
	fprintf(f, "</g>\n");
}

/* What a cell shows: nothing, idle, or its busiest comm (half opaque when
 * tasks ran for less than half of it). */
struct look {
	int kind;		/* 1 idle, 2 a comm, 3 unknown */
	uint32_t id;
	bool faint;
};

static struct look cell_look(const struct cell *c)
{
	struct look l = { 0, 0, false };
	int best = -1;

	for (int k = 0; k < SLOTS; k++)
		if (c->w[k] > 0 && (best < 0 || c->w[k] > c->w[best] ||
				    (c->w[k] == c->w[best] && c->id[k] < c->id[best])))
			best = k;
	if (best >= 0) {
		l.kind = 2;
		l.id = c->id[best];
		l.faint = c->busy < 0.5f;
	} else if (c->idle >= 0.5f) {
		l.kind = 1;
	} else {
		/* Mostly in no slice: no event says who ran (a switch
		 * nobody recorded, before the CPU's first event). */
		l.kind = 3;
	}
	return l;
}

static void draw_lane(FILE *f, const struct layout *L,
		      const struct timeline *t, int lane)
{
	const struct cell *row = t->cells + (size_t)lane * t->ncols;
	int y = lane_y(lane);
	bool any_wake = false;

	fprintf(f, "<g class=\"lane\" data-cpu=\"%" PRId64 "\">\n",
		t->cpus[lane]);
	for (int c = 0; c < t->ncols;) {
		struct look l = cell_look(&row[c]);
		int e = c + 1;

		while (e < t->ncols) {
			struct look m = cell_look(&row[e]);

			if (m.kind != l.kind || m.id != l.id || m.faint != l.faint)
				break;
			e++;
		}
		if (l.kind == 1) {
			fprintf(f, "<rect class=\"idle\" x=\"%.2f\" y=\"%d\" "
				"width=\"%.2f\" height=\"%d\" fill=\"#e4e4e4\"/>\n",
				col_x(L, t, c), y, col_x(L, t, e) - col_x(L, t, c),
				LANE_H);
		} else if (l.kind == 3) {
			fprintf(f, "<rect class=\"unknown\" x=\"%.2f\" y=\"%d\" "
				"width=\"%.2f\" height=\"%d\" fill=\"url(#dots)\">"
				"<title>unknown: no event says who ran</title>"
				"</rect>\n", col_x(L, t, c), y,
				col_x(L, t, e) - col_x(L, t, c), LANE_H);
		} else if (l.kind == 2) {
			char color[8];

			comm_color(&t->comms[l.id], color);
			fprintf(f, "<rect class=\"s\" x=\"%.2f\" y=\"%d\" "
				"width=\"%.2f\" height=\"%d\" fill=\"%s\"%s>"
				"<title>", col_x(L, t, c), y,
				col_x(L, t, e) - col_x(L, t, c), LANE_H, color,
				l.faint ? " fill-opacity=\"0.5\"" : "");
			xml_text(f, t->comms[l.id].name);
			fprintf(f, "</title></rect>\n");
		}
		c = e;
	}
	/* slices a loss fell into, then the loss records */
	for (int pass = 0; pass < 2; pass++) {
		int flag = pass ? CELL_LOSTEV : CELL_LOST;

		for (int c = 0; c < t->ncols;) {
			int e = c;
			double x0, x1;

			if (!(row[c].flags & flag)) {
				c++;
				continue;
			}
			while (e < t->ncols && (row[e].flags & flag))
				e++;
			x0 = col_x(L, t, c);
			x1 = col_x(L, t, e);
			if (!pass) {
				fprintf(f, "<rect class=\"lost\" x=\"%.2f\" y=\"%d\" "
					"width=\"%.2f\" height=\"%d\" "
					"fill=\"url(#hatch-slice)\"><title>a loss "
					"fell inside: slice ends unknown"
					"</title></rect>\n", x0, y, x1 - x0,
					LANE_H);
			} else {
				if (x1 - x0 < 3)
					x0 = (x0 + x1) / 2 - 1.5, x1 = x0 + 3;
				fprintf(f, "<rect class=\"lostev\" x=\"%.2f\" y=\"%d\" "
					"width=\"%.2f\" height=\"%d\" "
					"fill=\"url(#hatch)\" stroke=\"#c00000\" "
					"vector-effect=\"non-scaling-stroke\">"
					"<title>events lost (commq lost)"
					"</title></rect>\n", x0, y - 2, x1 - x0,
					LANE_H + 4);
			}
			c = e;
		}
	}
	for (int c = 0; c < t->ncols; c++) {
		if (!(row[c].flags & CELL_WAKE))
			continue;
		if (!any_wake)
			fprintf(f, "<path class=\"wake\" stroke=\"#333\" "
				"stroke-width=\"1\" vector-effect=\""
				"non-scaling-stroke\" d=\"");
		any_wake = true;
		fprintf(f, "M%.2f %dv5", (col_x(L, t, c) + col_x(L, t, c + 1)) / 2,
			y);
	}
	if (any_wake)
		fprintf(f, "\"/>\n");
	fprintf(f, "</g>\n");
}

static int by_time_desc(const void *a, const void *b)
{
	const struct comm *x = *(const struct comm *const *)a;
	const struct comm *y = *(const struct comm *const *)b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The PALETTE busiest comms (their time in the window) get its colours,
 * busiest first. Returns 0, or -1 out of memory. */
static int rank_colors(struct timeline *t)
{
	struct comm **top = malloc((t->ncomms ? t->ncomms : 1) * sizeof(*top));

	if (!top)
		return -1;
	for (uint32_t i = 0; i < t->ncomms; i++)
		top[i] = &t->comms[i];
	qsort(top, t->ncomms, sizeof(*top), by_time_desc);
	for (uint32_t i = 0; i < t->ncomms && i < PALETTE; i++)
		if (top[i]->ns)
			top[i]->palette = (uint8_t)(i + 1);
	free(top);
	return 0;
}

static int draw_legend(FILE *f, const struct layout *L,
		       const struct timeline *t)
{
	int per_row = L->plot_w / LEGEND_ITEM_W > 0 ? L->plot_w / LEGEND_ITEM_W : 1;
	uint32_t n = t->ncomms < LEGEND_MAX ? t->ncomms : LEGEND_MAX;
	struct comm **top = malloc((t->ncomms ? t->ncomms : 1) * sizeof(*top));
	int item = 0;

	if (!top)
		return -1;
	for (uint32_t i = 0; i < t->ncomms; i++)
		top[i] = &t->comms[i];
	qsort(top, t->ncomms, sizeof(*top), by_time_desc);
	fprintf(f, "<g id=\"legend\">\n");
	for (uint32_t i = 0; i < n; i++, item++) {
		int x = L->plot_x + item % per_row * LEGEND_ITEM_W;
		int y = L->legend_y + item / per_row * LEGEND_ROW_H;
		char color[8];

		comm_color(top[i], color);
		fprintf(f, "<g class=\"key\" data-comm=\"");
		xml_text(f, top[i]->name);
		fprintf(f, "\"><rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
			"fill=\"%s\"/><text x=\"%d\" y=\"%d\">", x, y, color,
			x + 16, y + 10);
		xml_text(f, top[i]->name);
		fprintf(f, " %.3f ms</text></g>\n", top[i]->ns / 1e6);
	}
	free(top);
	/* what the other marks mean */
	static const char *const keys[] = {
		"<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
		"fill=\"#e4e4e4\"/><text x=\"%d\" y=\"%d\">idle</text>",
		"<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
		"fill=\"url(#hatch)\" stroke=\"#c00000\"/><text x=\"%d\" "
		"y=\"%d\">events lost (loss record)</text>",
		"<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
		"fill=\"url(#hatch-slice)\" stroke=\"#ccc\"/><text x=\"%d\" "
		"y=\"%d\">slice with a loss inside</text>",
		"<path d=\"M%d %dv5\" stroke=\"#333\"/><text x=\"%d\" y=\"%d\">"
		"wakeup (on the CPU it ran on)</text>",
		"<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
		"fill=\"url(#dots)\" stroke=\"#ccc\"/><text x=\"%d\" "
		"y=\"%d\">unknown (no event says who ran)</text>",
	};
	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++, item++) {
		int x = L->plot_x + item % per_row * LEGEND_ITEM_W;
		int y = L->legend_y + item / per_row * LEGEND_ROW_H;

		fprintf(f, "<g class=\"mark\">");
		fprintf(f, keys[k], k == 3 ? x + 6 : x, k == 3 ? y + 3 : y,
			x + 16, y + 10);
		fprintf(f, "</g>\n");
	}
	fprintf(f, "</g>\n");
	return 0;
}

static int legend_rows(const struct layout *L, const struct timeline *t)
{
	int per_row = L->plot_w / LEGEND_ITEM_W > 0 ? L->plot_w / LEGEND_ITEM_W : 1;
	int items = (t->ncomms < LEGEND_MAX ? (int)t->ncomms : LEGEND_MAX) + 4;

	return (items + per_row - 1) / per_row;
}

/* Zoom (wheel) and pan (drag) for the HTML page: the lanes' group is
 * scaled along x, and the axis and grid are drawn again for what shows.
 * The view is kept in the address as #FROMms-TOms (from the capture
 * start), so a link opens the same view. */
static const char script[] =
"(function () {\n"
"var svg = document.getElementById('tl'), z = document.getElementById('zoom');\n"
"var d = svg.dataset, px = +d.plotx, pw = +d.plotw, span = +d.span,\n"
"    off = +d.off, ay = +d.axisy, gt = +d.gridtop, gb = +d.gridbottom;\n"
"var NS = 'http://www.w3.org/2000/svg', k = 1, tx = 0, drag = null;\n"
"function el(p, name, attrs, text) {\n"
"  var e = document.createElementNS(NS, name);\n"
"  for (var a in attrs) e.setAttribute(a, attrs[a]);\n"
"  if (text) e.textContent = text;\n"
"  p.appendChild(e); return e;\n"
"}\n"
"function label(v, e) {\n"
"  var u = [[9, 's'], [6, 'ms'], [3, '\\u00b5s'], [0, 'ns']], i = 0;\n"
"  while (i < 3 && e + 1 < u[i][0]) i++;\n"
"  var dec = Math.max(0, u[i][0] - e);\n"
"  return (v < 0 ? '-' : '+') + (Math.abs(v) / Math.pow(10, u[i][0])).toFixed(dec) + u[i][1];\n"
"}\n"
"function draw() {\n"
"  z.setAttribute('transform', 'translate(' + (px + tx) + ',0) scale(' + k + ',1) translate(' + (-px) + ',0)');\n"
"  var t0 = off + (-tx / k) / pw * span, t1 = off + ((pw - tx) / k) / pw * span;\n"
"  var want = (t1 - t0) / Math.max(1, pw / 100), p = 1, e = 0, step = 0;\n"
"  for (;;) {\n"
"    if (p >= want) { step = p; break; } if (2 * p >= want) { step = 2 * p; break; }\n"
"    if (5 * p >= want) { step = 5 * p; break; } p *= 10; e++;\n"
"  }\n"
"  var g = document.getElementById('grid'), a = document.getElementById('axis');\n"
"  g.textContent = ''; a.textContent = '';\n"
"  el(a, 'line', {x1: px, y1: ay, x2: px + pw, y2: ay, stroke: '#444'});\n"
"  for (var v = Math.ceil(t0 / step) * step; v <= t1; v += step) {\n"
"    var x = +(px + tx + (v - off) / span * pw * k).toFixed(2);\n"
"    el(g, 'line', {x1: x, y1: gt, x2: x, y2: gb});\n"
"    el(a, 'line', {x1: x, y1: ay, x2: x, y2: ay + 5, stroke: '#444'});\n"
"    el(a, 'text', {x: x, y: ay + 17, 'text-anchor': 'middle'}, label(v, e));\n"
"  }\n"
"}\n"
"function at(ev) {\n"
"  var pt = svg.createSVGPoint(); pt.x = ev.clientX; pt.y = ev.clientY;\n"
"  return pt.matrixTransform(svg.getScreenCTM().inverse()).x;\n"
"}\n"
"function clamp() {\n"
"  k = Math.min(Math.max(k, 1), 1e7);\n"
"  tx = Math.min(0, Math.max(tx, pw - pw * k));\n"
"}\n"
"svg.addEventListener('wheel', function (ev) {\n"
"  ev.preventDefault();\n"
"  var mx = at(ev), dx = (mx - px - tx) / k;\n"
"  k *= ev.deltaY < 0 ? 1.25 : 0.8; clamp();\n"
"  tx = mx - px - dx * k; clamp(); draw();\n"
"}, {passive: false});\n"
"svg.addEventListener('mousedown', function (ev) { drag = {x: at(ev), tx: tx}; });\n"
"window.addEventListener('mousemove', function (ev) {\n"
"  if (!drag) return; tx = drag.tx + at(ev) - drag.x; clamp(); draw();\n"
"});\n"
"window.addEventListener('mouseup', function () { drag = null; });\n"
"svg.addEventListener('dblclick', function () { k = 1; tx = 0; draw(); });\n"
"function fromHash() {\n"
"  var m = /^#(-?[0-9.]+)ms-(-?[0-9.]+)ms$/.exec(location.hash);\n"
"  if (!m) return;\n"
"  var a = +m[1] * 1e6, b = +m[2] * 1e6;\n"
"  if (!(b > a)) return;\n"
"  k = span / (b - a); clamp();\n"
"  tx = -(a - off) / span * pw * k; clamp();\n"
"}\n"
"var shown = draw;\n"
"draw = function () {\n"
"  shown();\n"
"  var t0 = off + (-tx / k) / pw * span, t1 = t0 + span / k;\n"
"  if (k > 1 && history.replaceState)\n"
"    history.replaceState(null, '', '#' + (t0 / 1e6).toFixed(3) + 'ms-' + (t1 / 1e6).toFixed(3) + 'ms');\n"
"  else if (history.replaceState && location.hash)\n"
"    history.replaceState(null, '', location.pathname + location.search);\n"
"};\n"
"window.addEventListener('hashchange', function () { fromHash(); draw(); });\n"
"fromHash();\n"
"draw();\n"
"})();\n";

static int draw(FILE *f, const struct timeline *t, int width, bool html)
{
	struct layout L = { .width = width, .html = html };
	int64_t span = t->hi - t->lo;
	char from[64], to[64];

	L.plot_x = MARGIN_LEFT;
	L.plot_w = width - MARGIN_LEFT - MARGIN_RIGHT;
	L.axis_y = lane_y(t->nlanes) + 2;
	L.legend_y = L.axis_y + 34;
	L.height = L.legend_y + legend_rows(&L, t) * LEGEND_ROW_H + 8;
	snprintf(from, sizeof(from), "%+.6fs", (t->lo - t->base) / 1e9);
	snprintf(to, sizeof(to), "%+.6fs", (t->hi - t->base) / 1e9);

	if (html)
		fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
			"<title>commq timeline</title>\n<style>body{margin:8px;"
			"font-family:sans-serif}#tl{display:block;cursor:grab;"
			"user-select:none;max-width:100%%;height:auto}p{color:#555;font-size:12px}</style>"
			"</head>\n<body>\n");
	else
		fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"tl\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\" font-size=\"11\" "
		"data-plotx=\"%d\" data-plotw=\"%d\" data-span=\"%" PRId64 "\" "
		"data-off=\"%" PRId64 "\" data-axisy=\"%d\" data-gridtop=\"%d\" "
		"data-gridbottom=\"%d\" data-lo=\"%" PRId64 "\" "
		"data-hi=\"%" PRId64 "\">\n",
		L.width, L.height, L.width, L.height, L.plot_x, L.plot_w, span,
		t->lo - t->base, L.axis_y, TOP, lane_y(t->nlanes) - LANE_GAP,
		t->lo, t->hi);
	fprintf(f, "<defs>\n<pattern id=\"hatch\" width=\"6\" height=\"6\" "
		"patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
		"<rect width=\"2.5\" height=\"6\" fill=\"#c00000\"/></pattern>\n"
		"<pattern id=\"hatch-slice\" width=\"6\" height=\"6\" "
		"patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
		"<rect width=\"1.5\" height=\"6\" fill=\"#c00000\" "
		"fill-opacity=\"0.45\"/></pattern>\n"
		"<pattern id=\"dots\" width=\"4\" height=\"4\" "
		"patternUnits=\"userSpaceOnUse\"><circle cx=\"2\" cy=\"2\" "
		"r=\"0.7\" fill=\"#8a8a8a\"/></pattern>\n"
		"<clipPath id=\"plotclip\"><rect x=\"%d\" y=\"0\" width=\"%d\" "
		"height=\"%d\"/></clipPath>\n</defs>\n", L.plot_x, L.plot_w,
		L.height);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
		L.width, L.height);
	fprintf(f, "<text x=\"%d\" y=\"18\" font-size=\"13\" font-weight=\"bold\">",
		L.plot_x);
	if (t->source) {
		xml_text(f, t->source);
		fputs(": ", f);
	}
	fprintf(f, "%d CPU%s, %" PRIu64 " slices, %" PRIu64 " wakeups, %"
		PRIu64 " loss records</text>\n", t->nlanes,
		t->nlanes == 1 ? "" : "s", t->slices, t->wakeups, t->losses);
	fprintf(f, "<text x=\"%d\" y=\"34\" fill=\"#555\">%" PRId64 " .. %"
		PRId64 " ns (%s .. %s from the capture start%s%s)%s</text>\n",
		L.plot_x, t->lo, t->hi, from, to,
		t->lo_wall ? "; from " : "", t->lo_wall ? t->lo_wall : "",
		html ? "; wheel: zoom, drag: pan, double-click: reset" : "");
	for (int l = 0; l < t->nlanes; l++)
		fprintf(f, "<rect class=\"bg\" x=\"%d\" y=\"%d\" width=\"%d\" "
			"height=\"%d\" fill=\"#fafafa\" stroke=\"#ccc\"/>"
			"<text x=\"%d\" y=\"%d\" text-anchor=\"end\">CPU %"
			PRId64 "</text>\n", L.plot_x, lane_y(l), L.plot_w,
			LANE_H, L.plot_x - 6, lane_y(l) + LANE_H / 2 + 4,
			t->cpus[l]);
	draw_axis(f, &L, t);
	fprintf(f, "<g clip-path=\"url(#plotclip)\"><g id=\"zoom\" "
		"shape-rendering=\"crispEdges\">\n");
	for (int l = 0; l < t->nlanes; l++)
		draw_lane(f, &L, t, l);
	fprintf(f, "</g></g>\n");
	if (draw_legend(f, &L, t) < 0)
		return -1;
	fprintf(f, "</svg>\n");
	if (html)
		fprintf(f, "<script>\n%s</script>\n</body></html>\n", script);
	return 0;
}

/* ---- the report ---- */

static bool has_ext(const char *path, const char *ext)
{
	size_t n = strlen(path), e = strlen(ext);

	return n > e && !strcasecmp(path + n - e, ext) && path[n - e - 1] != '/';
}

static bool is_html(const char *path)
{
	return has_ext(path, ".html") || has_ext(path, ".htm");
}

bool timeline_can_write(const char *path)
{
	return !strcmp(path, "-") || is_html(path) || has_ext(path, ".svg");
}

static void timeline_free(struct timeline *t)
{
	for (uint32_t i = 0; i < t->ncomms; i++)
		free(t->comms[i].name);
	free(t->comms);
	free(t->table);
	free(t->cells);
	free(t->cpus);
	free(t->source);
	free(t->lo_wall);
}

int timeline_run(const struct report_args *a, report_run_fn *run, void *ctx)
{
	struct sbuf sql = { 0 };
	struct timeline t = { .stage = -1 };
	int width = a->width ? a->width : DEFAULT_WIDTH;
	bool html = a->output && is_html(a->output);
	bool to_stdout = a->output && !strcmp(a->output, "-");
	FILE *f = NULL;
	char *tmp = NULL;
	int ret = -1;

	if (html)
		tlpage_sql(&sql, a);
	else
		build_sql(&sql, a);
	if (sql.oom) {
		log_error("%s", strerror(ENOMEM));
		goto out;
	}
	if (a->print_sql) {
		fputs(sql.s, stdout);
		ret = 0;
		goto out;
	}
	if (width < MIN_WIDTH || width > MAX_WIDTH) {
		log_error("--width: %d px is outside %d..%d", width, MIN_WIDTH,
			  MAX_WIDTH);
		goto out;
	}
	t.plot_w = width - MARGIN_LEFT - MARGIN_RIGHT;
	t.per_px = html ? HTML_COLS_PER_PX : 1;
	/* Found unwritable before the query runs, not after; an existing
	 * file is replaced only by a complete picture. */
	f = to_stdout ? stdout : report_open_temp(a->output, &tmp);
	if (!f) {
		log_error("%s: %s", a->output, strerror(errno));
		goto out;
	}
	if (html) {
		/* the page draws itself from every slice (tlpage.c) */
		ret = tlpage_write(f, a, run, ctx);
		if (!ret && (fflush(f) != 0 || ferror(f))) {
			log_error("%s: %s", a->output, strerror(errno ? errno : EIO));
			ret = -1;
		}
		goto out;
	}
	if (report_query(run, ctx, sql.s, &timeline_sink, &t, &t.err) < 0)
		goto out;
	if (t.stage < Q_SLICES && make_grid(&t) < 0) {
		log_error("%s", t.err.msg);
		goto out;
	}
	if (rank_colors(&t) < 0 || draw(f, &t, width, html) < 0) {
		log_error("%s", strerror(ENOMEM));
		goto out;
	}
	if (fflush(f) != 0 || ferror(f)) {
		log_error("%s: %s", to_stdout ? "stdout" : a->output,
			  strerror(errno ? errno : EIO));
		goto out;
	}
	ret = 0;
out:
	if (f && !to_stdout)
		ret = report_close_temp(f, tmp, a->output, ret);
	else
		free(tmp);
	sbuf_free(&sql);
	timeline_free(&t);
	return ret;
}
