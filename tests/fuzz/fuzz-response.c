/* fuzz-response.c — commq's response reader (client/wire.c) as a
 * libFuzzer target: tests/client/wire-fuzz.c's LLVMFuzzerTestOneInput
 * (the first byte seeds how the rest is cut into feeds; its callbacks
 * check every value handed out), with its failure counter turned into an
 * abort so that libFuzzer and replay.c see a broken check as a finding. */
/* Its test-mode case generators are unused here. */
#pragma GCC diagnostic ignored "-Wunused-function"
#define WIRE_LIBFUZZER
#define LLVMFuzzerTestOneInput wire_fuzz_one
#include "../client/wire-fuzz.c"
#undef LLVMFuzzerTestOneInput

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wire_fuzz_one(data, size);
	FUZZ_CHECK(failures == 0, "%d wire-fuzz check(s) failed", failures);
	return 0;
}
