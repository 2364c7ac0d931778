/* test_pages.c — the page reader's merge (daemon/pages.c) with losses the
 * kernel counted only in a CPU's stats (pages_lost): each comes out among
 * its CPU's records by its time — after those stamped no later, before the
 * later ones, and in timestamp order with the other CPUs' records — and
 * not before the merge may go that far; the look before each CPU's read
 * (pages_set_look) places what it saw before what that read brings.
 *
 * The "trace_pipe_raw" of each CPU is a non-blocking pipe holding
 * sub-buffers built here: the page header (u64 timestamp, 8-byte commit)
 * and events of 4 data bytes (type_len 1) whose time deltas add up to the
 * wanted timestamps. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/ioctl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "check.h"
#include "../fuzz/kernel-formats.h"
#include "pages.h"

#define SUBBUF 4096

static struct tep_handle *tep;

/* What fn was handed: "c0@100" a record ("c0@300!-1" flagged with the
 * events lost before it), "c0!250=7" a loss, "c0>200" a gap (the CPU's
 * record at 200 was its last before a loss). */
static char got[1024];

static int on_record(void *ctx, const void *data, int size, int cpu,
		     uint64_t ts, int64_t missed)
{
	size_t n = strlen(got);

	(void)ctx;
	if (!data && missed == TRACEDAT_GAP) {
		CHECK_INT(size, 0);
		snprintf(got + n, sizeof(got) - n, "%sc%d>%llu", n ? " " : "", cpu,
			 (unsigned long long)ts);
	} else if (!data) {
		CHECK_INT(size, 0);
		snprintf(got + n, sizeof(got) - n, "%sc%d!%llu=%lld", n ? " " : "", cpu,
			 (unsigned long long)ts, (long long)missed);
	} else {
		CHECK_INT(size, 4);
		snprintf(got + n, sizeof(got) - n, missed ? "%sc%d@%llu!%lld" : "%sc%d@%llu",
			 n ? " " : "", cpu, (unsigned long long)ts, (long long)missed);
	}
	return 0;
}

/* One sub-buffer of events at the given times (ascending), into fd, its
 * commit word's flags above the length (the kernel's RB_MISSED_EVENTS
 * says events were lost before the page). */
static void put_page_flags(int fd, const uint64_t *ts, int n, uint64_t flags)
{
	unsigned char page[SUBBUF] = { 0 };
	uint64_t commit = (uint64_t)n * 8 | flags, prev = ts[0];

	memcpy(page, &ts[0], 8);
	memcpy(page + 8, &commit, 8);
	for (int i = 0; i < n; i++) {
		uint32_t hdr = 1u | (uint32_t)((ts[i] - prev) << 5), payload = (uint32_t)i;

		memcpy(page + 16 + i * 8, &hdr, 4);
		memcpy(page + 16 + i * 8 + 4, &payload, 4);
		prev = ts[i];
	}
	CHECK(write(fd, page, sizeof(page)) == (ssize_t)sizeof(page));
}

static void put_page(int fd, const uint64_t *ts, int n)
{
	put_page_flags(fd, ts, n, 0);
}

static struct pages *two_cpus(int wfd[2])
{
	struct pages *p = pages_new(tep, 2, SUBBUF);

	CHECK(p);
	for (int i = 0; i < 2; i++) {
		int fds[2];

		CHECK(pipe2(fds, O_NONBLOCK) == 0);
		fcntl(fds[1], F_SETPIPE_SZ, 16 * SUBBUF);
		CHECK(pages_add_cpu(p, i, fds[0]) == 0);
		wfd[i] = fds[1];
	}
	return p;
}

static void two_cpus_free(struct pages *p, int wfd[2])
{
	pages_free(p);
	close(wfd[0]);
	close(wfd[1]);
}

static long read_all(struct pages *p, uint64_t now, int final)
{
	char err[128];

	got[0] = '\0';
	return pages_read(p, now, final, on_record, NULL, err, sizeof(err));
}

/* The buffer was full when the stats were read (250): what it held is
 * older, what was written once the reader made room is newer. */
static void test_loss_in_place(void)
{
	static const uint64_t c0[] = { 100, 200, 300 }, c1[] = { 150, 260 };
	int wfd[2];
	struct pages *p = two_cpus(wfd);

	put_page(wfd[0], c0, 3);
	put_page(wfd[1], c1, 2);
	CHECK(pages_lost(p, 0, 250, 7) == 0);
	CHECK_INT(read_all(p, 1000, 0), 5);
	CHECK_STR(got, "c0@100 c1@150 c0@200 c0>200 c0!250=7 c1@260 c0@300");
	two_cpus_free(p, wfd);
}

