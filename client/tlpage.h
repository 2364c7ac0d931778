/* tlpage.h — the timeline as a page that draws itself (`commq timeline
 * -o FILE.html`, and the data `commq ui` serves).
 *
 * Every slice of the window, every wakeup that led to a run, every loss,
 * and the tasks they name go to the page as one JSON object; the page's
 * own script (client/timeline-page.html) lays out CPU, process and thread
 * lanes and draws what the view shows.  Nothing is merged before: at any
 * zoom a slice wider than a pixel is drawn as itself.
 */
#ifndef COMMQ_TLPAGE_H
#define COMMQ_TLPAGE_H

#include "json.h"
#include "reportsql.h"

#include <stdint.h>
#include <stdio.h>

/* The data object for a's window, streamed to out.  Logs its errors
 * (a window of more slices than a page can draw is one).  Returns 0 or
 * -1. */
int tlpage_data(const struct report_args *a, report_run_fn *run, void *ctx,
		json_put_fn *out, void *out_ctx);

/* The SQL tlpage_data runs, for --sql. */
void tlpage_sql(struct sbuf *q, const struct report_args *a);

/* The whole page, its data inline, to f.  Returns 0 or -1 (logged). */
int tlpage_write(FILE *f, const struct report_args *a, report_run_fn *run, void *ctx);

/* The page for commq ui: no data inline; it fetches data?token=TOKEN&last=
 * each second for the last last_ns.  Returns 0 or -1. */
int tlpage_live(json_put_fn *out, void *out_ctx, const char *token, int64_t last_ns);

/* The page itself (the data object comes where it says COMMD-DATA). */
extern const char commd_timeline_page[];

#endif
