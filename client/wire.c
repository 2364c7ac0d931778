/* wire.c — see wire.h.
 *
 * Whole frames are read straight from the caller's bytes; only the piece
 * of a frame cut by the end of a read is copied, into a buffer that grows
 * to the largest frame seen.  The 4-byte length is checked as soon as it
 * is there, so a header announcing 4 GiB fails at once instead of waiting
 * for bytes that will never come.
 */
#include "wire.h"

#include "protocol.h"
#include "numtext.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for an integer's or a real's text: "-9223372036854775808" is 20
 * bytes, "%!.15g" at most 23. */
#define NUMBER_TEXT 32

/* An error message is cut to this for printing. */
#define MESSAGE_MAX 1000

struct wire {
	struct wire_callbacks cb;	/* copied at wire_new */
	void *ctx;			/* passed to every callback */
	int status;			/* a wire_status; sticky once not MORE */
	char reason[160];		/* why status is WIRE_BAD */

	uint8_t *frame;			/* a frame cut by the end of a feed */
	size_t frame_len, frame_cap;	/* bytes in it, its allocation */

	int ncols;			/* columns of the current result, 0:
					 * no 'C' yet in this answer */
	struct output_column *cols;	/* their names point into names */
	char *names;			/* NUL-terminated names and types */
	struct output_value *values;	/* one row, ncols values */
	char *text;			/* one row's texts, NUL-terminated */
	size_t text_cap;		/* allocation of text */
};

static int bad(struct wire *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad(struct wire *w, const char *fmt, ...)
{
	int n = snprintf(w->reason, sizeof(w->reason),
			 "malformed response from server: ");
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->reason + n, sizeof(w->reason) - n, fmt, ap);
	va_end(ap);
	w->status = WIRE_BAD;
	return WIRE_BAD;
}

static int no_memory(struct wire *w)
{
	snprintf(w->reason, sizeof(w->reason), "reading the response: %s",
		 strerror(ENOMEM));
	w->status = WIRE_BAD;
	return WIRE_BAD;
}

/* A callback's answer as a status. */
static int called(struct wire *w, int ret)
{
	if (ret < 0)
		w->status = WIRE_STOPPED;
	return w->status;
}

static void drop_result(struct wire *w)
{
	free(w->cols);
	free(w->names);
	free(w->values);
	w->cols = NULL;
	w->names = NULL;
	w->values = NULL;
	w->ncols = 0;
}

struct wire *wire_new(const struct wire_callbacks *cb, void *ctx)
{
	struct wire *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->cb = *cb;
	w->ctx = ctx;
	return w;
}

void wire_free(struct wire *w)
{
	if (!w)
		return;
	drop_result(w);
	free(w->frame);
	free(w->text);
	free(w);
}

void wire_start(struct wire *w)
{
	drop_result(w);
	w->frame_len = 0;
	w->status = WIRE_MORE;
	w->reason[0] = '\0';
}

const char *wire_reason(const struct wire *w)
{
	return w->reason;
}

/* ---- the frames ---- */

/* 'C': u16 n, then n times str16 name, str16 declared type. */
static int on_columns(struct wire *w, struct proto_reader *r, size_t plen)
{
	uint16_t n = proto_get_u16(r);
	char *p;

	if (r->bad || n == 0)
		return bad(w, "result set without columns");
	drop_result(w);
	/* Every name and type fits in the payload; each gains a NUL. */
	w->cols = calloc(n, sizeof(*w->cols));
	w->values = calloc(n, sizeof(*w->values));
	w->names = malloc(plen + 2 * (size_t)n);
	if (!w->cols || !w->values || !w->names)
		return no_memory(w);
	p = w->names;
	for (int i = 0; i < n; i++) {
		const char *s[2];
		size_t len[2];

		proto_get_str16(r, &s[0], &len[0]);
		proto_get_str16(r, &s[1], &len[1]);
		if (r->bad)
			return bad(w, "column %d of %u runs past its frame",
				   i + 1, n);
		for (int k = 0; k < 2; k++) {
			if (k == 1 && !len[1]) {
				w->cols[i].decl_type = NULL;
				continue;
			}
			memcpy(p, s[k], len[k]);
			p[len[k]] = '\0';
			if (k == 0)
				w->cols[i].name = p;
			else
				w->cols[i].decl_type = p;
			p += len[k] + 1;
		}
	}
	if (r->p != r->end)
		return bad(w, "%zu stray bytes after the columns",
			   (size_t)(r->end - r->p));
	w->ncols = n;
	return w->cb.columns ? called(w, w->cb.columns(w->ctx, w->cols, n))
			     : WIRE_MORE;
}

