/* fuzz-pages.c — raw ring-buffer sub-buffers through the page reader
 * (daemon/pages.c) and the pipeline.
 *
 * The input is a control byte and then sub-buffers (4096 bytes each, the
 * last one possibly short, as a read of trace_pipe_raw can be). Page i
 * goes to CPU i % ncpus. Each CPU's "trace_pipe_raw" is a non-blocking
 * pipe the harness writes the pages into, so the reader itself reads,
 * pools, zero-pads, checks, iterates with kbuffer and merges the CPUs by
 * timestamp: once with final = 0 after the first `split` pages (`now`
 * the end of time: only a CPU read to its limit holds the merge back),
 * then with final = 1. Every record goes to the pipeline (decode,
 * resolve, derive, store) the way daemon.c's on_record hands it over,
 * into one in-memory store whose transaction is rolled back after each
 * input.
 *
 * The event formats are this kernel's (kernel-formats.h, written by
 * gen-formats.sh), parsed the way tracefs_local_events_system does.
 *
 * Control byte: bits 0-1 ncpus - 1, bits 2-7 split (pages in the first
 * read). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "fuzz.h"
#include "kernel-formats.h"
#include "log.h"
#include "pages.h"
#include "pipeline.h"
#include "store.h"

#define SUBBUF 4096
#define MAX_PAGES 32

static struct tep_handle *tep;
static struct store *store;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[256], *hp;
	int bigendian = tep_is_bigendian();

	(void)argc;
	(void)argv;
	if (!getenv("FUZZ_VERBOSE"))
		log_set_max_priority(LOG_CRIT);
	tep = tep_alloc();
	FUZZ_CHECK(tep, "tep_alloc");
	tep_set_file_bigendian(tep, bigendian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, bigendian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, (int)sizeof(long));
	hp = strdup(kf_header_page);
	FUZZ_CHECK(hp && !tep_parse_header_page(tep, hp, strlen(hp), (int)sizeof(long)),
		   "the header_page format does not parse");
	free(hp);
	for (size_t i = 0; i < sizeof(kf_events) / sizeof(kf_events[0]); i++)
		FUZZ_CHECK(tep_parse_event(tep, kf_events[i].format,
					   strlen(kf_events[i].format),
					   kf_events[i].system) == 0,
			   "format %zu does not parse", i);
	store = store_open(":memory:", STORE_LIVE, err, sizeof(err));
	FUZZ_CHECK(store, "store_open(:memory:): %s", err);
	return 0;
}

struct ctx {
	struct pages *l;
	int ncpus;
	struct pipeline *pipe;
	uint64_t records;
};

/* daemon.c's on_record, plus the checks: the record lies inside the page
 * it was read from. */
static int on_record(void *arg, const void *data, int size, int cpu,
		     uint64_t ts, int64_t missed)
{
	struct ctx *x = arg;
	const unsigned char *page;
	size_t len = 0;

	FUZZ_CHECK(cpu >= 0 && cpu < x->ncpus, "cpu %d", cpu);
	if (!data) {
		/* a gap: the CPU's record at ts was its last before a loss */
		FUZZ_CHECK(missed == TRACEDAT_GAP && size == 0, "no record, missed %lld",
			   (long long)missed);
		pipeline_gap(x->pipe, cpu, ts);
		return 0;
	}
	page = pages_current(x->l, cpu, &len);
	FUZZ_CHECK(page, "a record of cpu %d without a page", cpu);
	FUZZ_CHECK(size >= 0, "record size %d", size);
	FUZZ_CHECK((const uint8_t *)data >= page &&
		   (const uint8_t *)data + size <= page + len,
		   "record [%p, +%d) outside its page [%p, +%zu)", data, size,
		   (const void *)page, len);
	fuzz_touch(data, (size_t)size);
	if (missed && pipeline_lost(x->pipe, cpu, ts, missed > 0 ? missed : -1))
		FUZZ_CHECK(0, "pipeline_lost: %s", store_errmsg(store));
	if (pipeline_record(x->pipe, data, size, cpu, ts))
		FUZZ_CHECK(0, "pipeline_record: %s", store_errmsg(store));
	x->records++;
	return 0;
}

static void write_pages(int ncpus, const int *wfd, const uint8_t *data,
			size_t size, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		size_t off = i * SUBBUF, n = size - off < SUBBUF ? size - off : SUBBUF;

		FUZZ_CHECK(write(wfd[i % (size_t)ncpus], data + off, n) == (ssize_t)n,
			   "writing page %zu into the pipe: %s", i, strerror(errno));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	struct ctx x = { 0 };
	int wfd[4], ncpus;
	size_t npages, split;
	long n;

	if (size < 1)
		return 0;
	npages = (size - 1 + SUBBUF - 1) / SUBBUF;
	if (npages > MAX_PAGES)
		return 0;
	ncpus = 1 + (data[0] & 3);
	x.ncpus = ncpus;
	x.l = pages_new(tep, ncpus, SUBBUF);
	FUZZ_CHECK(x.l, "pages_new");
	for (int i = 0; i < ncpus; i++) {
		int fds[2];

		FUZZ_CHECK(pipe2(fds, O_NONBLOCK | O_CLOEXEC) == 0, "pipe2");
		fcntl(fds[1], F_SETPIPE_SZ, MAX_PAGES * SUBBUF);
		FUZZ_CHECK(pages_add_cpu(x.l, i, fds[0]) == 0, "pages_add_cpu");
		wfd[i] = fds[1];
	}
	split = (size_t)(data[0] >> 2);
	if (split > npages)
		split = npages;
	data++;
	size--;

	x.pipe = pipeline_new(tep, store, err, sizeof(err));
	FUZZ_CHECK(x.pipe, "pipeline_new: %s", err);
	FUZZ_CHECK(store_begin(store) == 0, "store_begin: %s", store_errmsg(store));
	write_pages(ncpus, wfd, data, size, 0, split);
	n = pages_read(x.l, UINT64_MAX, 0, on_record, &x, err, sizeof(err));
	FUZZ_CHECK(n >= 0, "pages_read: %s", err);
	write_pages(ncpus, wfd, data, size, split, npages);
	n = pages_read(x.l, 0, 1, on_record, &x, err, sizeof(err));
	FUZZ_CHECK(n >= 0, "pages_read (final): %s", err);
	for (int i = 0; i < ncpus; i++) {
		size_t len;

		FUZZ_CHECK(!pages_current(x.l, i, &len),
			   "cpu %d has a record left after the final read", i);
	}
	pipeline_finish(x.pipe, NULL, NULL);
	FUZZ_CHECK(pipeline_sync_names(x.pipe) == 0 && pipeline_write_stats(x.pipe, 1) == 0,
		   "storing names and stats: %s", store_errmsg(store));
	pipeline_events_seen(x.pipe);
	FUZZ_CHECK(store_rollback(store) == 0, "store_rollback: %s", store_errmsg(store));
	pipeline_free(x.pipe);
	for (int i = 0; i < ncpus; i++)
		close(wfd[i]);
	pages_free(x.l);
	return 0;
}
