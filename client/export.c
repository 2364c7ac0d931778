/* export.c — see export.h.
 *
 * One batch of seven statements, whose results come in order: the window
 * and the capture's source, the tasks (metadata), the slices, the losses,
 * the tasks' states (thread_state), the wakeups (flow events from the
 * waker's track to the wakee's) and the renames. Each row becomes one
 * event written at once; a CPU's track is named when its first event
 * comes, so no statement has to list the CPUs.
 */
#include "export.h"
#include "json.h"
#include "grow.h"

#include "log.h"
#include "sqlfuncs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUFFER_SIZE (1 << 16)

enum { Q_WINDOW, Q_THREADS, Q_SLICES, Q_LOST, Q_STATES, Q_FLOWS, Q_RENAMES, NQUERIES };

struct exporter {
	struct report_sink_error err;
	FILE *f;
	const char *name;	/* of the output, for messages */
	int stage;		/* the result being read, -1 before any */
	bool first;		/* no event written yet */

	int64_t lo, hi;		/* the window */
	char *source;		/* the capture's */
	char *states;		/* its state letters (capture.states) */

	int64_t *cpus;		/* CPUs whose track is named, sorted */
	int ncpus;
	size_t cpus_cap;

	uint64_t slices, threads, losses, nstates, flows, renames;
};

/* After an event: a write error (a full disk, a closed pipe) stops the
 * query at once, with errno as the failed write left it. */
static int written(struct exporter *x)
{
	if (!ferror(x->f))
		return 0;
	return report_fail(&x->err, errno ? errno : EIO, "%s: %s", x->name,
		    strerror(errno ? errno : EIO));
}

/* ---- JSON ---- */

static void put_file(void *ctx, const char *p, size_t n)
{
	fwrite(p, 1, n, ctx);
}

/* s (n bytes, NULs allowed) as a JSON string (common/json.h): the file is
 * valid JSON whatever the comm. */
static void json_string(FILE *f, const char *s, size_t n)
{
	json_string_to(put_file, f, s, n, 0);
}

static void json_value_string(FILE *f, const struct output_value *v,
			      const char *null_text)
{
	if (v->type == OUTPUT_NULL || !v->text)
		json_string(f, null_text, strlen(null_text));
	else
		json_string(f, v->text, v->len);
}

/* An integer column as a JSON number, or null. */
static void json_int(FILE *f, const struct output_value *v)
{
	if (v->type == OUTPUT_NULL || !v->text)
		fputs("null", f);
	else
		fprintf(f, "%" PRId64, report_int(v, 0));
}

/* ns as µs, exactly: up to three decimals, trailing zeros left out. */
static void json_us(FILE *f, int64_t ns)
{
	uint64_t u = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	unsigned frac = (unsigned)(u % 1000);

	fprintf(f, "%s%" PRIu64, ns < 0 ? "-" : "", u / 1000);
	if (frac % 10)
		fprintf(f, ".%03u", frac);
	else if (frac % 100)
		fprintf(f, ".%02u", frac / 10);
	else if (frac)
		fprintf(f, ".%u", frac / 100);
}

/* Starts an event: the separator from the one before. */
static void event(struct exporter *x)
{
	fputs(x->first ? "" : ",\n", x->f);
	x->first = false;
}

static int64_t cpu_tid(int64_t cpu)
{
	return EXPORT_CPUS_PID + 1 + cpu;
}

/* The track of cpu, named (thread_name, thread_sort_index) when first
 * used.  Returns 0, or -1 out of memory. */
