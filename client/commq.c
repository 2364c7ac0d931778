/* commq.c — the commd query client.
 *
 * `commq [SQL]` asks the daemon over its unix socket (remote.h);
 * `commq --db FILE [SQL]` runs SQL on a database file directly, read-only
 * (local.h).  SQL comes from the argument, -f FILE, stdin, or a prompt
 * when stdin is a terminal (shell.h).  Either way rows go to the formatter
 * (output.h) one at a time, so a result of any size streams.
 */
#include "chq.h"
#include "local.h"
#include "log.h"
#include "losswarn.h"
#include "output.h"
#include "protocol.h"
#include "remote.h"
#include "report.h"
#include "shell.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_USAGE 2

/* The daemon's socket unless --socket or COMMD_SOCKET say otherwise; the
 * same path as the daemon's DAEMON_DEFAULT_SOCKET. */
#define DEFAULT_SOCKET PROTO_DEFAULT_SOCKET
#define HISTORY_FILE ".commq_history"

struct options {
	const char *db;			/* --db FILE; NULL means socket mode */
	const char *socket;		/* --socket PATH */
	const char *clickhouse;		/* --clickhouse URL */
	const char *sql;		/* the SQL argument */
	const char *file;		/* -f FILE ("-": stdin) */
	struct query_limits lim;	/* --limit, --timeout */
	struct output_spec spec;	/* how results are printed */
	int header;			/* -header 1, -noheader 0, unset -1 */
	bool help;			/* --help was given */
	bool quiet;			/* -q: no warning about lost events */
	struct report_args report;	/* `commq REPORT ...`; kind NONE: SQL */
	const char *report_opt;		/* a report's option, as given */
};

enum option_kind { OPT_DB, OPT_SOCKET, OPT_FILE, OPT_LIMIT, OPT_TIMEOUT,
		   OPT_MODE, OPT_HEADER, OPT_SEPARATOR, OPT_NULLVALUE,
		   OPT_HELP, OPT_QUIET, OPT_CLICKHOUSE,
		   /* the reports' options from here on */
		   OPT_BY, OPT_FROM, OPT_TO, OPT_LAST, OPT_COMM, OPT_OUTPUT, OPT_SQL,
		   OPT_WIDTH, OPT_CHROME_JSON, OPT_INTERVAL, OPT_PREEMPT, OPT_DEPTH,
		   OPT_PID, OPT_FOLDED, OPT_LISTEN };

static const struct option_def {
	const char *name;		/* spelled after one or two dashes */
	enum option_kind kind;		/* what it sets */
	int arg;			/* the mode, or the header flag */
	bool has_value;			/* takes the next argument */
} option_defs[] = {
	{ "db",        OPT_DB,        0,             true  },
	{ "socket",    OPT_SOCKET,    0,             true  },
	{ "f",         OPT_FILE,      0,             true  },
	{ "file",      OPT_FILE,      0,             true  },
	{ "limit",     OPT_LIMIT,     0,             true  },
	{ "timeout",   OPT_TIMEOUT,   0,             true  },
	{ "column",    OPT_MODE,      OUTPUT_COLUMN, false },
	{ "table",     OPT_MODE,      OUTPUT_TABLE,  false },
	{ "box",       OPT_MODE,      OUTPUT_BOX,    false },
	{ "list",      OPT_MODE,      OUTPUT_LIST,   false },
	{ "csv",       OPT_MODE,      OUTPUT_CSV,    false },
	{ "json",      OPT_MODE,      OUTPUT_JSON,   false },
	{ "line",      OPT_MODE,      OUTPUT_LINE,   false },
	{ "header",    OPT_HEADER,    1,             false },
	{ "noheader",  OPT_HEADER,    0,             false },
	{ "separator", OPT_SEPARATOR, 0,             true  },
	{ "nullvalue", OPT_NULLVALUE, 0,             true  },
	{ "help",      OPT_HELP,      0,             false },
	{ "h",         OPT_HELP,      0,             false },
	{ "q",         OPT_QUIET,     0,             false },
	{ "quiet",     OPT_QUIET,     0,             false },
	/* the reports' */
	{ "by",        OPT_BY,        0,             true  },
	{ "from",      OPT_FROM,      0,             true  },
	{ "to",        OPT_TO,        0,             true  },
	{ "last",      OPT_LAST,      0,             true  },
	{ "comm",      OPT_COMM,      0,             true  },
	{ "o",         OPT_OUTPUT,    0,             true  },
	{ "output",    OPT_OUTPUT,    0,             true  },
	{ "sql",       OPT_SQL,       0,             false },
	{ "width",     OPT_WIDTH,     0,             true  },
	{ "chrome-json", OPT_CHROME_JSON, 0,         true  },
	{ "interval",  OPT_INTERVAL,  0,             true  },
	{ "preempt",   OPT_PREEMPT,   0,             false },
	{ "depth",     OPT_DEPTH,     0,             true  },
	{ "pid",       OPT_PID,       0,             true  },
	{ "folded",    OPT_FOLDED,    0,             false },
	{ "listen",    OPT_LISTEN,    0,             true  },
	{ "clickhouse", OPT_CLICKHOUSE, 0,           true  },
};

