/* fuzz-tracedat.c — whole trace.dat files through `commd import`.
 *
 * The input is the file's bytes. They go into a memfd, and import_run
 * (in_process = 1: no child, so a crash is the harness's) imports
 * /proc/self/fd/N into a database in a temporary directory of its own:
 * tracedat_open and libtracecmd's parsing, every record through the
 * pipeline into a real SQLite file, the capture and stats rows, the
 * rename into place. Checked beyond the sanitizers: success leaves the
 * output and nothing else; failure leaves nothing at all (no output, no
 * temporary file, no journal).
 *
 * libtracecmd and libtraceevent crash on some corrupt files (NULL
 * dereferences in their format and section parsers); `commd import`
 * parses in a child process for that reason and reports those files as
 * corrupt. The harness does the same: a forked child first runs only the
 * libraries over the file (tracedat_open, tracedat_iterate with a
 * callback that does nothing, tracedat_close); if that child dies or
 * hangs, the input is one the import rejects in its child, and is done.
 * Everything else runs in process, where a finding is commd's.
 *
 * libtracecmd also leaks on some error paths, and not only a few bytes: a
 * compressed (v7) file whose zstd RLE block decompresses to 128 MiB of
 * options, with an option that then fails, loses that buffer (libtracecmd
 * 1.3). The import's child takes it to its exit; in one process for
 * every input it adds up until libFuzzer stops for RSS. So the child
 * also runs the second open the import makes (tracedat_date_offset) and
 * measures what the libraries leave allocated: past LIB_LEAK_MAX the
 * input too is one that only the import's child can take. The import in
 * process must then leave less than IMPORT_LEAK_MAX behind: anything more
 * is a leak (commd's, or a library path the child does not take). Both
 * only with a sanitizer's allocator to ask. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"
#include "import.h"
#include "log.h"
#include "tracedat.h"

static char base[200], dir[256], out[300];

/* libtracecmd mallocs what a file's size fields say and copes with NULL:
 * let ASan return NULL past 1 GiB (as the import child's RLIMIT_AS
 * would) instead of reporting it. Its own leaks on error paths are not
 * commd's (with the fast unwinder the stack of one ends in libc's sscanf
 * "%ms"; commd never calls sscanf). Read by ASan/LSan when built with
 * them, unused otherwise. */
const char *__asan_default_options(void);
const char *__lsan_default_suppressions(void);

const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1:max_allocation_size_mb=1024";
}

const char *__lsan_default_suppressions(void)
{
	return "leak:libtracecmd.so\nleak:libtraceevent.so\nleak:__vfscanf_internal\n";
}

static void cleanup(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[600];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

/* tracedat_open leaves a libtracecmd handle it cannot close to the
 * process's exit (the import child's), with its fd: the harness closes
 * what an input left open (not what libFuzzer opened meanwhile: its merge
 * control file, say). */
#define MAX_FDS 4096

static void mark_fds(unsigned char *set)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	FUZZ_CHECK(d, "/proc/self/fd: %s", strerror(errno));
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] != '.' && fd >= 0 && fd < MAX_FDS && fd != dirfd(d))
			set[fd] = 1;
	}
	closedir(d);
}

static void close_new_fds(const unsigned char *before)
{
	unsigned char now[MAX_FDS] = { 0 };

	mark_fds(now);
	for (int fd = 0; fd < MAX_FDS; fd++)
		if (now[fd] && !before[fd])
			close(fd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	if (!getenv("FUZZ_VERBOSE"))
		log_set_max_priority(LOG_CRIT);
	/* tmpfs when there is one: the database is written per input. */
	if (!tmp)
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(base, sizeof(base), "%s", tmp);
	return 0;
}

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	FUZZ_CHECK(d, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int ignore_record(void *ctx, const void *data, int size, int cpu,
			 uint64_t ts, int64_t missed)
{
	(void)ctx; (void)data; (void)size; (void)cpu; (void)ts; (void)missed;
	return 0;
}

/* libFuzzer writes a crash artifact from the sanitizers' death callback:
 * not from the child below. Weak: absent without a sanitizer. */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

#define LIB_LEAK_MAX	((size_t)4 << 20)
#define IMPORT_LEAK_MAX	((size_t)64 << 20)
#define LEAKED_TOO_MUCH	3	/* the child's exit status */

static size_t allocated(void)
{
	return __sanitizer_get_current_allocated_bytes ?
	       __sanitizer_get_current_allocated_bytes() : 0;
}

/* Does the file get through the libraries alone, in a child, leaving
 * little behind? */
static int libraries_survive(const char *input)
{
	int status, waited;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	FUZZ_CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		static const int deadly[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
		int null = open("/dev/null", O_WRONLY);
		char err[512];
		struct tracedat *t;

		/* Die quietly: no sanitizer report, no libFuzzer artifact
		 * (a crash here is the libraries', not a finding; ASan still
		 * catches their overflows and makes the child exit 1). */
		for (size_t i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++)
			signal(deadly[i], SIG_DFL);
		if (__sanitizer_set_death_callback)
			__sanitizer_set_death_callback(NULL);
		if (null >= 0 && !getenv("FUZZ_VERBOSE")) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		size_t before = allocated();

		t = tracedat_open(input, err, sizeof(err));
		if (t) {
			int64_t offset;

			tracedat_date_offset(t, open(input, O_RDONLY | O_CLOEXEC), &offset);
			tracedat_iterate(t, ignore_record, NULL);
			tracedat_close(t);
		}
		_exit(allocated() > before + LIB_LEAK_MAX ? LEAKED_TOO_MUCH : 0);
	}
	for (waited = 0; waited < 10000; waited++) {	/* 10 s */
		struct timespec ms = { 0, 1000000 };
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		nanosleep(&ms, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_opts o = { .output = out, .force = 1, .progress = 0,
				 .in_process = 1 };
	unsigned char fds_before[MAX_FDS] = { 0 };
	char input[64];
	struct stat st;
	int fd, rc;

	mark_fds(fds_before);
	/* A directory of its own per input, gone after it (libFuzzer may
	 * end the process without running atexit handlers). */
	snprintf(dir, sizeof(dir), "%s/fuzz-tracedat-XXXXXX", base);
	FUZZ_CHECK(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
	snprintf(out, sizeof(out), "%s/out.db", dir);
	fd = memfd_create("fuzz-tracedat", MFD_CLOEXEC);
	FUZZ_CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	FUZZ_CHECK(write(fd, data, size) == (ssize_t)size, "write: %s", strerror(errno));
	snprintf(input, sizeof(input), "/proc/self/fd/%d", fd);
	o.input = input;
	if (!libraries_survive(input)) {
		close(fd);
		cleanup();
		return 0;
	}
	unlink(out);
	size_t before = allocated();

	rc = import_run(&o);
	close(fd);
	close_new_fds(fds_before);
	FUZZ_CHECK(rc == 0 || rc == 1, "import_run returned %d", rc);
	FUZZ_CHECK(allocated() <= before + IMPORT_LEAK_MAX,
		   "the import left %zu MiB allocated", (allocated() - before) >> 20);
	if (rc == 0)
		FUZZ_CHECK(stat(out, &st) == 0 && st.st_size > 0 && entries() == 1,
			   "a successful import left no output or more than it");
	else
		FUZZ_CHECK(entries() == 0, "a failed import left files behind");
	cleanup();
	return 0;
}
