/* notify.c — see notify.h. */
#include "notify.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int notify_send(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	ssize_t n;
	int fd;

	if (!path || !*path)
		return 0;
	len = (socklen_t)strlen(path);
	if (len >= sizeof(sa.sun_path) || (path[0] != '/' && path[0] != '@'))
		return -1;
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';	/* abstract namespace */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	n = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
	close(fd);
	return n < 0 ? -1 : 1;
}

uint64_t notify_watchdog_usec(void)
{
	const char *s = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");

	if (!s)
		return 0;
	if (pid && (pid_t)strtol(pid, NULL, 10) != getpid())
		return 0;
	return strtoull(s, NULL, 10);
}
