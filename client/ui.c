/* ui.c — see ui.h.
 *
 * One thread, one libevent loop: evhttp on a loopback address answers
 *   GET /?token=T          the timeline page (tlpage), in live mode
 *   GET /data?token=T[&last=SECONDS]
 *                          the data object of the last SECONDS (tlpage_data)
 * and 403 to any request without the token, 404 elsewhere.  Each /data
 * runs its queries through the same run function as every report, so over
 * the daemon's socket they run as the user who started commq ui: the
 * socket's group check decides what the page may see.
 */
#include "ui.h"
#include "tlpage.h"
#include "log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#define DEFAULT_LAST_NS	(10 * 1000000000LL)
#define MAX_LAST_NS	(3600 * 1000000000LL)

struct ui {
	const struct report_args *args;
	report_run_fn *run;
	void *run_ctx;
	char token[33];
	int64_t last_ns;
	uint64_t requests, refused;
};

/* Whether host names a loopback address (127.0.0.0/8, ::1, localhost). */
static bool loopback(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (!strcmp(host, "localhost"))
		return true;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6);
	return false;
}

/* "HOST:PORT", "[V6]:PORT", ":PORT" or "HOST"; NULL: 127.0.0.1, a port
 * the kernel picks.  Returns 0, or -1 logged. */
int ui_parse_listen(const char *s, char *host, size_t size, uint16_t *port)
{
	const char *colon;
	char *end;
	unsigned long p = 0;
	size_t n;

	snprintf(host, size, "127.0.0.1");
	*port = 0;
	if (!s)
		return 0;
	if (*s == '[') {
		const char *close = strchr(s, ']');

		if (!close || (close[1] && close[1] != ':'))
			goto bad;
		n = (size_t)(close - s - 1);
		colon = close[1] ? close + 1 : NULL;
		s++;
	} else {
		colon = strrchr(s, ':');
		n = colon ? (size_t)(colon - s) : strlen(s);
	}
	if (n >= size)
		goto bad;
	if (n) {
		memcpy(host, s, n);
		host[n] = '\0';
	}
	if (colon) {
		errno = 0;
		p = strtoul(colon + 1, &end, 10);
		if (!colon[1] || *end || errno || p > 65535)
			goto bad;
	}
	*port = (uint16_t)p;
	if (!loopback(host)) {
		log_error("--listen %s: commq ui listens on loopback only (127.0.0.1, "
			  "::1 or localhost); reach it from elsewhere through an SSH "
			  "tunnel", host);
		return -1;
	}
	return 0;
bad:
	log_error("--listen takes HOST:PORT on loopback, such as 127.0.0.1:8087");
	return -1;
}

static void reply(struct evhttp_request *req, int code, const char *reason,
		  const char *type, struct evbuffer *body)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);

	evhttp_add_header(h, "Content-Type", type);
	evhttp_add_header(h, "Cache-Control", "no-store");
	evhttp_add_header(h, "X-Content-Type-Options", "nosniff");
	evhttp_add_header(h, "Referrer-Policy", "no-referrer");
	evhttp_send_reply(req, code, reason, body);
}

static void reply_text(struct evhttp_request *req, int code, const char *reason,
		       const char *text)
{
	struct evbuffer *b = evbuffer_new();

	if (b)
		evbuffer_add_printf(b, "%s\n", text);
	reply(req, code, reason, "text/plain; charset=utf-8", b);
	if (b)
		evbuffer_free(b);
}

/* Compares without stopping at the first difference. */
static bool token_ok(const char *want, const char *got)
{
	size_t n = strlen(want);
	unsigned char d = 0;

	if (!got || strlen(got) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)(want[i] ^ got[i]);
	return d == 0;
}

static void put_evbuffer(void *ctx, const char *p, size_t n)
{
	evbuffer_add(ctx, p, n);
}

static void serve_data(struct ui *u, struct evhttp_request *req, const char *last)
{
	struct report_args a = *u->args;
	struct evbuffer *b = evbuffer_new();
	int64_t ns = u->last_ns;

	if (last) {
		char *end;
		double s = strtod(last, &end);

		if (end == last || *end || !(s >= 1e-6) || s * 1e9 > (double)MAX_LAST_NS) {
			if (b)
				evbuffer_free(b);
			reply_text(req, 400, "Bad Request", "last: seconds, 1e-6 to 3600");
			return;
		}
		ns = (int64_t)(s * 1e9);
	}
	if (!b) {
		reply_text(req, 500, "Internal Server Error", strerror(ENOMEM));
		return;
	}
	a.kind = REPORT_TIMELINE;
	a.from = (struct report_time){ .set = true, .last = true, .ns = ns };
	/* up to the newest event (not the end of the last capture that ended:
	 * a restarted daemon's file has one before the running capture) */
	a.to = (struct report_time){ .set = true, .last = true, .ns = 0 };
	if (tlpage_data(&a, u->run, u->run_ctx, put_evbuffer, b) < 0) {
		evbuffer_free(b);
		reply_text(req, 500, "Internal Server Error",
			   "the query failed: commq ui's standard error says why");
		return;
	}
	reply(req, 200, "OK", "application/json", b);
	evbuffer_free(b);
}