/* A loss with nothing newer on its CPU waits until the merge may reach its
 * time (another CPU may still hand older records), then comes by time. */
static void test_loss_waits(void)
{
	static const uint64_t c0[] = { 100 }, c1[] = { 150 }, c1b[] = { 400, 600 };
	int wfd[2];
	struct pages *p = two_cpus(wfd);

	put_page(wfd[0], c0, 1);
	put_page(wfd[1], c1, 1);
	CHECK(pages_lost(p, 0, 500, 3) == 0);
	CHECK_INT(read_all(p, 300, 0), 2);
	CHECK_STR(got, "c0@100 c0>100 c1@150");
	put_page(wfd[1], c1b, 2);
	CHECK_INT(read_all(p, 1000, 0), 2);
	CHECK_STR(got, "c1@400 c0!500=3 c1@600");
	CHECK_INT(read_all(p, 2000, 1), 0);
	CHECK_STR(got, "");
	two_cpus_free(p, wfd);
}

/* Two looks with no record between them are one loss; an unknown count
 * stays unknown; a final read hands on what is left, whatever the time. */
static void test_losses_join(void)
{
	static const uint64_t c0[] = { 100, 900 };
	int wfd[2];
	struct pages *p = two_cpus(wfd);

	CHECK(pages_lost(p, 1, 300, 2) == 0);
	CHECK(pages_lost(p, 1, 300, 5) == 0);
	CHECK(pages_lost(p, 0, 400, -1) == 0);
	CHECK(pages_lost(p, 0, 400, 4) == 0);
	CHECK(pages_lost(p, 0, 950, 1) == 0);
	CHECK(pages_lost(p, 2, 950, 1) == -1);
	CHECK(pages_lost(p, 0, 950, 0) == -1);
	put_page(wfd[0], c0, 2);
	CHECK_INT(read_all(p, 0, 1), 2);
	CHECK_STR(got, "c0@100 c0>100 c1!300=7 c0!400=-1 c0@900 c0>900 c0!950=1");
	two_cpus_free(p, wfd);
}

/* The look before CPU 0's read: the kernel's counters said 5 dropped at
 * 250 while the buffer was full, and the writer goes on once the read
 * makes room (here: the page it writes next is in the pipe before the
 * read). The look's time bounds the merge. */
static int wfd0;

static uint64_t look(void *ctx, int cpu)
{
	static const uint64_t later[] = { 300, 400 };
	struct pages *p = ctx;

	if (cpu != 0)
		return 0;
	CHECK(pages_lost(p, 0, 250, 5) == 0);
	put_page(wfd0, later, 2);
	return 250;
}

static void test_look(void)
{
	static const uint64_t c0[] = { 100, 200 };
	int wfd[2];
	struct pages *p = two_cpus(wfd);

	wfd0 = wfd[0];
	pages_set_look(p, look, p);
	put_page(wfd[0], c0, 2);
	CHECK_INT(read_all(p, 0, 0), 2);
	CHECK_STR(got, "c0@100 c0@200 c0>200 c0!250=5");
	pages_set_look(p, NULL, NULL);
	CHECK_INT(read_all(p, 0, 1), 2);
	CHECK_STR(got, "c0@300 c0@400");
	two_cpus_free(p, wfd);
}

/* Losses wait as long as the merge cannot reach them, however many. */
static void test_many_losses(void)
{
	int wfd[2];
	struct pages *p = two_cpus(wfd);
	char want[1024] = "";

	for (int i = 1; i <= 20; i++) {
		size_t n = strlen(want);

		CHECK(pages_lost(p, 1, (uint64_t)i * 10, i) == 0);
		snprintf(want + n, sizeof(want) - n, "%sc1!%d=%d", n ? " " : "", i * 10, i);
	}
	CHECK_INT(read_all(p, 5, 0), 0);
	CHECK_STR(got, "");
	CHECK_INT(read_all(p, 0, 1), 0);
	CHECK_STR(got, want);
	two_cpus_free(p, wfd);
}

/* A page the kernel flagged (events overwritten before it): the CPU's
 * record before it ends at a gap, told before the other CPU's records
 * after it. */
