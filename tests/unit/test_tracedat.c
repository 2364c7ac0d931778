/* test_tracedat.c — tracedat_iterate over the fixtures: it stops at the
 * callback's non-zero return (libtracecmd 3.1's iterators go on: an
 * interrupted import ran to the file's end), it goes on past a record
 * flagged with missed events whose event has no format (libtracecmd
 * 3.1's iterators ended every CPU there, silently), and it tells the gap
 * before such a record: the CPU's record before it, its last, before
 * the other CPUs' records after it. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tracedat.h"

/* libtracecmd 3.1 leaks the clock name it parses from a version 6 file
 * (tracecmd_parse_trace_clock's sscanf %ms; valgrind shows the stack):
 * not commd's, whose import reads a file in a child that exits. The
 * whole stack is needed to name it (libc's frames have no frame
 * pointers). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tracecmd_parse_trace_clock\n";
}

static char dir[] = "/tmp/commd-test-tracedat.XXXXXX";
static char v6[4096];

struct seen {
	long records, gaps, missed, stop_at;
	uint64_t last_ts;		/* ordered: never back */
	int back;
	int gap_cpu;
	uint64_t gap_ts, cpu_last[2];	/* the gap's CPU's record before it */
	int gap_at_last;
};

static int on_record(void *ctx, const void *data, int size, int cpu,
		     uint64_t ts, int64_t missed)
{
	struct seen *s = ctx;

	(void)size;
	if (!data) {
		CHECK(missed == TRACEDAT_GAP);
		s->gaps++;
		s->gap_cpu = cpu;
		s->gap_ts = ts;
		s->gap_at_last = cpu >= 0 && cpu < 2 && s->cpu_last[cpu] == ts;
		return 0;
	}
	if (ts < s->last_ts)
		s->back = 1;
	s->last_ts = ts;
	if (cpu >= 0 && cpu < 2)
		s->cpu_last[cpu] = ts;
	s->missed += missed != 0;
	return ++s->records == s->stop_at;
}

static struct tracedat *open_file(const char *path)
{
	char err[256] = "";
	struct tracedat *t = tracedat_open(path, err, sizeof(err));

	if (!t)
		fprintf(stderr, "%s: %s\n", path, err);
	CHECK(t);
	return t;
}

static void test_stops(void)
{
	struct tracedat *t = open_file(v6);
	struct seen s = { .stop_at = 3 };

	if (!t)
		return;
	CHECK_INT(tracedat_iterate(t, on_record, &s), 1);
	CHECK_INT(s.records, 3);
	tracedat_close(t);
}

/* sched-v6.dat's CPU 1, its sixth page: the commit word flagged with
 * RB_MISSED_EVENTS (bit 31) and its first record's common_type one no
 * format has. */
#define PAGE_OFF (77824 + 5 * 4096)

static void test_missed_unknown_event(void)
{
	char path[4200];
	struct seen all = { 0 }, s = { 0 };
	struct tracedat *t = open_file(v6);
	FILE *f = fopen(v6, "rb");
	unsigned char *d = malloc(1 << 20);
	size_t n = f && d ? fread(d, 1, 1 << 20, f) : 0;
	uint64_t commit;
	uint32_t hdr;

	if (f)
		fclose(f);
	if (!t || !d || n < PAGE_OFF + 4096)
		goto out;
	CHECK_INT(tracedat_iterate(t, on_record, &all), 0);
	tracedat_close(t);
	t = NULL;
	CHECK_INT(all.records, 1856);
	CHECK_INT(all.gaps, 0);
	CHECK(!all.back);
	memcpy(&commit, d + PAGE_OFF + 8, 8);
	memcpy(&hdr, d + PAGE_OFF + 16, 4);
	/* the fixture as it was: a page of events, a small event first */
	CHECK_INT(commit, 0xfd8);
	CHECK((hdr & 31) > 0 && (hdr & 31) < 29);
	commit |= 1ull << 31;
	memcpy(d + PAGE_OFF + 8, &commit, 8);
	d[PAGE_OFF + 20] = 0x0f;		/* common_type 9999 */
	d[PAGE_OFF + 21] = 0x27;
	snprintf(path, sizeof(path), "%s/missed.dat", dir);
	f = fopen(path, "wb");
	CHECK(f && fwrite(d, 1, n, f) == n);
	if (f)
		fclose(f);
	t = open_file(path);
	if (!t)
		goto out;
	CHECK_INT(tracedat_iterate(t, on_record, &s), 0);
	CHECK_INT(s.records, 1856);	/* every record, the unknown one too */
	CHECK_INT(s.missed, 1);
	CHECK_INT(s.gaps, 1);
	CHECK_INT(s.gap_cpu, 1);
	CHECK(s.gap_at_last);		/* told right after CPU 1's record before */
	CHECK(!s.back);
	unlink(path);
out:
	if (t)
		tracedat_close(t);
	free(d);
}

int main(void)
{
	const char *data = getenv("TESTDATA");

	if (!data) {
		fprintf(stderr, "TESTDATA not set\n");
		return 1;
	}
	snprintf(v6, sizeof(v6), "%s/sched-v6.dat", data);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_stops);
	RUN(test_missed_unknown_event);
	rmdir(dir);
	return check_done("test_tracedat");
}
