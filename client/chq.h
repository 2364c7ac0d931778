/* chq.h — `commq --clickhouse URL`: SQL on a ClickHouse cluster (the one
 * commd ships to, docs/fleet.md) over its HTTP interface, printed in
 * commq's output modes; and the fleet's reports (top and latency by host).
 */
#ifndef COMMQ_CHQ_H
#define COMMQ_CHQ_H

#include "output.h"
#include "reportsql.h"
#include "wire.h"

struct chq;

/* url: http://HOST[:PORT]/[?database=DB] (default commd).  NULL with err
 * set when it is not one. */
struct chq *chq_new(const char *url, struct query_error *err);
void chq_free(struct chq *c);

/* Runs one statement, its rows to out.  0, or -1 with err set (the
 * server's own message). */
int chq_run(struct chq *c, const char *sql, struct output *out, struct query_error *err);

/* The SQL of a fleet report (top --by host, latency --by host) into *sql
 * (malloc'd).  0, or -1 logged. */
int chq_report_sql(const struct report_args *a, char **sql);

#endif
