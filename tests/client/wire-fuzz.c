/* wire-fuzz.c — commq's response reader (client/wire.c) against streams
 * it cannot trust.
 *
 * As a test (no arguments, or a number of cases): builds random valid
 * answers and checks that they read the same however the bytes are cut
 * into feeds; then feeds mutated answers (flipped, cut, spliced bytes) and
 * plain random bytes, where all that is asked is no crash, no read outside
 * the input (run it under ASan), and every value handed out well-formed.
 * Deterministic: the same seed every run.
 *
 * Built with -fsanitize=fuzzer and -DWIRE_LIBFUZZER, it is a libFuzzer
 * target instead: LLVMFuzzerTestOneInput feeds its input in pieces.
 */
#include "protocol.h"
#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define FAIL(...) do { failures++; fprintf(stderr, "wire-fuzz: " __VA_ARGS__); \
	fputc('\n', stderr); } while (0)

/* ---- what the callbacks saw: a running hash, and sanity checks ---- */

struct seen {
	uint64_t hash;		/* FNV-1a over every event and value */
	int ncols;		/* of the current result set */
	int events;		/* callbacks so far */
};

static void mix(struct seen *s, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		s->hash = (s->hash ^ b[i]) * 0x100000001b3ull;
}

/* Touches every byte it is given: ASan catches what is not really there. */
static void touch_text(struct seen *s, const char *t, size_t n)
{
	if (!t) {
		FAIL("a value without text");
		return;
	}
	mix(s, t, n);
	if (t[n] != '\0')
		FAIL("a value's text is not NUL-terminated at its length %zu", n);
}

static int on_columns(void *ctx, const struct output_column *cols, int ncols)
{
	struct seen *s = ctx;

	if (ncols < 1)
		FAIL("columns callback with %d columns", ncols);
	s->ncols = ncols;
	s->events++;
	mix(s, "C", 1);
	for (int i = 0; i < ncols; i++) {
		touch_text(s, cols[i].name, strlen(cols[i].name));
		if (cols[i].decl_type)
			touch_text(s, cols[i].decl_type, strlen(cols[i].decl_type));
	}
	return 0;
}

static int on_row(void *ctx, const struct output_value *v, int ncols)
{
	struct seen *s = ctx;

	if (ncols != s->ncols)
		FAIL("row of %d values in a result of %d columns", ncols, s->ncols);
	s->events++;
	mix(s, "R", 1);
	for (int i = 0; i < ncols; i++) {
		mix(s, &v[i].type, sizeof(v[i].type));
		if (v[i].type != OUTPUT_NULL)
			touch_text(s, v[i].text, v[i].len);
	}
	return 0;
}

static int on_end(void *ctx, uint64_t rows, uint64_t elapsed_us,
		  uint8_t flags)
{
	struct seen *s = ctx;

	mix(s, &flags, sizeof(flags));
	s->events++;
	mix(s, "E", 1);
	mix(s, &rows, sizeof(rows));
	mix(s, &elapsed_us, sizeof(elapsed_us));
	return 0;
}

static int on_error(void *ctx, int32_t code, int32_t offset, const char *msg)
{
	struct seen *s = ctx;
	size_t n = strlen(msg);

	s->events++;
	mix(s, "X", 1);
	mix(s, &code, sizeof(code));
	mix(s, &offset, sizeof(offset));
	mix(s, msg, n);
	if (offset < -1)
		FAIL("error offset %d", (int)offset);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)msg[i] < 0x20)
			FAIL("control character in an error message");
	return 0;
}

static const struct wire_callbacks callbacks = {
	on_columns, on_row, on_end, on_error,
};

/* ---- randomness ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

/* ---- valid answers ---- */

static void put_random_bytes(struct proto_buf *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		proto_put_u8(b, (uint8_t)rnd());
}

static void put_value(struct proto_buf *b)
{
	uint8_t tag = (uint8_t)below(5);
	size_t n;

	proto_put_u8(b, tag);
	switch (tag) {
	case PROTO_INT:
	case PROTO_REAL:	/* any bits: NaNs, infinities, denormals */
		proto_put_u64(b, rnd());
		break;
	case PROTO_TEXT:
	case PROTO_BLOB:
		n = below(4) ? below(20) : below(3000);
		proto_put_u32(b, (uint32_t)n);
		put_random_bytes(b, n);
		break;
	}
}

/* A valid answer: result sets with rows in batches, then 'E' or 'X'. */
static void valid_answer(struct proto_buf *b)
{
	int sets = (int)below(4);

	for (int s = 0; s < sets; s++) {
		int ncols = 1 + (int)(below(8) ? below(6) : below(300));
		size_t f = proto_frame_begin(b, PROTO_COLUMNS);
		int batches = (int)below(4);

		proto_put_u16(b, (uint16_t)ncols);
		for (int i = 0; i < ncols; i++) {
			size_t n = below(12);

			proto_put_u16(b, (uint16_t)n);
			put_random_bytes(b, n);
			n = below(3) ? 0 : below(8);
			proto_put_u16(b, (uint16_t)n);
			put_random_bytes(b, n);
		}
		proto_frame_end(b, f);
		for (int k = 0; k < batches; k++) {
			int rows = (int)below(30);

			f = proto_frame_begin(b, PROTO_ROWS);
			proto_put_u16(b, (uint16_t)rows);
			for (int r = 0; r < rows; r++)
				for (int i = 0; i < ncols; i++)
					put_value(b);
			if (proto_frame_end(b, f) < 0) {
				/* Too big for a frame: drop the batch. */
				b->len = f;
			}
		}
	}
	if (below(4)) {
		proto_put_end(b, rnd(), rnd(), (uint8_t)rnd());
	} else {
		char msg[64];
		size_t n = below(sizeof(msg));

		for (size_t i = 0; i < n; i++)
			msg[i] = (char)(1 + below(255));
		msg[n] = '\0';
		proto_put_error(b, (int32_t)rnd(), (int32_t)(below(3) ? below(100) :
				rnd()), msg);
	}
}

