/* import.h — `commd import TRACE.dat -o OUT.db`: a trace.dat turned into a
 * commd database through the same decode/resolve/store as live capture.
 *
 * The file is parsed in a child process (libtracecmd and libtraceevent
 * were not written for hostile input: a crash or a hang there becomes a
 * clean "corrupt trace.dat" error), into a temporary file beside OUT that
 * is renamed into place only when complete: OUT is never left half-made. */
#ifndef COMMD_IMPORT_H
#define COMMD_IMPORT_H

struct import_opts {
	const char *input;
	const char *output;
	int force;		/* replace an existing output */
	int progress;		/* 1 on, 0 off, -1 when stderr is a tty */
	int in_process;		/* no child (debugging, fuzzing) */
	int no_derived;		/* leave sched and wakeup_latency empty */
	int drop_root;		/* the parsing child: become nobody first */
	const char *buffer;	/* the buffer to read ("top" or an instance's
				 * name), "all" (merged); NULL: the one that
				 * has records, an error when several have */
};

/* Returns the process exit status: 0 done, 1 failed (one line logged). */
int import_run(const struct import_opts *o);

#endif
