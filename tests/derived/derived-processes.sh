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

# A leader that leaves its threads running (pthread_exit) and threads
# that reuse one tid (leader-exit.c): the process lives until its last
# thread ends, its threads are its 7 task lifetimes (the leader, the
# thread it made, the five that thread made after it left), and so many
# `top --by process` counts. Before: the process ended at the leader's
# exit with 2 threads, and top counted the distinct pids (3 with reuse).
: "${LEADER_EXIT:?LEADER_EXIT not set (tests/derived/leader-exit.c)}"
dat=$TMPDIR_TEST/le.dat
RECORD_EVENTS="-e sched -e task" record_fresh processes "$dat" sh -c "'$LEADER_EXIT' > '$TMPDIR_TEST/le.out'"
db=$TMPDIR_TEST/le.db
import_ok "$dat" "$db" || finish
read -r _ t1 t2 t3 t4 t5 < "$TMPDIR_TEST/le.out" || true
ltgid=$(q "$db" "SELECT tgid FROM thread WHERE pid = ${t1:-0} ORDER BY start_ts LIMIT 1")
reused=$(printf '%s\n' "$t1" "$t2" "$t3" "$t4" "$t5" | sort -u | wc -l)
log "leader-exit: tgid ${ltgid:-?}, tids $t1 $t2 $t3 $t4 $t5 ($reused distinct)"
check_eq "leader-exit: the process's threads (process view)" 7 \
	"$(q "$db" "SELECT threads FROM process WHERE tgid = ${ltgid:-0}")"
check_eq "leader-exit: the process ends with its last thread, after its leader" \
	"$(q "$db" "SELECT max(end_ts) FROM thread WHERE tgid = ${ltgid:-0}") 1" \
	"$(q "$db" "SELECT p.end_ts, p.end_ts > l.end_ts FROM process p JOIN thread l ON l.id = p.life
		WHERE p.tgid = ${ltgid:-0}" | tr '\t' ' ')"
check_eq "leader-exit: top --by process, the process's threads" 7 \
	"$("$COMMQ" --db "$db" -q -list -noheader top --by process |
		awk -F'|' -v t="${ltgid:-0}" '$1 == t { print $3 }')"
finish