static void test_gap(void)
{
	static const uint64_t c0[] = { 100, 200 }, c0b[] = { 300 }, c1[] = { 250 };
	int wfd[2];
	struct pages *p = two_cpus(wfd);

	put_page(wfd[0], c0, 2);
	put_page_flags(wfd[0], c0b, 1, 1ull << 31);
	put_page(wfd[1], c1, 1);
	CHECK_INT(read_all(p, 1000, 0), 4);
	CHECK_STR(got, "c0@100 c0@200 c0>200 c1@250 c0@300!-1");
	two_cpus_free(p, wfd);
}

/* ---- many CPUs: the merge's heap against a scan of them all ---- */

#define MANY_CPUS 200
#define MANY_RECS 24			/* records a CPU, at most */
#define MANY_LOSSES 3			/* losses a CPU, at most */

struct item {
	char kind;			/* '@' record, '!' loss, '>' gap */
	int cpu;
	uint64_t ts;
	int64_t count;
};

static struct item seq[MANY_CPUS * (MANY_RECS + 2 * MANY_LOSSES) + 1];
static size_t nseq;

static int on_item(void *ctx, const void *data, int size, int cpu, uint64_t ts,
		   int64_t missed)
{
	(void)ctx;
	(void)size;
	CHECK(nseq < sizeof(seq) / sizeof(*seq));
	if (nseq < sizeof(seq) / sizeof(*seq))
		seq[nseq++] = (struct item){ data ? '@' : missed == TRACEDAT_GAP ? '>' : '!',
					     cpu, ts, data || missed == TRACEDAT_GAP ? 0 : missed };
	return 0;
}

/* 200 CPUs, some idle, their records' times often equal across CPUs,
 * losses among them: the records, losses and gaps come out in the order
 * the rules give (the earliest first; on a tie the lowest CPU; a loss
 * after its CPU's records stamped no later; a gap after the record before
 * a loss), worked out here by looking at every CPU each time. */
static void test_many_cpus(void)
{
	static uint64_t rec[MANY_CPUS][MANY_RECS], lts[MANY_CPUS][MANY_LOSSES];
	static int nrec[MANY_CPUS], nlost[MANY_CPUS], ri[MANY_CPUS], li[MANY_CPUS];
	static struct item want[sizeof(seq) / sizeof(*seq)];
	struct pages *p = pages_new(tep, MANY_CPUS, SUBBUF);
	int wfd[MANY_CPUS];
	unsigned rnd = 12345;
	size_t nwant = 0;
	char err[128];

	CHECK(p);
	for (int c = 0; c < MANY_CPUS; c++) {
		int fds[2];
		uint64_t t = 1000;

		CHECK(pipe2(fds, O_NONBLOCK) == 0);
		CHECK(pages_add_cpu(p, c, fds[0]) == 0);
		wfd[c] = fds[1];
		rnd = rnd * 1103515245u + 12345u;
		nrec[c] = c % 7 == 3 ? 0 : (int)(rnd >> 16) % MANY_RECS + 1;
		for (int i = 0; i < nrec[c]; i++) {
			rnd = rnd * 1103515245u + 12345u;
			t += (rnd >> 16) % 4;	/* ties within and across CPUs */
			rec[c][i] = t;
		}
		if (nrec[c])
			put_page(wfd[c], rec[c], nrec[c]);
		t = 1000;
		rnd = rnd * 1103515245u + 12345u;
		nlost[c] = (int)(rnd >> 16) % (MANY_LOSSES + 1);
		for (int i = 0; i < nlost[c]; i++) {
			rnd = rnd * 1103515245u + 12345u;
			t += (rnd >> 16) % 20 + 1;
			lts[c][i] = t;
			CHECK(pages_lost(p, c, t, i + 1) == 0);
		}
	}
	for (;;) {
		int best = -1, loss = 0;
		uint64_t bts = 0;

		for (int c = 0; c < MANY_CPUS; c++) {
			int l = li[c] < nlost[c] && (ri[c] == nrec[c] || rec[c][ri[c]] > lts[c][li[c]]);
			uint64_t ts;

			if (l)
				ts = lts[c][li[c]];
			else if (ri[c] < nrec[c])
				ts = rec[c][ri[c]];
			else
				continue;
			if (best < 0 || ts < bts) {
				best = c;
				bts = ts;
				loss = l;
			}
		}
		if (best < 0)
			break;
		if (loss) {
			want[nwant++] = (struct item){ '!', best, bts, li[best] + 1 };
			li[best]++;
			continue;
		}
		want[nwant++] = (struct item){ '@', best, bts, 0 };
		ri[best]++;
		if (li[best] < nlost[best] &&
		    (ri[best] == nrec[best] || rec[best][ri[best]] > lts[best][li[best]]))
			want[nwant++] = (struct item){ '>', best, bts, 0 };
	}
	nseq = 0;
	CHECK(pages_read(p, 0, 1, on_item, NULL, err, sizeof(err)) >= 0);
	CHECK_INT((long long)nseq, (long long)nwant);
	for (size_t i = 0; i < nseq && i < nwant; i++) {
		if (seq[i].kind != want[i].kind || seq[i].cpu != want[i].cpu ||
		    seq[i].ts != want[i].ts || seq[i].count != want[i].count) {
			char g[64], w[64];

			snprintf(g, sizeof(g), "#%zu c%d%c%llu=%lld", i, seq[i].cpu, seq[i].kind,
				 (unsigned long long)seq[i].ts, (long long)seq[i].count);
			snprintf(w, sizeof(w), "#%zu c%d%c%llu=%lld", i, want[i].cpu, want[i].kind,
				 (unsigned long long)want[i].ts, (long long)want[i].count);
			CHECK_STR(g, w);
			break;
		}
	}
	pages_free(p);
	for (int c = 0; c < MANY_CPUS; c++)
		close(wfd[c]);
}

