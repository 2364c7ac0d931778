/* chq.c — see chq.h. */
#define _GNU_SOURCE
#include "chq.h"
#include "log.h"
#include "chttp.h"

#include <ctype.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct chq {
	struct chttp ch;
};

struct chq *chq_new(const char *url, struct query_error *err)
{
	struct chq *c = calloc(1, sizeof(*c));

	if (!c) {
		query_error_set(err, -1, "%s", strerror(ENOMEM));
		return NULL;
	}
	if (chttp_open(&c->ch, url, 300) == 0)
		return c;
	if (errno == ENOMEM)
		query_error_set(err, -1, "%s", strerror(ENOMEM));
	else
		query_error_set(err, -1, "--clickhouse %s: expected http://HOST[:PORT]/[?database=DB]",
				url);
	free(c);
	return NULL;
}

void chq_free(struct chq *c)
{
	if (!c)
		return;
	chttp_close(&c->ch);
	free(c);
}

/* TabSeparated's escapes undone, in place; returns the new length. */
static size_t unescape(char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '\\' && i + 1 < n) {
			switch (s[++i]) {
			case 't': c = '\t'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case '0': c = '\0'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			default: c = s[i];
			}
		}
		s[o++] = c;
	}
	return o;
}

static enum output_type type_of(const char *t)
{
	if (!strncmp(t, "Nullable(", 9))
		t += 9;
	if (!strncmp(t, "Int", 3) || !strncmp(t, "UInt", 4))
		return OUTPUT_INTEGER;
	if (!strncmp(t, "Float", 5) || !strncmp(t, "Decimal", 7))
		return OUTPUT_FLOAT;
	return OUTPUT_TEXT;
}

/* Splits line (n bytes) at tabs into at most max fields; returns how many. */
static int split(char *line, size_t n, char **f, size_t *len, int max)
{
	int k = 0;
	size_t start = 0;

	for (size_t i = 0; i <= n && k < max; i++)
		if (i == n || line[i] == '\t') {
			f[k] = line + start;
			len[k++] = i - start;
			if (i < n)
				line[i] = '\0';
			start = i + 1;
		}
	return k;
}

#define MAX_COLS 256

static int print_answer(char *s, size_t n, struct output *out, struct query_error *err)
{
	char *lines[2], *names[MAX_COLS], *types[MAX_COLS], *vals[MAX_COLS];
	size_t nlen[MAX_COLS], tlen[MAX_COLS], vlen[MAX_COLS];
	struct output_column cols[MAX_COLS];
	struct output_value v[MAX_COLS];
	enum output_type ty[MAX_COLS];
	char *p = s, *end = s + n, *nl;
	int ncols, nt;

	for (int i = 0; i < 2; i++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			query_error_set(err, -1, "ClickHouse's answer has no header");
			return -1;
		}
		*nl = '\0';
		lines[i] = p;
		p = nl + 1;
	}
	ncols = split(lines[0], strlen(lines[0]), names, nlen, MAX_COLS);
	nt = split(lines[1], strlen(lines[1]), types, tlen, MAX_COLS);
	if (nt != ncols) {
		query_error_set(err, -1, "ClickHouse's answer: %d names, %d types", ncols, nt);
		return -1;
	}
	for (int i = 0; i < ncols; i++) {
		names[i][unescape(names[i], nlen[i])] = '\0';
		cols[i] = (struct output_column){ .name = names[i], .decl_type = types[i] };
		ty[i] = type_of(types[i]);
	}
	if (output_begin(out, cols, ncols) < 0)
		goto print_error;
	while (p < end) {
		size_t len;

		nl = memchr(p, '\n', (size_t)(end - p));
		len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (split(p, len, vals, vlen, ncols) == ncols) {
			for (int i = 0; i < ncols; i++) {
				if (vlen[i] == 2 && !memcmp(vals[i], "\\N", 2)) {
					v[i] = (struct output_value){ .type = OUTPUT_NULL };
					continue;
				}
				vlen[i] = unescape(vals[i], vlen[i]);
				vals[i][vlen[i]] = '\0';
				v[i] = (struct output_value){ .type = ty[i], .text = vals[i], .len = vlen[i] };
			}
			if (output_row(out, v) < 0)
				goto print_error;
		}
		p += len + 1;
	}
	return output_end(out) < 0 ? -1 : 0;
