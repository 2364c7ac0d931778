/* merge_cost.c — what the page reader's merge of the CPUs (pages_read)
 * costs per record as the CPUs grow: N CPUs' trace_pipe_raw stand-ins
 * (non-blocking pipes) each get sub-buffers of events whose times
 * interleave with the other CPUs', and pages_read takes them all, in
 * rounds of at most 128 pages a CPU (what a pipe holds).  Printed: the
 * CPU time per record (best of the rounds' totals over `reps` runs).
 *
 * Usage: merge_cost CPUS BUSY RECORDS [REPS]
 *   CPUS    the machine's CPUs (pages_new's count)
 *   BUSY    how many of them have events (the rest idle, empty)
 *   RECORDS records in all, spread over the busy CPUs
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "pages.h"
#include "../tests/fuzz/kernel-formats.h"

#define SUBBUF 4096
#define PER_PAGE 500			/* events of 8 bytes a sub-buffer */
#define PAGES_A_ROUND 128

static uint64_t records;

static int on_record(void *ctx, const void *data, int size, int cpu,
		     uint64_t ts, int64_t missed)
{
	(void)ctx;
	(void)size;
	(void)cpu;
	(void)ts;
	(void)missed;
	if (data)
		records++;
	return 0;
}

static void put_page(int fd, uint64_t *t, unsigned *rnd, int n)
{
	unsigned char page[SUBBUF] = { 0 };
	uint64_t commit = (uint64_t)n * 8, prev = *t;

	memcpy(page, t, 8);
	memcpy(page + 8, &commit, 8);
	for (int i = 0; i < n; i++) {
		uint32_t delta, hdr, payload = (uint32_t)i;

		*rnd = *rnd * 1103515245u + 12345u;
		delta = (*rnd >> 16) % 64;
		*t = prev + delta;
		hdr = 1u | delta << 5;
		memcpy(page + 16 + i * 8, &hdr, 4);
		memcpy(page + 16 + i * 8 + 4, &payload, 4);
		prev = *t;
	}
	if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page)) {
		perror("write");
		exit(1);
	}
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int cpus, busy, reps = 5;
	long long want;
	struct tep_handle *tep;
	char *hp, err[128];
	double best = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: %s CPUS BUSY RECORDS [REPS]\n", argv[0]);
		return 2;
	}
	cpus = atoi(argv[1]);
	busy = atoi(argv[2]);
	want = atoll(argv[3]);
	if (argc > 4)
		reps = atoi(argv[4]);
	if (cpus < 1 || busy < 1 || busy > cpus || want < 1 || reps < 1)
		return 2;
	tep = tep_alloc();
	tep_set_long_size(tep, 8);
	hp = strdup(kf_header_page);
	if (!tep || !hp || tep_parse_header_page(tep, hp, strlen(hp), 8))
		return 1;
	for (int r = 0; r < reps; r++) {
		struct pages *p = pages_new(tep, cpus, SUBBUF);
		int *wfd = calloc((size_t)cpus, sizeof(*wfd));
		uint64_t *t = calloc((size_t)cpus, sizeof(*t));
		long long pages_each = (want / busy + PER_PAGE - 1) / PER_PAGE, done = 0;
		unsigned rnd = 1;
		double used = 0;

		if (!p || !wfd || !t)
			return 1;
		for (int c = 0; c < cpus; c++) {
			int fds[2];

			if (pipe2(fds, O_NONBLOCK) || pages_add_cpu(p, c, fds[0])) {
				perror("pipe");
				return 1;
			}
			fcntl(fds[1], F_SETPIPE_SZ, PAGES_A_ROUND * SUBBUF);
			wfd[c] = fds[1];
			t[c] = 1000000;
		}
		records = 0;
		while (done < pages_each) {
			long long n = pages_each - done < PAGES_A_ROUND ? pages_each - done
									: PAGES_A_ROUND;
			double t0;

			/* the busy CPUs spread over all of them */
			for (int b = 0; b < busy; b++)
				for (long long i = 0; i < n; i++)
					put_page(wfd[(long long)b * cpus / busy], &t[(long long)b * cpus / busy],
						 &rnd, PER_PAGE);
			t0 = cpu_seconds();
			if (pages_read(p, 0, 1, on_record, NULL, err, sizeof(err)) < 0) {
				fprintf(stderr, "pages_read: %s\n", err);
				return 1;
			}
			used += cpu_seconds() - t0;
			done += n;
		}
		if (!r || used < best)
			best = used;
		pages_free(p);
		for (int c = 0; c < cpus; c++)
			close(wfd[c]);
		free(wfd);
		free(t);
	}
	printf("%d CPUs, %d busy: %llu records, %.1f ns a record (CPU, best of %d)\n",
	       cpus, busy, (unsigned long long)records, best * 1e9 / (double)records, reps);
	tep_free(tep);
	free(hp);
	return 0;
}
