/* seed.c — see seed.h. */
#include "seed.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroups.h"
#include "resolve.h"

/* The kernel's PF_WQ_WORKER (include/linux/sched.h): a workqueue worker. */
#define TASK_WQ_WORKER 0x00000020u

int seed_parse_task_stat(char *text, struct seed_task *t)
{
	char *open_paren = strchr(text, '('), *close_paren = strrchr(text, ')'), *p;
	int field;

	if (!open_paren || !close_paren || close_paren < open_paren ||
	    (size_t)(close_paren - open_paren - 1) >= sizeof(t->comm))
		return -1;
	t->len = (size_t)(close_paren - open_paren - 1);
	memcpy(t->comm, open_paren + 1, t->len);
	t->comm[t->len] = '\0';
	t->state = close_paren[1] == ' ' ? close_paren[2] : '?';
	/* ") S ppid pgrp session tty_nr tpgid flags": six fields to skip */
	for (p = close_paren, field = 0; p && field < 7; field++)
		p = strchr(p + 1, ' ');
	t->flags = p ? strtoul(p + 1, NULL, 10) : 0;
	return 0;
}

static int read_task_stat(const char *path, struct seed_task *t)
{
	char buf[1024];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return seed_parse_task_stat(buf, t);
}

size_t seed_worker_comm_len(const char *comm, size_t len, unsigned long flags)
{
	static const char pfx[] = "kworker/";
	size_t cut;

	if (!(flags & TASK_WQ_WORKER) || len <= sizeof(pfx) - 1 ||
	    memcmp(comm, pfx, sizeof(pfx) - 1) || !memcmp(comm + sizeof(pfx) - 1, "R-", 2))
		return len;
	cut = sizeof(pfx) - 1 + strcspn(comm + sizeof(pfx) - 1, "-+");
	return cut < len ? cut : len;
}

static int numeric(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* The inode number the kernel gives the initial PID namespace (its
 * PROC_PID_INIT_INO, fixed since Linux 3.8). */
#define INIT_PIDNS_INO 0xEFFFFFFCu

static int pidns_is_initial(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	return st.st_ino == INIT_PIDNS_INO;
}

/* How many PID namespaces /proc/self/status's NSpid line lists: ours and
 * every ancestor up to the one /proc was mounted in (0: no such line). */
static int nspid_levels(void)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "NSpid:", 6))
			continue;
		for (char *s = strtok(line + 6, " \t\n"); s; s = strtok(NULL, " \t\n"))
			n++;
		break;
	}
	fclose(f);
	return n;
}

int seed_proc_is_hosts(void)
{
	int self = pidns_is_initial("/proc/self/ns/pid"), one, levels;

	if (self != 0)
		return self;
	/* pid 1 of /proc's own namespace: the host's init, or a container's
	 * (not always readable, even by root: then NSpid says whether /proc
	 * belongs to an ancestor of our namespace or to ours). */
	one = pidns_is_initial("/proc/1/ns/pid");
	if (one >= 0)
		return one;
	levels = nspid_levels();
	return levels ? levels > 1 : -1;
}

int seed_self_in_host_pidns(void)
{
	return pidns_is_initial("/proc/self/ns/pid");
}

/* Every thread in /proc: its tid and tgid to each(), and its comm when
 * want_comm (tasks gone between the readdir and the read are skipped). */
