/* serverctl.h — the root side of the query server, in the capture
 * process: it binds the socket, starts `commd serve` (server.h) on it,
 * watches it (started again, at most once a second, if it dies: capture
 * goes on meanwhile) and stops it. Nothing here reads a client's byte. */
#ifndef COMMD_SERVERCTL_H
#define COMMD_SERVERCTL_H

#include <stdint.h>
#include <sys/types.h>

#include "server.h"

/* Binds `path` (mode 0660, group commd when it exists; a directory it
 * makes for it is 0750, group commd too), or takes the
 * socket systemd passed (LISTEN_FDS). Returns the fd or -1 (logged). */
int server_listen(const char *path, int *created);

/* Starts `commd serve` on listen_fd; returns its pid or -1 (logged). */
pid_t server_spawn(int listen_fd, const char *db, const struct server_limits *l);


/* The running query server of a capture. */
struct serverctl {
	int listen_fd;			/* -1: no socket (--socket none) */
	int socket_created;		/* we made the socket file: unlink it */
	const char *socket;		/* its path */
	const char *db;			/* passed on to commd serve */
	const struct server_limits *limits;
	pid_t pid;			/* 0: not running; -1: failed to start */
	uint64_t started;		/* when it was last started (ns) */
};

/* Reaps a query server that died (and says so), and starts one when
 * none runs and the last start is a second old. now: CLOCK_MONOTONIC ns. */
void serverctl_watch(struct serverctl *s, uint64_t now);

/* Stops the query server (SIGTERM, SIGKILL after 5 s), closes the socket
 * and removes the socket file it made. */
void serverctl_stop(struct serverctl *s);

#endif
