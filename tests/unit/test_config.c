/* config tests: values, their errors (file:line, variable, what is
 * accepted), aliases, and the order file < environment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "check.h"
#include "config.h"

static void values(void)
{
	struct daemon_opts o;
	char err[512], buf[32];

	CHECK_INT(config_defaults(&o), 0);
	CHECK_INT(o.commit_ms, DAEMON_DEFAULT_COMMIT_MS);
	CHECK_INT(o.max_age_s, 0);
	CHECK_INT(config_set(&o, "commit-ms", "250", err, sizeof(err)), 0);
	CHECK_INT(o.commit_ms, 250);
	CHECK_INT(config_set(&o, "COMMIT_MS", "300", err, sizeof(err)), 0);
	CHECK_INT(o.commit_ms, 300);
	CHECK_INT(config_set(&o, "commit-ms", "0", err, sizeof(err)), -1);
	CHECK_STR(err, "expected 1..3600000 (milliseconds), got '0'");
	CHECK_INT(config_set(&o, "commit-ms", "12ms", err, sizeof(err)), -1);
	CHECK_INT(config_set(&o, "commit-ms", "-5", err, sizeof(err)), -1);
	CHECK_INT(o.commit_ms, 300);
	CHECK_INT(config_set(&o, "no-such", "1", err, sizeof(err)), 1);

	CHECK_INT(config_set(&o, "max-age", "90", err, sizeof(err)), 0);
	CHECK_INT(o.max_age_s, 90);
	CHECK_INT(config_set(&o, "max-age", "15m", err, sizeof(err)), 0);
	CHECK_INT(o.max_age_s, 900);
	CHECK_INT(config_set(&o, "max-age", "2h", err, sizeof(err)), 0);
	CHECK_INT(o.max_age_s, 7200);
	CHECK_INT(config_set(&o, "max_age", "7d", err, sizeof(err)), 0);
	CHECK_INT(o.max_age_s, 7 * 86400);
	CHECK_STR(config_age_text(o.max_age_s, buf, sizeof(buf)), "7d");
	CHECK_STR(config_age_text(5400, buf, sizeof(buf)), "90m");
	CHECK_STR(config_age_text(61, buf, sizeof(buf)), "61s");
	CHECK_INT(config_set(&o, "max-age", "5x", err, sizeof(err)), -1);
	CHECK_STR(err, "expected 0 (keep everything) or N[s|m|h|d] up to 3650d, got '5x'");
	CHECK_INT(config_set(&o, "max-age", "3651d", err, sizeof(err)), -1);
	CHECK_INT(config_set(&o, "max-age", "", err, sizeof(err)), -1);
	CHECK_INT(config_set(&o, "max-age", "0", err, sizeof(err)), 0);
	CHECK_INT(o.max_age_s, 0);

	CHECK_INT(config_set(&o, "max-db-mb", "0", err, sizeof(err)), 0);
	CHECK_INT(o.max_db_mb, 0);
	CHECK_INT(o.buffer_kb, 0);	/* auto */
	CHECK_INT(config_set(&o, "buffer-kb", "3", err, sizeof(err)), -1);
	CHECK_STR(err, "expected 4..16777216 (KiB per CPU) or auto, got '3'");
	CHECK_INT(config_set(&o, "buffer-kb", "0", err, sizeof(err)), -1);
	CHECK_INT(config_set(&o, "buffer-kb", "64", err, sizeof(err)), 0);
	CHECK_INT(o.buffer_kb, 64);
	CHECK_INT(config_set(&o, "buffer-kb", "auto", err, sizeof(err)), 0);
	CHECK_INT(o.buffer_kb, 0);
	CHECK_INT(config_set(&o, "log-level", "DEBUG", err, sizeof(err)), 0);
	CHECK_INT(o.log_level, LOG_DEBUG);
	CHECK_INT(config_set(&o, "log-level", "loud", err, sizeof(err)), -1);
	CHECK_INT(config_set(&o, "instance", "../x", err, sizeof(err)), -1);
	CHECK_INT(config_set(&o, "instance", "mine", err, sizeof(err)), 0);
	CHECK_STR(o.instance, "mine");
	CHECK_INT(config_set(&o, "events", "sched:sched_switch;rm", err, sizeof(err)), -1);
	CHECK_INT(config_set(&o, "db", "", err, sizeof(err)), -1);
	config_free(&o);
}

