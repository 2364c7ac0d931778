/* main.c — the commd command line.
 *
 *   commd [--foreground] [--db PATH] [--instance NAME] [--buffer-kb N]
 *         [--events LIST] [--commit-ms N] [--socket PATH]
 *   commd import TRACE.dat -o OUT.db [--force] [--progress|--no-progress]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "daemon.h"
#include "server.h"
#include "import.h"
#include "log.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: commd [--foreground] [--db PATH] [--instance NAME] [--buffer-kb N]\n"
		"             [--events LIST] [--commit-ms N] [--socket PATH|none]\n"
		"             [--max-db-mb N]   (default %d; 0: keep everything)\n"
		"             [--query-timeout-ms N] [--query-max-conns N]\n"
		"             [--query-max-result-mb N] [--query-max-mem-mb N]\n"
		"                               (the query server's limits; defaults\n"
		"                               %d, %d, %d, %d)\n"
		"             [--config FILE]   (default " CONFIG_DEFAULT_PATH ")\n"
		"       commd import TRACE.dat -o OUT.db [--force] [--progress|--no-progress]\n"
		"       commd --help | --version\n"
		"\n"
		"Without a subcommand commd captures the scheduler trace of this machine\n"
		"into PATH (default %s) through its own tracefs instance\n"
		"(default '%s') until SIGTERM or SIGINT.\n",
		DAEMON_DEFAULT_MAX_DB_MB, SERVER_DEFAULT_TIMEOUT_MS, SERVER_DEFAULT_MAX_CONNS,
		SERVER_DEFAULT_RESULT_MB, SERVER_DEFAULT_QUERY_MEM_MB, DAEMON_DEFAULT_DB,
		DAEMON_DEFAULT_INSTANCE);
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

static int cmd_daemon(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'F' },
		{ "db", required_argument, NULL, 'd' },
		{ "instance", required_argument, NULL, 'i' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "events", required_argument, NULL, 'e' },
		{ "commit-ms", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'C' },
		{ "max-db-mb", required_argument, NULL, 'M' },
		{ "query-timeout-ms", required_argument, NULL, 'T' },
		{ "query-max-conns", required_argument, NULL, 'N' },
		{ "query-max-result-mb", required_argument, NULL, 'R' },
		{ "query-max-mem-mb", required_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct daemon_opts o = {
		.db = DAEMON_DEFAULT_DB,
		.instance = DAEMON_DEFAULT_INSTANCE,
		.socket = DAEMON_DEFAULT_SOCKET,
		.buffer_kb = DAEMON_DEFAULT_BUFFER_KB,
		.commit_ms = DAEMON_DEFAULT_COMMIT_MS,
		.max_db_mb = DAEMON_DEFAULT_MAX_DB_MB,
	};
	const char *config = CONFIG_DEFAULT_PATH;
	int config_given = 0;
	char err[512];
	long v;
	int c;

	/* The file first, so the command line overrides it. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--config") && i + 1 < argc) {
			config = argv[i + 1];
			config_given = 1;
		} else if (!strncmp(argv[i], "--config=", 9)) {
			config = argv[i] + 9;
			config_given = 1;
		}
	}
	if (config_load(config, config_given, &o, err, sizeof(err))) {
		log_error("%s", err);
		return 2;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "Fd:i:b:e:c:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'F': o.foreground = 1; break;
		case 'd': o.db = optarg; break;
		case 'i':
			if (!*optarg || strchr(optarg, '/') || !strcmp(optarg, ".") ||
			    !strcmp(optarg, "..")) {
				log_error("--instance: '%s' is not an instance name", optarg);
				return 2;
			}
			o.instance = optarg;
			break;
		case 'b':
			if (number("--buffer-kb", optarg, 4, 16L << 20, &v))
				return 2;
			o.buffer_kb = (size_t)v;
			break;
		case 'e': o.events = optarg; break;
		case 'c':
			if (number("--commit-ms", optarg, 1, 3600000, &v))
				return 2;
			o.commit_ms = (int)v;
			break;
		case 's': o.socket = optarg; break;
		case 'C': break;	/* read above */
		case 'M':
			if (number("--max-db-mb", optarg, 0, 1L << 30, &v))
				return 2;
			o.max_db_mb = (size_t)v;
			break;
		case 'T':
			if (number("--query-timeout-ms", optarg, 1, 3600000, &v))
				return 2;
			o.serve.timeout_ms = (int)v;
			break;
		case 'N':
			if (number("--query-max-conns", optarg, 1, 65536, &v))
				return 2;
			o.serve.max_conns = (int)v;
			break;
		case 'R':
			if (number("--query-max-result-mb", optarg, 1, 1 << 20, &v))
				return 2;
			o.serve.result_mb = (int)v;
			break;
		case 'Q':
			if (number("--query-max-mem-mb", optarg, 1, 1 << 16, &v))
				return 2;
			o.serve.query_mem_mb = (int)v;
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("commd %s\n", COMMD_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		log_error("unexpected argument '%s'", argv[optind]);
		usage(stderr);
		return 2;
	}
	return daemon_run(&o);
}

static int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "progress", no_argument, NULL, 'P' },
		{ "no-progress", no_argument, NULL, 'N' },
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
				 .max_timeout_ms = SERVER_MAX_TIMEOUT_MS,
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
			if (number("--timeout-ms", optarg, 1, 3600000, &v))
				return 2;
			o.default_timeout_ms = (int)v;
			break;
		case 'n':
			if (number("--max-conns", optarg, 1, 65536, &v))
				return 2;
			o.max_conns = (int)v;
			break;
		case 'r':
			if (number("--max-result-mb", optarg, 1, 1 << 20, &v))
				return 2;
			o.max_result_bytes = (uint64_t)v << 20;
			break;
		case 'm':
			if (number("--max-mem-mb", optarg, 1, 1 << 16, &v))
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

int main(int argc, char **argv)
{
	log_set_program("commd");
	if (argc >= 2 && !strcmp(argv[1], "import"))
		return cmd_import(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "serve"))
		return cmd_serve(argc - 1, argv + 1);
	return cmd_daemon(argc, argv);
}