static int cpu_track(struct exporter *x, int64_t cpu)
{
	int lo = 0, hi = x->ncpus;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (x->cpus[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < x->ncpus && x->cpus[lo] == cpu)
		return 0;
	if (grow_array(&x->cpus, &x->cpus_cap, sizeof(*x->cpus), (size_t)x->ncpus + 1, 0))
		return report_fail(&x->err, ENOMEM, "%s", strerror(ENOMEM));
	memmove(x->cpus + lo + 1, x->cpus + lo,
		(size_t)(x->ncpus - lo) * sizeof(*x->cpus));
	x->cpus[lo] = cpu;
	x->ncpus++;
	event(x);
	fprintf(x->f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"ts\":0,"
		"\"pid\":%d,\"tid\":%" PRId64 ",\"args\":{\"name\":\"CPU %"
		PRId64 "\"}},\n", EXPORT_CPUS_PID, cpu_tid(cpu), cpu);
	fprintf(x->f, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"ts\":0,"
		"\"pid\":%d,\"tid\":%" PRId64 ",\"args\":{\"sort_index\":%"
		PRId64 "}}", EXPORT_CPUS_PID, cpu_tid(cpu), cpu);
	return 0;
}

/* ---- SQL ---- */

/* A task's thread group: from its comm_history row at the slice's start,
 * else its first row that knows it. */
#define TGID_OF(pid, ts)						\
	"coalesce((SELECT h.tgid FROM comm_history h\n"			\
	"                 WHERE h.pid = " pid " AND h.start_ts <= " ts "\n" \
	"                   AND h.tgid IS NOT NULL\n"			\
	"                 ORDER BY h.start_ts DESC LIMIT 1),\n"		\
	"                (SELECT h.tgid FROM comm_history h\n"		\
	"                 WHERE h.pid = " pid " AND h.tgid IS NOT NULL\n" \
	"                 ORDER BY h.start_ts LIMIT 1))"

static void build_sql(struct sbuf *b, const struct report_args *a)
{
	report_window_cte(b, a);
	sbuf_printf(b, "\n"
"SELECT w.lo, w.hi,\n"
"       (SELECT source FROM capture ORDER BY id LIMIT 1) AS source,\n"
"       (SELECT states FROM capture WHERE states IS NOT NULL\n"
"        ORDER BY id DESC LIMIT 1) AS states\n"
"FROM w;\n");
	/* every task alive in the window, by its last name there */
	report_window_cte(b, a);
	sbuf_printf(b, ",\n"
"t AS (SELECT h.pid, h.tgid, h.comm, h.start_ts,\n"
"             row_number() OVER (PARTITION BY h.pid\n"
"                                ORDER BY h.start_ts DESC, h.id DESC) AS r\n"
"      FROM comm_history h, w\n"
"      WHERE h.pid <> 0 AND h.comm IS NOT NULL AND h.start_ts < w.hi\n"
"        AND (h.end_ts IS NULL OR h.end_ts > w.lo))\n"
"SELECT t.pid, coalesce(t.tgid, " TGID_OF("t.pid", "t.start_ts") ") AS tgid,\n"
"       t.comm\n"
"FROM t WHERE t.r = 1 ORDER BY t.pid;\n");
	/* the slices of tasks, the part of each inside the window */
	report_window_cte(b, a);
	sbuf_printf(b, "\n"
"SELECT s.cpu, max(s.ts, " W_LO ") AS ts, " CLIPPED " AS dur, s.pid,\n"
"       " TGID_OF("s.pid", "s.ts") " AS tgid,\n"
"       s.comm, s.prio, s.end_state, s.lost\n"
"FROM ws s\n"
"WHERE s.pid <> 0 AND " IN_WINDOW ";\n");
	report_window_cte(b, a);
	sbuf_printf(b, "\n"
"SELECT l.cpu, l.ts, l.count FROM lost_events l, w\n"
"WHERE l.ts >= w.lo AND l.ts < w.hi;\n");
	/* each task's states over the window, on its own track */
	report_window_cte(b, a);
	sbuf_printf(b, "\n"
"SELECT max(s.ts, w.lo) AS ts, min(s.ts + s.dur, w.hi) - max(s.ts, w.lo) AS dur,\n"
"       s.pid, " TGID_OF("s.pid", "s.ts") " AS tgid, s.comm, s.state, s.cpu\n"
"FROM thread_state s, w\n"
"WHERE s.pid <> 0 AND s.dur > 0 AND s.ts < w.hi AND s.ts + s.dur > w.lo;\n");
	/* the wakeups that begin in the window, from a task to a task */
	report_window_cte(b, a);
	sbuf_printf(b, "\n"
"SELECT l.ts, l.latency, l.pid, " TGID_OF("l.pid", "l.ts") " AS tgid,\n"
"       l.waker_pid, " TGID_OF("l.waker_pid", "l.ts") " AS waker_tgid\n"
"FROM wl l WHERE l.waker_pid > 0 AND l.pid > 0;\n");
	/* the names a task took inside the window (not its first) */
	report_window_cte(b, a);
	sbuf_printf(b, "\n"
"SELECT r.start_ts, r.pid, " TGID_OF("r.pid", "r.start_ts") " AS tgid, r.comm\n"
"FROM comm_history r, w\n"
"WHERE r.pid <> 0 AND r.comm IS NOT NULL AND r.start_ts >= w.lo AND r.start_ts < w.hi\n"
"  AND EXISTS (SELECT 1 FROM comm_history p WHERE p.pid = r.pid AND p.life = r.life\n"
"              AND p.start_ts < r.start_ts);\n");
}

/* ---- the sinks ---- */

static const int ncols[NQUERIES] = { 4, 3, 9, 3, 7, 6, 4 };
static const char *const what[NQUERIES] = {
	"window", "tasks", "slices", "losses", "states", "wakeups", "renames",
};

static int ex_begin(void *ctx, const struct output_column *c, int n)
{
	struct exporter *x = ctx;

	(void)c;
	if (++x->stage >= NQUERIES)
		return report_fail(&x->err, EPROTO, "export: more results than asked for");
	if (n != ncols[x->stage])
		return report_fail(&x->err, EPROTO, "export: the %s came with %d columns, "
			    "not %d", what[x->stage], n, ncols[x->stage]);
	return 0;
}

static int window_row(struct exporter *x, const struct output_value *v)
{
	x->lo = report_int(&v[0], 0);
	x->hi = report_int(&v[1], INT64_MAX);
	if (v[2].type != OUTPUT_NULL && v[2].text &&
	    !(x->source = strdup(v[2].text)))
		return report_fail(&x->err, ENOMEM, "%s", strerror(ENOMEM));
	if (v[3].type != OUTPUT_NULL && v[3].text &&
	    !(x->states = strdup(v[3].text)))
		return report_fail(&x->err, ENOMEM, "%s", strerror(ENOMEM));
	return 0;
}

/* pid, tgid, comm */
static int thread_row(struct exporter *x, const struct output_value *v)
{
	int64_t pid = report_int(&v[0], -1);
	int64_t tgid = report_int(&v[1], pid);

	x->threads++;
	event(x);
	fprintf(x->f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"ts\":0,"
		"\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"args\":{\"name\":",
		tgid, pid);
	json_value_string(x->f, &v[2], "<...>");
	fputs("}}", x->f);
	if (pid == tgid) {
		event(x);
		fprintf(x->f, "{\"ph\":\"M\",\"name\":\"process_name\",\"ts\":0,"
			"\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"args\":{"
			"\"name\":", pid, pid);
		json_value_string(x->f, &v[2], "<...>");
		fputs("}}", x->f);
	}
	return written(x);
}

/* cpu, ts, dur, pid, tgid, comm, prio, end_state, lost */
static int slice_row(struct exporter *x, const struct output_value *v)
{
	int64_t cpu = report_int(&v[0], -1);

	if (cpu_track(x, cpu) < 0)
		return -1;
	x->slices++;
	event(x);
	fputs("{\"ph\":\"X\",\"cat\":\"sched\",\"name\":", x->f);
	json_value_string(x->f, &v[5], "<...>");
	fputs(",\"ts\":", x->f);
	json_us(x->f, report_int(&v[1], 0));
	fputs(",\"dur\":", x->f);
	json_us(x->f, report_int(&v[2], 0));
	fprintf(x->f, ",\"pid\":%d,\"tid\":%" PRId64 ",\"args\":{\"cpu\":%"
		PRId64 ",\"pid\":", EXPORT_CPUS_PID, cpu_tid(cpu), cpu);
	json_int(x->f, &v[4]);
	fputs(",\"tid\":", x->f);
	json_int(x->f, &v[3]);
	fputs(",\"prio\":", x->f);
	json_int(x->f, &v[6]);
	fputs(",\"end_state\":", x->f);
	json_int(x->f, &v[7]);
	if (v[7].type != OUTPUT_NULL) {
		char letters[64];

		/* The kernel's letters, as the capture's format prints them. */
		fputs(",\"state\":", x->f);
		state_letters(x->states, (uint64_t)report_int(&v[7], 0), letters,
			      sizeof(letters));
		json_string(x->f, letters, strlen(letters));
	}
	fputs(report_int(&v[8], 0) ? ",\"lost\":true}}" : "}}", x->f);
	return written(x);
}

/* cpu, ts, count; a loss on no known CPU is a global instant. */
static int lost_row(struct exporter *x, const struct output_value *v)
{
	bool global = v[0].type == OUTPUT_NULL;
	int64_t cpu = report_int(&v[0], -1);

	if (v[1].type == OUTPUT_NULL)
		return 0;
	if (!global && cpu_track(x, cpu) < 0)
		return -1;
	x->losses++;
	event(x);
	fprintf(x->f, "{\"ph\":\"i\",\"s\":\"%s\",\"cat\":\"lost\","
		"\"name\":\"events lost\",\"ts\":", global ? "g" : "t");
	json_us(x->f, report_int(&v[1], 0));
	fprintf(x->f, ",\"pid\":%d,\"tid\":%" PRId64 ",\"args\":{\"cpu\":",
		EXPORT_CPUS_PID, global ? EXPORT_CPUS_PID : cpu_tid(cpu));
	json_int(x->f, &v[0]);
	fputs(",\"count\":", x->f);
	json_int(x->f, &v[2]);
	fputs("}}", x->f);
	return written(x);
}

/* A task's own track: its process (the thread group; the task itself
 * when that is not known) and its tid. */
static void task_ids(struct exporter *x, const struct output_value *tgid,
		     const struct output_value *pid)
{
	int64_t p = report_int(pid, -1);

	fprintf(x->f, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64, report_int(tgid, p), p);
}

/* ts, dur, pid, tgid, comm, state, cpu: a slice of the task's track
 * named by its state, the name it had then in args. */
static int state_row(struct exporter *x, const struct output_value *v)
{
	x->nstates++;
	event(x);
	fputs("{\"ph\":\"X\",\"cat\":\"state\",\"name\":", x->f);
	json_value_string(x->f, &v[5], "?");
	fputs(",\"ts\":", x->f);
	json_us(x->f, report_int(&v[0], 0));
	fputs(",\"dur\":", x->f);
	json_us(x->f, report_int(&v[1], 0));
	task_ids(x, &v[3], &v[2]);
	fputs(",\"args\":{\"comm\":", x->f);
	json_value_string(x->f, &v[4], "<...>");
	fputs(",\"cpu\":", x->f);
	json_int(x->f, &v[6]);
	fputs("}}", x->f);
	return written(x);
}

/* ts, latency, pid, tgid, waker_pid, waker_tgid: a flow from the waker's
 * track at the waking to the wakee's where it runs. */
static int flow_row(struct exporter *x, const struct output_value *v)
{
	int64_t ts = report_int(&v[0], 0);

	x->flows++;
	event(x);
	fprintf(x->f, "{\"ph\":\"s\",\"cat\":\"wakeup\",\"name\":\"wakeup\","
		"\"id\":%" PRIu64 ",\"ts\":", x->flows);
	json_us(x->f, ts);
	task_ids(x, &v[5], &v[4]);
	fputs("},\n", x->f);
	fprintf(x->f, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"wakeup\",\"name\":\"wakeup\","
		"\"id\":%" PRIu64 ",\"ts\":", x->flows);
	json_us(x->f, ts + report_int(&v[1], 0));
	task_ids(x, &v[3], &v[2]);
	fputs(",\"args\":{\"latency_us\":", x->f);
	json_us(x->f, report_int(&v[1], 0));
	fputs("}}", x->f);
	return written(x);
}

/* start_ts, pid, tgid, comm: the task took a new name. */
static int rename_row(struct exporter *x, const struct output_value *v)
{
	x->renames++;
	event(x);
	fputs("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"comm\",\"name\":\"renamed\",\"ts\":", x->f);
	json_us(x->f, report_int(&v[0], 0));
	task_ids(x, &v[2], &v[1]);
	fputs(",\"args\":{\"comm\":", x->f);
	json_value_string(x->f, &v[3], "<...>");
	fputs("}}", x->f);
	return written(x);
}

static int ex_row(void *ctx, const struct output_value *v, int n)
{
	struct exporter *x = ctx;

	(void)n;
	switch (x->stage) {
	case Q_WINDOW:
		return window_row(x, v);
	case Q_THREADS:
		return thread_row(x, v);
	case Q_SLICES:
		return slice_row(x, v);
	case Q_LOST:
		return lost_row(x, v);
	case Q_STATES:
		return state_row(x, v);
	case Q_FLOWS:
		return flow_row(x, v);
	default:
		return rename_row(x, v);
	}
}

static int ex_end(void *ctx)
{
	(void)ctx;
	return 0;
}

static const struct output_sink export_sink = { ex_begin, ex_row, ex_end };

/* ---- the report ---- */

static void header(struct exporter *x)
{
	fputs("{\"traceEvents\":[\n", x->f);
	event(x);
	fprintf(x->f, "{\"ph\":\"M\",\"name\":\"process_name\",\"ts\":0,"
		"\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"CPUs\"}},\n",
		EXPORT_CPUS_PID, EXPORT_CPUS_PID);
	fprintf(x->f, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"ts\":0,"
		"\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":-1}}",
		EXPORT_CPUS_PID, EXPORT_CPUS_PID);
}

