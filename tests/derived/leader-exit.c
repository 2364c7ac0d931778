/* leader-exit.c - a process whose leader leaves first, and whose threads
 * reuse one tid (derived-processes.sh).
 *
 * The leader starts one thread and calls pthread_exit: the process runs
 * on without it (the kernel keeps the leader a zombie until the group
 * ends). That thread then runs five threads one after another, each on
 * the tid the first of them had where it can (/proc/sys/kernel/ns_last_pid,
 * root only; another task may take it first), each busy 20 ms. Prints
 * "tids T1 T2 ..." of the five on stdout. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pid_t tids[5];

static void spin(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

static void *leaf(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	spin(20);
	return NULL;
}

/* The next task made takes tid (when nobody else makes one first). */
static void next_tid(pid_t tid)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");

	if (f) {
		fprintf(f, "%d", tid - 1);
		fclose(f);
	}
}

static void *first(void *arg)
{
	(void)arg;
	usleep(50000);		/* the leader has gone */
	for (int i = 0; i < 5; i++) {
		pthread_t t;

		if (i)
			next_tid(tids[0]);
		if (pthread_create(&t, NULL, leaf, &tids[i]))
			return NULL;
		pthread_join(t, NULL);
		usleep(2000);	/* its tid released */
	}
	printf("tids");
	for (int i = 0; i < 5; i++)
		printf(" %d", tids[i]);
	printf("\n");
	fflush(stdout);
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, first, NULL))
		return 1;
	spin(10);
	pthread_exit(NULL);
}
