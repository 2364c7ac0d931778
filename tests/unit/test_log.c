/* log tests: the rate limiter of repeated warnings, one line per message,
 * the journald priority prefix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "log.h"

#define S 1000000000ull

static void ratelimit_first_passes_then_one_per_interval(void)
{
	struct log_ratelimit rl = { .interval_ns = 10 * S };
	uint64_t sup = 99;

	/* The first warning goes out at once, whatever the clock says. */
	CHECK_INT(log_ratelimit(&rl, 5 * S, &sup), 1);
	CHECK_INT(sup, 0);
	/* Within the interval: held back and counted. */
	CHECK_INT(log_ratelimit(&rl, 5 * S + 1, &sup), 0);
	CHECK_INT(log_ratelimit(&rl, 9 * S, &sup), 0);
	CHECK_INT(log_ratelimit(&rl, 15 * S - 1, &sup), 0);
	CHECK_INT(rl.suppressed, 3);
	/* At the interval: out, with the count, which starts again. */
	sup = 0;
	CHECK_INT(log_ratelimit(&rl, 15 * S, &sup), 1);
	CHECK_INT(sup, 3);
	CHECK_INT(rl.suppressed, 0);
	/* The interval counts from the last line that went out. */
	CHECK_INT(log_ratelimit(&rl, 24 * S, &sup), 0);
	CHECK_INT(log_ratelimit(&rl, 25 * S, &sup), 1);
	CHECK_INT(sup, 1);
	/* A long quiet time: the next one goes out with nothing held. */
	CHECK_INT(log_ratelimit(&rl, 1000 * S, &sup), 1);
	CHECK_INT(sup, 0);
}

static void ratelimit_many_in_a_burst(void)
{
	struct log_ratelimit rl = { .interval_ns = 1 * S };
	uint64_t sup = 0;
	int out = 0;

	/* 10000 warnings over 10 s (one a ms): 10 lines, one per second,
	 * and every warning either printed or counted as suppressed. */
	uint64_t counted = 0;
	for (uint64_t t = 0; t < 10000; t++)
		if (log_ratelimit(&rl, t * 1000000ull, &sup)) {
			out++;
			counted += sup;
		}
	CHECK_INT(out, 10);
	CHECK_INT(counted + (uint64_t)out + rl.suppressed, 10000);
}

/* What log_msg writes to stderr, with JOURNAL_STREAM set or not. */
static const char *logged(int journal, int prio, const char *msg)
{
	static char buf[2048];
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	if (journal)
		setenv("JOURNAL_STREAM", "8:1234", 1);
	else
		unsetenv("JOURNAL_STREAM");
	fflush(stderr);
	dup2(fileno(tmp), 2);
	log_msg(prio, "%s", msg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	unsetenv("JOURNAL_STREAM");
	return buf;
}

static void one_line_per_message(void)
{
	log_set_program("commd");
	CHECK_STR(logged(0, LOG_WARNING, "two\nlines\r\n"), "commd: two lines  \n");
	CHECK_STR(logged(1, LOG_WARNING, "lost 5 events"), "<4>commd: lost 5 events\n");
	CHECK_STR(logged(1, LOG_ERR, "a\nb"), "<3>commd: a b\n");
	log_set_max_priority(LOG_NOTICE);
	CHECK_STR(logged(0, LOG_INFO, "dropped"), "");
	log_set_max_priority(LOG_INFO);
}

int main(void)
{
	RUN(ratelimit_first_passes_then_one_per_interval);
	RUN(ratelimit_many_in_a_burst);
	RUN(one_line_per_message);
	return check_done("test_log");
}