/* Feeds data in pieces of random sizes (a copy each, so ASan sees the
 * end of every piece).  Returns the last status. */
static int feed_pieces(struct wire *w, const uint8_t *data, size_t len,
		       size_t max_piece)
{
	int st = WIRE_MORE;

	while (len) {
		size_t n = 1 + below(max_piece);
		uint8_t *piece;

		if (n > len)
			n = len;
		piece = malloc(n);
		memcpy(piece, data, n);
		st = wire_feed(w, piece, n);
		free(piece);
		data += n;
		len -= n;
		if (st == WIRE_BAD || st == WIRE_STOPPED)
			break;
	}
	return st;
}

static uint64_t read_all(struct wire *w, struct seen *s, const uint8_t *data,
			 size_t len, size_t max_piece, int *status)
{
	memset(s, 0, sizeof(*s));
	s->hash = 0xcbf29ce484222325ull;
	wire_start(w);
	*status = feed_pieces(w, data, len, max_piece);
	if (*status == WIRE_MORE)
		*status = wire_close(w);
	if (*status == WIRE_BAD && !*wire_reason(w))
		FAIL("WIRE_BAD without a reason");
	return s->hash;
}

static void valid_case(struct wire *w, struct seen *s)
{
	struct proto_buf b = { 0 };
	uint64_t whole, cut;
	int st, events;

	valid_answer(&b);
	whole = read_all(w, s, b.data, b.len, b.len, &st);
	events = s->events;
	if (st != WIRE_DONE)
		FAIL("a valid answer of %zu bytes read as %d: %s", b.len, st,
		     wire_reason(w));
	cut = read_all(w, s, b.data, b.len, 1 + below(64), &st);
	if (st != WIRE_DONE || cut != whole || s->events != events)
		FAIL("a valid answer read differently when cut into pieces");
	/* A byte past the end of the answer is an error. */
	wire_start(w);
	wire_feed(w, b.data, b.len);
	if (wire_feed(w, "x", 1) != WIRE_BAD)
		FAIL("a byte after the end of an answer was accepted");
	/* So is the answer cut short, by the connection closing. */
	if (b.len > 1) {
		read_all(w, s, b.data, below(b.len), b.len, &st);
		if (st != WIRE_BAD)
			FAIL("a truncated answer read as %d", st);
	}
	proto_buf_free(&b);
}

static void mutated_case(struct wire *w, struct seen *s)
{
	struct proto_buf b = { 0 };
	int st, edits = 1 + (int)below(8);

	valid_answer(&b);
	for (int e = 0; e < edits && b.len; e++) {
		size_t at = below(b.len);

		switch (below(5)) {
		case 0:		/* flip a bit */
			b.data[at] ^= (uint8_t)(1u << below(8));
			break;
		case 1:		/* a random byte */
			b.data[at] = (uint8_t)rnd();
			break;
		case 2:		/* cut */
			b.len = at;
			break;
		case 3: {	/* remove a stretch */
			size_t n = 1 + below(b.len - at);

			memmove(b.data + at, b.data + at + n, b.len - at - n);
			b.len -= n;
			break;
		}
		default:	/* a length field set to something big */
			if (at + 4 <= b.len) {
				uint32_t v = (uint32_t)rnd();

				b.data[at] = (uint8_t)(v >> 24);
				b.data[at + 1] = (uint8_t)(v >> 16);
				b.data[at + 2] = (uint8_t)(v >> 8);
				b.data[at + 3] = (uint8_t)v;
			}
			break;
		}
	}
	read_all(w, s, b.data, b.len, 1 + below(b.len + 1), &st);
	proto_buf_free(&b);
}

static void random_case(struct wire *w, struct seen *s)
{
	size_t len = below(below(4) ? 64 : 4096);
	uint8_t *data = malloc(len + 1);
	int st;

	for (size_t i = 0; i < len; i++)
		data[i] = (uint8_t)rnd();
	/* Often a plausible header, so more than the first check runs. */
	if (len >= 5 && below(2)) {
		uint32_t n = (uint32_t)below(len);

		data[0] = 0;
		data[1] = (uint8_t)(n >> 16);
		data[2] = (uint8_t)(n >> 8);
		data[3] = (uint8_t)n;
		data[4] = "CREXQ"[below(5)];
	}
	read_all(w, s, data, len, 1 + below(len + 1), &st);
	free(data);
}

#ifdef WIRE_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wire *w;
	static struct seen s;
	int st;

	if (!w)
		w = wire_new(&callbacks, &s);
	if (size < 1)
		return 0;
	rng_state = 0x9e3779b97f4a7c15ull ^ data[0];
	read_all(w, &s, data + 1, size - 1, 1 + data[0], &st);
	return 0;
}
#else
int main(int argc, char **argv)
{
	int cases = argc > 1 ? atoi(argv[1]) : 2000;
	struct seen s;
	struct wire *w = wire_new(&callbacks, &s);

	if (!w) {
		perror("wire_new");
		return 1;
	}
	for (int i = 0; i < cases; i++) {
		valid_case(w, &s);
		mutated_case(w, &s);
		random_case(w, &s);
	}
	wire_free(w);
	if (failures) {
		fprintf(stderr, "wire-fuzz: %d check(s) failed\n", failures);
		return 1;
	}
	printf("wire-fuzz: %d valid, %d mutated, %d random answers: all "
	       "checks passed\n", cases, cases, cases);
	return 0;
}
#endif
