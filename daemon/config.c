/* config.c — see config.h. */
#define _GNU_SOURCE
#include "config.h"
#include "ship.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

enum kind { K_PATH, K_INSTANCE, K_EVENTS, K_CLOCK, K_SOCKET, K_KB, K_MS, K_MB, K_AGE, K_LEVEL,
	    K_STACKS, K_URL, K_NAME, K_SECRET, K_SHIPINT,
	    K_QTIMEOUT, K_QCONNS, K_QRESULT, K_QMEM };

struct optdef {
	const char *name;
	const char *env;
	enum kind kind;
	int reload;		/* SIGHUP applies it */
	const char *help;
	uint64_t min, max;	/* a number's range (config_range) */
	const char *unit;	/* ... and its unit, for messages */
};

static const struct optdef defs[] = {
	{ "db", "COMMD_DB", K_PATH, 0, "the database file", 0, 0, NULL },
	{ "instance", "COMMD_INSTANCE", K_INSTANCE, 0, "the tracefs instance commd owns", 0, 0, NULL },
	{ "buffer-kb", "COMMD_BUFFER_KB", K_KB, 0, "ring buffer per CPU, KiB, or auto",
	  4, 16ull << 20, "KiB per CPU" },
	{ "events", "COMMD_EVENTS", K_EVENTS, 0, "system:event,... to capture", 0, 0, NULL },
	{ "clock", "COMMD_CLOCK", K_CLOCK, 0, "trace clock: local, mono, global, ...", 0, 0, NULL },
	{ "stacks", "COMMD_STACKS", K_STACKS, 0,
	  "kernel stacks of switches into sleep: yes|no", 0, 0, NULL },
	{ "commit-ms", "COMMD_COMMIT_MS", K_MS, 1, "commit interval, ms",
	  1, 3600000, "milliseconds" },
	{ "socket", "COMMD_SOCKET", K_SOCKET, 0, "the query socket, or none", 0, 0, NULL },
	{ "max-db-mb", "COMMD_MAX_DB_MB", K_MB, 1, "retention by size, MiB (0: off)",
	  0, 1ull << 30, "MiB; 0 keeps everything" },
	{ "max-age", "COMMD_MAX_AGE", K_AGE, 1, "retention by age, N[s|m|h|d] (0: off)", 0, 0, NULL },
	{ "log-level", "COMMD_LOG_LEVEL", K_LEVEL, 1, "error|warning|notice|info|debug", 0, 0, NULL },
	{ "clickhouse", "COMMD_CLICKHOUSE", K_URL, 0,
	  "ship to ClickHouse: http://HOST:PORT/?database=DB (docs/fleet.md)", 0, 0, NULL },
	{ "host-name", "COMMD_HOST_NAME", K_NAME, 0,
	  "the host's name in ClickHouse (default: the hostname)", 0, 0, NULL },
	{ "clickhouse-interval-s", "COMMD_CLICKHOUSE_INTERVAL_S", K_SHIPINT, 0,
	  "seconds between shipping rounds (one INSERT per table each)", 1, 3600, "seconds" },
	{ "clickhouse-user", "COMMD_CLICKHOUSE_USER", K_SECRET, 0,
	  "ClickHouse user (file or environment only)", 0, 0, NULL },
	{ "clickhouse-password-file", "COMMD_CLICKHOUSE_PASSWORD_FILE", K_SECRET, 0,
	  "a root-only file holding its password (file or environment only)", 0, 0, NULL },
	{ "query-timeout-ms", "COMMD_QUERY_TIMEOUT_MS", K_QTIMEOUT, 0,
	  "a query's deadline unless it asks for less, ms", 1, 3600000, "milliseconds" },
	{ "query-max-conns", "COMMD_QUERY_MAX_CONNS", K_QCONNS, 0,
	  "query connections open at once", 1, 65536, "connections" },
	{ "query-max-result-mb", "COMMD_QUERY_MAX_RESULT_MB", K_QRESULT, 0,
	  "result bytes one query may send, MiB", 1, 1 << 20, "MiB" },
	{ "query-max-mem-mb", "COMMD_QUERY_MAX_MEM_MB", K_QMEM, 0,
	  "SQLite memory one query may use, MiB", 1, 1 << 16, "MiB" },
};
#define NDEFS (sizeof(defs) / sizeof(defs[0]))

#define MAX_AGE_S (3650ull * 86400)	/* ten years */

