/* rawclient.c — a deliberately dumb client of commd's query server, for
 * the malformed-input tests in tests/server.  It does not share the
 * project's protocol code: it writes exactly the bytes it is told to and
 * decodes what comes back on its own.
 *
 *   rawclient SOCKET ACTION...
 *
 * Actions, run in order:
 *   hex:HEX              send these bytes ("00 00 00 01 51" or "0000000151")
 *   zeros:N              send N zero bytes
 *   fill:N:HEXBYTE       send N copies of one byte
 *   frame:T:HEX          send a frame of type T (one character) whose
 *                        payload is HEX, with the right length header
 *   q:LIMIT:TIMEOUT_MS:SQL   send a 'Q' frame
 *   qsize:N:SQL          send a 'Q' frame (no limit, default timeout) whose
 *                        length field is N: SQL padded with spaces
 *   read[:SECONDS]       read and print frames until an 'E' or 'X' frame,
 *                        end of stream or SECONDS (default 10) of silence
 *   drain[:SECONDS]      read and print frames until end of stream or
 *                        SECONDS (default 10) of silence
 *   sleep:SECONDS        wait (reading nothing; decimals allowed)
 *   shutwr               shutdown(SHUT_WR)
 *   rcvbuf:N             setsockopt SO_RCVBUF (before reading anything)
 *   recv:N               read N raw bytes (no parsing, nothing printed but
 *                        "RECV <n>"; less at end of stream or after 10 s
 *                        of silence) and stop there: closing then leaves
 *                        the rest of a result unread (a reset mid-result)
 *   linger0              SO_LINGER on with a 0 s timeout (close at once)
 *
 * Output, one line per event:
 *   C <n> name:type ...          a columns frame
 *   R <nrows> v|v|...            a rows frame (values of its first row)
 *   E rows=<n>[ cut]             an end frame ("cut": the row limit left
 *                                rows unsent)
 *   X code=<c> offset=<o> msg=<text>
 *   ? type=<t> len=<n>           a frame of an unknown type
 *   EOF | RESET | TIMEOUT | BADFRAME <why>
 *   SENDERR <errno text>         a send failed (the server closed first)
 *   SUMMARY frames=<n> rows=<n> bytes=<n>  after each read/drain
 * Exit status: 0; 2 when connect fails (the reason on stderr); 3 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int fd = -1;
static int eof;			/* the stream ended (or broke) */
static uint8_t *in;		/* unparsed input */
static size_t in_len, in_cap;

static void usage(void)
{
	fprintf(stderr, "usage: rawclient SOCKET ACTION... (see rawclient.c)\n");
	exit(3);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parses HEX (spaces allowed) into a malloc'd buffer. */
static uint8_t *unhex(const char *s, size_t *n)
{
	uint8_t *b = malloc(strlen(s) / 2 + 1);
	size_t k = 0;

	if (!b)
		exit(1);
	while (*s) {
		int hi, lo;

		if (*s == ' ' || *s == ':') {
			s++;
			continue;
		}
		hi = hexval(s[0]);
		lo = s[1] ? hexval(s[1]) : -1;
		if (hi < 0 || lo < 0) {
			fprintf(stderr, "rawclient: bad hex near '%s'\n", s);
			exit(3);
		}
		b[k++] = (uint8_t)(hi << 4 | lo);
		s += 2;
	}
	*n = k;
	return b;
}

static void send_all(const void *data, size_t n)
{
	const uint8_t *p = data;

	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			printf("SENDERR %s\n", strerror(errno));
			fflush(stdout);
			return;
		}
		p += k;
		n -= (size_t)k;
	}
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static void send_frame(char type, const uint8_t *payload, size_t n)
{
	uint8_t *f = malloc(5 + n);

	if (!f)
		exit(1);
	put32(f, (uint32_t)(n + 1));
	f[4] = (uint8_t)type;
	if (n)
		memcpy(f + 5, payload, n);
	send_all(f, 5 + n);
	free(f);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Reads more input, waiting at most `secs`. 1: got bytes, 0: timeout,
 * -1: end of stream (printed). */
static int fill(double secs)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ms = secs <= 0 ? 0 : (int)(secs * 1000) + 1;
	ssize_t k;

	if (eof)
		return -1;
	if (poll(&p, 1, ms) == 0)
		return 0;
	if (in_cap - in_len < 65536) {
		in_cap = in_cap ? in_cap * 2 : 1 << 17;
		in = realloc(in, in_cap);
		if (!in)
			exit(1);
	}
	k = recv(fd, in + in_len, in_cap - in_len, 0);
	if (k < 0 && errno == EINTR)
		return 1;
	if (k <= 0) {
		printf("%s\n", k == 0 ? "EOF" : errno == ECONNRESET ? "RESET" : strerror(errno));
		eof = 1;
		return -1;
	}
	in_len += (size_t)k;
	return 1;
}

