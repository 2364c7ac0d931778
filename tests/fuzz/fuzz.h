/* fuzz.h — what the commd fuzz harnesses share.
 *
 * Every harness defines LLVMFuzzerTestOneInput (and may define
 * LLVMFuzzerInitialize). Built with clang -fsanitize=fuzzer it is a
 * libFuzzer target (tests/fuzz/build.sh); built with replay.c instead (the
 * ctest targets in tests.cmake, any compiler) it replays files: the kept
 * crashing inputs in regressions/<harness>/ and the corpus.
 *
 * A harness reports what the sanitizers cannot see (a broken invariant)
 * with FUZZ_CHECK: it aborts, which libFuzzer and the replay driver both
 * count as a finding. */
#ifndef COMMD_FUZZ_H
#define COMMD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond, ...) do { if (!(cond)) { \
	fprintf(stderr, "fuzz: %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); abort(); } } while (0)

/* Reads every byte it is given: the sanitizers then see a bad range. */
static inline unsigned fuzz_touch(const void *p, size_t n)
{
	const volatile uint8_t *b = p;
	unsigned sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += b[i];
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif
