#!/bin/bash
# build.sh OUTDIR [HARNESS...] — builds the libFuzzer targets with clang:
# OUTDIR/fuzz-HARNESS for each of pages, tracedat, request, response (all
# when none is named), from the sources in the tree (the same files the
# CMake build compiles; the schema is embedded here as the build does),
# with -fsanitize=fuzzer,address,undefined and the include/link flags
# pkg-config gives for the libraries. Needs clang (CLANG=, else clang-14,
# else clang) with its libFuzzer runtime.
#
#   bash tests/fuzz/build.sh /tmp/fz pages && /tmp/fz/fuzz-pages -help=1
set -euo pipefail
OUT=${1:?usage: build.sh OUTDIR [pages|tracedat|request|response...]}
shift
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=${SRCDIR:-$(cd "$HERE/../.." && pwd)}
CC=${CLANG:-$(command -v clang-14 || command -v clang || true)}
[ -n "$CC" ] || { echo "build.sh: no clang" >&2; exit 77; }
HARNESSES=("$@")
[ ${#HARNESSES[@]} -gt 0 ] || HARNESSES=(pages tracedat request response)
mkdir -p "$OUT"

# The schema, embedded as CMakeLists.txt does it.
files=$(ls "$SRC"/schema/*.sql | sort | paste -sd'|')
cmake -DOUT="$OUT/schema_sql.c" "-DFILES=$files" -P "$SRC/cmake/embed-schema.cmake"
# shellcheck disable=SC2046
"$CC" -O1 -I"$SRC/common" "$SRC/cmake/schema-snapshot.c" "$OUT/schema_sql.c" \
	$(pkg-config --cflags --libs sqlite3) -o "$OUT/schema-snapshot"
"$OUT/schema-snapshot" "$OUT/schema_fresh.c"

D=$SRC/daemon
PIPE=("$D/decode.c" "$D/cgroups.c" "$D/stacks.c" "$D/kallsyms.c" "$D/resolve.c" "$D/store.c" "$D/store_rows.c" "$D/store_retain.c"
      "$D/store_writer.c" "$D/derive.c" "$D/pipeline.c" "$D/merge.c"
      "$OUT/schema_sql.c" "$OUT/schema_fresh.c" "$SRC/common/log.c" "$SRC/common/grow.c" "$SRC/common/json.c" "$SRC/common/states.c" "$SRC/common/numtext.c")
# FUZZ_EXTRA_CFLAGS: added last, e.g. -fsanitize-recover=CHECK to go on
# past a known finding while fuzzing for others.
# shellcheck disable=SC2206
CFLAGS=(-g -O1 -std=gnu11 -fno-omit-frame-pointer -Wall -Wextra -Werror
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
	-I"$SRC/common" -I"$D" -I"$SRC/client" ${FUZZ_EXTRA_CFLAGS:-})
for h in "${HARNESSES[@]}"; do
	case $h in
	pages)    srcs=("${PIPE[@]}" "$D/pages.c"); pkgs="libtraceevent sqlite3" ;;
	tracedat) srcs=("${PIPE[@]}" "$D/import.c" "$D/privs.c" "$D/tracedat.c")
		  pkgs="libtracecmd libtraceevent sqlite3" ;;
	request)  srcs=("$SRC/common/protocol.c" "$SRC/common/grow.c"); pkgs="sqlite3" ;;
	response) srcs=("$SRC/client/wire.c" "$SRC/common/protocol.c" "$SRC/common/grow.c" "$SRC/common/numtext.c"); pkgs="sqlite3" ;;
	*) echo "build.sh: no harness '$h'" >&2; exit 2 ;;
	esac
	# shellcheck disable=SC2046,SC2086
	"$CC" "${CFLAGS[@]}" $( [ -z "$pkgs" ] || pkg-config --cflags $pkgs ) \
		"$HERE/fuzz-$h.c" "${srcs[@]}" -o "$OUT/fuzz-$h" \
		$( [ -z "$pkgs" ] || pkg-config --libs $pkgs ) -lpthread -lm
	echo "built $OUT/fuzz-$h"
done