static void trailer(struct exporter *x, const struct report_args *a)
{
	fputs("\n],\n\"otherData\":{\"exporter\":\"commq export\","
	      "\"source\":", x->f);
	if (x->source)
		json_string(x->f, x->source, strlen(x->source));
	else
		fputs("null", x->f);
	fputs(",\"from_ns\":", x->f);
	if (a->from.set)
		fprintf(x->f, "%" PRId64, x->lo);
	else
		fputs("null", x->f);
	fputs(",\"to_ns\":", x->f);
	if (a->to.set)
		fprintf(x->f, "%" PRId64, x->hi);
	else
		fputs("null", x->f);
	fprintf(x->f, ",\"slices\":%" PRIu64 ",\"tasks\":%" PRIu64
		",\"loss_records\":%" PRIu64 ",\"states\":%" PRIu64 ",\"wakeups\":%"
		PRIu64 ",\"renames\":%" PRIu64 ",\"idle\":\"left out\"}}\n",
		x->slices, x->threads, x->losses, x->nstates, x->flows, x->renames);
}

int export_run(const struct report_args *a, report_run_fn *run, void *ctx)
{
	struct sbuf sql = { 0 };
	struct exporter x = { .stage = -1, .first = true };
	bool to_stdout = a->chrome_json && !strcmp(a->chrome_json, "-");
	char *tmp = NULL;
	int ret = -1;

	build_sql(&sql, a);
	if (sql.oom) {
		log_error("%s", strerror(ENOMEM));
		goto out;
	}
	if (a->print_sql) {
		fputs(sql.s, stdout);
		ret = 0;
		goto out;
	}
	/* Found unwritable before the query runs; an existing file is
	 * replaced only by a complete export. */
	x.name = to_stdout ? "stdout" : a->chrome_json;
	x.f = to_stdout ? stdout : report_open_temp(a->chrome_json, &tmp);
	if (!x.f) {
		log_error("%s: %s", a->chrome_json, strerror(errno));
		goto out;
	}
	if (!to_stdout)
		setvbuf(x.f, NULL, _IOFBF, BUFFER_SIZE);
	header(&x);
	if (written(&x) < 0) {
		log_error("%s", x.err.msg);
		goto out;
	}
	if (report_query(run, ctx, sql.s, &export_sink, &x, &x.err) < 0)
		goto out;
	if (x.stage != NQUERIES - 1) {
		log_error("export: %d results, not %d", x.stage + 1, NQUERIES);
		goto out;
	}
	trailer(&x, a);
	errno = 0;
	if (fflush(x.f) != 0 || ferror(x.f)) {
		log_error("%s: %s", x.name, strerror(errno ? errno : EIO));
		goto out;
	}
	if (!x.slices)
		log_warning("export: no sched slices of tasks%s",
			    a->from.set || a->to.set ? " in the window" : "");
	ret = 0;
out:
	if (x.f && !to_stdout)
		ret = report_close_temp(x.f, tmp, a->chrome_json, ret);
	else
		free(tmp);
	free(x.source);
	free(x.states);
	free(x.cpus);
	sbuf_free(&sql);
	return ret;
}
