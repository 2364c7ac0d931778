#!/usr/bin/env bash
# One SQLite row per event against events packed in blocks (bench/packed.c):
# what storing a capture's sched_switch rows costs each way, the file each
# makes, and the same queries on both (a 1 s and a 60 s window, one task,
# a GROUP BY of all), which must give the same answers.
#
#   bench/packed.sh [TRACE.dat|COMMD.db] [ROWS_PER_BLOCK] [RUNS]
#
# A trace.dat is imported with `commd import` first. Without a file,
# records `perf bench sched messaging -g 20 -l 1000` with `trace-cmd record
# -e sched -e task`, as bench/import.sh does.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup" "$top/build"
work=$(mktemp -d /tmp/commd-packed.XXXXXX)
trap 'rm -rf "$work"' EXIT

in=${1:-}
if [ -z "$in" ]; then
	"$top/bench/messaging-trace.sh" "$work/trace.dat"
	in=$work/trace.dat
fi
case $in in
*.db) db=$in ;;
*)
	db=$work/in.db
	"$top/build/commd" import "$in" -o "$db" --force --no-progress
	;;
esac
echo "input                $in"
"$top/build/bench/packed" "$db" "$work" "${2:-512}" "${3:-3}"
