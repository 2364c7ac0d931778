/* protocol.h — the wire protocol between commq and commd's query server.
 *
 * A connection carries frames. Every frame is
 *
 *     u32 length   big-endian: bytes that follow (type + payload), 1..MAX
 *     u8  type     one of the PROTO_* letters below
 *     ... payload  (length - 1 bytes)
 *
 * A frame longer than PROTO_MAX_FRAME, of an unknown type or with a payload
 * that does not parse closes the connection (the server answers with an
 * error frame first when it can). Integers are big-endian; strings are
 * UTF-8 with an explicit length, not NUL-terminated.
 *
 * Client -> server:
 *   'Q' query     u32 row_limit (0: none), u32 timeout_ms (0: the server's
 *                 default), then the SQL (rest of the payload). One or more
 *                 statements; only reads are allowed.
 * Server -> client, per query:
 *   'C' columns   u16 n, then n times: str16 name, str16 declared type
 *                 ("" when none). Starts a result set: one per statement
 *                 that returns columns.
 *   'R' rows      u16 nrows, then for each row, for each column of the
 *                 current result set, a value: u8 tag then
 *                   PROTO_NULL    -
 *                   PROTO_INT     i64
 *                   PROTO_REAL    f64 (IEEE bits as u64)
 *                   PROTO_TEXT    u32 length, bytes
 *                   PROTO_BLOB    u32 length, bytes
 *                 Rows are streamed in batches, never built whole.
 *   'E' end       u64 rows (over all statements), u64 elapsed_us, u8
 *                 flags (PROTO_END_*; absent from servers before it:
 *                 0). Last frame of a successful query.
 *   'X' error     i32 code (SQLite's result code, or PROTO_ERR_*), i32
 *                 offset of the error in the SQL (-1: unknown), then the
 *                 message. Last frame of a failed query.
 * A client sends its next query after the 'E' or 'X' of the previous one.
 */
#ifndef COMMD_PROTOCOL_H
#define COMMD_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_DEFAULT_SOCKET "/run/commd/commd.sock"
#define PROTO_MAX_FRAME (1u << 20)	/* 1 MiB, type byte included */
#define PROTO_HEADER 5			/* length + type */
#define PROTO_ROWS_BATCH_BYTES (64u << 10) /* server flushes 'R' past this */

enum proto_type {
	PROTO_QUERY = 'Q',
	PROTO_COLUMNS = 'C',
	PROTO_ROWS = 'R',
	PROTO_END = 'E',
	PROTO_ERROR = 'X',
};

enum proto_tag {
	PROTO_NULL = 0,
	PROTO_INT = 1,
	PROTO_REAL = 2,
	PROTO_TEXT = 3,
	PROTO_BLOB = 4,
};

/* 'E' flags. */
enum {
	PROTO_END_LIMIT_CUT = 1,	/* the row limit left rows unsent */
};

/* Error codes that are not SQLite's. */
enum {
	PROTO_ERR_FRAME = 1000,		/* malformed or oversized frame */
	PROTO_ERR_DENIED = 1001,	/* statement not allowed */
	PROTO_ERR_TIMEOUT = 1002,	/* the query's deadline passed */
	PROTO_ERR_BUSY = 1003,		/* the server cannot take it now
					 * (too many connections) */
	PROTO_ERR_LIMIT = 1004,		/* the answer was cut off at a limit
					 * of the server (bytes per query) */
};

/* A growable output buffer that frames are appended to. */
struct proto_buf {
	uint8_t *data;
	size_t len, cap;
	int oom;		/* an append failed; the buffer is unusable */
};

void proto_buf_free(struct proto_buf *b);
void proto_buf_reset(struct proto_buf *b);

/* Begins a frame of `type` (reserves the header); proto_frame_end fills
 * in the length. Returns the frame's offset in b. */
size_t proto_frame_begin(struct proto_buf *b, enum proto_type type);
/* 0, or -1 when the frame grew past PROTO_MAX_FRAME or memory ran out. */
int proto_frame_end(struct proto_buf *b, size_t frame);

void proto_put_u8(struct proto_buf *b, uint8_t v);
void proto_put_u16(struct proto_buf *b, uint16_t v);
void proto_put_u32(struct proto_buf *b, uint32_t v);
void proto_put_u64(struct proto_buf *b, uint64_t v);
void proto_put_bytes(struct proto_buf *b, const void *p, size_t n);
/* u16 length + bytes (cut at 65535) */
void proto_put_str16(struct proto_buf *b, const char *s, size_t n);
/* u32 length + bytes */
void proto_put_str32(struct proto_buf *b, const void *s, size_t n);

/* Whole frames: convenience for both sides. */
int proto_put_query(struct proto_buf *b, uint32_t row_limit,
		    uint32_t timeout_ms, const char *sql, size_t len);
int proto_put_end(struct proto_buf *b, uint64_t rows, uint64_t elapsed_us,
		  uint8_t flags);
int proto_put_error(struct proto_buf *b, int32_t code, int32_t offset,
		    const char *msg);

/* Reading. A reader walks one frame's payload; every get checks bounds
 * and sets r->bad instead of reading past the end. */
struct proto_reader {
	const uint8_t *p, *end;
	int bad;
};

/* Looks at the start of a byte stream: returns 0 when a whole frame is
 * there (*type, *payload, *payload_len, *frame_len set), 1 when more bytes
 * are needed, -1 when the header is invalid (length 0 or over the max). */
int proto_frame_peek(const uint8_t *data, size_t len, uint8_t *type,
		     const uint8_t **payload, size_t *payload_len,
		     size_t *frame_len);

void proto_reader_init(struct proto_reader *r, const uint8_t *p, size_t n);
uint8_t proto_get_u8(struct proto_reader *r);
uint16_t proto_get_u16(struct proto_reader *r);
uint32_t proto_get_u32(struct proto_reader *r);
uint64_t proto_get_u64(struct proto_reader *r);
/* Points *s at n bytes inside the frame. */
void proto_get_bytes(struct proto_reader *r, size_t n, const uint8_t **s);
void proto_get_str16(struct proto_reader *r, const char **s, size_t *n);
void proto_get_str32(struct proto_reader *r, const char **s, size_t *n);
/* The rest of the payload. */
void proto_get_rest(struct proto_reader *r, const char **s, size_t *n);

/* One value of a row. */
struct proto_value {
	uint8_t tag;
	int64_t i;
	double d;
	const char *s;		/* TEXT/BLOB, inside the frame */
	size_t n;
};
void proto_get_value(struct proto_reader *r, struct proto_value *v);

/* One client request at the start of data[0..len) (pure: the query server's
 * on_read and tests/fuzz use it). 0: a whole query frame, q filled (sql
 * points into data, frame_len bytes make the frame); 1: more bytes are
 * needed (q->frame_len is the frame's whole length once the 4-byte
 * header is there, else 0); -1: malformed, q->error says why (the
 * connection is then closed). */
struct proto_request {
	uint32_t row_limit, timeout_ms;
	const char *sql;	/* not NUL-terminated */
	size_t sql_len;
	size_t frame_len;
	const char *error;
};
int proto_parse_request(const uint8_t *data, size_t len,
			 struct proto_request *q);

#endif
