/* namer.c - workload for tests/naming/live-names.sh.
 *
 * Renames itself through a sequence of names, starts named threads, forks
 * children that rename and exit, execs (/bin/true and itself), and makes the
 * kernel reuse a pid (ns_last_pid), logging one line per action:
 *
 *   <CLOCK_MONOTONIC ns> <action> <pid> <tid> <name>
 *
 * <name> is the task's comm right after the action, read back from the
 * kernel (PR_GET_NAME, or /proc/self/task/TID/comm for another thread),
 * except for `exec`, logged just before execve with the name the kernel
 * will give (the basename of the path, cut to 15 bytes). Actions:
 *
 *   start    main thread, first line
 *   rename   prctl(PR_SET_NAME) / pthread_setname_np on itself
 *   clone    first line of a new thread: the name it inherited
 *   thread   a thread got its name with pthread_setname_np
 *   fork     first line of a forked child: the name it inherited
 *   exec     about to execve; name = the comm expected after it
 *   execd    first line after namer re-executed itself (mode "execd")
 *   reuse    logged by the parent: the child just forked got the pid of a
 *            child reaped before it; name = the first lifetime's last name
 *   reuse-failed  pid reuse did not happen after every retry
 *   end      main thread, last line
 *
 * Every action is followed by a 1-2 ms sleep, so the scheduler switches the
 * task out under its new name (a sched_switch with prev_comm = the name),
 * except in the last phase: four renames 300 us apart with the task busy
 * in between, so that one slice holds several names.
 *
 * Usage: namer LOG            the workload
 *        namer LOG execd      (internal) after the re-exec
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define COMM_LEN 16

static int log_fd = -1;
static const char *log_path;

static void die(const char *what)
{
	fprintf(stderr, "namer: %s: %s\n", what, strerror(errno));
	_exit(2);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		die("clock_gettime");
	return (unsigned long long)ts.tv_sec * 1000000000ULL +
	       (unsigned long long)ts.tv_nsec;
}

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* One line, one write(2) on an O_APPEND fd: lines of threads and children
 * never interleave. */
static void logline(const char *action, pid_t pid, pid_t tid, const char *name)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "%llu %s %d %d %s\n", now_ns(),
			 action, (int)pid, (int)tid, name);
	if (n < 0 || (size_t)n >= sizeof(buf))
		die("log line too long");
	if (write(log_fd, buf, (size_t)n) != n)
		die("write log");
}

static void get_name(char out[COMM_LEN])
{
	memset(out, 0, COMM_LEN);
	if (prctl(PR_GET_NAME, out, 0, 0, 0))
		die("PR_GET_NAME");
}

static void nap_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A short sleep after every action: the task blocks, so a sched_switch
 * names it with its current comm. */
static void pause_after(void)
{
	nap_us(1500);
}

static void log_self(const char *action)
{
	char name[COMM_LEN];
	get_name(name);
	logline(action, getpid(), my_tid(), name);
}

static void rename_self(const char *name)
{
	if (prctl(PR_SET_NAME, name, 0, 0, 0))
		die("PR_SET_NAME");
	log_self("rename");
	pause_after();
}

/* Busy for about us microseconds: the task keeps its CPU. */
static void spin_us(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < us * 1000L);
}

/* Renames itself several times while it runs (busy between, no sleep):
 * one slice of the scheduler's holds several names. */
static void rename_spinning(void)
{
	static const char *const names[] = { "spin-1", "spin-2", "spin-3", "spin-4" };

	nap_us(1500);		/* a fresh slice */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		spin_us(300);
		if (prctl(PR_SET_NAME, names[i], 0, 0, 0))
			die("PR_SET_NAME");
		log_self("rename");
	}
	spin_us(300);
	pause_after();
}

/* ---- threads ------------------------------------------------------------ */

struct thread_arg {
	const char *name;	/* set by the thread itself, or NULL */
	const char *name2;	/* a second self-rename, or NULL */
	pid_t tid;
	sem_t ready;		/* thread -> main: tid is set */
	sem_t named;		/* main -> thread: name set from outside */
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	int i;

	a->tid = my_tid();
	log_self("clone");
	pause_after();
	if (a->name) {
		if (pthread_setname_np(pthread_self(), a->name))
			die("pthread_setname_np (self)");
		log_self("thread");
		pause_after();
	}
	sem_post(&a->ready);
	if (!a->name)
		while (sem_wait(&a->named) && errno == EINTR)
			;
	for (i = 0; i < 3; i++) {
		sched_yield();
		nap_us(1000);
	}
	if (a->name2)
		rename_self(a->name2);
	for (i = 0; i < 3; i++)
		nap_us(1000);
	return NULL;
}

static void do_threads(void)
{
	struct thread_arg a1 = { .name = "worker-one", .name2 = "worker-one-b" };
	struct thread_arg a2 = { .name = NULL, .name2 = NULL };
	pthread_t t1, t2;
	char path[64], name[COMM_LEN + 2];
	int fd;
	ssize_t n;

	if (sem_init(&a1.ready, 0, 0) || sem_init(&a1.named, 0, 0) ||
	    sem_init(&a2.ready, 0, 0) || sem_init(&a2.named, 0, 0))
		die("sem_init");
	if (pthread_create(&t1, NULL, thread_main, &a1))
		die("pthread_create");
	if (pthread_create(&t2, NULL, thread_main, &a2))
		die("pthread_create");
	while (sem_wait(&a1.ready) && errno == EINTR)
		;
	while (sem_wait(&a2.ready) && errno == EINTR)
		;
	/* thread 2 is named from outside: /proc/self/task/TID/comm */
	if (pthread_setname_np(t2, "worker-two"))
		die("pthread_setname_np (other)");
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)a2.tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die(path);
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		die("read comm");
	name[n] = 0;
	name[strcspn(name, "\n")] = 0;
	logline("thread", getpid(), a2.tid, name);
	sem_post(&a2.named);
	pause_after();
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
}

