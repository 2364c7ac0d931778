/* thread-exec.c - workload for tests/derived/derived-live.sh: threads that
 * exec while their process's leader still runs.
 *
 * N processes (argv[1], default 20), one after the other. Each names
 * itself "leader" and starts two threads: "spinner" (busy 100 us, asleep
 * 100 us, forever) and "execer" (busy 300 us, asleep 200 us, then execve
 * of /bin/true), and itself is busy 150 us, asleep 150 us, forever. The
 * exec kills the other threads, waits for the leader to exit, and swaps
 * the pids of the thread and the leader (de_thread): the thread runs on
 * under the leader's pid, the leader, dying, may run a last moment under
 * the thread's tid. The parent waits for each process to end.
 *
 * Usage: thread-exec [N] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void busy(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void *execer(void *arg)
{
	prctl(PR_SET_NAME, "execer");
	busy(300);
	usleep(200);
	execl("/bin/true", "true", (char *)NULL);
	perror("thread-exec: execl /bin/true");
	_exit(1);
	return arg;
}

static void *spinner(void *arg)
{
	prctl(PR_SET_NAME, "spinner");
	for (;;) {
		busy(100);
		usleep(100);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;

	for (int i = 0; i < n; i++) {
		pid_t c = fork();
		int status;

		if (c < 0) {
			perror("thread-exec: fork");
			return 1;
		}
		if (!c) {
			pthread_t t, u;

			prctl(PR_SET_NAME, "leader");
			if (pthread_create(&u, NULL, spinner, NULL) ||
			    pthread_create(&t, NULL, execer, NULL))
				_exit(1);
			for (;;) {
				busy(150);
				usleep(150);
			}
		}
		if (waitpid(c, &status, 0) != c || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "thread-exec: process %d did not exec and exit 0\n", (int)c);
			return 1;
		}
	}
	return 0;
}
