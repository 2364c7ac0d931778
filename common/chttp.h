/* chttp.h — ClickHouse's HTTP interface as commd's shipper and
 * `commq --clickhouse` use it: a URL http://HOST[:PORT]/[PATH][?database=DB]
 * (port 8123, database commd when not given), and POST requests that
 * return once answered (libevent's evhttp on an event base of its own).
 * Not thread-safe: one user at a time. */
#ifndef COMMD_CHTTP_H
#define COMMD_CHTTP_H

#include <time.h>

struct evbuffer;
struct event_base;
struct evhttp_connection;

struct chttp {
	char *host, *path, *database;
	int port;
	int timeout_s;			/* per request */
	struct event_base *base;	/* made at the first request */
	struct evhttp_connection *conn;
	time_t used;			/* conn's last answer */
};

/* Parses url into c (timeout_s per request). 0, or -1: not such a URL,
 * or out of memory (errno ENOMEM). */
int chttp_open(struct chttp *c, const char *url, int timeout_s);
void chttp_close(struct chttp *c);

/* POSTs body (NULL: none; drained) to the URL's path with the query
 * parameters database=DB and then params (escaped already: "" or
 * "&query=..."), headers a NULL-terminated list of name, value pairs
 * (NULL: none but Host). The answer's body is appended to out. Returns the
 * HTTP status, 0 when no answer came (the connection is dropped). */
int chttp_post(struct chttp *c, const char *params, const char *const *headers,
	       struct evbuffer *body, struct evbuffer *out);

#endif