static const struct { const char *name; int level; } levels[] = {
	{ "error", LOG_ERR }, { "warning", LOG_WARNING }, { "notice", LOG_NOTICE },
	{ "info", LOG_INFO }, { "debug", LOG_DEBUG },
};

const char *config_level_name(int level)
{
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (levels[i].level == level)
			return levels[i].name;
	return "info";
}

const char *config_age_text(uint64_t secs, char *buf, size_t len)
{
	if (!secs)
		snprintf(buf, len, "0");
	else if (secs % 86400 == 0)
		snprintf(buf, len, "%" PRIu64 "d", secs / 86400);
	else if (secs % 3600 == 0)
		snprintf(buf, len, "%" PRIu64 "h", secs / 3600);
	else if (secs % 60 == 0)
		snprintf(buf, len, "%" PRIu64 "m", secs / 60);
	else
		snprintf(buf, len, "%" PRIu64 "s", secs);
	return buf;
}

static int set_str(char **field, const char *value)
{
	char *copy = value ? strdup(value) : NULL;

	if (value && !copy)
		return -1;
	free(*field);
	*field = copy;
	return 0;
}

size_t config_auto_buffer_kb(uint64_t mem_kb, int ncpus)
{
	uint64_t kb = ncpus > 0 ? mem_kb / 64 / (uint64_t)ncpus : 0;

	if (kb > DAEMON_MAX_AUTO_BUFFER_KB)
		kb = DAEMON_MAX_AUTO_BUFFER_KB;
	if (kb < 1024)
		kb = 1024;
	return (size_t)kb;
}

int config_defaults(struct daemon_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->commit_ms = DAEMON_DEFAULT_COMMIT_MS;
	o->max_db_mb = DAEMON_DEFAULT_MAX_DB_MB;
	o->max_age_s = DAEMON_DEFAULT_MAX_AGE_S;
	o->log_level = LOG_INFO;
	if (set_str(&o->db, DAEMON_DEFAULT_DB) ||
	    set_str(&o->instance, DAEMON_DEFAULT_INSTANCE) ||
	    set_str(&o->clock, DAEMON_DEFAULT_CLOCK) ||
	    set_str(&o->socket, DAEMON_DEFAULT_SOCKET))
		return -1;
	return 0;
}

/* The shipping settings' strings, by their file names. */
static char **ship_field(struct daemon_opts *o, const char *name)
{
	return !strcmp(name, "clickhouse") ? &o->clickhouse :
	       !strcmp(name, "host-name") ? &o->host_name :
	       !strcmp(name, "clickhouse-user") ? &o->clickhouse_user :
	       &o->clickhouse_password_file;
}

void config_free(struct daemon_opts *o)
{
	free(o->clickhouse);
	free(o->clickhouse_user);
	free(o->clickhouse_password_file);
	free(o->host_name);
	o->clickhouse = o->clickhouse_user = o->clickhouse_password_file = o->host_name = NULL;
	free(o->db);
	free(o->instance);
	free(o->socket);
	free(o->events);
	free(o->clock);
	o->db = o->instance = o->socket = o->events = o->clock = NULL;
}

int config_copy(struct daemon_opts *dst, const struct daemon_opts *src)
{
	*dst = *src;
	dst->db = dst->instance = dst->socket = dst->events = dst->clock = NULL;
	dst->clickhouse = dst->clickhouse_user = dst->clickhouse_password_file = NULL;
	dst->host_name = NULL;
	if (set_str(&dst->clickhouse, src->clickhouse) ||
	    set_str(&dst->clickhouse_user, src->clickhouse_user) ||
	    set_str(&dst->clickhouse_password_file, src->clickhouse_password_file) ||
	    set_str(&dst->host_name, src->host_name) ||
	    set_str(&dst->db, src->db) || set_str(&dst->instance, src->instance) ||
	    set_str(&dst->socket, src->socket) || set_str(&dst->events, src->events) ||
	    set_str(&dst->clock, src->clock)) {
		config_free(dst);
		return -1;
	}
	return 0;
}

/* An unsigned decimal in [min, max]; *end gets what follows the digits. */
static int number(const char *s, uint64_t min, uint64_t max, uint64_t *out,
		  const char **rest)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v < min || v > max)
		return -1;
	if (rest)
		*rest = end;
	else if (*end)
		return -1;
	*out = v;
	return 0;
}