static int walk_proc(struct resolve *r, uint64_t ts, int want_comm)
{
	struct dirent *p, *t;
	struct seed_task st;
	char path[640];
	DIR *procs, *tasks;
	int n = 0, zombie, ntasks;

	procs = opendir("/proc");
	if (!procs)
		return 0;
	while ((p = readdir(procs))) {
		if (!numeric(p->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = opendir(path);
		if (!tasks)
			continue;
		zombie = ntasks = 0;
		while ((t = readdir(tasks))) {
			if (!numeric(t->d_name))
				continue;
			if (!want_comm) {
				resolve_note_tgid(r, atoi(t->d_name), atoi(p->d_name));
				n++;
				continue;
			}
			snprintf(path, sizeof(path), "/proc/%s/task/%s/stat",
				 p->d_name, t->d_name);
			if (read_task_stat(path, &st))
				continue;
			resolve_seed(r, atoi(t->d_name), atoi(p->d_name), st.comm,
				     seed_worker_comm_len(st.comm, st.len, st.flags), ts,
				     RESOLVE_SRC_PROC);
			zombie |= st.state == 'Z' || st.state == 'X';
			ntasks++;
			n++;
		}
		closedir(tasks);
		/* A zombie with no thread left exited before the capture: a
		 * fork that takes its pid once it is reaped is a new task's,
		 * not the snapshot's. (A leader that waits so for its threads
		 * goes on as their process, and a thread's exec may take its
		 * pid: left to what the trace shows.) */
		if (want_comm && zombie && ntasks == 1)
			resolve_exit(r, atoi(p->d_name), ts);
	}
	closedir(procs);
	return n;
}

int seed_tgids_from_proc(struct resolve *r)
{
	return walk_proc(r, 0, 0);
}

int seed_from_proc(struct resolve *r, uint64_t ts)
{
	return walk_proc(r, ts, 1);
}

int seed_from_saved_cmdlines(struct resolve *r, const char *tracing_dir,
			     uint64_t ts)
{
	char path[512], line[256], comm[128];
	FILE *f;
	int pid, n = 0;

	snprintf(path, sizeof(path), "%s/saved_cmdlines", tracing_dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');
		size_t len;

		if (!sp)
			continue;
		*sp = '\0';
		pid = atoi(line);
		snprintf(comm, sizeof(comm), "%s", sp + 1);
		len = strcspn(comm, "\n");
		comm[len] = '\0';
		/* Only pids /proc did not know: for the living, /proc is newer. */
		if (pid > 0 && !resolve_is_named(r, pid)) {
			resolve_seed(r, pid, RESOLVE_TGID_UNKNOWN, comm, len, ts,
				     RESOLVE_SRC_SAVED_CMDLINES);
			n++;
		}
	}
	fclose(f);
	return n;
}

/* The path of hierarchy root in a /proc/PID/cgroup file ("ID:controllers:
 * path" lines) into path; its length, or -1. With root -2: the id of the
 * cpu controller's line (returned), for seed_cgroup_root. */
static int cgroup_line(const char *file, int root, char *path, size_t len)
{
	char line[4096];
	FILE *f = fopen(file, "re");
	int ret = -1;

	if (!f)
		return -1;
	while (ret < 0 && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		int id = atoi(line);

		if (!c2)
			continue;
		*c2 = '\0';
		if (root == -2) {
			char *save = NULL;

			for (char *t = strtok_r(c1 + 1, ",", &save); t; t = strtok_r(NULL, ",", &save))
				if (!strcmp(t, "cpu"))
					ret = id;
			continue;
		}
		if (id != root || (root == 0 && c1[1]))
			continue;
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		ret = snprintf(path, len, "%s", c2 + 1);
		if (ret >= (int)len)
			ret = (int)len - 1;
	}
	fclose(f);
	return ret;
}

int seed_cgroup_root(void)
{
	char path[8];

	if (cgroup_line("/proc/self/cgroup", 0, path, sizeof(path)) >= 0)
		return 0;
	return cgroup_line("/proc/self/cgroup", -2, NULL, 0);
}

/* Whether commd sees the cgroup paths as the kernel's events give them:
 * /proc/PID/cgroup is relative to the reader's cgroup namespace, the
 * events' dst_path to the hierarchy's root. 1 when this is the initial
 * namespace (pid 1's), 0 when not, -1 when it cannot tell. */
int seed_cgroupns_is_hosts(void)
{
	struct stat a, b;

	if (stat("/proc/self/ns/cgroup", &a) || stat("/proc/1/ns/cgroup", &b))
		return -1;
	return a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

int seed_cgroups_from_proc(struct cgroups *cg, int root, uint64_t ts)
{
	struct dirent *p, *t;
	char file[640], cgpath[4096];
	DIR *procs, *tasks;
	int n = 0, len;

	if (root < 0 || !(procs = opendir("/proc")))
		return 0;
	while ((p = readdir(procs))) {
		if (!numeric(p->d_name))
			continue;
		snprintf(file, sizeof(file), "/proc/%s/task", p->d_name);
		if (!(tasks = opendir(file)))
			continue;
		/* each thread's own (a v2 threaded cgroup, v1 placements) */
		while ((t = readdir(tasks))) {
			if (!numeric(t->d_name))
				continue;
			snprintf(file, sizeof(file), "/proc/%s/task/%s/cgroup", p->d_name,
				 t->d_name);
			if ((len = cgroup_line(file, root, cgpath, sizeof(cgpath))) >= 0 &&
			    !cgroups_enter(cg, root, atoi(t->d_name), cgpath, (size_t)len, ts,
					   STORE_CG_PROC))
				n++;
		}
		closedir(tasks);
	}
	closedir(procs);
	return n;
}

const char *seed_proc_comm(void *ctx, int32_t pid)
{
	static struct seed_task t;
	char path[64];

	(void)ctx;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_task_stat(path, &t) || !t.len)
		return NULL;
	t.comm[seed_worker_comm_len(t.comm, t.len, t.flags)] = '\0';
	return t.comm;
}
