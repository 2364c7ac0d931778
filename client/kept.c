/* kept.c — see kept.h. */
#include "kept.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum kept_call { KEPT_BEGIN, KEPT_ROW, KEPT_END };

/* One call: a result's columns (BEGIN) or one row's values (ROW), each
 * text copied with its NUL. */
struct kept_entry {
	enum kept_call call;
	int n;
	struct output_column *cols;
	struct output_value *vals;
};

struct kept {
	struct kept_entry *e;
	size_t n, cap;
};

struct kept *kept_new(void)
{
	return calloc(1, sizeof(struct kept));
}

static char *copy_bytes(const char *s, size_t len)
{
	char *c = malloc(len + 1);

	if (c) {
		if (len)
			memcpy(c, s, len);
		c[len] = '\0';
	}
	return c;
}

static struct kept_entry *add(struct kept *k, enum kept_call call, int n)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 8;
		struct kept_entry *e = realloc(k->e, cap * sizeof(*e));

		if (!e)
			return NULL;
		k->e = e;
		k->cap = cap;
	}
	k->e[k->n] = (struct kept_entry){ .call = call, .n = n };
	return &k->e[k->n++];
}

static int keep_begin(void *ctx, const struct output_column *cols, int n)
{
	struct kept_entry *e = add(ctx, KEPT_BEGIN, n);

	if (!e || !(e->cols = calloc((size_t)n, sizeof(*e->cols))))
		goto fail;
	for (int i = 0; i < n; i++) {
		const char *name = cols[i].name ? cols[i].name : "";

		if (!(e->cols[i].name = copy_bytes(name, strlen(name))) ||
		    (cols[i].decl_type &&
		     !(e->cols[i].decl_type = copy_bytes(cols[i].decl_type,
							 strlen(cols[i].decl_type)))))
			goto fail;
	}
	return 0;
fail:
	errno = ENOMEM;
	return -1;
}

static int keep_row(void *ctx, const struct output_value *v, int n)
{
	struct kept_entry *e = add(ctx, KEPT_ROW, n);

	if (!e || !(e->vals = calloc((size_t)n, sizeof(*e->vals))))
		goto fail;
	for (int i = 0; i < n; i++) {
		e->vals[i].type = v[i].type;
		e->vals[i].len = v[i].type == OUTPUT_NULL ? 0 : v[i].len;
		if (!(e->vals[i].text = copy_bytes(v[i].type == OUTPUT_NULL ? "" : v[i].text,
						   e->vals[i].len)))
			goto fail;
	}
	return 0;
fail:
	errno = ENOMEM;
	return -1;
}

static int keep_end(void *ctx)
{
	if (!add(ctx, KEPT_END, 0)) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static const struct output_sink keep_sink = { keep_begin, keep_row, keep_end };

struct output *kept_output(struct kept *k)
{
	return output_new_sink(&keep_sink, k);
}

int kept_replay(const struct kept *k, struct output *out)
{
	for (size_t i = 0; i < k->n; i++) {
		const struct kept_entry *e = &k->e[i];
		int ret = e->call == KEPT_BEGIN ? output_begin(out, e->cols, e->n) :
			  e->call == KEPT_ROW ? output_row(out, e->vals) :
			  output_end(out);

		if (ret < 0)
			return -1;
	}
	return 0;
}

void kept_free(struct kept *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++) {
		struct kept_entry *e = &k->e[i];

		for (int c = 0; e->cols && c < e->n; c++) {
			free((char *)e->cols[c].name);
			free((char *)e->cols[c].decl_type);
		}
		for (int c = 0; e->vals && c < e->n; c++)
			free((char *)e->vals[c].text);
		free(e->cols);
		free(e->vals);
	}
	free(k->e);
	free(k);
}
