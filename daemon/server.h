/* server.h — the query server: SQL over a unix socket, answered on
 * read-only SQLite connections by a process that holds no privileges.
 *
 * The capture side (root, serverctl.h) binds the socket and starts the
 * server as a separate program (`commd serve`), which drops to an
 * unprivileged user
 * before reading a single byte from a client; if it dies, capture goes on
 * and it is started again. Clients are served by one libevent loop;
 * queries run on a small pool of worker threads, each with a deadline, so
 * a long query never delays another client's short one, and rows are
 * streamed to the client in batches with back-pressure. Only reads are
 * allowed (an authorizer refuses everything else: writes, ATTACH, PRAGMA,
 * load_extension...). */
#ifndef COMMD_SERVER_H
#define COMMD_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct server_opts {
	int listen_fd;		/* a bound, listening unix socket */
	pid_t parent;		/* the daemon: serve only while it lives */
	const char *db;		/* opened read-only per connection */
	const char *user;	/* to drop to; NULL: "commd", else "nobody" */
	int workers;		/* query threads */
	int default_timeout_ms;	/* a client may only shorten it */
	int max_conns;		/* beyond: "too many connections", closed */
	uint64_t max_result_bytes; /* per query; 0: none */
	uint64_t max_query_mem;	/* SQLite heap per query; 0: none */
};

/* Defaults of the limits above (docs/server-safety.md). */
#define SERVER_DEFAULT_TIMEOUT_MS 30000
#define SERVER_DEFAULT_MAX_CONNS 256
#define SERVER_DEFAULT_RESULT_MB 256
#define SERVER_DEFAULT_QUERY_MEM_MB 64

/* What the daemon passes on to `commd serve` (0: the default). */
struct server_limits {
	int timeout_ms;
	int max_conns;
	int result_mb;
	int query_mem_mb;
};

/* `commd serve`: drops privileges, then serves until SIGTERM. Returns
 * the exit status. */
int server_run(const struct server_opts *o);

#endif
