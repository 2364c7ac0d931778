/* log.h — one line per message on stderr, with a syslog "<N>" priority
 * prefix when stderr is journald's (JOURNAL_STREAM set), so it files it
 * right.
 *
 * Only the edges of the programs (main, the daemon loop) log; library-like
 * modules return errors and leave the wording to their caller. */
#ifndef COMMD_LOG_H
#define COMMD_LOG_H

#include <syslog.h>

/* Program name shown before every message on a terminal ("commd: ..."). */
void log_set_program(const char *name);

/* Messages above this priority (numerically greater) are dropped. */
void log_set_max_priority(int priority);

void log_msg(int priority, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_error(...)   log_msg(LOG_ERR, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...)  log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)    log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)   log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