static const char usage_line[] =
	"usage: commq [--socket PATH | --db FILE] [options] [SQL | -f FILE]\n"
	"       commq [--socket PATH | --db FILE] [options] REPORT [ARGS]\n";

static const char help_text[] =
	"Runs SQL on commd's database: asks the daemon over its socket, or\n"
	"with --db reads a database file directly, read-only.  The SQL is\n"
	"the argument, -f FILE, or stdin; on a terminal, a prompt.\n"
	"\n"
	"  --socket PATH      the daemon's socket (default: $COMMD_SOCKET,\n"
	"                     else " DEFAULT_SOCKET ")\n"
	"  --db FILE          a database file instead (opened read-only,\n"
	"                     never created)\n"
	"  --clickhouse URL   the fleet's ClickHouse instead (http://HOST:PORT/\n"
	"                     [?database=DB], docs/fleet.md): one SQL statement,\n"
	"                     or top|latency --by host [--last D]\n"
	"  -f FILE            read SQL and dot commands from FILE ('-': stdin)\n"
	"  --limit N          at most N rows per batch (0: no limit)\n"
	"  --timeout SECONDS  cut a batch off after SECONDS (decimals allowed;\n"
	"                     0: the daemon's default)\n"
	"  -column            aligned columns with a header (the default)\n"
	"  -table, -box       the same in a frame of ASCII or box-drawing\n"
	"                     lines, as sqlite3 draws it (header always on)\n"
	"  -list              fields separated by '|'\n"
	"  -csv               comma-separated values\n"
	"  -json              one JSON array of objects per statement\n"
	"  -line              one 'name = value' line per field\n"
	"  -header, -noheader print column names or not (default: on in\n"
	"                     column mode, off in list and csv, as sqlite3)\n"
	"  -separator SEP     field separator for -list and -csv\n"
	"  -nullvalue TEXT    text shown for NULL\n"
	"  -q, --quiet        no warning when events were lost (below)\n"
	"  -help              this text\n"
	"\n"
	"Options take one dash or two, and may come before or after the SQL;\n"
	"'--' ends them.  Lines starting with '.' between statements are dot\n"
	"commands (.tables, .schema, .mode, .headers, .help, .quit), on the\n"
	"prompt and in -f files and stdin alike.  A batch is what ends with\n"
	"';' (or the whole argument); the first error stops commq with exit\n"
	"status 1, except at the prompt.\n"
	"\n"
	"Lost events: after a batch that names an event or derived table\n"
	"(sched, events, wakeup_latency, sched_*, task_*, ev_*, dv_*), commq\n"
	"warns on stderr when lost_events has losses in the time the rows\n"
	"printed cover (the least and greatest ts or *_ts, plus dur), or in\n"
	"the whole capture when the answer has no such column.  Reports warn\n"
	"for their window (lost never does).  The exit status is unchanged.\n"
	"\n"
	"Reports: SQL written for you, sent the same way (file or socket,\n"
	"--limit and --timeout apply); --sql prints it instead of running it.\n"
	"Tables print in the output mode chosen above.\n"
	"\n"
	"  top [--by comm|process|thread|cpu|cgroup] [--from T] [--to T] [--last D]\n"
	"        CPU time from the sched slices, the part of each slice inside\n"
	"        the window: per comm (time_ms, share_pct of all CPU time\n"
	"        seen, idle included, switches = slices), per process (one per\n"
	"        the thread group's lifetime, named by its leader, with its\n"
	"        tgid), per thread (a pid's lifetime), per CPU (busy, idle,\n"
	"        unknown), or per cgroup (cgroup_history; split at moves)\n"
	"  latency [--comm NAME] [--from T] [--to T] [--last D]\n"
	"        wakeup latency (wakeup_latency, by the time of the wakeup): a\n"
	"        log2 histogram in microseconds as bcc's runqlat (a bar chart\n"
	"        in column mode, rows in the others), then count, min, avg,\n"
	"        p50, p90, p99 (nearest rank) and max\n"
	"  latency --by pid|comm [--preempt] [--from T] [--to T] [--last D]\n"
	"        per task (or comm), as perf sched latency: run time, switches,\n"
	"        waits, average and maximum wait and when the maximum began;\n"
	"        a wait is a wakeup's latency, and with --preempt also the\n"
	"        time a preempted task waited to run again (preempt_wait)\n"
	"  offcpu [--comm NAME | --pid PID] [--from T] [--to T] [--last D]\n"
	"         [--folded | -o FILE.svg]\n"
	"        time off CPU asleep (S) or blocked (D), per kernel stack (the\n"
	"        offcpu view; stacks need commd --stacks, or trace-cmd record\n"
	"        -T for an import), longest first; --folded prints\n"
	"        'comm;outer;...;inner µs' lines for flame graph tools, -o\n"
	"        draws the flame graph itself\n"
	"  wakers PID [--depth N] [--from T] [--to T] [--last D]\n"
	"        who woke PID, wakeup by wakeup, and who woke them (the\n"
	"        waker's last wakeup before), N levels deep (default 3), as far\n"
	"        as the window shows\n"
	"  util [--by cpu|comm|cgroup] [--interval D] [--from T] [--to T] [--last D]\n"
	"        utilisation over time from the sched slices, the window cut\n"
	"        into intervals of D (default 1s) from its start: per CPU and\n"
	"        interval its busy, idle and unknown time and busy_pct of the\n"
	"        interval (--by cpu, the default), or per interval each comm's\n"
	"        CPU time and cpu_pct of one CPU (--by comm, idle left out;\n"
	"        --by cgroup the same per cgroup)\n"
	"  runq [--from T] [--to T] [--last D]\n"
	"        run-queue length per CPU (the runqueue view): its time-weighted\n"
	"        mean, p50/p90/p99 of the time, max, and the waiting it adds up\n"
	"        to (wait_ms: the time integral, the CPU's run delay) over the\n"
	"        time the queue is known (span_ms)\n"
	"  history PID\n"
	"        every name PID had (comm_history), lifetime by lifetime, with\n"
	"        durations and what named it; exit status 1 if none\n"
	"  lost  ring-buffer losses per CPU: loss records, events counted,\n"
	"        records without a count, first and last, slices a loss fell\n"
	"        into, and the kernel's dropped/overrun counters of a live\n"
	"        capture; then a row for all CPUs\n"
	"  timeline [--from T] [--to T] [--last D] -o FILE [--width PX]\n"
	"        FILE.html: a page that draws every slice of the window itself\n"
	"        (nothing merged; where many fall in one pixel, a mark that\n"
	"        says how many): CPU lanes, a lane per process that opens into\n"
	"        its threads (running, runnable, sleeping, uninterruptible,\n"
	"        unknown), losses hatched, unknown time dotted; hover for a\n"
	"        slice's fields, click for its wakeup (an arrow from the waker),\n"
	"        search a comm or pid; wheel or w/s zoom, drag or a/d pan, the\n"
	"        view in the address (#from=MS&to=MS after the capture start).\n"
	"        At most 2,000,000 slices: narrow a bigger window.  FILE.svg\n"
	"        (or - for SVG on stdout): a picture, one lane per CPU, tasks\n"
	"        coloured by comm (the twelve busiest in colours far apart, the\n"
	"        others by a hash of the name), idle grey, wakeup ticks, losses\n"
	"        hatched, an axis and a legend; --width defaults to 1200\n"
	"  ui [--listen 127.0.0.1:PORT] [--last D]\n"
	"        the timeline page live from the daemon: serves it on loopback\n"
	"        only (any port unless given) and prints its address with a\n"
	"        random token every request must carry; the page follows the\n"
	"        last D (default 10s) as it is committed and can pause.  Its\n"
	"        queries go over commq's own connection, as the user who ran it\n"
	"  export --chrome-json FILE [--from T] [--to T] [--last D]\n"
	"        the sched slices as Chrome trace-event JSON for the Perfetto\n"
	"        UI (ui.perfetto.dev) or chrome://tracing: a process \"CPUs\"\n"
	"        with a track per CPU, one event per slice named by the comm\n"
	"        (idle left out; args pid, tid, prio, end_state), the tasks'\n"
	"        names from comm_history, losses as instant events; and a\n"
	"        track per task: its states (thread_state), wakeup flows from\n"
	"        the waker, renames.  FILE is replaced only when complete; -\n"
	"        writes to stdout\n"
	"\n"
	"Times T: a number and a unit: 1.5s, 150ms, 20us (or µs), 123ns.  A\n"
	"number without a unit is seconds (2, 1.5), except an integer of 10\n"
	"or more digits, which is a timestamp in ns as the ts columns print it\n"
	"(171094783149).  A leading '+' counts from the capture start (the\n"
	"earliest capture.start_ts, else the first sched slice): +2s, +150ms.\n"
	"A date and time in ISO 8601 is the time of day, mapped to the trace\n"
	"clock with the captures' clock readings (clock_map):\n"
	"2026-12-01T13:02:00Z, 2026-12-01T14:02:00.5+01:00, or without a zone\n"
	"the local time.  A time without '+' outside every capture is an\n"
	"error.  --last D (instead of --from/--to): the D up to the newest\n"
	"event, e.g. --last 10s.  Without them a report covers the whole\n"
	"capture.\n";