/* --buffer-kb auto: all CPUs' buffers at most 1/64 of the memory, each
 * 1 to 16 MiB. */
static void auto_buffer(void)
{
	const uint64_t gib = 1024 * 1024;	/* in KiB */

	CHECK_INT(config_auto_buffer_kb(24 * gib, 2), 16384);	/* this VM: capped */
	CHECK_INT(config_auto_buffer_kb(64 * gib, 64), 16384);	/* 1 GiB a CPU: 1/64 exactly */
	CHECK_INT(config_auto_buffer_kb(64 * gib, 256), 4096);	/* 1 GiB in all */
	CHECK_INT(config_auto_buffer_kb(2 * gib, 32), 1024);	/* 32 MiB in all */
	CHECK_INT(config_auto_buffer_kb(1 * gib, 64), 1024);	/* the floor */
	CHECK_INT(config_auto_buffer_kb(3 * gib, 4), 12288);
	CHECK_INT(config_auto_buffer_kb(8 * gib, 0), 1024);	/* no CPU count */
}

static const char *write_file(const char *text)
{
	static char path[] = "/tmp/test_config.XXXXXX";
	int fd;

	strcpy(path, "/tmp/test_config.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	return path;
}

static void files_and_environment(void)
{
	struct daemon_opts o;
	char err[512], want[600];
	const char *p;

	config_defaults(&o);
	p = write_file("# comment\n\n  commit-ms = 200   # trailing\nmax_age=10s\n"
		       "db = /tmp/x.db\n");
	CHECK_INT(config_load(p, 1, &o, err, sizeof(err)), 0);
	CHECK_INT(o.commit_ms, 200);
	CHECK_INT(o.max_age_s, 10);
	CHECK_STR(o.db, "/tmp/x.db");
	unlink(p);

	p = write_file("db = /tmp/x.db\n\n\n\n\n\ncommit_ms = abc\n");
	CHECK_INT(config_load(p, 1, &o, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:7: commit_ms: expected 1..3600000 (milliseconds), got 'abc'", p);
	CHECK_STR(err, want);
	unlink(p);

	p = write_file("commit-ms 200\n");
	CHECK_INT(config_load(p, 1, &o, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:1: expected 'name = value', got 'commit-ms 200'", p);
	CHECK_STR(err, want);
	unlink(p);

	p = write_file("\ncolour = blue\n");
	CHECK_INT(config_load(p, 1, &o, err, sizeof(err)), -1);
	CHECK(strstr(err, ":2: unknown option 'colour'") != NULL);
	unlink(p);

	CHECK_INT(config_load("/nonexistent/commd.conf", 0, &o, err, sizeof(err)), 0);
	CHECK_INT(config_load("/nonexistent/commd.conf", 1, &o, err, sizeof(err)), -1);

	/* The environment over the file. */
	setenv("COMMD_COMMIT_MS", "700", 1);
	setenv("COMMD_MAX_AGE", "1h", 1);
	CHECK_INT(config_env(&o, err, sizeof(err)), 0);
	CHECK_INT(o.commit_ms, 700);
	CHECK_INT(o.max_age_s, 3600);
	setenv("COMMD_BUFFER_KB", "lots", 1);
	CHECK_INT(config_env(&o, err, sizeof(err)), -1);
	CHECK_STR(err, "COMMD_BUFFER_KB (environment): buffer-kb: expected 4..16777216 "
		  "(KiB per CPU) or auto, got 'lots'");
	unsetenv("COMMD_COMMIT_MS");
	unsetenv("COMMD_MAX_AGE");
	unsetenv("COMMD_BUFFER_KB");
	config_free(&o);
}

int main(void)
{
	RUN(values);
	RUN(auto_buffer);
	RUN(files_and_environment);
	return check_done("test_config");
}
