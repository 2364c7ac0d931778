/* log.h — one line per message on stderr, with a syslog "<N>" priority
 * prefix when stderr is journald's (JOURNAL_STREAM set), so it files it
 * right.
 *
 * Only the edges of the programs (main, the daemon loop) log; library-like
 * modules return errors and leave the wording to their caller. */
#ifndef COMMD_LOG_H
#define COMMD_LOG_H

#include <stdint.h>
#include <syslog.h>

/* Program name shown before every message on a terminal ("commd: ..."). */
void log_set_program(const char *name);

/* Every message is one line: newlines in it become spaces. */

/* Messages above this priority (numerically greater) are dropped. */
void log_set_max_priority(int priority);

void log_msg(int priority, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Rate limit for a warning that can repeat (losses under load): at most
 * one line per interval. log_ratelimit says whether to log now; when it
 * does, *suppressed is how many were held back since the last line (and
 * the count starts again). Times in ns of any monotonic clock. */
struct log_ratelimit {
	uint64_t interval_ns;
	uint64_t last_ns;	/* when the last line went out */
	uint64_t suppressed;
	int logged;		/* a line went out already */
};

int log_ratelimit(struct log_ratelimit *rl, uint64_t now_ns, uint64_t *suppressed);

#define log_error(...)   log_msg(LOG_ERR, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...)  log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)    log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)   log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
