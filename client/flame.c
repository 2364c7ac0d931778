/* flame.c — see flame.h. */
#include "flame.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FRAME_H 16
#define CHAR_W 7		/* px a character takes at the font size used */
#define MAX_DEPTH 256

struct node {
	char *name;
	uint64_t value;
	struct node **kids;
	size_t nkids, cap;
};

struct flame {
	struct node root;
	int depth;		/* the deepest stack added */
};

struct flame *flame_new(void)
{
	return calloc(1, sizeof(struct flame));
}

static void free_node(struct node *n)
{
	for (size_t i = 0; i < n->nkids; i++) {
		free_node(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
	free(n->name);
}

void flame_free(struct flame *f)
{
	if (!f)
		return;
	free_node(&f->root);
	free(f);
}

static struct node *child(struct node *n, const char *name, size_t len)
{
	struct node *c;

	for (size_t i = 0; i < n->nkids; i++)
		if (strlen(n->kids[i]->name) == len && !memcmp(n->kids[i]->name, name, len))
			return n->kids[i];
	if (n->nkids == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 4;
		struct node **k = realloc(n->kids, cap * sizeof(*k));

		if (!k)
			return NULL;
		n->kids = k;
		n->cap = cap;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->name = strndup(name, len))) {
		free(c);
		return NULL;
	}
	n->kids[n->nkids++] = c;
	return c;
}

int flame_add(struct flame *f, const char *stack, size_t len, uint64_t value)
{
	struct node *n = &f->root;
	size_t at = 0;
	int depth = 0;

	n->value += value;
	while (at < len && depth < MAX_DEPTH) {
		size_t end = at;

		while (end < len && stack[end] != ';')
			end++;
		if (end > at) {
			if (!(n = child(n, stack + at, end - at))) {
				errno = ENOMEM;
				return -1;
			}
			n->value += value;
			depth++;
		}
		at = end + 1;
	}
	if (depth > f->depth)
		f->depth = depth;
	return 0;
}

/* The length of the valid UTF-8 sequence at s (1 to 4), 0 if none. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

	if (s[0] < 0x80)
		return 1;
	if (!n || (s[0] >= 0xf8))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;	/* overlong, a surrogate, past U+10FFFF */
	return n;
}

/* XML text of at most max characters: & < > " escaped, control bytes
 * dropped, a byte that is not UTF-8 shown as U+FFFD (a name is any
 * bytes), never a character cut in two. */
static void xml(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t chars = 0; *p && chars < max; chars++) {
		size_t n = utf8_len(p);

		if (*p == '&')
			fputs("&amp;", out);
		else if (*p == '<')
			fputs("&lt;", out);
		else if (*p == '>')
			fputs("&gt;", out);
		else if (*p == '"')
			fputs("&quot;", out);
		else if (n > 1)
			fwrite(p, 1, n, out);
		else if (!n)
			fputs("\xef\xbf\xbd", out);
		else if (*p >= 0x20)
			fputc(*p, out);
		p += n ? n : 1;
	}
}

/* Characters (as xml() counts them) in s. */
static size_t xml_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0;

	for (; *p; chars++) {
		size_t n = utf8_len(p);

		p += n ? n : 1;
	}
	return chars;
}

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

struct draw {
	FILE *out;
	double px_per_unit;
	int height;
	const char *unit;
	uint64_t total;
};

static void draw(const struct draw *d, const struct node *n, double x, int depth)
{
	double w = (double)n->value * d->px_per_unit;
	int y = d->height - (depth + 1) * FRAME_H - 24;

	if (w < 0.1)
		return;
	if (depth >= 0) {
		uint32_t h = hash(n->name);

		/* warm colours, as flame graphs of CPU and off-CPU time use */
		fprintf(d->out, "<g><title>");
		xml(d->out, n->name, 4096);
		fprintf(d->out, " (%" PRIu64 " %s, %.2f%%)</title><rect x=\"%.1f\" y=\"%d\" "
			"width=\"%.1f\" height=\"%d\" fill=\"rgb(%u,%u,%u)\" rx=\"2\"/>",
			n->value, d->unit, 100.0 * (double)n->value / (double)d->total, x, y, w,
			FRAME_H - 1, 205 + h % 50, (h >> 8) % 230, (h >> 16) % 55);
		if (w > 3 * CHAR_W) {
			size_t fit = (size_t)(w / CHAR_W) - 1, len = xml_chars(n->name);

			fprintf(d->out, "<text x=\"%.1f\" y=\"%d\">", x + 3, y + FRAME_H - 4);
			xml(d->out, n->name, fit < len ? fit - 2 : fit);
			if (fit < len)
				fputs("..", d->out);
			fputs("</text>", d->out);
		}
		fputs("</g>\n", d->out);
	}
	for (size_t i = 0; i < n->nkids; i++) {
		draw(d, n->kids[i], x, depth + 1);
		x += (double)n->kids[i]->value * d->px_per_unit;
	}
}

int flame_write_svg(const struct flame *f, FILE *out, const char *title,
		    const char *unit, int width)
{
	struct draw d = { out, 0, 0, unit, f->root.value };
	int inner = width - 20;

	d.height = (f->depth + 1) * FRAME_H + 60;
	d.px_per_unit = f->root.value ? (double)inner / (double)f->root.value : 0;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"11\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fdfdf6\"/>\n"
		"<text x=\"%d\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">",
		width, d.height, width, d.height, width / 2);
	xml(out, title, 1024);
	fprintf(out, "</text>\n<text x=\"10\" y=\"%d\" fill=\"#555\">total %" PRIu64
		" %s; a box is as wide as its share, callers below callees</text>\n"
		"<g transform=\"translate(10,0)\">\n", d.height - 6, f->root.value, unit);
	if (f->root.value)
		for (size_t i = 0, x = 0; i < f->root.nkids; i++) {
			draw(&d, f->root.kids[i], (double)x * d.px_per_unit, 0);
			x += f->root.kids[i]->value;
		}
	fputs("</g>\n</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
