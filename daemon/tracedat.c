/* tracedat.c — see tracedat.h. */
#include "tracedat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

/* The first bytes of every trace.dat: 0x17 0x08 0x44 "tracing", then the
 * version as a NUL-terminated decimal string. */
static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

struct tracedat {
	struct tracecmd_input *handle;
	struct tracecmd_input **buffers;	/* [0] = handle, then instances */
	int nbuffers;
	int version;
	tracedat_record_fn fn;
	void *ctx;
};

static int check_header(const char *path, int *version, char *err, size_t errlen)
{
	unsigned char buf[sizeof(magic) + 8];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "not a regular file");
		close(fd);
		return -1;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	if (n == 0) {
		snprintf(err, errlen, "empty file, not a trace.dat");
		return -1;
	}
	if ((size_t)n < sizeof(magic) + 2 || memcmp(buf, magic, sizeof(magic))) {
		snprintf(err, errlen, "not a trace.dat file (bad magic at offset 0)");
		return -1;
	}
	*version = 0;
	for (size_t i = sizeof(magic); i < (size_t)n && buf[i]; i++) {
		if (buf[i] < '0' || buf[i] > '9' || *version > 1000) {
			*version = -1;
			break;
		}
		*version = *version * 10 + (buf[i] - '0');
	}
	if (*version != 6 && *version != 7) {
		snprintf(err, errlen, "unsupported trace.dat version (offset %zu): "
			 "only 6 and 7 are read", sizeof(magic));
		return -1;
	}
	return 0;
}

struct tracedat *tracedat_open(const char *path, char *err, size_t errlen)
{
	struct tracedat *t;
	int n;

	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (check_header(path, &t->version, err, errlen))
		goto fail;
	/* libtracecmd reports its own troubles on stderr; ours is the one
	 * line the user needs. */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	/* tracecmd_open is these two steps, but when the second fails half
	 * way (a CPU's data past the end of a truncated file, say) it closes
	 * a handle whose per-CPU lists were never set up and crashes
	 * (libtracecmd 1.3). Such a handle is left to the process's exit
	 * instead — the import parses in a child of its own — all but its
	 * event formats, which are freed now. */
	t->handle = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS |
					     TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!t->handle) {
		snprintf(err, errlen, "corrupt trace.dat (headers or sections unreadable)");
		goto fail;
	}
	if (tracecmd_init_data(t->handle) < 0) {
		struct tep_handle *tep = tracecmd_get_tep(t->handle);

		if (tep)
			tep_free(tep);
		t->handle = NULL;
		snprintf(err, errlen, "corrupt trace.dat (CPU data unreadable: "
			 "truncated or bad offsets)");
		goto fail;
	}
	if (!tracecmd_get_tep(t->handle)) {
		snprintf(err, errlen, "corrupt trace.dat (no event formats)");
		goto fail;
	}
	n = tracecmd_buffer_instances(t->handle);
	if (n < 0)
		n = 0;
	t->buffers = calloc((size_t)n + 1, sizeof(*t->buffers));
	if (!t->buffers) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	t->buffers[t->nbuffers++] = t->handle;
	for (int i = 0; i < n; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(t->handle, i);

		if (!b) {
			snprintf(err, errlen, "corrupt trace.dat (buffer %d unreadable)", i);
			goto fail;
		}
		t->buffers[t->nbuffers++] = b;
	}
	return t;
fail:
	tracedat_close(t);
	return NULL;
}

void tracedat_close(struct tracedat *t)
{
	if (!t)
		return;
	for (int i = 1; i < t->nbuffers; i++)
		tracecmd_close(t->buffers[i]);
	free(t->buffers);
	if (t->handle)
		tracecmd_close(t->handle);
	free(t);
}

struct tep_handle *tracedat_tep(struct tracedat *t)
{
	return tracecmd_get_tep(t->handle);
}

int tracedat_version(const struct tracedat *t)
{
	return t->version;
}

static int on_record(struct tracecmd_input *handle, struct tep_record *rec,
		     int cpu, void *data)
{
	struct tracedat *t = data;

	/* Over several buffers the callback's cpu is offset by the buffers
	 * before it; the record knows its real CPU. */
	(void)handle;
	(void)cpu;
	return t->fn(t->ctx, rec->data, rec->size, rec->cpu, rec->ts,
		     rec->missed_events);
}

int tracedat_iterate(struct tracedat *t, tracedat_record_fn fn, void *ctx)
{
	t->fn = fn;
	t->ctx = ctx;
	if (t->nbuffers == 1)
		return tracecmd_iterate_events(t->handle, NULL, 0, on_record, t);
	return tracecmd_iterate_events_multi(t->buffers, t->nbuffers, on_record, t);
}

const char *tracedat_cmdline(void *ctx, int32_t pid)
{
	struct tracedat *t = ctx;
	struct tep_handle *tep = tracecmd_get_tep(t->handle);

	if (pid <= 0 || !tep_is_pid_registered(tep, pid))
		return NULL;
	return tep_data_comm_from_pid(tep, pid);
}
