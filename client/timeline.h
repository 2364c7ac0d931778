/* timeline.h — `commq timeline`: a picture of who ran on which CPU.
 *
 * One lane per CPU; the running task's comm as coloured slices (the colour
 * is a hash of the name, so it is the same in every picture); idle grey;
 * wakeups as ticks on the lane of the CPU the task then ran on; ring-buffer
 * losses hatched; a time axis relative to the capture start; a legend of
 * the busiest comms.  SVG, or HTML with the SVG inline and a little script
 * to zoom (wheel) and pan (drag).
 *
 * The slices are streamed from the query and folded into per-pixel
 * columns as they come (each column keeps the comms covering most of it),
 * so memory and the file's size depend on the picture's width and the
 * number of CPUs, never on the trace's length.
 */
#ifndef COMMQ_TIMELINE_H
#define COMMQ_TIMELINE_H

#include "reportsql.h"

/* Draws the timeline for a (or prints its SQL).  Logs its errors.
 * Returns 0 or -1. */
int timeline_run(const struct report_args *a, report_run_fn *run, void *ctx);

/* Whether -o PATH names a file timeline writes: .svg, .html or .htm (any
 * case), or "-" (SVG on stdout). */
bool timeline_can_write(const char *path);

/* WITH w0(lo, hi) and the window's rows (report_window_rows_cte): the
 * window of --from/--to, else the captures', else the slices'. */
void timeline_window_cte(struct sbuf *b, const struct report_args *a);

/* The colour of comm: rank 1..12 for the window's busiest comms (far
 * apart), 0 for the others (a hash of the name). out: "#rrggbb". */
void timeline_comm_color(const char *comm, int rank, char out[8]);

#endif