static int usage_error(const char *what, const char *arg)
{
	log_error("%s%s", what, arg);
	fputs(usage_line, stderr);
	fputs("Try 'commq --help'.\n", stderr);
	return -1;
}

static int parse_limit(const char *s, uint32_t *limit)
{
	unsigned long long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned)(*s - '0');
		if (v > UINT32_MAX)
			return -1;
	}
	*limit = (uint32_t)v;
	return 0;
}

/* Seconds, decimals allowed, to whole milliseconds rounded up (0.0001
 * is 1 ms, not "the default"). */
static int parse_timeout(const char *s, uint32_t *ms)
{
	char *end;
	double v, m;
	uint64_t u;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !(v >= 0) || v > UINT32_MAX / 1000.0)
		return -1;
	m = v * 1000;
	u = (uint64_t)m;
	if ((double)u < m)
		u++;
	*ms = (uint32_t)u;
	return 0;
}

/* Options look like sqlite3's (-csv, -separator X) and may also take two
 * dashes or an '=' (--separator=X). */
static int parse_option(const char *arg, char **argv, int argc, int *i,
			struct options *opt)
{
	const char *name = arg + (arg[1] == '-' ? 2 : 1);
	size_t len = strcspn(name, "=");
	const char *value = name[len] ? name + len + 1 : NULL;
	const struct option_def *def = NULL;

