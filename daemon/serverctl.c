/* serverctl.c — see serverctl.h. Runs in the capture process, as root. */
#define _GNU_SOURCE
#include "serverctl.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static int systemd_socket(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");

	if (!pid || !fds || (pid_t)strtol(pid, NULL, 10) != getpid() ||
	    strtol(fds, NULL, 10) < 1)
		return -1;
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return 3;	/* SD_LISTEN_FDS_START */
}

int server_listen(const char *path, int *created)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[PATH_MAX], *slash;
	struct group *gr;
	struct stat st;
	mode_t old;
	int fd;

	*created = 0;
	fd = systemd_socket();
	if (fd >= 0) {
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		return fd;
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		log_error("%s: socket path too long", path);
		return -1;
	}
	gr = getgrnam("commd");
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		/* A directory made here is root:commd 0750: nobody outside the
		 * group even reaches the socket. One that exists is left as
		 * it is (it may be shared: /tmp); commd.tmpfiles makes
		 * /run/commd so. */
		if (mkdir(dir, 0750) == 0) {
			if (gr && chown(dir, 0, gr->gr_gid))
				log_warning("%s: cannot give it to group commd: %s", dir,
					    strerror(errno));
		} else if (errno != EEXIST) {
			log_error("%s: %s", dir, strerror(errno));
			return -1;
		}
	}
	strcpy(sa.sun_path, path);
	/* A socket file left by a crash is stale when nobody answers it. The
	 * query process of a commd killed a moment ago still answers until it
	 * has seen its parent go (PR_SET_PDEATHSIG): it gets two seconds. */
	for (int tries = 0;; tries++) {
		struct timespec pause = { 0, 50 * 1000 * 1000 };

		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			log_error("socket: %s", strerror(errno));
			return -1;
		}
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
			break;
		close(fd);
		if (tries == 40) {
			log_error("%s: another commd is serving this socket", path);
			return -1;
		}
		nanosleep(&pause, NULL);
	}
	/* Only a socket is removed: never a file or a link someone put there. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			log_error("%s: exists and is not a socket; commd removes only a "
				  "stale socket of its own (--socket)", path);
			close(fd);
			return -1;
		}
		unlink(path);
	}
	old = umask(0117);	/* srw-rw---- from the start */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		umask(old);
		log_error("%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	umask(old);
	if (gr && chown(path, 0, gr->gr_gid))
		log_warning("%s: cannot give it to group commd: %s", path, strerror(errno));
	if (listen(fd, 128)) {
		log_error("%s: listen: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	*created = 1;
	return fd;
}

pid_t server_spawn(int listen_fd, const char *db, const struct server_limits *l)
{
	char fdarg[16], parent[16], lim[4][40];
	pid_t pid;
	int nl = 0;

	snprintf(fdarg, sizeof(fdarg), "%d", listen_fd);
	snprintf(parent, sizeof(parent), "%d", (int)getpid());
	pid = fork();
	if (pid < 0) {
		log_error("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char *argv[16] = { "commd", "serve", "--fd", fdarg, "--db", (char *)db,
				   "--parent", parent };
		int argc = 8;
		sigset_t none;

		/* The limits that differ from the defaults, as --name=value. */
		if (l && l->timeout_ms > 0)
			snprintf(lim[nl++], sizeof(lim[0]), "--timeout-ms=%d", l->timeout_ms);
		if (l && l->max_conns > 0)
			snprintf(lim[nl++], sizeof(lim[0]), "--max-conns=%d", l->max_conns);
		if (l && l->result_mb > 0)
			snprintf(lim[nl++], sizeof(lim[0]), "--max-result-mb=%d", l->result_mb);
		if (l && l->query_mem_mb > 0)
			snprintf(lim[nl++], sizeof(lim[0]), "--max-mem-mb=%d", l->query_mem_mb);
		for (int i = 0; i < nl; i++)
			argv[argc++] = lim[i];
		argv[argc] = NULL;

		fcntl(listen_fd, F_SETFD, 0);	/* keep it across exec */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* The binary by its name (so the process is called commd),
		 * or the running one if that is gone (an upgrade). */
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n > 0 && !strstr((self[n] = '\0', self), " (deleted)"))
			execv(self, argv);
		execv("/proc/self/exe", argv);
		log_error("exec commd serve: %s", strerror(errno));
		_exit(127);
	}
	return pid;
}

void serverctl_watch(struct serverctl *s, uint64_t now)
{
	int status;

	if (s->listen_fd < 0)
		return;
	if (s->pid > 0 && waitpid(s->pid, &status, WNOHANG) == s->pid) {
		log_warning("query server (pid %d) %s %d; restarting it", (int)s->pid,
			    WIFSIGNALED(status) ? "killed by signal" : "exited with",
			    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		s->pid = 0;
	}
	if (s->pid <= 0 && (!s->started || now - s->started >= 1000000000ull)) {
		s->pid = server_spawn(s->listen_fd, s->db, s->limits);
		s->started = now;
	}
}

void serverctl_stop(struct serverctl *s)
{
	if (s->pid > 0) {
		/* It cuts its queries off at once; a server that does not go
		 * within 5 s is killed. */
		kill(s->pid, SIGTERM);
		for (int i = 0; i < 500 && waitpid(s->pid, NULL, WNOHANG) == 0; i++) {
			struct timespec t = { 0, 10000000 };

			nanosleep(&t, NULL);
			if (i == 499) {
				kill(s->pid, SIGKILL);
				waitpid(s->pid, NULL, 0);
			}
		}
		s->pid = 0;
	}
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	s->listen_fd = -1;
	if (s->socket_created && s->socket)
		unlink(s->socket);
	s->socket_created = 0;
}
