/* shipctl.h — the capture process's side of shipping to ClickHouse: it
 * starts `commd ship` (ship.h) once the capture row exists, reads how far
 * it has shipped from its standard output, starts it again (at most every
 * 5 s) when it dies, and at the end lets it ship the last rows (SIGTERM,
 * 30 s) before it goes. */
#ifndef COMMD_SHIPCTL_H
#define COMMD_SHIPCTL_H

#include <stdint.h>
#include <sys/types.h>

struct shipctl {
	const char *url;		/* NULL: no shipping */
	const char *db, *host, *user, *password_file;
	int interval_s;			/* between rounds; 0: its default */
	pid_t pid;			/* 0: not running */
	int out_fd;			/* its standard output, -1 */
	uint64_t started;		/* CLOCK_MONOTONIC ns of the last start */
	int64_t shipped;		/* every table is shipped up to this ts; -1 */
	uint64_t rounds;		/* rounds it finished */
	char line[128];
	size_t len;
};

/* Starts it when it is not running (the first time, or 5 s after it
 * died), and reads its progress. now: CLOCK_MONOTONIC ns. */
void shipctl_watch(struct shipctl *s, uint64_t now);

/* The last rows: SIGTERM (it finishes with a round up to the capture's
 * end), 30 s, then SIGKILL.  Returns the ts it shipped up to, -1. */
int64_t shipctl_stop(struct shipctl *s);

#endif
