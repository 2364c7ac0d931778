/* protocol.c — see protocol.h. */
#include "protocol.h"
#include "grow.h"

#include <stdlib.h>
#include <string.h>

void proto_buf_free(struct proto_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void proto_buf_reset(struct proto_buf *b)
{
	b->len = 0;
	b->oom = 0;
}

static uint8_t *room(struct proto_buf *b, size_t n)
{
	if (b->oom)
		return NULL;
	if (grow_array(&b->data, &b->cap, 1, b->len + n, 0)) {
		b->oom = 1;
		return NULL;
	}
	b->len += n;
	return b->data + b->len - n;
}

static void put_be(struct proto_buf *b, uint64_t v, int n)
{
	uint8_t *p = room(b, (size_t)n);

	if (!p)
		return;
	for (int i = n - 1; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

void proto_put_u8(struct proto_buf *b, uint8_t v) { put_be(b, v, 1); }
void proto_put_u16(struct proto_buf *b, uint16_t v) { put_be(b, v, 2); }
void proto_put_u32(struct proto_buf *b, uint32_t v) { put_be(b, v, 4); }
void proto_put_u64(struct proto_buf *b, uint64_t v) { put_be(b, v, 8); }

void proto_put_bytes(struct proto_buf *b, const void *s, size_t n)
{
	uint8_t *p = room(b, n);

	if (p && n)
		memcpy(p, s, n);
}

void proto_put_str16(struct proto_buf *b, const char *s, size_t n)
{
	if (n > 0xffff)
		n = 0xffff;
	proto_put_u16(b, (uint16_t)n);
	proto_put_bytes(b, s, n);
}

void proto_put_str32(struct proto_buf *b, const void *s, size_t n)
{
	proto_put_u32(b, (uint32_t)n);
	proto_put_bytes(b, s, n);
}

size_t proto_frame_begin(struct proto_buf *b, enum proto_type type)
{
	size_t at = b->len;

	proto_put_u32(b, 0);
	proto_put_u8(b, (uint8_t)type);
	return at;
}

int proto_frame_end(struct proto_buf *b, size_t frame)
{
	size_t n;

	if (b->oom)
		return -1;
	n = b->len - frame - 4;
	if (n > PROTO_MAX_FRAME)
		return -1;
	b->data[frame] = (uint8_t)(n >> 24);
	b->data[frame + 1] = (uint8_t)(n >> 16);
	b->data[frame + 2] = (uint8_t)(n >> 8);
	b->data[frame + 3] = (uint8_t)n;
	return 0;
}

int proto_put_query(struct proto_buf *b, uint32_t row_limit,
		    uint32_t timeout_ms, const char *sql, size_t len)
{
	size_t f = proto_frame_begin(b, PROTO_QUERY);

	proto_put_u32(b, row_limit);
	proto_put_u32(b, timeout_ms);
	proto_put_bytes(b, sql, len);
	return proto_frame_end(b, f);
}

int proto_put_end(struct proto_buf *b, uint64_t rows, uint64_t elapsed_us,
		  uint8_t flags)
{
	size_t f = proto_frame_begin(b, PROTO_END);

	proto_put_u64(b, rows);
	proto_put_u64(b, elapsed_us);
	proto_put_u8(b, flags);
	return proto_frame_end(b, f);
}

int proto_put_error(struct proto_buf *b, int32_t code, int32_t offset,
		    const char *msg)
{
	size_t f = proto_frame_begin(b, PROTO_ERROR);
	size_t n = strlen(msg);

	proto_put_u32(b, (uint32_t)code);
	proto_put_u32(b, (uint32_t)offset);
	proto_put_bytes(b, msg, n < 4096 ? n : 4096);
	return proto_frame_end(b, f);
}

int proto_frame_peek(const uint8_t *data, size_t len, uint8_t *type,
		     const uint8_t **payload, size_t *payload_len,
		     size_t *frame_len)
{
	uint32_t n;

	if (len < 4)
		return 1;
	n = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 |
	    (uint32_t)data[2] << 8 | data[3];
	if (n == 0 || n > PROTO_MAX_FRAME)
		return -1;
	if (len < 4 + (size_t)n)
		return 1;
	*type = data[4];
	*payload = data + 5;
	*payload_len = n - 1;
	*frame_len = 4 + (size_t)n;
	return 0;
}

void proto_reader_init(struct proto_reader *r, const uint8_t *p, size_t n)
{
	r->p = p;
	r->end = p + n;
	r->bad = 0;
}

static uint64_t get_be(struct proto_reader *r, int n)
{
	uint64_t v = 0;

	if (r->bad || r->end - r->p < n) {
		r->bad = 1;
		return 0;
	}
	for (int i = 0; i < n; i++)
		v = v << 8 | *r->p++;
	return v;
}

uint8_t proto_get_u8(struct proto_reader *r) { return (uint8_t)get_be(r, 1); }
uint16_t proto_get_u16(struct proto_reader *r) { return (uint16_t)get_be(r, 2); }
uint32_t proto_get_u32(struct proto_reader *r) { return (uint32_t)get_be(r, 4); }
uint64_t proto_get_u64(struct proto_reader *r) { return get_be(r, 8); }

void proto_get_bytes(struct proto_reader *r, size_t n, const uint8_t **s)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		*s = NULL;
		return;
	}
	*s = r->p;
	r->p += n;
}

void proto_get_str16(struct proto_reader *r, const char **s, size_t *n)
{
	*n = proto_get_u16(r);
	proto_get_bytes(r, *n, (const uint8_t **)s);
	if (r->bad)
		*n = 0;
}

void proto_get_str32(struct proto_reader *r, const char **s, size_t *n)
{
	*n = proto_get_u32(r);
	proto_get_bytes(r, *n, (const uint8_t **)s);
	if (r->bad)
		*n = 0;
}

void proto_get_rest(struct proto_reader *r, const char **s, size_t *n)
{
	*n = r->bad ? 0 : (size_t)(r->end - r->p);
	*s = (const char *)r->p;
	r->p = r->end;
}

void proto_get_value(struct proto_reader *r, struct proto_value *v)
{
	uint64_t bits;

	memset(v, 0, sizeof(*v));
	v->tag = proto_get_u8(r);
	switch (v->tag) {
	case PROTO_NULL:
		break;
	case PROTO_INT:
		v->i = (int64_t)proto_get_u64(r);
		break;
	case PROTO_REAL:
		bits = proto_get_u64(r);
		memcpy(&v->d, &bits, sizeof(v->d));
		break;
	case PROTO_TEXT:
	case PROTO_BLOB:
		proto_get_str32(r, &v->s, &v->n);
		break;
	default:
		r->bad = 1;
		break;
	}
}

int proto_parse_request(const uint8_t *data, size_t len,
			 struct proto_request *q)
{
	const uint8_t *payload;
	struct proto_reader r;
	size_t plen, flen;
	uint8_t type;
	int rc;

	memset(q, 0, sizeof(*q));
	rc = proto_frame_peek(data, len, &type, &payload, &plen, &flen);
	if (rc < 0) {
		q->error = "bad frame length";
		return -1;
	}
	if (rc > 0) {
		if (len >= 4)
			q->frame_len = 4 + (size_t)((uint32_t)data[0] << 24 |
						    (uint32_t)data[1] << 16 |
						    (uint32_t)data[2] << 8 | data[3]);
		return 1;
	}
	if (type != PROTO_QUERY) {
		q->error = "unexpected frame type";
		return -1;
	}
	proto_reader_init(&r, payload, plen);
	q->row_limit = proto_get_u32(&r);
	q->timeout_ms = proto_get_u32(&r);
	proto_get_rest(&r, &q->sql, &q->sql_len);
	if (r.bad) {
		q->error = "malformed query frame";
		return -1;
	}
	q->frame_len = flen;
	return 0;
}
