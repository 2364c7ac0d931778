/* config.c — see config.h. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int to_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int config_load(const char *path, int required, struct daemon_opts *o,
		char *err, size_t errlen)
{
	char line[1024];
	int n = 0, rc = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		if (!required && errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *key, *val, *eq, *hash;
		long v;

		n++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		key = trim(line);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%d: expected name = value", path, n);
			rc = -1;
			break;
		}
		*eq = '\0';
		key = trim(key);
		val = trim(eq + 1);
		if (!strcmp(key, "db") || !strcmp(key, "instance") ||
		    !strcmp(key, "events") || !strcmp(key, "socket")) {
			char *copy = strdup(val);

			if (!copy || !*val) {
				snprintf(err, errlen, "%s:%d: %s needs a value", path, n, key);
				free(copy);
				rc = -1;
				break;
			}
			if (!strcmp(key, "db"))
				o->db = copy;
			else if (!strcmp(key, "instance"))
				o->instance = copy;
			else if (!strcmp(key, "events"))
				o->events = copy;
			else
				o->socket = copy;
		} else if (!strcmp(key, "buffer-kb")) {
			if (to_long(val, 4, 16L << 20, &v)) {
				snprintf(err, errlen, "%s:%d: buffer-kb: '%s' is not a size in KiB", path, n, val);
				rc = -1;
				break;
			}
			o->buffer_kb = (size_t)v;
		} else if (!strcmp(key, "max-db-mb")) {
			if (to_long(val, 0, 1L << 30, &v)) {
				snprintf(err, errlen, "%s:%d: max-db-mb: '%s' is not a size in MiB", path, n, val);
				rc = -1;
				break;
			}
			o->max_db_mb = (size_t)v;
		} else if (!strcmp(key, "commit-ms")) {
			if (to_long(val, 1, 3600000, &v)) {
				snprintf(err, errlen, "%s:%d: commit-ms: '%s' is not in [1, 3600000]", path, n, val);
				rc = -1;
				break;
			}
			o->commit_ms = (int)v;
		} else {
			snprintf(err, errlen, "%s:%d: unknown option '%s'", path, n, key);
			rc = -1;
			break;
		}
	}
	fclose(f);
	return rc;
}
