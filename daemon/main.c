/* main.c — the commd command line.
 *
 *   commd import TRACE.dat -o OUT.db [--force] [--progress|--no-progress]
 *
 * The live daemon (no subcommand) arrives with the capture issue. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "import.h"
#include "log.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: commd import TRACE.dat -o OUT.db [--force] [--progress|--no-progress]\n"
		"       commd --help | --version\n");
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

int main(int argc, char **argv)
{
	log_set_program("commd");
	if (argc >= 2 && !strcmp(argv[1], "import"))
		return cmd_import(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf("commd %s\n", COMMD_VERSION);
		return 0;
	}
	log_error("the live daemon is not built yet; use: commd import TRACE.dat -o OUT.db");
	usage(stderr);
	return 2;
}
