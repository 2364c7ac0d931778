#!/usr/bin/env bash
# What the merge of the CPUs' records costs per record as the CPUs grow
# (bench/merge_cost.c: pages_read over N non-blocking pipes standing in for
# the CPUs' trace_pipe_raw), for one build or two side by side:
#
#   bench/merge.sh [BUILD_DIR [OTHER_BUILD_DIR]] [RECORDS]
#
# Each build's libcommd_core.a is linked with bench/merge_cost.c here, so
# an older build (a commit before the merge's heap) is measured by the same
# program. Default: build/ alone, 1,000,000 records.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
builds=()
records=1000000
for a in "$@"; do
	if [ -d "$a" ]; then builds+=("$(cd "$a" && pwd)"); else records=$a; fi
done
if [ ${#builds[@]} -eq 0 ]; then
	"$top/scripts/setup" "$top/build"
	builds=("$top/build")
fi
work=$(mktemp -d /tmp/commd-merge.XXXXXX)
trap 'rm -rf "$work"' EXIT
bins=()
for i in "${!builds[@]}"; do
	b=${builds[$i]}
	# shellcheck disable=SC2046
	cc -O2 -std=gnu11 -I"$top/daemon" -I"$top/common" "$top/bench/merge_cost.c" \
		"$b/libcommd_core.a" "$b/libcommd_common.a" "$b/libcommd_chttp.a" \
		$(pkg-config --libs libtracecmd libtracefs libtraceevent sqlite3 libevent) \
		-ldeflate -lpthread -lm -o "$work/merge_cost.$i"
	bins+=("$work/merge_cost.$i")
done
printf "%-6s %-6s" CPUs busy
for b in "${builds[@]}"; do printf " %22s" "$(basename "$(dirname "$b")")/$(basename "$b") ns"; done
[ ${#builds[@]} -eq 2 ] && printf " %8s" ratio
echo
for case in "2 2" "16 16" "64 64" "256 256" "256 8"; do
	set -- $case
	printf "%-6s %-6s" "$1" "$2"
	vals=()
	for bin in "${bins[@]}"; do
		v=$("$bin" "$1" "$2" "$records" 5 | sed -n 's/.*, \([0-9.]*\) ns a record.*/\1/p')
		vals+=("$v")
		printf " %22s" "$v"
	done
	[ ${#vals[@]} -eq 2 ] && awk -v a="${vals[0]}" -v b="${vals[1]}" 'BEGIN { printf " %7.2fx", a / b }'
	echo
done