/* Turns v into an output value whose text is at *t, and moves *t past it.
 * The caller made room: a value's bytes, or NUMBER_TEXT, plus a NUL. */
static void to_output(const struct proto_value *v, struct output_value *o,
		      char **t)
{
	o->text = *t;
	switch (v->tag) {
	case PROTO_INT:
		o->type = OUTPUT_INTEGER;
		{
			char buf[NUMTEXT_MAX], *e = buf + sizeof(buf), *q = numtext_i64(e, v->i);

			o->len = (size_t)(e - q);
			memcpy(*t, q, o->len);
			(*t)[o->len] = '\0';
		}
		break;
	case PROTO_REAL:
		/* What sqlite3_column_text makes of a REAL, so both modes
		 * print the same bytes. */
		o->type = OUTPUT_FLOAT;
		sqlite3_snprintf(NUMBER_TEXT, *t, "%!.15g", v->d);
		o->len = strlen(*t);
		break;
	case PROTO_TEXT:
	case PROTO_BLOB:
		o->type = v->tag == PROTO_TEXT ? OUTPUT_TEXT : OUTPUT_BLOB;
		if (v->n)
			memcpy(*t, v->s, v->n);
		(*t)[v->n] = '\0';
		o->len = v->n;
		break;
	default:
		o->type = OUTPUT_NULL;
		o->text = NULL;
		o->len = 0;
		return;
	}
	*t += o->len + 1;
}

/* 'R': u16 nrows, then nrows times ncols values. */
static int on_rows(struct wire *w, struct proto_reader *r, size_t plen)
{
	uint16_t nrows = proto_get_u16(r);
	size_t need;

	if (!w->ncols)
		return bad(w, "rows before any columns");
	if (r->bad)
		return bad(w, "rows frame too short");
	/* The texts of one row are at most the payload; numbers take
	 * NUMBER_TEXT each, and every value a NUL. */
	need = plen + (size_t)w->ncols * (NUMBER_TEXT + 1);
	if (need > w->text_cap) {
		char *t = realloc(w->text, need);

		if (!t)
			return no_memory(w);
		w->text = t;
		w->text_cap = need;
	}
	for (unsigned row = 0; row < nrows; row++) {
		char *t = w->text;

		for (int i = 0; i < w->ncols; i++) {
			struct proto_value v;

			proto_get_value(r, &v);
			if (r->bad)
				return bad(w, "value %d of row %u of %u %s", i + 1,
					   row + 1, nrows,
					   v.tag > PROTO_BLOB ?
					   "has an unknown type" :
					   "runs past its frame");
			to_output(&v, &w->values[i], &t);
		}
		if (w->cb.row &&
		    called(w, w->cb.row(w->ctx, w->values, w->ncols)) != WIRE_MORE)
			return w->status;
	}
	if (r->p != r->end)
		return bad(w, "%zu stray bytes after %u rows",
			   (size_t)(r->end - r->p), nrows);
	return WIRE_MORE;
}

/* 'E': u64 rows, u64 elapsed_us, u8 flags (none from older servers). */
static int on_end(struct wire *w, struct proto_reader *r, size_t plen)
{
	uint64_t rows = proto_get_u64(r);
	uint64_t elapsed_us = proto_get_u64(r);
	uint8_t flags = r->p < r->end ? proto_get_u8(r) : 0;

	if (r->bad || r->p != r->end)
		return bad(w, "end frame of %zu bytes, not 16 or 17", plen);
	w->status = WIRE_DONE;
	if (w->cb.end && w->cb.end(w->ctx, rows, elapsed_us, flags) < 0)
		w->status = WIRE_STOPPED;
	return w->status;
}

/* 'X': i32 code, i32 offset, the message. */
static int on_error(struct wire *w, struct proto_reader *r)
{
	int32_t code = (int32_t)proto_get_u32(r);
	int32_t offset = (int32_t)proto_get_u32(r);
	char msg[MESSAGE_MAX + 1];
	const char *s;
	size_t n;

	if (r->bad)
		return bad(w, "error frame too short");
	proto_get_rest(r, &s, &n);
	if (n > MESSAGE_MAX)
		n = MESSAGE_MAX;
	/* It goes to a terminal: no escape sequences, no second line. */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		msg[i] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	msg[n] = '\0';
	w->status = WIRE_DONE;
	if (w->cb.error && w->cb.error(w->ctx, code, offset < -1 ? -1 : offset,
				       msg) < 0)
		w->status = WIRE_STOPPED;
	return w->status;
}