	for (size_t k = 0; k < sizeof(option_defs) / sizeof(*option_defs); k++)
		if (strlen(option_defs[k].name) == len &&
		    !strncmp(option_defs[k].name, name, len))
			def = &option_defs[k];
	if (!def)
		return usage_error("unknown option: ", arg);
	if (def->has_value && !value) {
		if (*i + 1 >= argc)
			return usage_error("missing value after ", arg);
		value = argv[++*i];
	} else if (!def->has_value && value) {
		return usage_error("option takes no value: ", arg);
	}
	switch (def->kind) {
	case OPT_DB:
		if (!*value)
			return usage_error("--db needs a file name", "");
		opt->db = value;
		break;
	case OPT_SOCKET:
		if (!*value)
			return usage_error("--socket needs a path", "");
		opt->socket = value;
		break;
	case OPT_FILE:
		if (!*value)
			return usage_error("-f needs a file name", "");
		opt->file = value;
		break;
	case OPT_LIMIT:
		if (parse_limit(value, &opt->lim.row_limit) < 0)
			return usage_error("--limit needs a number of rows "
					   "(0 to 4294967295): ", value);
		break;
	case OPT_TIMEOUT:
		if (parse_timeout(value, &opt->lim.timeout_ms) < 0)
			return usage_error("--timeout needs seconds, such as 2 "
					   "or 0.5: ", value);
		break;
	case OPT_MODE:
		opt->spec.mode = def->arg;
		break;
	case OPT_HEADER:
		opt->header = def->arg;
		break;
	case OPT_SEPARATOR:
		opt->spec.separator = value;
		break;
	case OPT_NULLVALUE:
		opt->spec.nullvalue = value;
		break;
	case OPT_HELP:
		opt->help = true;
		break;
	case OPT_QUIET:
		opt->quiet = true;
		break;
	case OPT_BY:
		if (report_parse_by(value, &opt->report.by) < 0)
			return usage_error("--by takes comm, process, thread, cpu, pid, cgroup or host: ",
					   value);
		opt->report.by_set = true;
		break;
	case OPT_PREEMPT:
		opt->report.preempt = true;
		break;
	case OPT_FOLDED:
		opt->report.folded = true;
		break;
	case OPT_PID: {
		uint32_t pid;

		if (parse_limit(value, &pid) < 0 || pid > INT32_MAX)
			return usage_error("--pid needs a pid: ", value);
		opt->report.only_pid = pid;
		opt->report.has_only_pid = true;
		break;
	}
	case OPT_DEPTH: {
		uint32_t d;

		if (parse_limit(value, &d) < 0 || d < 1 || d > 64)
			return usage_error("--depth takes 1 to 64: ", value);
		opt->report.depth = (int)d;
		break;
	}
	case OPT_INTERVAL: {
		struct report_time t;
		const char *why;

		if (report_parse_time(value, &t, &why) < 0 || t.relative ||
		    t.wall || t.ns <= 0)
			return usage_error("--interval takes a duration (100ms, 1s): ",
					   value);
		opt->report.interval = t.ns;
		break;
	}
	case OPT_FROM:
	case OPT_TO: {
		struct report_time *t = def->kind == OPT_FROM ? &opt->report.from
							      : &opt->report.to;
		const char *why;

		if (opt->report.from.last)
			return usage_error("--last covers the window up to the newest "
					   "event; it takes no --from or --to: ", arg);
		if (report_parse_time(value, t, &why) < 0) {
			char what[256];

			snprintf(what, sizeof(what), "%s: %s: ", arg, why);
			return usage_error(what, value);
		}
		break;
	}
	case OPT_LAST: {
		const char *why;

		if (opt->report.from.set || opt->report.to.set)
			return usage_error("--last covers the window up to the newest "
					   "event; it takes no --from or --to: ", arg);
		if (report_parse_last(value, &opt->report.from, &why) < 0)
			return usage_error("--last: ", why);
		break;
	}
	case OPT_COMM:
		opt->report.comm = value;
		break;
	case OPT_OUTPUT:
		if (!*value)
			return usage_error("-o needs a file name", "");
		opt->report.output = value;
		break;
	case OPT_SQL:
		opt->report.print_sql = true;
		break;
	case OPT_WIDTH: {
		uint32_t w;

		if (parse_limit(value, &w) < 0 || w > 100000)
			return usage_error("--width needs pixels: ", value);
		opt->report.width = (int)w;
		break;
	}
	case OPT_CLICKHOUSE:
		if (!*value)
			return usage_error("--clickhouse needs a URL", "");
		opt->clickhouse = value;
		opt->report.clickhouse = value;
		break;
	case OPT_LISTEN:
		opt->report.listen = value;
		break;
	case OPT_CHROME_JSON:
		if (!*value)
			return usage_error("--chrome-json needs a file name", "");
		opt->report.chrome_json = value;
		break;
	}
	if (def->kind >= OPT_BY && !opt->report_opt)
		opt->report_opt = arg;
	return 0;
}