/* ---- children ----------------------------------------------------------- */

static void wait_child(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
}

/* The child of a fork: log the inherited name, rename, sleep `naps` times
 * 5 ms (switched out under the new name each time), exit. */
static void child_body(const char *name, int naps)
{
	log_self("fork");
	pause_after();
	rename_self(name);
	while (naps-- > 0)
		nap_us(5000);
	_exit(0);
}

static pid_t fork_child(const char *name, int naps)
{
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		child_body(name, naps);
	return pid;
}

static void do_fork(void)
{
	wait_child(fork_child("forked-kid", 1));
	pause_after();
}

static void exec_logged(const char *path, char *const argv[])
{
	const char *base = strrchr(path, '/');
	char expect[COMM_LEN];

	base = base ? base + 1 : path;
	snprintf(expect, sizeof(expect), "%s", base);
	logline("exec", getpid(), my_tid(), expect);
	execv(path, argv);
	die(path);
}

static void do_exec(const char *self)
{
	pid_t pid;

	/* a child that becomes /bin/true */
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char *argv[] = { (char *)"true", NULL };
		log_self("fork");
		pause_after();
		rename_self("pre-true");
		exec_logged("/bin/true", argv);
	}
	wait_child(pid);
	pause_after();

	/* a child that re-executes namer, which renames once more */
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char *argv[] = { (char *)self, (char *)log_path,
				 (char *)"execd", NULL };
		log_self("fork");
		pause_after();
		rename_self("pre-reexec");
		exec_logged(self, argv);
	}
	wait_child(pid);
	pause_after();
}

static void execd_main(void)
{
	log_self("execd");
	pause_after();
	rename_self("after-exec");
	nap_us(3000);
	exit(0);
}

/* Reap a child, point ns_last_pid just before its pid, fork again at once:
 * the new child should get the same pid. Retries if something else took it.
 * The first child's sched_process_free comes from an RCU callback, usually
 * after the second child was born: the second child lives ~40 ms so that the
 * free (which names the FIRST child, with the same pid) lands inside it. */
static void do_reuse(void)
{
	int attempt;

	for (attempt = 0; attempt < 8; attempt++) {
		char buf[32], name1[COMM_LEN];
		pid_t first, second;
		int fd, n;

		rename_self("reuse-parent-1");
		first = fork_child("reuse-first", 2);
		snprintf(name1, sizeof(name1), "reuse-first");
		/* renamed while the first child lives: the second inherits
		 * a name the first lifetime never had */
		rename_self("reuse-parent-2");
		fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
		if (fd < 0)
			die("open ns_last_pid");
		n = snprintf(buf, sizeof(buf), "%d", (int)first - 1);
		wait_child(first);
		if (write(fd, buf, (size_t)n) != n)
			die("write ns_last_pid");
		second = fork_child("reuse-second", 8);
		close(fd);
		if (second == first) {
			logline("reuse", second, second, name1);
			wait_child(second);
			pause_after();
			return;
		}
		wait_child(second);
		pause_after();
	}
	logline("reuse-failed", getpid(), my_tid(), "-");
}

/* ---- main ----------------------------------------------------------------- */

static const char *const names_a[] = {
	"namer-a",
	"n-b",
	"abcdefghijklmno",		/* exactly 15 bytes: the maximum */
	"abcdefgh",			/* a prefix of the previous name */
	"this-name-is-far-too-long",	/* cut to 15 bytes by the kernel */
	"x",
	"x",				/* a rename to the same name */
	"namer-a",			/* a name seen before */
	"a-1",				/* looks like comm-pid */
	"12345",
};

static const char *const names_b[] = {
	"sl/ash",
	"dot.name",
	"UPPER_lower",
	"namer-c",
	"namer-d",
};

static const char *const names_c[] = {
	"final-1",
	"final-2",
	"final-3",
	"n-b",
	"last-name",
};

int main(int argc, char **argv)
{
	size_t i;
	char self[PATH_MAX];
	ssize_t n;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: namer LOG\n");
		return 2;
	}
	log_path = argv[1];
	log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (log_fd < 0)
		die(log_path);
	if (argc == 3) {
		if (strcmp(argv[2], "execd"))
			return 2;
		execd_main();
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		die("readlink /proc/self/exe");
	self[n] = 0;

	log_self("start");
	pause_after();
	for (i = 0; i < sizeof(names_a) / sizeof(names_a[0]); i++)
		rename_self(names_a[i]);
	rename_self("threads");
	do_threads();
	rename_self("forker");
	do_fork();
	for (i = 0; i < sizeof(names_b) / sizeof(names_b[0]); i++)
		rename_self(names_b[i]);
	rename_self("execer");
	do_exec(self);
	do_reuse();
	for (i = 0; i < sizeof(names_c) / sizeof(names_c[0]); i++)
		rename_self(names_c[i]);
	rename_spinning();
	log_self("end");
	pause_after();
	return 0;
}
