/* seed.c — see seed.h. */
#include "seed.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resolve.h"

static int read_comm(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	if (buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return (int)n;
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

int seed_from_proc(struct resolve *r, uint64_t ts)
{
	struct dirent *p, *t;
	char path[640], comm[128];
	DIR *procs, *tasks;
	int n = 0, len;

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
		while ((t = readdir(tasks))) {
			if (!numeric(t->d_name))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/comm",
				 p->d_name, t->d_name);
			len = read_comm(path, comm, sizeof(comm));
			if (len < 0)
				continue;
			resolve_seed(r, atoi(t->d_name), atoi(p->d_name), comm,
				     (size_t)len, ts, RESOLVE_SRC_PROC);
			n++;
		}
		closedir(tasks);
	}
	closedir(procs);
	return n;
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

const char *seed_proc_comm(void *ctx, int32_t pid)
{
	static char comm[128];
	char path[64];

	(void)ctx;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	return read_comm(path, comm, sizeof(comm)) > 0 ? comm : NULL;
}