/* A report's own argument: history's PID. */
static int report_argument(const char *arg, struct options *opt)
{
	uint32_t pid;

	if ((opt->report.kind != REPORT_HISTORY && opt->report.kind != REPORT_WAKERS) ||
	    opt->report.has_pid)
		return usage_error("unexpected argument: ", arg);
	if (parse_limit(arg, &pid) < 0 || pid > INT32_MAX)
		return usage_error("not a pid: ", arg);
	opt->report.pid = pid;
	opt->report.has_pid = true;
	return 0;
}

static int parse_args(int argc, char **argv, struct options *opt)
{
	bool options_done = false;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!options_done && !strcmp(arg, "--")) {
			options_done = true;
		} else if (!options_done && arg[0] == '-' && arg[1]) {
			if (parse_option(arg, argv, argc, &i, opt) < 0)
				return -1;
		} else if (opt->report.kind != REPORT_NONE) {
			if (report_argument(arg, opt) < 0)
				return -1;
		} else if (!opt->sql && !options_done && report_kind(arg)) {
			opt->report.kind = report_kind(arg);
		} else if (opt->sql) {
			return usage_error("more than one SQL argument: ", arg);
		} else {
			opt->sql = arg;
		}
	}
	if (opt->help)
		return 0;
	if (opt->report.kind == REPORT_NONE && opt->report_opt)
		return usage_error("option for reports only: ", opt->report_opt);
	if (opt->report.kind != REPORT_NONE) {
		if (opt->file)
			return usage_error("a report reads no -f ", opt->file);
		if (report_check(&opt->report) < 0) {
			fputs(usage_line, stderr);
			fputs("Try 'commq --help'.\n", stderr);
			return -1;
		}
	}
	if (opt->db && opt->socket)
		return usage_error("--db and --socket exclude each other", "");
	if (opt->clickhouse && (opt->db || opt->socket))
		return usage_error("--clickhouse queries the cluster: not with --db or --socket", "");
	if (opt->sql && opt->file)
		return usage_error("both an SQL argument and -f ", opt->file);
	if (!opt->db && !opt->socket) {
		const char *env = getenv("COMMD_SOCKET");

		opt->socket = env && *env ? env : DEFAULT_SOCKET;
	}
	return 0;
}