print_error:
	query_error_set(err, -1, "printing results: %s", strerror(errno));
	return -1;
}

int chq_run(struct chq *c, const char *sql, struct output *out, struct query_error *err)
{
	struct evbuffer *answer = NULL, *body = NULL;
	size_t n;
	int status, ret = -1;

	/* one statement, its answer with names and types */
	n = strlen(sql);
	while (n && (isspace((unsigned char)sql[n - 1]) || sql[n - 1] == ';'))
		n--;
	if (!n) {
		query_error_set(err, -1, "no SQL");
		return -1;
	}
	if (memchr(sql, ';', n)) {
		query_error_set(err, -1, "--clickhouse runs one statement at a time");
		return -1;
	}
	answer = evbuffer_new();
	body = evbuffer_new();
	if (!answer || !body ||
	    evbuffer_add_printf(body, "%.*s\nFORMAT TabSeparatedWithNamesAndTypes", (int)n, sql) < 0) {
		query_error_set(err, -1, "%s", strerror(ENOMEM));
		goto out;
	}
	status = chttp_post(&c->ch, "", NULL, body, answer);
	n = evbuffer_get_length(answer);
	evbuffer_add(answer, "", 1);
	if (status == 0) {
		query_error_set(err, -1, "ClickHouse at %s:%d: no answer (is it running?)",
				c->ch.host, c->ch.port);
	} else if (status != 200) {
		char *msg = (char *)evbuffer_pullup(answer, -1);

		msg[strcspn(msg, "\n")] = '\0';
		query_error_set(err, -1, "ClickHouse: %s", msg);
	} else {
		ret = print_answer((char *)evbuffer_pullup(answer, -1), n, out, err);
	}
out:
	if (answer)
		evbuffer_free(answer);
	if (body)
		evbuffer_free(body);
	return ret;
}

/* ---- the fleet's reports ---- */

int chq_report_sql(const struct report_args *a, char **sql)
{
	char window[96] = "1";

	*sql = NULL;
	if (a->by != REPORT_BY_HOST || (a->kind != REPORT_TOP && a->kind != REPORT_LATENCY)) {
		log_error("with --clickhouse: SQL, 'top --by host' and 'latency --by host'");
		return -1;
	}
	if (a->from.set && !a->from.last) {
		log_error("with --clickhouse a window is --last D (by the time of day)");
		return -1;
	}
	/* (the rows' time of day is in whole seconds: a shorter window, or
	 * one of a fraction, would be rounded unseen) */
	if (a->from.set && (a->from.ns < 1000000000 || a->from.ns % 1000000000)) {
		log_error("with --clickhouse --last takes whole seconds (the rows' time of "
			  "day is in seconds)");
		return -1;
	}
	if (a->from.set)
		snprintf(window, sizeof(window), "time >= now() - %" PRId64,
			 a->from.ns / 1000000000);
	if (a->kind == REPORT_TOP)
		return asprintf(sql,
			"SELECT host, count() AS slices, uniqExact(boot, pid) AS tasks,\n"
			"  round(sum(dur) / 1e6, 3) AS cpu_ms,\n"
			"  round(100 * sum(dur) / (SELECT sum(dur) FROM sched FINAL\n"
			"                          WHERE pid > 0 AND %s), 2) AS share_pct\n"
			"FROM sched FINAL WHERE pid > 0 AND %s\n"
			"GROUP BY host WITH TOTALS ORDER BY cpu_ms DESC", window, window) < 0 ? -1 : 0;
	/* nearest rank, as the local report: the value at rank ceil(p/100 *
	 * n) (quantileExact takes the one after it when p * n is whole) */
	return asprintf(sql,
		"SELECT host, count() AS wakeups,\n"
		"  round(arraySort(groupArray(latency))[intDiv(count() * 50 + 99, 100)] / 1e3, 1) AS p50_us,\n"
		"  round(arraySort(groupArray(latency))[intDiv(count() * 90 + 99, 100)] / 1e3, 1) AS p90_us,\n"
		"  round(arraySort(groupArray(latency))[intDiv(count() * 99 + 99, 100)] / 1e3, 1) AS p99_us,\n"
		"  round(max(latency) / 1e3, 1) AS max_us\n"
		"FROM wakeup_latency FINAL WHERE %s\n"
		"GROUP BY host WITH TOTALS ORDER BY p99_us DESC", window) < 0 ? -1 : 0;
}
