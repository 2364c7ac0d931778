/* notify-listen.c — a stand-in for systemd's notify socket, for the live
 * tests.
 *
 *   notify-listen [-t] PATH SECONDS
 *
 * Binds a datagram unix socket at PATH ('@name' = abstract namespace; a
 * stale file at PATH is replaced), then prints every message it receives
 * on its own line to stdout (a message holding several newline-separated
 * assignments prints as several lines), flushed at once. With -t each line
 * is prefixed with the CLOCK_MONOTONIC time of its arrival in ns and a
 * space. Exits 0 after SECONDS or right after a message containing the
 * line STOPPING=1; exits 1 on a setup error (message on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int stamp = 0, fd, stopping = 0;
	const char *path;
	uint64_t deadline;
	socklen_t len;
	double secs;
	char *end;

	if (argc > 1 && !strcmp(argv[1], "-t")) {
		stamp = 1;
		argc--;
		argv++;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: notify-listen [-t] PATH SECONDS\n");
		return 1;
	}
	path = argv[1];
	secs = strtod(argv[2], &end);
	if (*end || secs <= 0) {
		fprintf(stderr, "notify-listen: bad SECONDS '%s'\n", argv[2]);
		return 1;
	}
	len = (socklen_t)strlen(path);
	if (len == 0 || len >= sizeof(sa.sun_path)) {
		fprintf(stderr, "notify-listen: bad path '%s'\n", path);
		return 1;
	}
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	else
		unlink(path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa,
			   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len))) {
		fprintf(stderr, "notify-listen: %s: %s\n", path, strerror(errno));
		return 1;
	}
	deadline = now_ns() + (uint64_t)(secs * 1e9);
	while (!stopping) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns();
		char buf[4097], *line, *save = NULL;
		ssize_t n;
		int r;

		if (now >= deadline)
			break;
		r = poll(&p, 1, (int)((deadline - now) / 1000000) + 1);
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "notify-listen: poll: %s\n", strerror(errno));
			return 1;
		}
		if (r <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			fprintf(stderr, "notify-listen: recv: %s\n", strerror(errno));
			return 1;
		}
		now = now_ns();
		buf[n] = '\0';
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (stamp)
				printf("%llu ", (unsigned long long)now);
			printf("%s\n", line);
			if (!strcmp(line, "STOPPING=1"))
				stopping = 1;
		}
		fflush(stdout);
	}
	if (path[0] != '@')
		unlink(path);
	return 0;
}