/* ---- running batches ---- */

struct target {
	struct local *local;		/* --db mode */
	struct remote *remote;		/* socket mode */
	const char *db, *socket;	/* where they were opened */
	struct query_limits lim;	/* asked of every batch */
	bool quiet;			/* -q: no loss warnings */
	bool cut;			/* --limit left rows out since reset */
};

/* Says on stderr that --limit left rows out of what was printed. */
static void warn_cut(struct target *t, const char *what)
{
	if (t->cut)
		log_warning("%s was cut at --limit %" PRIu32 " rows: rows were left "
			 "out (--limit 0 prints them all)", what, t->lim.row_limit);
	t->cut = false;
}

/* Shows the line of sql around byte offset, and a caret under it. */
static void show_position(const char *sql, int offset)
{
	size_t len = strlen(sql), at = (size_t)offset, start, end;

	if (offset < 0 || at > len)
		return;
	for (;;) {
		bool blank = true;

		for (start = at; start > 0 && sql[start - 1] != '\n'; start--)
			;
		for (end = at; end < len && sql[end] != '\n'; end++)
			;
		for (size_t i = start; i < end && blank; i++)
			blank = sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\r';
		/* At the end of an empty last line: point past the last
		 * line with something on it instead. */
		if (!blank || start == 0)
			break;
		at = start - 1;
	}
	if (end == start)
		return;
	/* A long line: a window of about 76 columns around the offset,
	 * cut at UTF-8 character boundaries. */
	if (at - start > 50) {
		start = at - 50;
		while (start < at && ((unsigned char)sql[start] & 0xc0) == 0x80)
			start++;
	}
	if (end - start > 76) {
		end = start + 76 > at ? start + 76 : at;
		while (end > at && ((unsigned char)sql[end] & 0xc0) == 0x80)
			end--;
	}
	fputs("  ", stderr);
	for (size_t i = start; i < end; i++) {
		unsigned char c = sql[i];

		fputc((c < 0x20 && c != '\t') || c == 0x7f ? ' ' : c, stderr);
	}
	fputs("\n  ", stderr);
	for (size_t i = start; i < at; i++) {
		unsigned char c = sql[i];

		if (c == '\t')
			fputc('\t', stderr);
		else if ((c & 0xc0) != 0x80)
			fputc(' ', stderr);
	}
	fputs("^\n", stderr);
}

/* One batch on the file or over the socket; err says why it failed. */
static int run_sql(void *ctx, const char *sql, struct output *out,
		   struct query_error *err)
{
	struct target *t = ctx;
	int ret;

	err->cut = false;
	if (t->local)
		ret = local_run(t->local, sql, &t->lim, out, err);
	else
		ret = remote_run(t->remote, sql, strlen(sql), &t->lim, out, err);
	t->cut = t->cut || (ret == 0 && err->cut);
	return ret;
}

static int run_batch(void *ctx, const char *sql, struct output *out)
{
	struct target *t = ctx;
	struct query_error err = { .offset = -1 };
	struct losswarn_tracker tr;
	/* Without memory to track the rows, no warning either. */
	bool warn = !t->quiet && losswarn_reads_events(sql) &&
		    losswarn_track(&tr, out) == 0;
	int ret;

	t->cut = false;
	ret = run_sql(ctx, sql, warn ? tr.sink : out, &err);

	if (ret < 0) {
		/* Rows printed before the error come first on a terminal. */
		fflush(stdout);
		log_error("%s", err.msg);
		/* --db keeps its one-line errors; the daemon's get the
		 * place in the SQL as well. */
		if (t->remote)
			show_position(sql, err.offset);
	} else {
		warn_cut(t, "the answer");
		if (warn && losswarn_tracked(&tr, run_sql, t) < 0) {
			log_error("printing results: %s", strerror(errno));
			ret = -1;
		}
	}
	if (warn)
		losswarn_track_free(&tr);
	return ret;
}

