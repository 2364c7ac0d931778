/* shipctl.c — see shipctl.h. */
#define _GNU_SOURCE
#include "shipctl.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RESTART_NS	(5 * 1000000000ull)

static pid_t spawn(struct shipctl *s)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		log_error("ship: pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		log_error("ship: fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		char *argv[16] = { "commd", "ship", "--db", (char *)s->db, "--clickhouse",
				   (char *)s->url, "--host-name", (char *)s->host };
		int argc = 8;
		char self[PATH_MAX], interval[16];
		ssize_t n;
		sigset_t none;

		if (s->user) {
			argv[argc++] = "--user";
			argv[argc++] = (char *)s->user;
		}
		if (s->password_file) {
			argv[argc++] = "--password-file";
			argv[argc++] = (char *)s->password_file;
		}
		if (s->interval_s > 0) {
			snprintf(interval, sizeof(interval), "%d", s->interval_s);
			argv[argc++] = "--interval-s";
			argv[argc++] = interval;
		}
		argv[argc] = NULL;
		dup2(p[1], STDOUT_FILENO);
		/* nothing of the capture's: an inherited trace_pipe_raw would
		 * keep the instance busy after the capture is gone */
		close_range(3, ~0U, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* shipping waits for the capture, never the other way */
		if (nice(10) < 0)
			errno = 0;
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n > 0 && !strstr((self[n] = '\0', self), " (deleted)"))
			execv(self, argv);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	s->out_fd = p[0];
	return pid;
}

/* Reads "shipped TS" lines. */
static void read_progress(struct shipctl *s)
{
	ssize_t n;

	while (s->out_fd >= 0 &&
	       (n = read(s->out_fd, s->line + s->len, sizeof(s->line) - 1 - s->len)) > 0) {
		char *nl;

		s->len += (size_t)n;
		s->line[s->len] = '\0';
		while ((nl = strchr(s->line, '\n'))) {
			long long ts;

			*nl = '\0';
			if (sscanf(s->line, "shipped %lld", &ts) == 1) {
				s->shipped = ts;
				s->rounds++;
			}
			s->len -= (size_t)(nl + 1 - s->line);
			memmove(s->line, nl + 1, s->len + 1);
		}
		if (s->len == sizeof(s->line) - 1)
			s->len = 0;	/* not a line of ours */
	}
}

static void reaped(struct shipctl *s, pid_t pid, int status)
{
	read_progress(s);
	if (s->out_fd >= 0)
		close(s->out_fd);
	s->out_fd = -1;
	s->pid = 0;
	if (status >= 0)
		log_warning("shipping to ClickHouse (pid %d) %s %d; starting it again in 5 s",
			    (int)pid, WIFSIGNALED(status) ? "killed by signal" : "exited with",
			    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

void shipctl_watch(struct shipctl *s, uint64_t now)
{
	int status;

	if (!s->url)
		return;
	read_progress(s);
	if (s->pid > 0 && waitpid(s->pid, &status, WNOHANG) == s->pid)
		reaped(s, s->pid, status);
	if (s->pid <= 0 && (!s->started || now - s->started >= RESTART_NS)) {
		s->pid = spawn(s);
		s->started = now;
	}
}

int64_t shipctl_stop(struct shipctl *s)
{
	if (!s->url || s->pid <= 0)
		return s->url ? s->shipped : -1;
	kill(s->pid, SIGTERM);
	for (int i = 0; i < 3000; i++) {
		struct timespec t = { 0, 10000000 };

		read_progress(s);
		if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
			reaped(s, s->pid, -1);
			return s->shipped;
		}
		nanosleep(&t, NULL);
	}
	log_warning("shipping to ClickHouse: the last rows not shipped within 30 s; "
		    "they go with the next start");
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	reaped(s, s->pid, -1);
	return s->shipped;
}
