/* export.h — `commq export --chrome-json FILE`: the sched slices as a
 * Chrome trace-event JSON file, which the Perfetto UI (ui.perfetto.dev)
 * and chrome://tracing open.
 *
 * The layout (commd-tables(5) has the tables):
 *
 *   - one process "CPUs" (pid EXPORT_CPUS_PID, which no Linux task can
 *     have) with one thread per CPU, named "CPU N" and sorted by N; its
 *     tid is EXPORT_CPUS_PID + 1 + N, so a CPU's track never shares a
 *     tid with a task's;
 *   - one complete event (ph "X") per sched slice of a task on its CPU's
 *     track: name the comm, ts and dur in µs with three decimals (the ns
 *     stay exact), args cpu, pid (the thread group, null if unknown),
 *     tid (the task), prio, end_state (the kernel's prev_state), and
 *     lost: true when a loss makes the slice's end uncertain.  Idle
 *     slices (pid 0) are left out: a gap on a CPU track is idle.  With
 *     --from/--to a slice counts for its part inside the window, as in
 *     `commq top`;
 *   - metadata (ph "M") from comm_history for the tasks alive in the
 *     window: thread_name (pid = tgid, tid = pid) with the task's last
 *     name, and process_name for thread group leaders;
 *   - an instant event (ph "i", "events lost") per lost_events record,
 *     on its CPU's track (global when the CPU is unknown), args count;
 *   - otherData: the exporter, the capture's source, the window.
 *
 * Written as the rows stream in, one event a line, to a temporary file
 * renamed over FILE when complete ('-': stdout): memory does not grow with
 * the trace.
 */
#ifndef COMMQ_EXPORT_H
#define COMMQ_EXPORT_H

#include "reportsql.h"

/* PID_MAX_LIMIT (4 * 1024 * 1024): above every Linux pid. */
#define EXPORT_CPUS_PID 4194304

/* Writes the export of a (or prints its SQL).  Logs its errors.  Returns
 * 0 or -1; on failure FILE is left as it was. */
int export_run(const struct report_args *a, report_run_fn *run, void *ctx);

#endif
