/* check.h — the smallest assertion kit: a failing check says where, what
 * it expected and what it got, and the test keeps going. */
#ifndef COMMD_CHECK_H
#define COMMD_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond) do { if (!(cond)) { check_failures++; \
	fprintf(stderr, "%s:%d: %s: expected %s\n", __FILE__, __LINE__, \
		__func__, #cond); } } while (0)

#define CHECK_INT(got, want) do { long long g_ = (long long)(got), w_ = (long long)(want); \
	if (g_ != w_) { check_failures++; fprintf(stderr, \
		"%s:%d: %s: %s: expected %lld, got %lld\n", __FILE__, __LINE__, \
		__func__, #got, w_, g_); } } while (0)

#define CHECK_STR(got, want) do { const char *g_ = (got), *w_ = (want); \
	if (!g_ || strcmp(g_, w_)) { check_failures++; fprintf(stderr, \
		"%s:%d: %s: %s: expected \"%s\", got \"%s\"\n", __FILE__, __LINE__, \
		__func__, #got, w_, g_ ? g_ : "(null)"); } } while (0)

#define RUN(test) do { test(); } while (0)

static inline int check_done(const char *name)
{
	if (check_failures)
		fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
	return check_failures ? 1 : 0;
}

#endif
