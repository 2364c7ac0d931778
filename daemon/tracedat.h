/* tracedat.h — the offline source: records of a trace-cmd trace.dat file
 * (versions 6 and 7, compressed or not) through libtracecmd, in timestamp
 * order as trace-cmd report prints them, from one of the file's buffers
 * (the top one, or an instance recorded with `-B NAME`) or all of them
 * merged. */
#ifndef COMMD_TRACEDAT_H
#define COMMD_TRACEDAT_H

#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct tracedat;

/* Checks the file's magic and version, then opens it and looks (without
 * reading anything twice) at which buffers hold records. NULL and a
 * reason in err ("not a trace.dat file", "unsupported version 5", ...).
 * Every buffer is selected. */
struct tracedat *tracedat_open(const char *path, char *err, size_t errlen);
/* The same on a file already open (the reader owns fd from now on, also
 * on failure): for a parser that drops its privileges once it has it. */
struct tracedat *tracedat_open_fd(int fd, char *err, size_t errlen);
void tracedat_close(struct tracedat *t);

/* The time-of-day offset `trace-cmd record --date` wrote into the file
 * (ns to add to a timestamp for CLOCK_REALTIME; 0: none), read through fd
 * (a second descriptor of the same file, taken over and closed). -1 when
 * the file cannot tell. */
int tracedat_date_offset(struct tracedat *t, int fd, int64_t *offset);

/* The file's event formats (owned by t). */
struct tep_handle *tracedat_tep(struct tracedat *t);

/* Version of the file format (6 or 7). */
int tracedat_version(const struct tracedat *t);

/* The file's buffers: 0 is the top one, named "top"; then the instances
 * in the file's order, by their names ("instances/top", "instances/all"
 * for instances called top or all). */
int tracedat_buffers(const struct tracedat *t);
const char *tracedat_buffer_name(const struct tracedat *t, int i);
/* 1 when buffer i holds at least one record. */
int tracedat_buffer_has_records(const struct tracedat *t, int i);
/* Records tracedat_iterate delivered from buffer i so far. */
uint64_t tracedat_buffer_records(const struct tracedat *t, int i);

/* From now on only the buffer called name is read ("top": the top one;
 * "instances/NAME": the instance NAME), or every buffer when name is NULL. -1 when the file has no such buffer
 * (the selection is then unchanged). */
int tracedat_select(struct tracedat *t, const char *name);
int tracedat_selected(const struct tracedat *t, int i);

/* The CPUs of the selected buffers (the highest count), and whether one
 * holds a record in any of them; before tracedat_iterate only. */
int tracedat_cpus(struct tracedat *t);
int tracedat_cpu_has_records(struct tracedat *t, int cpu);

/* The recording machine as trace-cmd saved it (`uname -snrm`: "Linux vm
 * 6.18.44-fc-v769 x86_64"), NULL when the file does not say. */
const char *tracedat_uname(const struct tracedat *t);

/* The recording's trace id (trace-cmd's TRACEID option, random per
 * recording); 0 when the file has none. */
uint64_t tracedat_traceid(const struct tracedat *t);

/* The trace clock the file names ("local", "mono", "counter"...), NULL
 * when it names none. trace-cmd saves one clock per file, the one of the
 * first instance it set up: with several buffers it may not be theirs. */
const char *tracedat_clock(const struct tracedat *t);

/* Whether buffer i's timestamps, as delivered, count nanoseconds: 1 yes,
 * 0 no (the counter, uptime or x86-tsc clock without trace-cmd's
 * tsc2nsec conversion: events counted, jiffies or TSC cycles), -1
 * unknown. The kernel says so per buffer in the CPU stats trace-cmd
 * saved; without them the clock's name decides. */
int tracedat_buffer_ns(const struct tracedat *t, int i);

/* What a trace clock of this name counts when not nanoseconds ("events",
 * "jiffies", "TSC cycles"); NULL for the clocks that count nanoseconds,
 * and for no name. */
const char *tracedat_clock_units(const char *clock);

/* The clock of buffer i: tracedat_clock(), or NULL when the buffer's CPU
 * stats show that clock is not its own (they count in other units). */
const char *tracedat_buffer_clock(const struct tracedat *t, int i);

/* The events the kernel dropped because a buffer not in overwrite mode
 * was full, per selected buffer and CPU, from the CPU stats trace-cmd
 * saved when recording stopped: no page flags these (overwritten events,
 * the overruns, are the records' `missed`). fn is called for each
 * non-zero count; a non-zero return stops. Returns 0 or fn's value. */
typedef int (*tracedat_drop_fn)(void *ctx, const char *buffer, int cpu,
				uint64_t count);
int tracedat_dropped(const struct tracedat *t, tracedat_drop_fn fn, void *ctx);

/* After tracedat_iterate: each selected CPU whose file holds fewer
 * records than its CPU stats say trace-cmd read (record -m dropped its
 * oldest: missing of them, before its first record, stamped first). */
typedef int (*tracedat_trunc_fn)(void *ctx, const char *buffer, int cpu,
				 uint64_t missing, uint64_t first);
int tracedat_truncated(const struct tracedat *t, tracedat_trunc_fn fn, void *ctx);

/* Called per record, in timestamp order; missed is the number of events
 * the ring buffer dropped on that CPU just before it (0 none, -1 some,
 * count unknown). data NULL with missed TRACEDAT_GAP: no record, the
 * CPU's last one before a loss was at ts (its next record, with missed
 * set, ends the gap), called before the other CPUs' records after ts.
 * A non-zero return stops the iteration. */
typedef int (*tracedat_record_fn)(void *ctx, const void *data, int size,
				  int cpu, uint64_t ts, int64_t missed);
#define TRACEDAT_GAP INT64_MIN

/* Iterates every record of the selected buffers. Returns 0 when all were
 * seen, or the callback's non-zero value. */
int tracedat_iterate(struct tracedat *t, tracedat_record_fn fn, void *ctx);

/* The saved_cmdlines snapshot's name for pid (taken when recording
 * stopped), or NULL. ctx is the struct tracedat. */
const char *tracedat_cmdline(void *ctx, int32_t pid);

#endif