static const char *history_path(char *buf, size_t size)
{
	const char *home = getenv("HOME");

	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());

		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || (size_t)snprintf(buf, size, "%s/%s", home,
				      HISTORY_FILE) >= size)
		return NULL;
	return buf;
}

/* A second connection to t's file or daemon, with t's limits: 0, or -1
 * when it could not be made.  t's own connection is made first: where
 * the server has room for one more alone, the report has it. */
static int target_second(const struct target *t, struct target *second)
{
	struct query_error err = { .offset = -1 };

	*second = (struct target){ .lim = t->lim, .quiet = true };
	if (t->remote && remote_connect(t->remote, &err) < 0)
		return -1;
	if (t->local)
		second->local = local_open(t->db, &err);
	else
		second->remote = remote_new(t->socket, &err);
	return second->local || second->remote ? 0 : -1;
}

static void target_close(struct target *t)
{
	local_close(t->local);
	remote_free(t->remote);
}

/* A report's statements side by side (struct report_beside). */
static void *beside_open(void *ctx)
{
	struct target *second = malloc(sizeof(*second));

	if (second && target_second(ctx, second) == 0)
		return second;
	free(second);
	return NULL;
}

static void beside_close(void *beside, void *ctx)
{
	struct target *second = beside, *t = ctx;

	t->cut = t->cut || second->cut;
	target_close(second);
	free(second);
}

static const struct report_beside beside_ops = {
	beside_open, run_sql, beside_close,
};

/* The look for a window's warnings, on a connection of its own. */
struct side_look {
	struct target t;
	const struct report_args *a;
	struct losswarn_found found;
	bool failed;			/* a look-up could not run */
	pthread_t thread;
};

static int side_run_sql(void *ctx, const char *sql, struct output *out,
			struct query_error *err)
{
	struct side_look *s = ctx;
	int ret = run_sql(&s->t, sql, out, err);

	if (ret != 0)
		s->failed = true;
	return ret;
}

static void *side_look_run(void *arg)
{
	struct side_look *s = arg;

	losswarn_window_find(&s->a->from, &s->a->to, side_run_sql, s,
			     &s->found);
	return NULL;
}

/* Starts the look for a's window's warnings beside the report, on a
 * second connection to t's file or daemon (the daemon runs two queries of
 * a user at once): on a second core it costs the report no time. Returns
 * 0, or -1 when it could not start (the caller then looks after the
 * report, on t itself). */
static int side_look_start(struct side_look *s, const struct target *t,
			   const struct report_args *a)
{
	*s = (struct side_look){ .a = a };
	if (target_second(t, &s->t) == 0 &&
	    pthread_create(&s->thread, NULL, side_look_run, s) == 0)
		return 0;
	target_close(&s->t);
	return -1;
}

/* Waits for the look to end; its warnings into found. Returns 0, or -1
 * when a look-up could not run there (a server that refused the second
 * connection, say: the caller then looks on its own connection). */
static int side_look_join(struct side_look *s, struct losswarn_found *found)
{
	pthread_join(s->thread, NULL);
	*found = s->found;
	target_close(&s->t);
	return s->failed ? -1 : 0;
}

/* A report, then the warning for its window (history: the lifetimes
 * it printed; lost: none). */
static int run_report(const struct report_args *a, struct target *t,
		      struct shell *sh)
{
	struct losswarn_tracker tr;
	bool track = !t->quiet && a->kind == REPORT_HISTORY &&
		     losswarn_track(&tr, sh->out) == 0;
	bool window = !t->quiet && a->kind != REPORT_HISTORY &&
		      a->kind != REPORT_LOST && a->kind != REPORT_UI;
	struct side_look side;
	struct losswarn_found found;
	bool beside = window && side_look_start(&side, t, a) == 0;
	int ret, warned = 0;

	t->cut = false;
	ret = report_run_beside(a, run_sql, t, &beside_ops,
				track ? tr.sink : sh->out, &sh->spec);

	if (ret == 0)
		warn_cut(t, "the report");
	/* The side look's lines; where it failed, a look on t itself. */
	if (beside && side_look_join(&side, &found) == 0) {
		if (ret == 0)
			warned = losswarn_print(&found);
	} else if (ret == 0 && track) {
		warned = losswarn_tracked(&tr, run_sql, t);
	} else if (ret == 0 && window) {
		warned = losswarn_window(&a->from, &a->to, run_sql, t);
	}
	if (warned < 0) {
		log_error("printing results: %s", strerror(errno));
		ret = -1;
	}
	if (track)
		losswarn_track_free(&tr);
	return ret ? -1 : 0;
}

