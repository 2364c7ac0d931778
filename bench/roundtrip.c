/* roundtrip.c — a trivial query's round trip over commd's socket.
 *
 *   roundtrip SOCKET [N] [SQL]
 *
 * Opens one connection, sends SQL (default "select 1") N times (default
 * 10000), each after the previous answer's end frame, and times each
 * exchange from the send to the end frame with CLOCK_MONOTONIC. Prints
 * the count, p50, p90, p99 and max in microseconds; exits 1 on any error
 * frame or broken connection. A benchmark program, not a test.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "protocol.h"

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Reads frames until 'E' (0) or 'X' / a broken stream (-1). */
static int answer(int fd, uint8_t *buf, size_t cap, size_t *have)
{
	for (;;) {
		uint8_t type;
		const uint8_t *payload;
		size_t plen, flen;
		int r = proto_frame_peek(buf, *have, &type, &payload, &plen, &flen);

		if (r < 0)
			return -1;
		if (r == 0) {
			memmove(buf, buf + flen, *have - flen);
			*have -= flen;
			if (type == PROTO_END)
				return 0;
			if (type == PROTO_ERROR) {
				fprintf(stderr, "roundtrip: error frame: %.*s\n",
					plen > 8 ? (int)(plen - 8) : 0, payload + 8);
				return -1;
			}
			continue;
		}
		if (*have == cap)
			return -1;
		ssize_t n = read(fd, buf + *have, cap - *have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		*have += (size_t)n;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *sql = argc > 3 ? argv[3] : "select 1";
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 10000;
	struct proto_buf q = { 0 };
	size_t cap = PROTO_MAX_FRAME + 16, have = 0;
	uint8_t *buf = malloc(cap);
	double *lat;
	int fd;

	if (argc < 2 || n < 1 || !buf || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: roundtrip SOCKET [N] [SQL]\n");
		return 2;
	}
	lat = calloc((size_t)n, sizeof(*lat));
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!lat || fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "roundtrip: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (proto_put_query(&q, 0, 0, sql, strlen(sql)) || q.oom)
		return 1;
	for (long i = 0; i < n; i++) {
		double t0 = now_us();

		if (send(fd, q.data, q.len, MSG_NOSIGNAL) != (ssize_t)q.len ||
		    answer(fd, buf, cap, &have)) {
			fprintf(stderr, "roundtrip: query %ld failed\n", i + 1);
			return 1;
		}
		lat[i] = now_us() - t0;
	}
	qsort(lat, (size_t)n, sizeof(*lat), cmp);
	printf("queries %ld p50_us %.1f p90_us %.1f p99_us %.1f max_us %.1f\n", n,
	       lat[(n - 1) / 2], lat[(long)((n - 1) * 0.90)],
	       lat[(long)((n - 1) * 0.99)], lat[n - 1]);
	close(fd);
	proto_buf_free(&q);
	free(lat);
	free(buf);
	return 0;
}
