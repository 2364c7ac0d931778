/* privs.c — see privs.h. */
#define _GNU_SOURCE
#include "privs.h"

#include <errno.h>
#include <pwd.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

/* Effective, permitted and inheritable emptied by capset() and checked;
 * ambient cleared and checked. A change of uid from 0 clears effective,
 * permitted and ambient but keeps the inheritable set (a container's or a
 * capsh caller's), hence the explicit clear. */
static int clear_capabilities(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capset, &hdr, data))
		return -1;
	memset(data, 0xff, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return -1;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (data[i].effective || data[i].permitted || data[i].inheritable) {
			errno = EPERM;
			return -1;
		}
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) == 1) {
			errno = EPERM;
			return -1;
		}
	return 0;
}

int privs_drop(uid_t uid, gid_t gid, const gid_t *groups, int ngroups,
	       char *err, size_t errlen)
{
	/* The bounding set first: dropping needs CAP_SETPCAP, gone with
	 * the uid (EPERM: kept). */
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1)
			prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	if (geteuid() == 0) {
		if (setgroups((size_t)ngroups, groups) || setgid(gid) || setuid(uid)) {
			snprintf(err, errlen, "cannot become uid %ld gid %ld: %s", (long)uid,
				 (long)gid, strerror(errno));
			return -1;
		}
		if (setuid(0) == 0) {
			snprintf(err, errlen, "could regain root after dropping it");
			return -1;
		}
	}
	if (clear_capabilities()) {
		snprintf(err, errlen, "cannot clear its capabilities: %s", strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		snprintf(err, errlen, "cannot set no_new_privs: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int privs_user(const char *name, uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam(name);

	if (!pw)
		return -1;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}