static int on_frame(struct wire *w, uint8_t type, const uint8_t *payload,
		    size_t plen)
{
	struct proto_reader r;

	proto_reader_init(&r, payload, plen);
	switch (type) {
	case PROTO_COLUMNS:
		return on_columns(w, &r, plen);
	case PROTO_ROWS:
		return on_rows(w, &r, plen);
	case PROTO_END:
		return on_end(w, &r, plen);
	case PROTO_ERROR:
		return on_error(w, &r);
	default:
		return bad(w, "unknown frame type 0x%02x", type);
	}
}

/* Checks the 4-byte length at p. */
static int check_header(struct wire *w, const uint8_t *p)
{
	uint32_t n = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		     (uint32_t)p[2] << 8 | p[3];

	if (n == 0)
		return bad(w, "empty frame");
	if (n > PROTO_MAX_FRAME)
		return bad(w, "frame of %" PRIu32 " bytes (the limit is %u)",
			   n, PROTO_MAX_FRAME);
	return WIRE_MORE;
}

/* Handles the whole frames at the start of data; *used says how many
 * bytes they took. */
static int whole_frames(struct wire *w, const uint8_t *data, size_t len,
			size_t *used)
{
	*used = 0;
	while (w->status == WIRE_MORE) {
		const uint8_t *payload;
		size_t plen, flen;
		uint8_t type;
		int r = proto_frame_peek(data + *used, len - *used, &type,
					 &payload, &plen, &flen);

		if (r < 0)
			return check_header(w, data + *used);
		if (r > 0)
			break;
		*used += flen;
		on_frame(w, type, payload, plen);
	}
	return w->status;
}

/* Copies up to the rest of the pending frame from *data into w->frame,
 * and handles the frame once it is whole. */
static int pending_frame(struct wire *w, const uint8_t **data, size_t *len)
{
	size_t want, take;

	if (w->frame_len < 4) {
		want = 4;
	} else {
		want = 4 + ((size_t)w->frame[0] << 24 | (size_t)w->frame[1] << 16 |
			    (size_t)w->frame[2] << 8 | w->frame[3]);
	}
	take = want - w->frame_len < *len ? want - w->frame_len : *len;
	if (w->frame_len + take > w->frame_cap) {
		size_t cap = w->frame_len < 4 ? 4096 : want;
		uint8_t *f = realloc(w->frame, cap > w->frame_cap ? cap : w->frame_cap);

		if (!f)
			return no_memory(w);
		w->frame = f;
		w->frame_cap = cap > w->frame_cap ? cap : w->frame_cap;
	}
	memcpy(w->frame + w->frame_len, *data, take);
	w->frame_len += take;
	*data += take;
	*len -= take;
	if (w->frame_len == 4 && want == 4)
		return check_header(w, w->frame);
	if (w->frame_len == want && want > 4) {
		w->frame_len = 0;
		return on_frame(w, w->frame[4], w->frame + 5, want - 5);
	}
	return WIRE_MORE;
}

int wire_feed(struct wire *w, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (w->status == WIRE_DONE && len)
		return bad(w, "%zu bytes after the end of the answer", len);
	while (len && w->status == WIRE_MORE) {
		if (w->frame_len == 0) {
			size_t used;

			whole_frames(w, p, len, &used);
			p += used;
			len -= used;
			if (!len || w->status != WIRE_MORE)
				break;
		}
		pending_frame(w, &p, &len);
	}
	if (w->status == WIRE_DONE && len)
		return bad(w, "%zu bytes after the end of the answer", len);
	return w->status;
}

int wire_close(struct wire *w)
{
	const char *where = w->ncols ? "in the middle of a result" :
			    w->frame_len ? "in the middle of a frame" :
			    "before answering";

	if (w->status != WIRE_MORE)
		return w->status;
	/* Not malformed, maybe: the server may have died or been stopped. */
	snprintf(w->reason, sizeof(w->reason),
		 "the server closed the connection %s", where);
	w->status = WIRE_BAD;
	return WIRE_BAD;
}
