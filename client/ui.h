/* ui.h — `commq ui`: the timeline page, live, from a running daemon.
 *
 * Serves the page of `commq timeline -o FILE.html` over HTTP on a loopback
 * address (libevent's evhttp), following the last N seconds as they are
 * committed: the page asks for them again each second (until paused).
 * Every request must carry the random token printed with the address; its
 * queries go through commq's own connection, as the user who ran it.
 */
#ifndef COMMQ_UI_H
#define COMMQ_UI_H

#include "reportsql.h"

#include <stddef.h>
#include <stdint.h>

/* Serves until SIGINT or SIGTERM.  a->listen: where ("HOST:PORT", loopback
 * only; NULL: 127.0.0.1 and a port the kernel picks); a->from with last:
 * the window (default 10 s).  Returns 0, or -1 logged. */
int ui_run(const struct report_args *a, report_run_fn *run, void *ctx);

/* --listen's value into host and port; a host off loopback is refused.
 * Returns 0, or -1 logged. */
int ui_parse_listen(const char *s, char *host, size_t size, uint16_t *port);

#endif
