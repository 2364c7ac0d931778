#!/usr/bin/env bash
# What live capture costs the traced machine: `perf bench sched messaging`
# run bare, under commd (its own instance, into SQLite), and under
# `trace-cmd record` of the same events (into a private instance, to a
# trace.dat), N runs each, in one run of this script. Prints the medians,
# the slowdown of each against bare, and the events each stored.
#   bench/live-overhead.sh [RUNS] [GROUPS] [LOOPS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
groups=${2:-20}
loops=${3:-500}
"$top/scripts/setup" "$top/build"
. "$top/scripts/tracing-guard.sh"
work=$(mktemp -d /tmp/commd-overhead.XXXXXX)
commd_pid=
cleanup() {
	[ -n "$commd_pid" ] && kill -TERM "$commd_pid" 2>/dev/null && wait "$commd_pid" 2>/dev/null
	rm -rf "$work"
	restore_tracing
}
trap cleanup EXIT
events="sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_waking,sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit,sched:sched_process_free,sched:sched_migrate_task,task:task_rename,task:task_newtask"
load() { perf bench sched messaging -g "$groups" -l "$loops" 2>/dev/null | awk '/Total time/ { print $3 }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for i in $(seq "$runs"); do load; done | median > "$work/bare"

for i in $(seq "$runs"); do
	"$top/build/commd" --foreground --db "$work/c$i.db" --instance "commd-bench-$$" 2>"$work/commd.log" &
	commd_pid=$!
	until grep -q capturing "$work/commd.log"; do sleep 0.05; done
	load
	kill -TERM "$commd_pid"; wait "$commd_pid"; commd_pid=
done | median > "$work/commd"
commd_events=$(sqlite3 "$work/c1.db" "select value from stats where name='events'")
commd_lost=$(sqlite3 "$work/c1.db" "select coalesce(sum(count),0) from lost_events")

tc_events=()
for e in ${events//,/ }; do tc_events+=(-e "$e"); done
for i in $(seq "$runs"); do
	trace-cmd record -q -d --no-filter -B "$instance" -b 16384 "${tc_events[@]}" \
		-o "$work/t$i.dat" perf bench sched messaging -g "$groups" -l "$loops" \
		2>/dev/null | awk '/Total time/ { print $3 }'
done | median > "$work/tracecmd"

awk -v b="$(cat "$work/bare")" -v c="$(cat "$work/commd")" -v t="$(cat "$work/tracecmd")" \
    -v ce="$commd_events" -v cl="$commd_lost" -v g="$groups" -v l="$loops" -v n="$runs" 'BEGIN {
	printf "perf bench sched messaging -g %d -l %d, median of %d runs\n", g, l, n
	printf "bare                 %.3f s\n", b
	printf "under commd          %.3f s  (%+.1f%%; %d events stored, %d lost)\n", c, (c / b - 1) * 100, ce, cl
	printf "under trace-cmd      %.3f s  (%+.1f%%)\n", t, (t / b - 1) * 100
	printf "commd / trace-cmd    %.3f\n", c / t
}'
