/* log.c — see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *program = "commd";
static int max_priority = LOG_INFO;

void log_set_program(const char *name)
{
	program = name;
}

void log_set_max_priority(int priority)
{
	max_priority = priority;
}

void log_msg(int priority, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (priority > max_priority)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (char *p = line; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	/* systemd sets JOURNAL_STREAM when stderr goes to journald, which
	 * reads the <N> prefix as the priority; a person or a script reading
	 * stderr gets the plain line. */
	if (getenv("JOURNAL_STREAM"))
		fprintf(stderr, "<%d>%s: %s\n", priority, program, line);
	else
		fprintf(stderr, "%s: %s\n", program, line);
}

int log_ratelimit(struct log_ratelimit *rl, uint64_t now_ns, uint64_t *suppressed)
{
	if (rl->logged && now_ns - rl->last_ns < rl->interval_ns) {
		rl->suppressed++;
		return 0;
	}
	*suppressed = rl->suppressed;
	rl->suppressed = 0;
	rl->last_ns = now_ns;
	rl->logged = 1;
	return 1;
}
