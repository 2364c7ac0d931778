#!/usr/bin/env bash
# Instructions per resolved event (the comm cache), counted by callgrind
# (this VM has no hardware counters), on two recorded loads:
#   messaging: perf bench sched messaging -g 10 -l 100 (many tasks)
#   pipe:      perf bench sched pipe -l 100000 (two tasks switching all
#              the time: the case the 2021 "save cmdline only on change"
#              patch was about)
# and for two caches: commd's (compare, copy only on change) and one that
# copies every name it sees. Usage: bench/resolve-cost.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup" "$top/build"
command -v valgrind >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
work=$(mktemp -d /tmp/commd-rcost.XXXXXX)
trap 'rm -rf "$work"' EXIT
(
	. "$top/scripts/tracing-guard.sh"
	trace-cmd record -q -d --no-filter -B "$instance" -b 32768 -e sched -e task \
		-o "$work/messaging.dat" perf bench sched messaging -g 10 -l 100 \
		>"$work/rec1.log" 2>&1 || true
	trace-cmd record -q -d --no-filter -B "$instance" -b 32768 -e sched -e task \
		-o "$work/pipe.dat" perf bench sched pipe -l 100000 \
		>"$work/rec2.log" 2>&1 || true
)
printf "%-10s %-12s %9s %14s %14s\n" load cache events "resolver/event" "+loop/event"
for load in messaging pipe; do
	for variant in resolve_cost resolve_cost_always_copy; do
		out=$(valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
			--toggle-collect=resolve_all "$top/build/bench/$variant" \
			"$work/$load.dat" 2>"$work/vg.log")
		events=$(echo "$out" | awk '{ print $2 }')
		total=$(awk '/^summary:/ { print $2 }' "$work/cg.out")
		# The comm cache's own instructions: its inline hot paths
		# (resolve.h) and its functions (resolve.c); the rest is the
		# benchmark's dispatch loop, which pipeline_record also has.
		own=$(callgrind_annotate --auto=no --threshold=100 "$work/cg.out" 2>/dev/null |
			awk '/daemon\/resolve\.[ch]:/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
		name=$([ "$variant" = resolve_cost ] && echo on-change || echo always-copy)
		printf "%-10s %-12s %9d %14.1f %14.1f\n" "$load" "$name" "$events" \
			"$(echo "$own / $events" | bc -l)" "$(echo "$total / $events" | bc -l)"
	done
done
