/* chttp.c — see chttp.h. */
#include "chttp.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int chttp_open(struct chttp *c, const char *url, int timeout_s)
{
	struct evhttp_uri *u = evhttp_uri_parse(url);
	struct evkeyvalq params = { 0 };
	const char *scheme, *host, *path, *query, *d = NULL;

	memset(c, 0, sizeof(*c));
	c->timeout_s = timeout_s;
	if (!u) {
		errno = EINVAL;
		return -1;
	}
	scheme = evhttp_uri_get_scheme(u);
	host = evhttp_uri_get_host(u);
	if (!scheme || strcmp(scheme, "http") || !host || !*host) {
		evhttp_uri_free(u);
		errno = EINVAL;
		return -1;
	}
	c->host = strdup(host);
	c->port = evhttp_uri_get_port(u) > 0 ? evhttp_uri_get_port(u) : 8123;
	path = evhttp_uri_get_path(u);
	c->path = strdup(path && *path ? path : "/");
	query = evhttp_uri_get_query(u);
	if (query && evhttp_parse_query_str(query, &params) == 0)
		d = evhttp_find_header(&params, "database");
	c->database = strdup(d ? d : "commd");
	evhttp_clear_headers(&params);
	evhttp_uri_free(u);
	if (!c->host || !c->path || !c->database) {
		chttp_close(c);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void chttp_close(struct chttp *c)
{
	if (c->conn)
		evhttp_connection_free(c->conn);
	if (c->base)
		event_base_free(c->base);
	free(c->host);
	free(c->path);
	free(c->database);
	memset(c, 0, sizeof(*c));
}

struct reply {
	int status;
	bool done;
	struct evbuffer *body;
};

static void on_reply(struct evhttp_request *req, void *arg)
{
	struct reply *r = arg;

	r->done = true;
	if (!req)
		return;
	r->status = evhttp_request_get_response_code(req);
	evbuffer_add_buffer(r->body, evhttp_request_get_input_buffer(req));
}

static void drop_conn(struct chttp *c)
{
	if (c->conn)
		evhttp_connection_free(c->conn);
	c->conn = NULL;
}

int chttp_post(struct chttp *c, const char *params, const char *const *headers,
	       struct evbuffer *body, struct evbuffer *out)
{
	struct reply r = { .body = out };
	struct evhttp_request *req = NULL;
	struct evbuffer *uri = evbuffer_new();
	struct evkeyvalq *h;
	char *db = evhttp_encode_uri(c->database);

	if (!c->base)
		c->base = event_base_new();
	/* ClickHouse closes a connection idle for keep_alive_timeout (3 s by
	 * default): one idle longer than a second is not used again. */
	if (c->conn && time(NULL) - c->used > 1)
		drop_conn(c);
	if (!c->conn && c->base) {
		c->conn = evhttp_connection_base_new(c->base, NULL, c->host,
						     (unsigned short)c->port);
		if (c->conn)
			evhttp_connection_set_timeout(c->conn, c->timeout_s);
	}
	if (c->conn)
		req = evhttp_request_new(on_reply, &r);
	if (!uri || !db || !req ||
	    evbuffer_add_printf(uri, "%s%sdatabase=%s%s", c->path,
				strchr(c->path, '?') ? "&" : "?", db, params) < 0 ||
	    evbuffer_add(uri, "", 1) < 0) {
		if (req)
			evhttp_request_free(req);
		goto out;
	}
	h = evhttp_request_get_output_headers(req);
	evhttp_add_header(h, "Host", c->host);
	for (size_t i = 0; headers && headers[i]; i += 2)
		evhttp_add_header(h, headers[i], headers[i + 1]);
	if (body)
		evbuffer_add_buffer(evhttp_request_get_output_buffer(req), body);
	/* the connection owns req from here, answered or not */
	if (evhttp_make_request(c->conn, req, EVHTTP_REQ_POST,
				(const char *)evbuffer_pullup(uri, -1)) != 0) {
		drop_conn(c);
		goto out;
	}
	while (!r.done)
		if (event_base_loop(c->base, EVLOOP_ONCE) < 0)
			break;
	c->used = time(NULL);
	if (r.status == 0)
		drop_conn(c);
out:
	if (uri)
		evbuffer_free(uri);
	free(db);
	return r.status;
}
