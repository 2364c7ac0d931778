#!/usr/bin/env bash
# derived-processes.sh - processes are processes (issue 15 point 3), on an
# imported trace.dat recorded now: trace-cmd records `perf bench sched
# messaging -t` (one process of 1 + 40 threads per group), commd imports
# it. The file holds no tgid table (trace-cmd 3.1 writes none), so the
# thread groups come from the events: task_newtask's clone flags place
# each thread, exec makes perf its own leader, and the tasks that ran
# before the recording began are left without one and counted.
#
#  1. the perf process is one `process` row of 1 + 40 * groups threads,
#     each made by its leader (thread.parent; perf's own fork by trace-cmd
#     came before the recording), and one `top --by process` row;
#  2. stats tasks_without_tgid = the thread lifetimes without a tgid, and
#     each of them is a task already running when the recording began
#     (no fork of it is in the file).
#
# Needs root, tracefs, trace-cmd and perf (FAILS without them).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

COMMQ=${COMMQ:-$(dirname "$COMMD")/commq}
CHECK_KEEP=${KEEP:-0}
groups=1
dat=$TMPDIR_TEST/t.dat
record_fresh processes "$dat" perf bench sched messaging -t -g "$groups" -l 20
db=$TMPDIR_TEST/t.db
import_ok "$dat" "$db" || finish

tgid=$(q "$db" "SELECT tgid FROM process WHERE names LIKE '%sched-messaging' AND threads > 1")
check_eq "one process named sched-messaging with threads" 1 "$(printf '%s\n' "$tgid" | grep -c .)" || true
if [ -n "$tgid" ]; then
	check_eq "threads of process $tgid" "$((1 + 40 * groups))" \
		"$(q "$db" "SELECT threads FROM process WHERE tgid = $tgid")"
	check_eq "process $tgid: its threads were made by its leader (thread.parent)" \
		"$tgid	$((40 * groups))" \
		"$(q "$db" "SELECT parent, count(*) FROM thread WHERE tgid = $tgid AND pid <> $tgid GROUP BY parent")"
	check_eq "one 'top --by process' row for tgid $tgid" 1 \
		"$("$COMMQ" --db "$db" -q -list -noheader top --by process | awk -F'|' -v t="$tgid" '$1 == t' | wc -l)"
fi
without=$(q "$db" "SELECT count(*) FROM thread WHERE tgid IS NULL")
check_eq "stats tasks_without_tgid = thread lifetimes without a tgid" "$without" \
	"$(q "$db" "SELECT value FROM stats WHERE name = 'tasks_without_tgid' AND cpu IS NULL")"
check_eq "lifetimes without a tgid that a fork in the file began" 0 \
	"$(q "$db" "SELECT count(*) FROM thread WHERE tgid IS NULL AND parent IS NOT NULL")"
log "process $tgid; $without task lifetimes from before the recording have no tgid"
finish
