/* daemon.h — `commd` without a subcommand: live capture into the
 * database until SIGTERM/SIGINT. */
#ifndef COMMD_DAEMON_H
#define COMMD_DAEMON_H

#include <stddef.h>

#include <stdint.h>

#include "protocol.h"
#include "server.h"

/* The settings (config.h fills them: defaults < file < environment <
 * command line). Strings are owned by the struct (config_free). */
struct daemon_opts {
	char *db;		/* default /var/lib/commd/commd.db */
	char *instance;		/* default "commd" */
	char *socket;		/* for the query server; "none" */
	char *events;		/* NULL: the default sched + task set */
	char *clock;		/* the instance's trace_clock; default "local" */
	size_t buffer_kb;	/* per CPU; 0: config_auto_buffer_kb() */
	int commit_ms;
	size_t max_db_mb;	/* retention by size; 0 keeps everything */
	uint64_t max_age_s;	/* retention by age (seconds); 0 keeps all */
	int log_level;		/* syslog priority: messages above it are dropped */
	int stacks;		/* kernel stacks of switches into sleep */
	int foreground;
	/* shipping to ClickHouse (docs/fleet.md); clickhouse NULL: none */
	char *clickhouse;	/* http://HOST:PORT/?database=DB */
	char *clickhouse_user;	/* the file or environment only */
	char *clickhouse_password_file;
	char *host_name;	/* NULL: the machine's hostname */
	int clickhouse_interval_s;	/* between rounds; 0: 1 s */
	/* SIGHUP: computes the settings again (file, environment, command
	 * line) into *out; 0, or -1 with the reason in err. NULL: SIGHUP
	 * only says it has nothing to reload. */
	int (*reload)(struct daemon_opts *out, char *err, size_t errlen);
	struct server_limits serve;	/* for the query server; 0: defaults */
};

#define DAEMON_DEFAULT_DB "/var/lib/commd/commd.db"
#define DAEMON_DEFAULT_INSTANCE "commd"
#define DAEMON_DEFAULT_CLOCK "local"
#define DAEMON_DEFAULT_SOCKET PROTO_DEFAULT_SOCKET
#define DAEMON_MAX_AUTO_BUFFER_KB 16384	/* --buffer-kb auto: at most this */
#define DAEMON_DEFAULT_COMMIT_MS 1000
#define DAEMON_DEFAULT_MAX_DB_MB 2048
#define DAEMON_DEFAULT_MAX_AGE_S 0
/* What commd stores when --events is not given (the task events that name
 * tasks exactly are always added). */
#define DAEMON_DEFAULT_EVENTS \
	"sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new," \
	"sched:sched_waking,sched:sched_process_fork,sched:sched_process_exec," \
	"sched:sched_process_exit,sched:sched_process_free," \
	"sched:sched_migrate_task"

/* Returns the process exit status. */
int daemon_run(const struct daemon_opts *o);

#endif
