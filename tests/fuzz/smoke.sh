#!/bin/bash
# smoke.sh — the fuzz_smoke ctest: builds every harness with clang and
# libFuzzer (build.sh, into a temporary directory) and fuzzes each for
# FUZZ_SECONDS (30) from a copy of its corpus, one at a time. Fails on
# any finding (crash, sanitizer report, leak, timeout, broken check):
# the reproducer is copied to FUZZ_KEEP (default: the build's
# Testing/fuzz-findings) and named in the output. Exit 77 (skipped) when
# clang or its libFuzzer runtime is missing.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SECONDS_EACH=${FUZZ_SECONDS:-30}
tmp=$(mktemp -d /tmp/commd-fuzz-smoke.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
keep=${FUZZ_KEEP:-$PWD/fuzz-findings}

CC=${CLANG:-$(command -v clang-14 || command -v clang || true)}
if [ -z "$CC" ] || ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
	"$CC" -x c -fsanitize=fuzzer - -o "$tmp/probe" 2>/dev/null; then
	echo "fuzz_smoke: no clang with libFuzzer; skipped"
	exit 77
fi
if ! bash "$HERE/build.sh" "$tmp/bin" > "$tmp/build.log" 2>&1; then
	cat "$tmp/build.log"
	echo "fuzz_smoke: FAIL: the harnesses do not build"
	exit 1
fi

# Per harness: the largest input it takes (pages: 8 sub-buffers and the
# control byte; tracedat: the fixtures are up to 145 KB).
max_len() {
	case $1 in pages) echo 33000 ;; tracedat) echo 160000 ;; *) echo 4096 ;; esac
}

fail=0
for h in pages tracedat request response; do
	mkdir -p "$tmp/corpus-$h" "$tmp/art-$h"
	cp "$HERE/corpus/$h"/* "$tmp/corpus-$h/" 2>/dev/null
	# -report_slow_units: libFuzzer writes an input slower than that (10 s
	# by default) into the artifacts, which counts as a finding here; the
	# tracedat harness gives the libraries' child 10 s before it kills it
	# (an input on which libtracecmd loops: the import's child stops at
	# its CPU limit), so only -timeout's 30 s is a finding.
	"$tmp/bin/fuzz-$h" -max_total_time="$SECONDS_EACH" -timeout=30 -report_slow_units=30 \
		-max_len="$(max_len "$h")" -artifact_prefix="$tmp/art-$h/" \
		-print_final_stats=1 "$tmp/corpus-$h" "$HERE/regressions/$h" \
		> "$tmp/$h.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$h.log")
	if [ $rc -ne 0 ] || [ -n "$(ls -A "$tmp/art-$h")" ]; then
		fail=1
		mkdir -p "$keep"
		cp "$tmp/art-$h"/* "$keep/" 2>/dev/null
		grep -v '^    #[1-9][0-9]' "$tmp/$h.log" | tail -n 60
		echo "fuzz_smoke: $h: FINDING (exit $rc); reproducer(s) in $keep:" \
			$(ls "$tmp/art-$h")
	else
		echo "fuzz_smoke: $h: ${runs:-?} inputs in ${SECONDS_EACH} s, no finding"
	fi
done
exit $fail
