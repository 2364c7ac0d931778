/* fuzz-request.c — the query server's request parser (proto_frame_peek
 * and the 'Q' frame's payload, proto_parse_request) on any bytes.
 *
 * The input is a client's byte stream. It is cut into frames the way
 * on_read does it (the 4-byte header first, then the whole frame) until
 * the stream ends or a frame is bad. Checked beyond the sanitizers: a
 * parsed query lies inside its frame and its frame inside the input; a
 * frame's prefixes all ask for more bytes; the two-step and the one-step
 * parse agree; and a query written by proto_put_query parses back to
 * what was written. */
#include <string.h>

#include "fuzz.h"
#include "protocol.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void round_trip(const uint8_t *data, size_t size)
{
	struct proto_buf b = { 0 };
	struct proto_request q;
	uint32_t limit = 0, timeout = 0;

	if (size >= 8) {
		memcpy(&limit, data, 4);
		memcpy(&timeout, data + 4, 4);
		data += 8;
		size -= 8;
	}
	if (proto_put_query(&b, limit, timeout, (const char *)data, size)) {
		FUZZ_CHECK(size + 9 > PROTO_MAX_FRAME || b.oom,
			   "proto_put_query refused %zu bytes of SQL", size);
		proto_buf_free(&b);
		return;
	}
	FUZZ_CHECK(proto_parse_request(b.data, b.len, &q) == 0,
		   "a written query does not parse: %s", q.error ? q.error : "more?");
	FUZZ_CHECK(q.row_limit == limit && q.timeout_ms == timeout &&
		   q.sql_len == size && !memcmp(q.sql, data, size) &&
		   q.frame_len == b.len, "a query does not read back as written");
	proto_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t at = 0;

	round_trip(data, size);
	while (at < size) {
		const uint8_t *p = data + at;
		size_t len = size - at;
		struct proto_request q, h;
		int rc, hrc;

		rc = proto_parse_request(p, len, &q);
		switch (rc) {
		case 0:
			FUZZ_CHECK(q.frame_len >= PROTO_HEADER + 8 && q.frame_len <= len &&
				   q.frame_len <= 4 + PROTO_MAX_FRAME,
				   "frame of %zu bytes in %zu", q.frame_len, len);
			FUZZ_CHECK(q.sql == (const char *)p + PROTO_HEADER + 8 &&
				   q.sql_len == q.frame_len - PROTO_HEADER - 8,
				   "the SQL is not the rest of the frame");
			FUZZ_CHECK(!q.error, "an error with a parsed frame");
			fuzz_touch(q.sql, q.sql_len);
			/* Every prefix of the frame wants more. */
			for (size_t k = 0; k < q.frame_len; k += 1 + k / 3) {
				FUZZ_CHECK(proto_parse_request(p, k, &h) == 1,
					   "a %zu-byte prefix of a %zu-byte frame parsed",
					   k, q.frame_len);
				FUZZ_CHECK(k < 4 ? h.frame_len == 0 : h.frame_len == q.frame_len,
					   "a prefix reports %zu bytes needed", h.frame_len);
			}
			break;
		case 1:
			FUZZ_CHECK(len < 4 ? q.frame_len == 0 :
				   q.frame_len > len && q.frame_len <= 4 + PROTO_MAX_FRAME,
				   "more wanted: %zu of %zu", q.frame_len, len);
			break;
		case -1:
			FUZZ_CHECK(q.error && *q.error, "a bad frame without a reason");
			break;
		default:
			FUZZ_CHECK(0, "proto_parse_request returned %d", rc);
		}
		/* on_read's way: the header alone, then the whole frame. */
		if (len >= 4) {
			hrc = proto_parse_request(p, 4, &h);
			FUZZ_CHECK(hrc != 0, "a 4-byte frame");
			FUZZ_CHECK(hrc == -1 ? rc == -1 : h.frame_len > 4,
				   "the header alone and the frame disagree");
			if (hrc == 1 && h.frame_len <= len)
				FUZZ_CHECK(proto_parse_request(p, h.frame_len, &h) == rc,
					   "parsing the frame alone differs");
		}
		if (rc != 0)
			break;
		at += q.frame_len;
	}
	return 0;
}
