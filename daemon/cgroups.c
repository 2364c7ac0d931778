/* cgroups.c — see cgroups.h. */
#include "cgroups.h"

#include "grow.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cgroup met so far: its path and readable name. */
struct cgroup {
	char *path;
	size_t len;
	char *name;
};

/* Where a task is: its cgroup (index + 1 into cgs; 0: not known) since
 * when. */
struct task_cg {
	uint32_t cg;
	uint64_t since;
	/* exited (sched_process_exit), not yet switched out dead: its row
	 * ended at end, and each switch-out after moves it (cgroups_ran) */
	int exited;
	uint64_t end;
};

struct cgroups {
	struct store *store;
	int root;			/* the hierarchy followed, or ANY */
	int any;			/* it was ANY: root 0 when seen */
	struct cgroup *cgs;
	size_t ncgs, cgs_cap;
	uint32_t *slots;		/* open addressing on the path: cg index + 1 */
	size_t nslots;
	struct task_cg *tasks;		/* by pid */
	size_t ntasks;
};

struct cgroups *cgroups_new(struct store *store, int root)
{
	struct cgroups *cg = calloc(1, sizeof(*cg));

	if (!cg)
		return NULL;
	cg->store = store;
	cg->root = root;
	cg->any = root == CGROUPS_ANY_ROOT;
	return cg;
}

void cgroups_set_root(struct cgroups *cg, int root)
{
	cg->root = root;
	cg->any = root == CGROUPS_ANY_ROOT;
}

void cgroups_free(struct cgroups *cg)
{
	if (!cg)
		return;
	for (size_t i = 0; i < cg->ncgs; i++) {
		free(cg->cgs[i].path);
		free(cg->cgs[i].name);
	}
	free(cg->cgs);
	free(cg->slots);
	free(cg->tasks);
	free(cg);
}

static uint32_t hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static int rehash(struct cgroups *cg)
{
	size_t n = cg->nslots ? cg->nslots * 2 : 64;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < cg->ncgs; i++) {
		size_t k = hash(cg->cgs[i].path, cg->cgs[i].len) & (n - 1);

		while (slots[k])
			k = (k + 1) & (n - 1);
		slots[k] = (uint32_t)i + 1;
	}
	free(cg->slots);
	cg->slots = slots;
	cg->nslots = n;
	return 0;
}

/* The index + 1 of path, added when new; 0 when out of memory. */
static uint32_t intern(struct cgroups *cg, const char *path, size_t len)
{
	struct cgroup *c;
	char name[256];
	size_t k;

	if ((cg->ncgs + 1) * 2 > cg->nslots && rehash(cg))
		return 0;
	k = hash(path, len) & (cg->nslots - 1);
	for (; cg->slots[k]; k = (k + 1) & (cg->nslots - 1)) {
		c = &cg->cgs[cg->slots[k] - 1];
		if (c->len == len && !memcmp(c->path, path, len))
			return cg->slots[k];
	}
	if (cg->ncgs >= cg->cgs_cap &&
	    grow_array(&cg->cgs, &cg->cgs_cap, sizeof(*cg->cgs), cg->ncgs + 1, 0))
		return 0;
	c = &cg->cgs[cg->ncgs];
	c->path = malloc(len + 1);
	cgroups_name(path, len, name, sizeof(name));
	c->name = strdup(name);
	if (!c->path || !c->name) {
		free(c->path);
		free(c->name);
		return 0;
	}
	memcpy(c->path, path, len);
	c->path[len] = '\0';
	c->len = len;
	cg->slots[k] = (uint32_t)++cg->ncgs;
	return cg->slots[k];
}

/* The kernel's PID_MAX_LIMIT: a pid above it is not a task's (a hostile
 * or broken trace), and the table is indexed by pid. */
#define MAX_PID (4 * 1024 * 1024)

static int valid_pid(int32_t pid)
{
	return pid > 0 && pid <= MAX_PID;
}

/* The pid's slot; NULL when out of memory (valid_pid checked first). */
static struct task_cg *task(struct cgroups *cg, int32_t pid)
{
	if ((size_t)pid >= cg->ntasks &&
	    grow_array(&cg->tasks, &cg->ntasks, sizeof(*cg->tasks), (size_t)pid + 1, 1))
		return NULL;
	return &cg->tasks[pid];
}

/* The task goes to cgroup index id (0: nowhere, it exited) at ts. */
static int move(struct cgroups *cg, struct task_cg *t, int32_t pid, uint32_t id,
		uint64_t ts, enum store_cgroup_source source)
{
	const struct cgroup *c = id ? &cg->cgs[id - 1] : NULL;
	int was_in = t->cg != 0;	/* a row of it is open (a new task has none) */

	if (!was_in && !id)
		return 0;
	t->exited = 0;
	t->cg = id;
	t->since = ts;
	return store_cgroup(cg->store, pid, ts, was_in, c ? c->path : NULL,
			    c ? c->len : 0, c ? c->name : NULL, source);
}

int cgroups_enter(struct cgroups *cg, int root, int32_t pid, const char *path,
		  size_t len, uint64_t ts, enum store_cgroup_source source)
{
	struct task_cg *t;
	uint32_t id;

	if (cg->root == CGROUPS_ANY_ROOT)
		cg->root = root;
	else if (root != cg->root) {
		if (root != 0 || !cg->any)
			return 0;
		/* An import that followed a v1 hierarchy meets the unified
		 * one: follow that from here on. */
		cg->root = 0;
	}
	if (!valid_pid(pid))
		return 0;
	if (!(t = task(cg, pid)))
		return -1;
	if (t->cg && ts < t->since)
		return 0;	/* a snapshot read after it says where it is */
	if (!(id = intern(cg, path, len)))
		return -1;
	if (id == t->cg)
		return 0;
	return move(cg, t, pid, id, ts, source);
}

