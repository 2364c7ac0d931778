/* main.c — the commd command line.
 *
 *   commd [OPTIONS]                    capture (usage() lists the options)
 *   commd check-config [FILE] [OPTIONS]
 *   commd clickhouse-schema [--cluster NAME] [--database DB]
 *   commd migrate DB
 *   commd import TRACE.dat -o OUT.db [--force] [--progress|--no-progress]
 *                [--no-derived] [--buffer NAME|top|all]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include "config.h"
#include "ship.h"
#include "daemon.h"
#include "server.h"
#include "import.h"
#include "log.h"
#include "store.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: commd [--foreground] [--config FILE] [--db PATH] [--instance NAME]\n"
		"             [--buffer-kb N|auto] [--events LIST] [--clock NAME] [--stacks[=no]]\n"
		"             [--commit-ms N]\n"
		"             [--socket PATH|none] [--max-db-mb N] [--max-age N[s|m|h|d]]\n"
		"             [--log-level LEVEL] [--query-timeout-ms N] [--query-max-conns N]\n"
		"             [--query-max-result-mb N] [--query-max-mem-mb N]\n"
		"             [--clickhouse URL] [--host-name NAME] [--clickhouse-interval-s N]\n"
		"       commd check-config [FILE] [OPTIONS]\n"
		"       commd clickhouse-schema [--cluster NAME] [--database DB]\n"
		"       commd migrate DB\n"
		"       commd import TRACE.dat -o OUT.db [--force] [--progress|--no-progress]\n"
		"                    [--no-derived] [--buffer NAME|top|all]\n"
		"       commd --help | --version\n"
		"\n"
		"Without a subcommand commd captures the scheduler trace of this machine\n"
		"into PATH (default %s) through its own tracefs instance\n"
		"(default '%s') until SIGTERM or SIGINT; SIGHUP reloads the settings.\n"
		"\n"
		"Settings: defaults < config file (--config, $" CONFIG_PATH_ENV ", default\n"
		CONFIG_DEFAULT_PATH ") < environment < command line.\n"
		"  option              environment               meaning ([SIGHUP]: changes at run time)\n",
		DAEMON_DEFAULT_DB, DAEMON_DEFAULT_INSTANCE);
	config_print_help(f);
	fprintf(f,
		"\n"
		"check-config validates FILE (default " CONFIG_DEFAULT_PATH "), the\n"
		"environment and OPTIONS, and prints the settings commd would run with.\n"
		"\n"
		"clickhouse-schema prints the ClickHouse tables --clickhouse ships to\n"
		"(with --cluster, Distributed tables over the cluster; docs/fleet.md).\n"
		"\n"
		"migrate brings a database an older commd wrote up to this schema.\n"
		"\n"
		"import reads the trace.dat buffer that has records; when several have,\n"
		"--buffer names the one to read (top: the top one; NAME: the instance\n"
		"trace-cmd recorded with -B NAME) or merges them all into one timeline.\n");
}

static int number(const char *opt, const char *s, long min, long max, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < min || v > max) {
		log_error("%s: '%s' is not a number in [%ld, %ld]", opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static const struct option daemon_longopts[] = {
	{ "foreground", no_argument, NULL, 'F' },
	{ "db", required_argument, NULL, 'S' },
	{ "instance", required_argument, NULL, 'S' },
	{ "buffer-kb", required_argument, NULL, 'S' },
	{ "events", required_argument, NULL, 'S' },
	{ "clock", required_argument, NULL, 'S' },
	{ "stacks", optional_argument, NULL, 'S' },
	{ "commit-ms", required_argument, NULL, 'S' },
	{ "socket", required_argument, NULL, 'S' },
	{ "max-db-mb", required_argument, NULL, 'S' },
	{ "max-age", required_argument, NULL, 'S' },
	{ "log-level", required_argument, NULL, 'S' },
	{ "clickhouse", required_argument, NULL, 'S' },
	{ "host-name", required_argument, NULL, 'S' },
	{ "clickhouse-interval-s", required_argument, NULL, 'S' },
	{ "query-timeout-ms", required_argument, NULL, 'S' },
	{ "query-max-conns", required_argument, NULL, 'S' },
	{ "query-max-result-mb", required_argument, NULL, 'S' },
	{ "query-max-mem-mb", required_argument, NULL, 'S' },
	{ "config", required_argument, NULL, 'C' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

/* The command line, kept for SIGHUP (getopt permutes argv: a copy). */
static int saved_argc;
static char **saved_argv;
static const char *config_path = CONFIG_DEFAULT_PATH;
static int config_required;

/* Finds the configuration file: --config, else $COMMD_CONFIG, else the
 * default (which may be absent). */
