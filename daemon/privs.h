/* privs.h — a root process becomes an unprivileged user for good: the
 * query server (`commd serve`) and the import's parsing child. */
#ifndef COMMD_PRIVS_H
#define COMMD_PRIVS_H

#include <stddef.h>
#include <sys/types.h>

/* Becomes uid/gid with exactly these supplementary groups (when running
 * as root), with no capability in any set whatever the parent handed down
 * (the bounding set emptied where CAP_SETPCAP allows: under the shipped
 * unit it is not there), no way back to root and no_new_privs. Returns 0,
 * or -1 with err set (one line). Does not log. */
int privs_drop(uid_t uid, gid_t gid, const gid_t *groups, int ngroups,
	       char *err, size_t errlen);

/* The ids of user name (the query server's, "commd"); -1 when there is
 * no such user. */
int privs_user(const char *name, uid_t *uid, gid_t *gid);

#endif
