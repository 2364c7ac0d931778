/* config.h — the daemon's settings, from four places, each overriding the
 * one before:
 *
 *   built-in defaults < /etc/commd/commd.conf < environment < command line
 *
 * The file has `name = value` lines (the long option names: db, instance,
 * buffer-kb, events, clock, commit-ms, socket, max-db-mb, max-age, log-level;
 * '_' may stand for '-'), '#' comments and blank lines. Each option has
 * one environment variable, COMMD_ and its name in capitals with '_'
 * (COMMD_COMMIT_MS, ...). Every bad value is reported with where it came
 * from and what is accepted:
 *
 *   commd.conf:7: commit-ms: expected 1..3600000 (milliseconds), got 'abc'
 *   COMMD_MAX_AGE (environment): max-age: expected 0 or N[s|m|h|d], got '5x'
 *   --buffer-kb: expected 4..16777216 (KiB), got '0'
 */
#ifndef COMMD_CONFIG_H
#define COMMD_CONFIG_H

#include <stdio.h>

#include "daemon.h"

#define CONFIG_DEFAULT_PATH "/etc/commd/commd.conf"
/* The environment variable naming the file (--config overrides it). */
#define CONFIG_PATH_ENV "COMMD_CONFIG"

/* The built-in defaults (strings allocated; config_free). */
int config_defaults(struct daemon_opts *o);

/* The ring buffer per CPU that --buffer-kb auto (the default) gives a
 * machine of mem_kb memory and ncpus CPUs online, in KiB: the buffers
 * together take at most 1/64 of the memory, each at most
 * DAEMON_MAX_AUTO_BUFFER_KB and at least 1024. */
size_t config_auto_buffer_kb(uint64_t mem_kb, int ncpus);

/* Frees the strings of o. */
void config_free(struct daemon_opts *o);

/* Deep copy (src's strings duplicated). 0 or -1 (no memory). */
int config_copy(struct daemon_opts *dst, const struct daemon_opts *src);

/* Sets option NAME ("commit-ms" or "commit_ms") from its text. Returns 0;
 * 1 when there is no such option; -1 with "expected ..., got '...'" in
 * err for a bad value. */
int config_set(struct daemon_opts *o, const char *name, const char *value,
	       char *err, size_t errlen);

/* Applies the file to o. A missing file is fine when !required. Returns
 * 0, or -1 with a "FILE:LINE: name: reason" message in err. */
int config_load(const char *path, int required, struct daemon_opts *o,
		char *err, size_t errlen);

/* Applies the COMMD_* environment variables. 0, or -1 with
 * "COMMD_X (environment): name: reason" in err. */
int config_env(struct daemon_opts *o, char *err, size_t errlen);

/* The settings as a configuration file would give them, every option. */
void config_print(const struct daemon_opts *o, FILE *f);

/* SIGHUP: for each setting whose value differs between o (running) and n
 * (read again), the settings the table marks reloadable are copied into
 * o, and fn is told (name, old and new value as the file writes them,
 * whether it was applied). Returns how many were applied. */
typedef void config_change_fn(void *ctx, const char *name, const char *was,
			      const char *now, int applied);
int config_reload(struct daemon_opts *o, const struct daemon_opts *n,
		  config_change_fn *fn, void *ctx);

/* The options (every one, in file order) with their environment variables
 * and whether SIGHUP applies them, for --help. */
void config_print_help(FILE *f);

/* max-age as text ("0", "90s", "15m", "2h", "7d"): the largest unit that
 * divides it. */
const char *config_age_text(uint64_t secs, char *buf, size_t len);

/* log-level's name for a syslog priority ("info"). */
const char *config_level_name(int level);

/* The range of the numeric setting name (its file key, "commit-ms"), for
 * whatever else takes it (commd serve's options): 0, or -1 when name is
 * no such setting. */
int config_range(const char *name, uint64_t *min, uint64_t *max);

#endif