/* Value at p (limit end): prints it into out; returns bytes used or 0
 * when malformed. */
static size_t value(const uint8_t *p, const uint8_t *end, char *out, size_t outsz)
{
	uint64_t v;
	double d;
	uint32_t n;

	if (p >= end)
		return 0;
	switch (p[0]) {
	case 0:
		snprintf(out, outsz, "NULL");
		return 1;
	case 1:
		if (end - p < 9)
			return 0;
		snprintf(out, outsz, "%lld", (long long)get64(p + 1));
		return 9;
	case 2:
		if (end - p < 9)
			return 0;
		v = get64(p + 1);
		memcpy(&d, &v, sizeof(d));
		snprintf(out, outsz, "%.17g", d);
		return 9;
	case 3:
	case 4:
		if (end - p < 5)
			return 0;
		n = get32(p + 1);
		if ((size_t)(end - p - 5) < n)
			return 0;
		if (p[0] == 3)
			snprintf(out, outsz, "%.*s", n > 60 ? 60 : (int)n, (const char *)p + 5);
		else
			snprintf(out, outsz, "blob(%u)", n);
		return 5 + (size_t)n;
	default:
		return 0;
	}
}

static int ncols;		/* of the current result set */
static uint64_t frames, rows_seen, bytes_seen;

/* Prints one whole frame; returns its type or -1 when malformed. */
static int show(uint8_t type, const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n;
	char buf[256];

	switch (type) {
	case 'C': {
		int c;

		if (n < 2)
			goto bad;
		c = p[0] << 8 | p[1];
		p += 2;
		printf("C %d", c);
		for (int i = 0; i < c; i++) {
			for (int k = 0; k < 2; k++) {
				unsigned l;

				if (end - p < 2)
					goto bad;
				l = (unsigned)(p[0] << 8 | p[1]);
				if ((size_t)(end - p - 2) < l)
					goto bad;
				printf("%s%.*s", k ? ":" : " ", (int)l, (const char *)p + 2);
				p += 2 + l;
			}
		}
		printf("\n");
		ncols = c;
		return type;
	}
	case 'R': {
		unsigned r;

		if (n < 2)
			goto bad;
		r = (unsigned)(p[0] << 8 | p[1]);
		p += 2;
		printf("R %u", r);
		for (unsigned i = 0; i < r; i++)
			for (int c = 0; c < ncols; c++) {
				size_t used = value(p, end, buf, sizeof(buf));

				if (!used)
					goto bad;
				if (i == 0)
					printf("%s%s", c ? "|" : " ", buf);
				p += used;
			}
		if (p != end)
			goto bad;
		printf("\n");
		rows_seen += r;
		return type;
	}
	case 'E':
		if (n != 17)
			goto bad;
		printf("E rows=%llu%s\n", (unsigned long long)get64(p),
		       p[16] & 1 ? " cut" : "");
		return type;
	case 'X':
		if (n < 8)
			goto bad;
		printf("X code=%d offset=%d msg=%.*s\n", (int32_t)get32(p), (int32_t)get32(p + 4),
		       (int)(n - 8), (const char *)p + 8);
		return type;
	default:
		printf("? type=%d len=%zu\n", type, n);
		return type;
	}
bad:
	printf("\nBADFRAME type=%c len=%zu\n", type, n);
	return -1;
}

/* Reads frames; stops after 'E'/'X' when `until_end`, else at EOF or
 * `secs` of silence. */