/* One read takes 256 pages of each CPU on a small machine, fewer of each
 * on many CPUs (16 MiB in all), never fewer than 16: a read of 64 CPUs
 * holding 80 pages each leaves pages on every CPU, and the reads after it
 * take the rest, in order. */
static void test_pages_per_call(void)
{
	enum { NCPU = 64, NPAGES = 80 };
	struct pages *p = pages_new(tep, NCPU, SUBBUF);
	int wfd[NCPU];
	long total = 0, r;
	int reads = 0;
	char err[128];

	CHECK_INT(pages_per_call(2, 4096), 256);
	CHECK_INT(pages_per_call(16, 4096), 256);
	CHECK_INT(pages_per_call(64, 4096), 64);
	CHECK_INT(pages_per_call(256, 4096), 16);
	CHECK_INT(pages_per_call(1024, 4096), 16);
	CHECK_INT(pages_per_call(2, 65536), 16);
	CHECK(p);
	for (int c = 0; c < NCPU; c++) {
		int fds[2];

		CHECK(pipe2(fds, O_NONBLOCK) == 0);
		CHECK(fcntl(fds[1], F_SETPIPE_SZ, 128 * SUBBUF) >= 128 * SUBBUF);
		CHECK(pages_add_cpu(p, c, fds[0]) == 0);
		wfd[c] = fds[1];
		for (int i = 0; i < NPAGES; i++) {
			uint64_t ts = 1000 + (uint64_t)i * 100 + (uint64_t)c;

			put_page(wfd[c], &ts, 1);
		}
	}
	nseq = 0;
	r = pages_read(p, UINT64_MAX, 0, on_item, NULL, err, sizeof(err));
	CHECK(pages_more(p));
	for (int c = 0; c < NCPU; c++) {
		int left = 0;

		CHECK(ioctl(wfd[c], FIONREAD, &left) == 0);
		CHECK_INT(left, (NPAGES - 64) * SUBBUF);
	}
	/* the first read merged up to the earliest CPU's last page read */
	CHECK_INT(r, 63 * NCPU + 1);
	for (total = r, reads = 1; pages_more(p) && reads < 10; reads++) {
		r = pages_read(p, UINT64_MAX, 0, on_item, NULL, err, sizeof(err));
		CHECK(r >= 0);
		total += r;
	}
	total += pages_read(p, 0, 1, on_item, NULL, err, sizeof(err));
	CHECK_INT(total, NCPU * NPAGES);
	for (size_t i = 1; i < nseq; i++)
		CHECK(seq[i - 1].ts < seq[i].ts);
	pages_free(p);
	for (int c = 0; c < NCPU; c++)
		close(wfd[c]);
}

int main(void)
{
	char *hp;

	tep = tep_alloc();
	CHECK(tep);
	tep_set_long_size(tep, 8);
	hp = strdup(kf_header_page);
	CHECK(!tep_parse_header_page(tep, hp, strlen(hp), 8));
	free(hp);
	RUN(test_loss_in_place);
	RUN(test_loss_waits);
	RUN(test_losses_join);
	RUN(test_look);
	RUN(test_many_losses);
	RUN(test_gap);
	RUN(test_many_cpus);
	RUN(test_pages_per_call);
	tep_free(tep);
	return check_done("test_pages");
}