int cgroups_fork(struct cgroups *cg, int32_t parent, int32_t child, uint64_t ts)
{
	struct task_cg *c;
	uint32_t id;

	if (parent <= 0 || (size_t)parent >= cg->ntasks || !cg->tasks[parent].cg)
		return 0;
	id = cg->tasks[parent].cg;
	if (!valid_pid(child))
		return 0;
	if (!(c = task(cg, child)))
		return -1;
	if (c->cg && ts < c->since)
		return 0;
	if (c->cg == id)
		return 0;
	return move(cg, c, child, id, ts, STORE_CG_FORK);
}

int cgroups_exit(struct cgroups *cg, int32_t pid, uint64_t ts)
{
	if (pid <= 0 || (size_t)pid >= cg->ntasks || !cg->tasks[pid].cg ||
	    ts < cg->tasks[pid].since)
		return 0;
	return move(cg, &cg->tasks[pid], pid, 0, ts, STORE_CG_EXIT);
}

int cgroups_ran(struct cgroups *cg, int32_t pid, uint64_t ts, int dead, int exited)
{
	struct task_cg *t;
	uint64_t from;
	int rc;

	if (pid <= 0 || (size_t)pid >= cg->ntasks)
		return 0;
	t = &cg->tasks[pid];
	if (t->cg && ts >= t->since && (exited || dead)) {
		/* its exit (or, untraced, its death) ends the row here; a
		 * switch-out after an exit moves it on */
		if ((rc = move(cg, t, pid, 0, ts, STORE_CG_EXIT)))
			return rc;
		t->exited = !dead;
		t->end = ts;
		return 0;
	}
	if (!t->exited || t->cg || ts <= t->end)
		return 0;
	from = t->end;
	t->end = ts;
	t->exited = !dead;
	return store_cgroup_end_moved(cg->store, pid, from, ts);
}

/* ---- readable names ---- */

static int all_hex(const char *s, size_t len)
{
	if (len < 12)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static int has_prefix(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);

	return len >= n && !memcmp(s, p, n);
}

static int has_suffix(const char *s, size_t len, const char *x)
{
	size_t n = strlen(x);

	return len >= n && !memcmp(s + len - n, x, n);
}

/* systemd escapes a unit name's '-' (and others) as \xNN. */
static void unescape(const char *s, size_t len, char *out, size_t outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 1 < outlen; i++) {
		if (s[i] == '\\' && i + 3 < len && s[i + 1] == 'x' &&
		    isxdigit((unsigned char)s[i + 2]) && isxdigit((unsigned char)s[i + 3])) {
			char hex[3] = { s[i + 2], s[i + 3], 0 };

			out[o++] = (char)strtol(hex, NULL, 16);
			i += 3;
			continue;
		}
		out[o++] = s[i];
	}
	out[o] = '\0';
}

/* A container id cut to docker's 12 characters, after kind: */
static void container(char *out, size_t outlen, const char *kind, const char *id,
		      size_t len)
{
	snprintf(out, outlen, "%s:%.*s", kind, (int)(len < 12 ? len : 12), id);
}

/* One component (no '/'), the one before it (parent, may be empty): its
 * name when it says one, else 0. */
static int component_name(const char *c, size_t len, const char *parent, size_t plen,
			  char *out, size_t outlen)
{
	static const struct { const char *prefix, *kind; } scopes[] = {
		{ "docker-", "docker" }, { "libpod-", "podman" },
		{ "cri-containerd-", "containerd" }, { "crio-", "cri-o" },
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(scopes) / sizeof(*scopes); i++) {
		size_t n = strlen(scopes[i].prefix);

		if (has_prefix(c, len, scopes[i].prefix) && has_suffix(c, len, ".scope") &&
		    all_hex(c + n, len - n - 6)) {
			container(out, outlen, scopes[i].kind, c + n, len - n - 6);
			return 1;
		}
	}
	if (all_hex(c, len) && len >= 32) {	/* /docker/<id>, kubepods' <id> */
		container(out, outlen, plen == 6 && !memcmp(parent, "docker", 6) ?
			  "docker" : "container", c, len);
		return 1;
	}
	if (has_prefix(c, len, "machine-") && has_suffix(c, len, ".scope")) {
		unescape(c + 8, len - 8 - 6, buf, sizeof(buf));
		snprintf(out, outlen, "machine:%s", buf);
		return 1;
	}
	if (has_prefix(c, len, "systemd-nspawn@") && has_suffix(c, len, ".service")) {
		unescape(c + 15, len - 15 - 8, buf, sizeof(buf));
		snprintf(out, outlen, "machine:%s", buf);
		return 1;
	}
	if (has_suffix(c, len, ".service") || has_suffix(c, len, ".scope")) {
		unescape(c, len, out, outlen);
		return 1;
	}
	return 0;
}

void cgroups_name(const char *path, size_t len, char *out, size_t outlen)
{
	size_t end = len;

	while (end > 0) {
		size_t start = end, pend, pstart;

		while (start > 0 && path[start - 1] != '/')
			start--;
		pend = start ? start - 1 : 0;
		pstart = pend;
		while (pstart > 0 && path[pstart - 1] != '/')
			pstart--;
		if (end > start && component_name(path + start, end - start, path + pstart,
						   pend - pstart, out, outlen))
			return;
		end = start ? start - 1 : 0;
	}
	snprintf(out, outlen, "%.*s", (int)(len ? len : 1), len ? path : "/");
}
