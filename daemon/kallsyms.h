/* kallsyms.h — a trace.dat's kallsyms parsed when a stack needs them.
 *
 * libtracecmd parses a file's kallsyms section (tep_parse_kallsyms: one
 * sscanf per symbol) while it reads the headers, before the first record,
 * whether or not the file holds a single stack to symbolise: on this
 * kernel 121,416 symbols, 450 M instructions (7% of importing a 782 k-event
 * recording: 630 ms, 581 ms without it), all of it before the store's
 * writer has anything to do. commd defines tep_parse_kallsyms itself (the
 * executable's definition is the one the libraries' calls bind to) and
 * decides by the mode set here:
 *   KALLSYMS_NOW    parse at once with libtraceevent's own function (live
 *                   capture's /proc/kallsyms; the default);
 *   KALLSYMS_LATER  keep a copy of the text for that tep: kallsyms_load
 *                   parses it the first time a stack is symbolised;
 *   KALLSYMS_NEVER  drop it (a second handle that only reads timestamps).
 * If the definition were not the one bound (a static libtraceevent, say),
 * the libraries parse at once as before: slower, never different. */
#ifndef COMMD_KALLSYMS_H
#define COMMD_KALLSYMS_H

struct tep_handle;

enum kallsyms_mode { KALLSYMS_NOW, KALLSYMS_LATER, KALLSYMS_NEVER };

/* Sets the mode for the calls that follow; returns the one before. */
enum kallsyms_mode kallsyms_mode(enum kallsyms_mode mode);

/* Parses what KALLSYMS_LATER kept for tep, if anything: 0, or -1 when
 * libtraceevent's parser failed or memory ran out (the stack's frames
 * then stay addresses). */
int kallsyms_load(struct tep_handle *tep);

/* Drops what was kept for tep: before tep is freed. */
void kallsyms_forget(struct tep_handle *tep);

/* How many texts are kept (tests). */
int kallsyms_pending(void);

#endif