static int age(const char *s, uint64_t *out)
{
	const char *rest;
	uint64_t v, mul = 1;

	if (number(s, 0, MAX_AGE_S, &v, &rest))
		return -1;
	if (!strcmp(rest, "") || !strcmp(rest, "s"))
		mul = 1;
	else if (!strcmp(rest, "m"))
		mul = 60;
	else if (!strcmp(rest, "h"))
		mul = 3600;
	else if (!strcmp(rest, "d"))
		mul = 86400;
	else
		return -1;
	if (v > MAX_AGE_S / mul)
		return -1;
	*out = v * mul;
	return 0;
}

static const struct optdef *find(const char *name)
{
	char norm[32];
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(norm); i++)
		norm[i] = name[i] == '_' ? '-' : (char)tolower((unsigned char)name[i]);
	if (name[i])
		return NULL;
	norm[i] = '\0';
	for (i = 0; i < NDEFS; i++)
		if (!strcmp(defs[i].name, norm))
			return &defs[i];
	return NULL;
}

int config_set(struct daemon_opts *o, const char *name, const char *value,
	       char *err, size_t errlen)
{
	const struct optdef *d = find(name);
	uint64_t v;

	if (!d)
		return 1;
#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)
#define RANGE(more) BAD("expected %llu..%llu (%s)%s, got '%s'",		\
			(unsigned long long)d->min, (unsigned long long)d->max,	\
			d->unit, more, value)
	switch (d->kind) {
	case K_PATH:
		if (!*value)
			BAD("expected a file path, got ''");
		break;
	case K_SOCKET:
		if (!*value)
			BAD("expected a socket path or 'none', got ''");
		break;
	case K_INSTANCE:
		if (!*value || strchr(value, '/') || !strcmp(value, ".") ||
		    !strcmp(value, "..") || strlen(value) > 200)
			BAD("expected an instance name (no '/', not '.' or '..'), got '%s'", value);
		break;
	case K_EVENTS:
		if (!*value || strspn(value, "abcdefghijklmnopqrstuvwxyz"
				      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:,*") != strlen(value))
			BAD("expected system:event[,system:event...], got '%s'", value);
		break;
	case K_CLOCK:
		/* Whether the kernel offers it is known at start only. */
		if (!*value || strlen(value) > 32 ||
		    strspn(value, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(value))
			BAD("expected a trace clock name (local, mono, global, ...), got '%s'", value);
		break;
	case K_KB:
		if (!strcmp(value, "auto"))
			v = 0;
		else if (number(value, d->min, d->max, &v, NULL))
			RANGE(" or auto");
		o->buffer_kb = (size_t)v;
		return 0;
	case K_MS:
		if (number(value, d->min, d->max, &v, NULL))
			RANGE("");
		o->commit_ms = (int)v;
		return 0;
	case K_MB:
		if (number(value, d->min, d->max, &v, NULL))
			RANGE("");
		o->max_db_mb = (size_t)v;
		return 0;
	case K_AGE:
		if (age(value, &v))
			BAD("expected 0 (keep everything) or N[s|m|h|d] up to 3650d, got '%s'", value);
		o->max_age_s = v;
		return 0;
	case K_QTIMEOUT:
		if (number(value, d->min, d->max, &v, NULL))
			RANGE("");
		o->serve.timeout_ms = (int)v;
		return 0;
	case K_SHIPINT:
		if (number(value, d->min, d->max, &v, NULL))
			RANGE("");
		o->clickhouse_interval_s = (int)v;
		return 0;
	case K_QCONNS:
		if (number(value, d->min, d->max, &v, NULL))
			RANGE("");
		o->serve.max_conns = (int)v;
		return 0;
	case K_QRESULT:
		if (number(value, d->min, d->max, &v, NULL))
			RANGE("");
		o->serve.result_mb = (int)v;
		return 0;
	case K_QMEM:
		if (number(value, d->min, d->max, &v, NULL))
			RANGE("");
		o->serve.query_mem_mb = (int)v;
		return 0;
	case K_STACKS:
		/* --stacks alone (no value) means yes */
		if (!value || !strcasecmp(value, "yes") || !strcasecmp(value, "on") ||
		    !strcasecmp(value, "true") || !strcmp(value, "1"))
			o->stacks = 1;
		else if (!strcasecmp(value, "no") || !strcasecmp(value, "off") ||
			 !strcasecmp(value, "false") || !strcmp(value, "0"))
			o->stacks = 0;
		else
			BAD("expected yes or no, got '%s'", value);
		return 0;
	case K_URL:
		if (*value && strncmp(value, "http://", 7))
			BAD("expected http://HOST:PORT/?database=DB (or '' for none), got '%s'",
			    value);
		goto ship_string;
	case K_NAME:
		if (strlen(value) > SHIP_HOST_MAX || strpbrk(value, "'\\\t\n\r"))
			BAD("expected a name without quotes, backslashes or control "
			    "characters, got '%s'", value);
		goto ship_string;
	case K_SECRET:
	ship_string:
		if (set_str(ship_field(o, d->name), *value ? value : NULL)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		return 0;
	case K_LEVEL:
		for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
			if (!strcasecmp(value, levels[i].name)) {
				o->log_level = levels[i].level;
				return 0;
			}
		BAD("expected error, warning, notice, info or debug, got '%s'", value);
	}
#undef BAD
#undef RANGE
	if (set_str(d->kind == K_PATH ? &o->db : d->kind == K_INSTANCE ? &o->instance :
		    d->kind == K_EVENTS ? &o->events : d->kind == K_CLOCK ? &o->clock :
		    &o->socket, value)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

#define CONFIG_MAX_BYTES (1 << 20)

/* The file's bytes, read safely: a regular file (or /dev/null, which is
 * empty) of at most 1 MiB, owned by root or the user reading it, that no
 * other user can write; opened without blocking (a FIFO would hang the
 * capture loop at SIGHUP). NULL with err set. */
static char *config_read(const char *path, int required, size_t *len,
			 char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	*len = 0;
	if (fd < 0) {
		if (!required && errno == ENOENT) {
			err[0] = '\0';
			return NULL;
		}
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
		close(fd);
		return calloc(1, 1);		/* /dev/null: no settings */
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		goto fail;
	}
	if (st.st_size > CONFIG_MAX_BYTES) {
		snprintf(err, errlen, "%s: larger than %d bytes", path, CONFIG_MAX_BYTES);
		goto fail;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: owned by uid %ld, not root: commd reads only root's "
			 "configuration", path, (long)st.st_uid);
		goto fail;
	}
	if ((st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && st.st_gid != 0)) {
		snprintf(err, errlen, "%s: other users can write it (mode %04o)", path,
			 (unsigned)(st.st_mode & 07777));
		goto fail;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	while (got <= (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > (size_t)st.st_size) {
		snprintf(err, errlen, "%s: grew while it was read", path);
		goto fail;
	}
	buf[got] = '\0';
	if (memchr(buf, '\0', got)) {
		size_t at = (size_t)((char *)memchr(buf, '\0', got) - buf);
		int line = 1;

		for (size_t i = 0; i < at; i++)
			line += buf[i] == '\n';
		snprintf(err, errlen, "%s:%d: a NUL byte", path, line);
		goto fail;
	}
	close(fd);
	*len = got;
	return buf;
fail:
	free(buf);
	close(fd);
	return NULL;
}

/* Every setting's name, ", " between them, from the table. */
static const char *known_names(char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NDEFS && at < len; i++) {
		int n = snprintf(buf + at, len - at, "%s%s", i ? ", " : "", defs[i].name);

		if (n < 0)
			break;
		at += (size_t)n;
	}
	return buf;
}

int config_load(const char *path, int required, struct daemon_opts *o,
		char *err, size_t errlen)
{
	char line[4096], why[512], names[512];
	int n = 0, rc = 0;
	size_t size;
	char *text;
	FILE *f;

	err[0] = '\0';
	text = config_read(path, required, &size, err, errlen);
	if (!text)
		return err[0] ? -1 : 0;
	f = size ? fmemopen(text, size, "r") : NULL;
	if (!f) {
		free(text);
		if (!size)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *key, *val, *eq, *hash;
		size_t len = strlen(line);
		int r;

		n++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n' && !feof(f)) {
			snprintf(err, errlen, "%s:%d: line longer than %zu bytes", path, n,
				 sizeof(line) - 2);
			rc = -1;
			break;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		key = trim(line);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%d: expected 'name = value', got '%.100s'",
				 path, n, key);
			rc = -1;
			break;
		}
		*eq = '\0';
		key = trim(key);
		val = trim(eq + 1);
		r = config_set(o, key, val, why, sizeof(why));
		if (r == 1) {
			snprintf(err, errlen, "%s:%d: unknown option '%.100s' (known: %s)",
				 path, n, key, known_names(names, sizeof(names)));
			rc = -1;
			break;
		}
		if (r) {
			snprintf(err, errlen, "%s:%d: %s: %s", path, n, key, why);
			rc = -1;
			break;
		}
	}
	if (!rc && ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = -1;
	}
	fclose(f);
	free(text);
	return rc;
}

int config_env(struct daemon_opts *o, char *err, size_t errlen)
{
	char why[512];

	for (size_t i = 0; i < NDEFS; i++) {
		const char *v = getenv(defs[i].env);

		if (!v)
			continue;
		if (config_set(o, defs[i].name, v, why, sizeof(why))) {
			snprintf(err, errlen, "%s (environment): %s: %s", defs[i].env,
				 defs[i].name, why);
			return -1;
		}
	}
	return 0;
}

/* A query setting: 0 is its default. */
static const char *number_text(int v, int def, char *buf, size_t len)
{
	snprintf(buf, len, "%d", v ? v : def);
	return buf;
}

/* Setting d's value in o, as the file writes it. */
static const char *value_text(const struct optdef *d, const struct daemon_opts *o,
			      char *buf, size_t len)
{
	switch (d->kind) {
	case K_PATH: return o->db;
	case K_INSTANCE: return o->instance;
	case K_EVENTS: return o->events ? o->events : DAEMON_DEFAULT_EVENTS;
	case K_CLOCK: return o->clock;
	case K_SOCKET: return o->socket;
	case K_KB:
		if (!o->buffer_kb)
			return "auto";
		snprintf(buf, len, "%zu", o->buffer_kb);
		return buf;
	case K_MS: snprintf(buf, len, "%d", o->commit_ms); return buf;
	case K_MB: snprintf(buf, len, "%zu", o->max_db_mb); return buf;
	case K_AGE: return config_age_text(o->max_age_s, buf, len);
	case K_LEVEL: return config_level_name(o->log_level);
	case K_STACKS: return o->stacks ? "yes" : "no";
	case K_URL: case K_NAME: case K_SECRET: {
		char *v = *ship_field((struct daemon_opts *)o, d->name);

		return v ? v : "";
	}
	case K_QTIMEOUT: return number_text(o->serve.timeout_ms, SERVER_DEFAULT_TIMEOUT_MS, buf, len);
	case K_QCONNS: return number_text(o->serve.max_conns, SERVER_DEFAULT_MAX_CONNS, buf, len);
	case K_SHIPINT: return number_text(o->clickhouse_interval_s, 1, buf, len);
	case K_QRESULT: return number_text(o->serve.result_mb, SERVER_DEFAULT_RESULT_MB, buf, len);
	case K_QMEM: return number_text(o->serve.query_mem_mb, SERVER_DEFAULT_QUERY_MEM_MB, buf, len);
	}
	return "";
}

void config_print(const struct daemon_opts *o, FILE *f)
{
	char buf[64];

	for (size_t i = 0; i < NDEFS; i++)
		fprintf(f, "%s = %s\n", defs[i].name, value_text(&defs[i], o, buf, sizeof(buf)));
}

int config_reload(struct daemon_opts *o, const struct daemon_opts *n,
		  config_change_fn *fn, void *ctx)
{
	char a[64], b[64];
	int applied = 0;

	for (size_t i = 0; i < NDEFS; i++) {
		const struct optdef *d = &defs[i];
		const char *was = value_text(d, o, a, sizeof(a));
		const char *now = value_text(d, n, b, sizeof(b));

		if (!strcmp(was, now))
			continue;
		if (d->reload) {
			switch (d->kind) {
			case K_MS: o->commit_ms = n->commit_ms; break;
			case K_MB: o->max_db_mb = n->max_db_mb; break;
			case K_AGE: o->max_age_s = n->max_age_s; break;
			case K_LEVEL: o->log_level = n->log_level; break;
			default: break;	/* (reload is set on these alone) */
			}
			applied++;
		}
		fn(ctx, d->name, was, now, d->reload);
	}
	return applied;
}

void config_print_help(FILE *f)
{
	for (size_t i = 0; i < NDEFS; i++)
		fprintf(f, "  %-19s %-25s %s%s\n", defs[i].name, defs[i].env, defs[i].help,
			defs[i].reload ? " [SIGHUP]" : "");
}

int config_range(const char *name, uint64_t *min, uint64_t *max)
{
	for (size_t i = 0; i < NDEFS; i++)
		if (!strcmp(defs[i].name, name) && defs[i].unit) {
			*min = defs[i].min;
			*max = defs[i].max;
			return 0;
		}
	return -1;
}