/* --clickhouse: one statement, or a fleet report, on the cluster. */
static int run_clickhouse(const struct options *opt)
{
	struct query_error err = { .offset = -1 };
	struct output_spec spec = opt->spec;
	struct chq *c = chq_new(opt->clickhouse, &err);
	struct output *out = NULL;
	char *sql = NULL;
	int ret = -1;

	if (!c) {
		log_error("%s", err.msg);
		return -1;
	}
	if (opt->report.kind != REPORT_NONE) {
		if (chq_report_sql(&opt->report, &sql) < 0)
			goto out;
		if (opt->report.print_sql) {
			printf("%s;\n", sql);
			ret = 0;
			goto out;
		}
	} else if (!opt->sql) {
		log_error("--clickhouse takes one SQL argument or a report (top|latency --by host)");
		goto out;
	}
	spec.header = opt->header != 0;
	out = output_new(&spec, stdout);
	if (!out) {
		log_error("%s", strerror(errno));
		goto out;
	}
	ret = chq_run(c, sql ? sql : opt->sql, out, &err);
	if (ret < 0)
		log_error("%s", err.msg);
out:
	output_free(out);
	free(sql);
	chq_free(c);
	return ret;
}

static int run(const struct options *opt)
{
	struct target t = { .db = opt->db, .socket = opt->socket,
			    .lim = opt->lim, .quiet = opt->quiet };
	struct query_error err = { .offset = -1 };
	struct shell sh;
	bool shell_ok = false;
	int ret = -1;

	if (opt->clickhouse)
		return run_clickhouse(opt);
	/* --sql needs no database at all. */
	if (opt->report.kind != REPORT_NONE && opt->report.print_sql) {
		struct output_spec spec = opt->spec;

		return report_run(&opt->report, run_sql, &t, NULL, &spec) ? -1
									  : 0;
	}
	if (opt->db)
		t.local = local_open(opt->db, &err);
	else
		t.remote = remote_new(opt->socket, &err);
	if (!t.local && !t.remote) {
		log_error("%s", err.msg);
		goto out;
	}
	/* A report of several results (latency: the histogram, then the
	 * percentiles) names each one's columns in csv, where nothing else
	 * would tell them apart, unless -noheader says otherwise. */
	if (shell_init(&sh, run_batch, &t, &opt->spec,
		       opt->header < 0 && opt->spec.mode == OUTPUT_CSV &&
		       report_results(&opt->report) > 1 ? 1 : opt->header) < 0) {
		log_error("%s", strerror(errno));
		goto out;
	}
	shell_ok = true;
	if (opt->report.kind != REPORT_NONE) {
		/* 1 (nothing found) fails the exit status too */
		ret = run_report(&opt->report, &t, &sh);
	} else if (opt->sql) {
		ret = shell_run_text(&sh, opt->sql);
	} else if (opt->file && strcmp(opt->file, "-")) {
		FILE *in = fopen(opt->file, "re");

		if (!in) {
			log_error("%s: %s", opt->file, strerror(errno));
			goto out;
		}
		ret = shell_run_file(&sh, in, opt->file);
		fclose(in);
	} else if (!opt->file && isatty(STDIN_FILENO)) {
		char buf[4096];

		ret = shell_interactive(&sh, history_path(buf, sizeof(buf)));
	} else {
		ret = shell_run_file(&sh, stdin, "stdin");
	}
out:
	if (shell_ok)
		shell_free(&sh);
	local_close(t.local);
	remote_free(t.remote);
	return ret;
}

int main(int argc, char **argv)
{
	struct options opt = { .header = -1, .spec = { .mode = OUTPUT_COLUMN } };
	int ret;

	log_set_program("commq");
	if (parse_args(argc, argv, &opt) < 0)
		return EXIT_USAGE;
	if (opt.help) {
		fputs(usage_line, stdout);
		fputs(help_text, stdout);
		return fflush(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
	}
	ret = run(&opt);
	/* stdout is buffered: a full disk or a closed pipe may show only
	 * now, and a cut result must not exit 0. */
	if (fflush(stdout) != 0 && ret == 0) {
		log_error("printing results: %s", strerror(errno));
		ret = -1;
	}
	return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
