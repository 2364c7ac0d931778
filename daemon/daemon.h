/* daemon.h — `commd` without a subcommand: live capture into the
 * database until SIGTERM/SIGINT. */
#ifndef COMMD_DAEMON_H
#define COMMD_DAEMON_H

#include <stddef.h>

#include "server.h"

struct daemon_opts {
	const char *db;		/* default /var/lib/commd/commd.db */
	const char *instance;	/* default "commd" */
	const char *socket;	/* for the query server */
	const char *events;	/* NULL: the default sched + task set */
	size_t buffer_kb;	/* per CPU */
	int commit_ms;
	size_t max_db_mb;	/* retention; 0 keeps everything */
	int foreground;
	struct server_limits serve;	/* for the query server; 0: defaults */
};

#define DAEMON_DEFAULT_DB "/var/lib/commd/commd.db"
#define DAEMON_DEFAULT_INSTANCE "commd"
#define DAEMON_DEFAULT_SOCKET "/run/commd/commd.sock"
#define DAEMON_DEFAULT_BUFFER_KB 16384
#define DAEMON_DEFAULT_COMMIT_MS 1000
#define DAEMON_DEFAULT_MAX_DB_MB 2048

/* Returns the process exit status. */
int daemon_run(const struct daemon_opts *o);

#endif