static void serve_page(struct ui *u, struct evhttp_request *req)
{
	struct evbuffer *b = evbuffer_new();

	if (!b || tlpage_live(put_evbuffer, b, u->token, u->last_ns) < 0) {
		if (b)
			evbuffer_free(b);
		reply_text(req, 500, "Internal Server Error", strerror(ENOMEM));
		return;
	}
	reply(req, 200, "OK", "text/html; charset=utf-8", b);
	evbuffer_free(b);
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct ui *u = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	const char *query = uri ? evhttp_uri_get_query(uri) : NULL;
	struct evkeyvalq params = { 0 };
	bool parsed = query && evhttp_parse_query_str(query, &params) == 0;

	u->requests++;
	if (!token_ok(u->token, parsed ? evhttp_find_header(&params, "token") : NULL)) {
		u->refused++;
		reply_text(req, 403, "Forbidden", "forbidden: this address needs the token "
			   "commq ui printed (…/?token=…)");
	} else if (evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		reply_text(req, 405, "Method Not Allowed", "GET only");
	} else if (!path || !strcmp(path, "/") || !*path) {
		serve_page(u, req);
	} else if (!strcmp(path, "/data")) {
		serve_data(u, req, evhttp_find_header(&params, "last"));
	} else {
		reply_text(req, 404, "Not Found", "not found");
	}
	if (parsed)
		evhttp_clear_headers(&params);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	event_base_loopbreak(arg);
}

int ui_run(const struct report_args *a, report_run_fn *run, void *ctx)
{
	struct ui u = { .args = a, .run = run, .run_ctx = ctx,
			.last_ns = a->from.set && a->from.last ? a->from.ns : DEFAULT_LAST_NS };
	unsigned char raw[16];
	char host[128];
	uint16_t port;
	struct event_base *base = NULL;
	struct evhttp *http = NULL;
	struct evhttp_bound_socket *sock;
	struct event *sigint = NULL, *sigterm = NULL;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int ret = -1;

	if (ui_parse_listen(a->listen, host, sizeof(host), &port) < 0)
		return -1;
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		log_error("ui: no random token: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(u.token + 2 * i, 3, "%02x", raw[i]);
	signal(SIGPIPE, SIG_IGN);
	base = event_base_new();
	http = base ? evhttp_new(base) : NULL;
	if (!http) {
		log_error("ui: %s", strerror(ENOMEM));
		goto out;
	}
	evhttp_set_allowed_methods(http, EVHTTP_REQ_GET);
	evhttp_set_max_headers_size(http, 16384);
	evhttp_set_max_body_size(http, 0);
	evhttp_set_timeout(http, 30);
	evhttp_set_gencb(http, on_request, &u);
	sock = evhttp_bind_socket_with_handle(http, strcmp(host, "localhost") ? host
							: "127.0.0.1", port);
	if (!sock) {
		log_error("ui: cannot listen on %s:%u: %s", host, port, strerror(errno));
		goto out;
	}
	if (getsockname(evhttp_bound_socket_get_fd(sock), (struct sockaddr *)&ss, &len) == 0)
		port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						      : ((struct sockaddr_in *)&ss)->sin_port);
	sigint = evsignal_new(base, SIGINT, on_signal, base);
	sigterm = evsignal_new(base, SIGTERM, on_signal, base);
	if (!sigint || !sigterm || evsignal_add(sigint, NULL) || evsignal_add(sigterm, NULL)) {
		log_error("ui: %s", strerror(ENOMEM));
		goto out;
	}
	printf("commq ui: open http://%s%s%s:%u/?token=%s\n"
	       "(the last %.3g s, as they are committed; Ctrl-C stops it)\n",
	       strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "", port,
	       u.token, (double)u.last_ns / 1e9);
	fflush(stdout);
	if (event_base_dispatch(base) < 0) {
		log_error("ui: the event loop failed");
		goto out;
	}
	ret = 0;
out:
	if (sigint)
		event_free(sigint);
	if (sigterm)
		event_free(sigterm);
	if (http)
		evhttp_free(http);
	if (base)
		event_base_free(base);
	return ret;
}