static void read_frames(double secs, int until_end)
{
	size_t off = 0;

	frames = rows_seen = bytes_seen = 0;
	for (;;) {
		int r, t;

		while (in_len - off >= 4) {
			uint32_t len = get32(in + off);

			if (len == 0 || len > (1u << 20)) {
				printf("BADFRAME length=%u\n", len);
				eof = 1;
				goto out;
			}
			if (in_len - off < 4 + (size_t)len)
				break;
			frames++;
			bytes_seen += 4 + len;
			t = show(in[off + 4], in + off + 5, len - 1);
			off += 4 + (size_t)len;
			if (t < 0) {
				eof = 1;
				goto out;
			}
			if (until_end && (t == 'E' || t == 'X'))
				goto out;
		}
		if (off > 0 && in_len > off)
			memmove(in, in + off, in_len - off);
		in_len -= off;
		off = 0;
		r = fill(secs);
		if (r < 0)
			break;
		if (r == 0) {
			printf("TIMEOUT\n");
			break;
		}
	}
out:
	if (off > 0 && in_len > off)
		memmove(in, in + off, in_len - off);
	in_len -= off;
	printf("SUMMARY frames=%llu rows=%llu bytes=%llu\n", (unsigned long long)frames,
	       (unsigned long long)rows_seen, (unsigned long long)bytes_seen);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (argc < 2)
		usage();
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strlen(argv[1]) >= sizeof(sa.sun_path))
		usage();
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "rawclient: connect %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		char *a = argv[i], *arg = strchr(a, ':');
		size_t n;

		if (arg)
			arg++;
		if (!strncmp(a, "hex:", 4)) {
			uint8_t *b = unhex(arg, &n);

			send_all(b, n);
			free(b);
		} else if (!strncmp(a, "zeros:", 6) || !strncmp(a, "fill:", 5)) {
			size_t count = strtoull(arg, &arg, 10);
			int byte = 0;
			uint8_t *b;

			if (a[0] == 'f') {
				if (*arg != ':')
					usage();
				byte = (int)strtol(arg + 1, NULL, 16);
			}
			b = malloc(count ? count : 1);
			if (!b)
				return 1;
			memset(b, byte, count);
			send_all(b, count);
			free(b);
		} else if (!strncmp(a, "frame:", 6)) {
			uint8_t *b;

			if (!arg[0] || arg[1] != ':')
				usage();
			b = unhex(arg + 2, &n);
			send_frame(arg[0], b, n);
			free(b);
		} else if (!strncmp(a, "q:", 2)) {
			char *e1, *e2;
			uint32_t limit = (uint32_t)strtoul(arg, &e1, 10), timeout;
			uint8_t *b;
			size_t sl;

			if (*e1 != ':')
				usage();
			timeout = (uint32_t)strtoul(e1 + 1, &e2, 10);
			if (*e2 != ':')
				usage();
			sl = strlen(e2 + 1);
			b = malloc(8 + sl);
			if (!b)
				return 1;
			put32(b, limit);
			put32(b + 4, timeout);
			memcpy(b + 8, e2 + 1, sl);
			send_frame('Q', b, 8 + sl);
			free(b);
		} else if (!strncmp(a, "qsize:", 6)) {
			char *e;
			size_t total = strtoull(arg, &e, 10), sl;
			uint8_t *b;

			if (*e != ':' || total < 9)
				usage();
			sl = strlen(e + 1);
			if (sl > total - 9)
				usage();
			b = malloc(total - 1);
			if (!b)
				return 1;
			put32(b, 0);
			put32(b + 4, 0);
			memcpy(b + 8, e + 1, sl);
			memset(b + 8 + sl, ' ', total - 9 - sl);
			send_frame('Q', b, total - 1);
			free(b);
		} else if (!strcmp(a, "read") || !strncmp(a, "read:", 5)) {
			read_frames(arg ? atof(arg) : 10, 1);
		} else if (!strcmp(a, "drain") || !strncmp(a, "drain:", 6)) {
			read_frames(arg ? atof(arg) : 10, 0);
		} else if (!strncmp(a, "sleep:", 6)) {
			double s = atof(arg), end = now() + s;

			while (now() < end)
				usleep(10000);
		} else if (!strcmp(a, "shutwr")) {
			shutdown(fd, SHUT_WR);
		} else if (!strncmp(a, "recv:", 5)) {
			size_t want = strtoull(arg, NULL, 10), got = 0;
			char buf[65536];

			while (got < want) {
				struct pollfd p = { .fd = fd, .events = POLLIN };
				size_t n = want - got < sizeof(buf) ? want - got : sizeof(buf);
				ssize_t k;

				if (poll(&p, 1, 10000) <= 0)
					break;
				k = recv(fd, buf, n, 0);
				if (k < 0 && errno == EINTR)
					continue;
				if (k <= 0)
					break;
				got += (size_t)k;
			}
			printf("RECV %zu\n", got);
		} else if (!strcmp(a, "linger0")) {
			struct linger lg = { .l_onoff = 1, .l_linger = 0 };

			setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		} else if (!strncmp(a, "rcvbuf:", 7)) {
			int v = atoi(arg);

			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
		} else {
			usage();
		}
	}
	close(fd);
	return 0;
}
