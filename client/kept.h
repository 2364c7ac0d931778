/* kept.h — results kept in memory, to be given to an output later.
 *
 * A batch run on a second connection while the first prints (commq's
 * latency report) cannot print as it goes: its results are kept whole
 * here and given, call by call as they came, to the output they were
 * meant for once it is that batch's turn.  Meant for small results (the
 * percentiles' one row): nothing bounds what is kept but the memory.
 */
#ifndef COMMQ_KEPT_H
#define COMMQ_KEPT_H

#include "output.h"

struct kept;

/* Returns an empty keeper, or NULL with errno set. */
struct kept *kept_new(void);

/* An output whose results go into k (an output_new_sink over it), or
 * NULL with errno set; free it with output_free() before k. */
struct output *kept_output(struct kept *k);

/* Gives what k holds to out: output_begin/row/end as they came.  Returns
 * 0, or -1 with errno set (what out returned). */
int kept_replay(const struct kept *k, struct output *out);

/* Frees k and all it kept.  Accepts NULL. */
void kept_free(struct kept *k);

#endif