static void find_config(int argc, char **argv)
{
	const char *env = getenv(CONFIG_PATH_ENV);

	if (env && *env) {
		config_path = env;
		config_required = 1;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--config") && i + 1 < argc) {
			config_path = argv[++i];
			config_required = 1;
		} else if (!strncmp(argv[i], "--config=", 9)) {
			config_path = argv[i] + 9;
			config_required = 1;
		}
	}
}

/* defaults < file < environment < command line, into o. *positional
 * (when not NULL) gets the one non-option argument allowed. Returns 0, or
 * -1 with the reason in err (o then needs config_free all the same). */
static int settle(int argc, char **argv, struct daemon_opts *o,
		  const char **positional, char *err, size_t errlen)
{
	char why[512];
	int c, idx;

	if (config_defaults(o)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (config_load(config_path, config_required, o, err, errlen) ||
	    config_env(o, err, errlen))
		return -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":F", daemon_longopts, &idx)) != -1) {
		switch (c) {
		case 'F': o->foreground = 1; break;
		case 'S':
			if (config_set(o, daemon_longopts[idx].name, optarg, why, sizeof(why))) {
				snprintf(err, errlen, "--%s: %s", daemon_longopts[idx].name, why);
				return -1;
			}
			break;
		case 'C': case 'h': case 'V': break;
		case ':':
			snprintf(err, errlen, "%s: needs a value", argv[optind - 1]);
			return -1;
		default:
			snprintf(err, errlen, "unknown option '%s' (see commd --help)",
				 argv[optind - 1]);
			return -1;
		}
	}
	if (positional && optind == argc - 1)
		*positional = argv[optind];
	else if (optind != argc) {
		/* (with one operand allowed, the second is the unexpected one) */
		snprintf(err, errlen, "unexpected argument '%s' (see commd --help)",
			 argv[positional ? optind + 1 : optind]);
		return -1;
	}
	return 0;
}

static int reload(struct daemon_opts *out, char *err, size_t errlen)
{
	char **argv = malloc(((size_t)saved_argc + 1) * sizeof(*argv));
	int rc;

	if (!argv) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(argv, saved_argv, ((size_t)saved_argc + 1) * sizeof(*argv));
	rc = settle(saved_argc, argv, out, NULL, err, errlen);
	free(argv);
	if (rc)
		config_free(out);
	return rc;
}

static int help_or_version(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("commd %s\n", COMMD_VERSION);
			return 0;
		}
	}
	return -1;
}

static int cmd_daemon(int argc, char **argv)
{
	struct daemon_opts o;
	char err[1024];
	int rc;

	if ((rc = help_or_version(argc, argv)) >= 0)
		return rc;
	saved_argc = argc;
	saved_argv = malloc(((size_t)argc + 1) * sizeof(*saved_argv));
	if (!saved_argv)
		return 1;
	memcpy(saved_argv, argv, ((size_t)argc + 1) * sizeof(*argv));
	find_config(argc, argv);
	if (settle(argc, argv, &o, NULL, err, sizeof(err))) {
		log_error("%s", err);
		config_free(&o);
		free(saved_argv);
		return 2;
	}
	log_set_max_priority(o.log_level);
	o.reload = reload;
	rc = daemon_run(&o);
	config_free(&o);
	free(saved_argv);
	return rc;
}

/* The first argument that is neither an option nor an option's value,
 * as settle's getopt_long will see it (an option with an optional value,
 * such as --stacks, takes none from the next argument), or NULL.
 * getopt permutes argv: it scans a copy. */
static const char *first_operand(int argc, char **argv)
{
	char **copy = malloc(((size_t)argc + 1) * sizeof(*copy));
	const char *operand = NULL;

	if (!copy)
		return NULL;
	memcpy(copy, argv, ((size_t)argc + 1) * sizeof(*copy));
	optind = 1;
	opterr = 0;
	while (getopt_long(argc, copy, ":F", daemon_longopts, NULL) != -1)
		;
	if (optind < argc)
		operand = copy[optind];
	free(copy);
	return operand;
}

/* `commd check-config [FILE] [OPTIONS]`: 0 and the settings on stdout, or
 * 1 and the first error. The file must exist (the default one too). */
static int cmd_check_config(int argc, char **argv)
{
	struct daemon_opts o;
	const char *file = NULL;
	char err[1024];
	int rc;

	if ((rc = help_or_version(argc, argv)) >= 0)
		return rc;
	file = first_operand(argc, argv);
	find_config(argc, argv);
	if (file)
		config_path = file;
	config_required = 1;
	rc = settle(argc, argv, &o, &file, err, sizeof(err));
	if (rc) {
		log_error("%s", err);
	} else {
		printf("# %s: ok; the settings commd would run with:\n", config_path);
		config_print(&o, stdout);
	}
	config_free(&o);
	return rc ? 1 : 0;
}

