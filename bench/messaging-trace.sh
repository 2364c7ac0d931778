#!/usr/bin/env bash
# The benchmarks' default recording: `perf bench sched messaging -g 20 -l
# 1000` under `trace-cmd record -e sched -e task` (about 1.1 M events),
# through a private tracefs instance, into OUT.dat.
#
#   bench/messaging-trace.sh OUT.dat
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: bench/messaging-trace.sh OUT.dat}
log=$(mktemp /tmp/commd-record.XXXXXX)
trap 'rm -f "$log"' EXIT
(
	. "$top/scripts/tracing-guard.sh"
	trace-cmd record -q -d --no-filter -B "$instance" -b 65536 -e sched -e task \
		-o "$out" perf bench sched messaging -g 20 -l 1000 >"$log" 2>&1 || true
)
[ -s "$out" ] || { cat "$log" >&2; exit 1; }
