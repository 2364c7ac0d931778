/* test_cgroups.c — cgroups.c: readable names of cgroup paths, and the
 * cgroup_history rows a real store gets from moves, forks, exits and a
 * snapshot (read back with SQLite). */
#include "check.h"

#include "cgroups.h"
#include "store.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

static void name_is(const char *path, const char *want)
{
	char out[256];

	cgroups_name(path, strlen(path), out, sizeof(out));
	CHECK_STR(out, want);
}

static void cgroups_names(void)
{
	name_is("/", "/");
	name_is("", "/");
	name_is("/system.slice/nginx.service", "nginx.service");
	name_is("/user.slice/user-1000.slice/session-2.scope", "session-2.scope");
	name_is("/user.slice/user-1000.slice/user@1000.service/app.slice/"
		"app-gnome\\x2dterminal-42.scope", "app-gnome-terminal-42.scope");
	name_is("/system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef"
		"0123456789abcdef.scope", "docker:0123456789ab");
	name_is("/docker/fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
		"docker:fedcba987654");
	name_is("/machine.slice/libpod-aaaaaaaaaaaabbbbbbbbbbbbccccccccccccddddddddddddeeee"
		"eeeeeeeeffff.scope/container", "podman:aaaaaaaaaaaa");
	name_is("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1.slice/"
		"cri-containerd-1111111111112222222222223333333333334444444444445555"
		"55555555.scope", "containerd:111111111111");
	name_is("/machine.slice/machine-web\\x2d1.scope", "machine:web-1");
	name_is("/machine.slice/systemd-nspawn@db.service/payload", "machine:db");
	name_is("/commd-test/a", "/commd-test/a");
	name_is("/system.slice/foo.service/sub/leaf", "foo.service");
}

static long long one(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -2 : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void cgroups_history_rows(void)
{
	char path[] = "/tmp/commd-test-cgroups-XXXXXX", db[64], err[256];
	int fd = mkstemp(path);
	struct store *s;
	struct cgroups *cg;
	sqlite3 *q;

	CHECK(fd >= 0);
	close(fd);
	unlink(path);
	snprintf(db, sizeof(db), "%s.db", path);
	s = store_open(db, STORE_BULK, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	cg = cgroups_new(s, CGROUPS_ANY_ROOT);
	CHECK(store_begin(s) == 0);
	/* a snapshot: pid 10 in /a (hierarchy 0) */
	CHECK_INT(cgroups_enter(cg, 0, 10, "/a", 2, 100, STORE_CG_PROC), 0);
	/* an event older than the snapshot changes nothing */
	CHECK_INT(cgroups_enter(cg, 0, 10, "/old", 4, 50, STORE_CG_ATTACH), 0);
	/* a v1 hierarchy's event is not followed */
	CHECK_INT(cgroups_enter(cg, 3, 10, "/v1", 3, 150, STORE_CG_ATTACH), 0);
	/* fork: 11 starts in /a; a move of 10 to /b; 11 exits */
	CHECK_INT(cgroups_fork(cg, 10, 11, 200), 0);
	CHECK_INT(cgroups_enter(cg, 0, 10, "/b", 2, 300, STORE_CG_ATTACH), 0);
	CHECK_INT(cgroups_enter(cg, 0, 10, "/b", 2, 350, STORE_CG_ATTACH), 0);	/* no change */
	CHECK_INT(cgroups_exit(cg, 11, 400), 0);
	/* a fork of a task nobody placed: nothing */
	CHECK_INT(cgroups_fork(cg, 99, 100, 500), 0);
	CHECK(store_commit(s) == 0);
	cgroups_free(cg);
	CHECK_INT(store_close(s), 0);

	CHECK(sqlite3_open_v2(db, &q, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	CHECK_INT(one(q, "SELECT count(*) FROM cgroup_history"), 3);
	CHECK_INT(one(q, "SELECT end_ts FROM cgroup_history WHERE pid = 10 AND path = '/a'"), 300);
	CHECK_INT(one(q, "SELECT start_ts FROM cgroup_history WHERE pid = 10 AND path = '/b'"), 300);
	CHECK_INT(one(q, "SELECT end_ts FROM cgroup_history WHERE pid = 10 AND path = '/b'"), -2);
	CHECK_INT(one(q, "SELECT count(*) FROM cgroup_history WHERE pid = 10 AND path = '/b' "
		      "AND source = 'cgroup_attach_task'"), 1);
	CHECK_INT(one(q, "SELECT start_ts FROM cgroup_history WHERE pid = 11 AND path = '/a' "
		      "AND source = 'fork'"), 200);
	CHECK_INT(one(q, "SELECT end_ts FROM cgroup_history WHERE pid = 11"), 400);
	CHECK_INT(one(q, "SELECT count(*) FROM cgroup_history WHERE pid = 10 AND path = '/a' "
		      "AND source = 'proc' AND start_ts = 100"), 1);
	sqlite3_close(q);
	unlink(db);
}

int main(void)
{
	RUN(cgroups_names);
	RUN(cgroups_history_rows);
	return check_done("test_cgroups");
}