static int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "progress", no_argument, NULL, 'P' },
		{ "no-progress", no_argument, NULL, 'N' },
		{ "no-derived", no_argument, NULL, 'D' },
		{ "buffer", required_argument, NULL, 'B' },
		{ "in-process", no_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct import_opts o = { .progress = -1 };
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': o.output = optarg; break;
		case 'f': o.force = 1; break;
		case 'P': o.progress = 1; break;
		case 'N': o.progress = 0; break;
		case 'D': o.no_derived = 1; break;
		case 'B': o.buffer = optarg; break;
		case 'I': o.in_process = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1 || !o.output) {
		log_error("import needs one TRACE.dat and -o OUT.db");
		usage(stderr);
		return 2;
	}
	o.input = argv[optind];
	return import_run(&o);
}

/* A serve option that carries a setting: the setting's range
 * (config.c's table, the one place ranges are kept). */
static int setting(const char *opt, const char *key, const char *s, long *out)
{
	uint64_t min = 0, max = 0;

	if (config_range(key, &min, &max))
		return -1;
	return number(opt, s, (long)min, (long)max, out);
}

/* `commd serve`: the query server, started by the daemon itself. */
static int cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fd", required_argument, NULL, 'f' },
		{ "db", required_argument, NULL, 'd' },
		{ "user", required_argument, NULL, 'u' },
		{ "workers", required_argument, NULL, 'w' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "max-conns", required_argument, NULL, 'n' },
		{ "max-result-mb", required_argument, NULL, 'r' },
		{ "max-mem-mb", required_argument, NULL, 'm' },
		{ "parent", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct server_opts o = { .listen_fd = -1, .db = DAEMON_DEFAULT_DB,
				 .workers = 4, .default_timeout_ms = SERVER_DEFAULT_TIMEOUT_MS,
				 .max_conns = SERVER_DEFAULT_MAX_CONNS,
				 .max_result_bytes = (uint64_t)SERVER_DEFAULT_RESULT_MB << 20,
				 .max_query_mem = (uint64_t)SERVER_DEFAULT_QUERY_MEM_MB << 20 };
	long v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (number("--fd", optarg, 0, 1 << 20, &v))
				return 2;
			o.listen_fd = (int)v;
			break;
		case 'd': o.db = optarg; break;
		case 'u': o.user = optarg; break;
		case 'p':
			if (number("--parent", optarg, 1, 1 << 30, &v))
				return 2;
			o.parent = (pid_t)v;
			break;
		case 'w':
			if (number("--workers", optarg, 1, 64, &v))
				return 2;
			o.workers = (int)v;
			break;
		case 't':
			if (setting("--timeout-ms", "query-timeout-ms", optarg, &v))
				return 2;
			o.default_timeout_ms = (int)v;
			break;
		case 'n':
			if (setting("--max-conns", "query-max-conns", optarg, &v))
				return 2;
			o.max_conns = (int)v;
			break;
		case 'r':
			if (setting("--max-result-mb", "query-max-result-mb", optarg, &v))
				return 2;
			o.max_result_bytes = (uint64_t)v << 20;
			break;
		case 'm':
			if (setting("--max-mem-mb", "query-max-mem-mb", optarg, &v))
				return 2;
			o.max_query_mem = (uint64_t)v << 20;
			break;
		default: return 2;
		}
	}
	if (o.listen_fd < 0) {
		log_error("serve: --fd of a listening socket is required");
		return 2;
	}
	return server_run(&o);
}

/* `commd migrate DB`: brings a database an older commd wrote up to this
 * version's schema (what the daemon does when it opens one), so that
 * commq --db, which opens files read-only, can read it. */
static int cmd_migrate(int argc, char **argv)
{
	char err[1024];
	struct store *s;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: commd migrate DB\n"
		       "\n"
		       "Brings DB, a database an older commd wrote, up to this version's\n"
		       "schema (as the daemon does when it opens one) and prints the\n"
		       "schema version.\n");
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-') {
		log_error("usage: commd migrate DB");
		return 2;
	}
	if (access(argv[1], F_OK)) {
		log_error("%s: %s", argv[1], strerror(errno));
		return 1;
	}
	s = store_open(argv[1], STORE_LIVE, err, sizeof(err));
	if (!s) {
		log_error("%s: %s", argv[1], err);
		return 1;
	}
	if (store_close(s)) {
		log_error("%s: closing the database failed", argv[1]);
		return 1;
	}
	printf("%s: schema %d\n", argv[1], store_schema_version());
	return 0;
}

int main(int argc, char **argv)
{
	log_set_program("commd");
	if (argc >= 2 && !strcmp(argv[1], "migrate"))
		return cmd_migrate(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "import"))
		return cmd_import(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "serve"))
		return cmd_serve(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "ship"))
		return cmd_ship(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "clickhouse-schema"))
		return cmd_clickhouse_schema(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "check-config"))
		return cmd_check_config(argc - 1, argv + 1);
	return cmd_daemon(argc, argv);
}
