/* pages.h — the ring buffer's raw sub-buffers, read per CPU from file
 * descriptors (a tracefs instance's per_cpu/cpuN/trace_pipe_raw, or
 * anything that gives the same bytes: the fuzzer's pipes) and handed on
 * as records in timestamp order across the CPUs.
 *
 * A page is checked before libtraceevent's kbuffer walks it (a commit or
 * an event length that does not hold together cuts the page at its last
 * good event, and the records after the cut count as lost); the page
 * header's missed-events flags become each CPU's loss on its next record.
 * Drops the kernel counts only in its stats (non-overwrite mode) are
 * placed in a CPU's records by the time they were seen (pages_lost).
 * Pages are read in steps (at most 256 a CPU a call), and a free list
 * keeps one read's worth for the next. */
#ifndef COMMD_PAGES_H
#define COMMD_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include "tracedat.h"	/* tracedat_record_fn: one record callback type */

struct tep_handle;
struct pages;

/* A reader for ncpus CPUs of sub-buffers of subbuf bytes, whose page
 * header format tep holds (not owned). NULL when out of memory. */
struct pages *pages_new(struct tep_handle *tep, int ncpus, size_t subbuf);

/* The sub-buffers one (not final) pages_read takes from a CPU at most, on
 * a machine of ncpus: fewer on more CPUs (pages.c says how many). */
int pages_per_call(int ncpus, size_t subbuf);

/* Reads CPU cpu from fd (non-blocking; taken over: pages_free closes it).
 * 0, or -1 (fd closed). */
int pages_add_cpu(struct pages *p, int cpu, int fd);

/* CPU cpu's descriptor, -1 when it has none. */
int pages_fd(const struct pages *p, int cpu);

/* Reads what every CPU has now and hands the records to fn in timestamp
 * order: those no later than `now` (the trace clock just before the
 * reads: whatever a CPU writes after it was found empty is stamped
 * later) or than a CPU's last page read when it was not emptied; later
 * ones may still be overtaken by another CPU's and wait for the next
 * call. final: every record. Returns the number of records, or -1 with
 * err set (a read error) or fn's non-zero result as -2. */
long pages_read(struct pages *p, uint64_t now, int final,
		tracedat_record_fn fn, void *ctx, char *err, size_t errlen);

/* The kernel counted count events of CPU cpu dropped (-1: an unknown
 * number), seen at ts on the trace clock while its buffer was still full:
 * every event of the CPU stamped before ts was written before the drops,
 * every later one after them. The loss is handed to fn in that place of
 * the CPU's records, as a record of its own (data NULL, size 0, missed =
 * count) stamped ts. 0, or -1 (out of range). */
int pages_lost(struct pages *p, int cpu, uint64_t ts, int64_t count);

/* Called by pages_read right before it reads CPU cpu: the trace clock
 * then (0: unknown), its own look at the CPU's counters (which may call
 * pages_lost: drops seen there lie before what this read brings). */
typedef uint64_t pages_look_fn(void *ctx, int cpu);
void pages_set_look(struct pages *p, pages_look_fn *fn, void *ctx);

/* CPU cpu had no buffer at its last read (offline since before the
 * instance was made: ENODEV until it comes online); its descriptor is
 * always ready with POLLERR then, and is left out of a poll. */
int pages_absent(const struct pages *p, int cpu);

/* The last read stopped short: pages remain to be read now. */
int pages_more(const struct pages *p);

/* The page CPU cpu's current record lies in (len: its size), NULL when
 * the CPU has no record waiting. */
const unsigned char *pages_current(const struct pages *p, int cpu, size_t *len);

/* Closes every descriptor and frees every page. Accepts NULL. */
void pages_free(struct pages *p);

#endif
