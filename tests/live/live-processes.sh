#!/usr/bin/env bash
# live-processes.sh - processes are processes (issue 15 point 3), live.
#
# A multithreaded process that runs before commd starts (python3 with 3
# busy threads) and two runs of perf bench sched messaging while it
# captures: one with threads (-t: 1 + 40 threads per group in one process)
# and one with processes (40 forked processes per group). The truth is the
# workloads' own shape and /proc, read by this script:
#
#  1. every task lifetime has a tgid, but for what no one can tell: a
#     task from before tracing that exits after tracing started and
#     before the /proc snapshot reaches it, when it was born too late for
#     the tgid-only walk just before tracing (the test's own subshells
#     churn then; stats snapshot_ns says how long the snapshots took).
#     stats tasks_without_tgid counts exactly those lifetimes; the
#     pre-existing process's threads carry its tgid (seeded from /proc)
#     and the `process` view gives it the thread count /proc showed;
#  2. the threaded run is one process of 1 + 40 * groups threads (the
#     `process` view), its leader named sched-messaging; `top --by
#     process` gives it one row with the tgid shown and `top --by thread`
#     one row per thread that ran, each with that tgid;
#  3. the forked run is 40 * groups processes whose parent is perf's
#     process (process.parent_tgid), each its own `top --by process` row,
#     while `top --by comm` folds them into one;
#  4. the three views of top add up to the same CPU time.
#
# Needs root, tracefs and perf (FAILS without them).
. "$(dirname "$0")/lib.sh"

need_live
need_perf
command -v python3 > /dev/null || abort "python3" "in PATH" "missing"
COMMQ=${COMMQ:-$(dirname "$COMMD")/commq}

# A process of four threads that keep waking (so they run in the trace).
python3 -c '
import threading, time
def spin():
    while True:
        time.sleep(0.002)
for _ in range(3):
    threading.Thread(target=spin, daemon=True).start()
spin()' &
PY=$!
HELPER_PIDS+=("$PY")
for ((i = 0; i < 100; i++)); do
	[ "$(ls "/proc/$PY/task" 2> /dev/null | wc -l)" -ge 4 ] && break
	sleep 0.05
done
py_threads=$(ls "/proc/$PY/task" | wc -l)
check_eq "the python3 helper's threads (/proc/$PY/task)" 4 "$py_threads"

db=$TMP/p.db
err=$TMP/commd.err
start_ready "processes" "$err" "$db" "$(inst 1)" --commit-ms 100
groups=2
perf bench sched messaging -t -g "$groups" -l 20 > "$TMP/perf-t.out" 2>&1 &
PT=$!
HELPER_PIDS+=("$PT")
wait "$PT" || abort "perf bench sched messaging -t" "exit 0" "$(tail -c 500 "$TMP/perf-t.out")"
perf bench sched messaging -g "$groups" -l 20 > "$TMP/perf-p.out" 2>&1 &
PP=$!
HELPER_PIDS+=("$PP")
wait "$PP" || abort "perf bench sched messaging" "exit 0" "$(tail -c 500 "$TMP/perf-p.out")"
sleep 0.3
stop_commd "$COMMD_PID" TERM
check_eq "commd stops on SIGTERM" 0 "$STOP_RC"

cq() { "$COMMQ" --db "$db" -q -list -noheader "$@"; }

# 1. Every lifetime has a tgid, but for tasks gone before /proc showed them.
# A task lifetime is one the trace named or ran (a saved_cmdlines name
# the trace never confirms is the kernel's cache speaking of a dead pid).
tasks_wo="FROM thread t WHERE tgid IS NULL AND (EXISTS (SELECT 1 FROM comm_history h WHERE h.life = t.id AND h.source IS NOT 'saved_cmdlines') OR EXISTS (SELECT 1 FROM sched s WHERE s.pid = t.pid AND s.ts >= t.start_ts AND (t.end_ts IS NULL OR s.ts <= t.end_ts)))"
check_eq "stats tasks_without_tgid = the task lifetimes without one" \
	"$(q "$db" "SELECT count(*) $tasks_wo")" "$(stat "$db" tasks_without_tgid)"
check_eq "task lifetimes without a tgid, but for tasks from before tracing that exited before the snapshots ended" 0 \
	"$(q "$db" "SELECT count(*) $tasks_wo AND NOT (t.parent IS NULL AND t.end_ts <= (SELECT start_ts FROM capture) + (SELECT value FROM stats WHERE name = 'snapshot_ns'))")"
check_eq "the python3 process's threads (process view)" "$py_threads" \
	"$(q "$db" "SELECT threads FROM process WHERE tgid = $PY")"
check_eq "the python3 threads that ran, each with tgid $PY" "$py_threads" \
	"$(q "$db" "SELECT count(DISTINCT s.pid) FROM sched s JOIN thread t ON t.pid = s.pid WHERE t.tgid = $PY")"

# 2. The threaded run.
want=$((1 + 40 * groups))
check_eq "perf -t: threads of process $PT (process view)" "$want" \
	"$(q "$db" "SELECT threads FROM process WHERE tgid = $PT")"
check_eq "perf -t: its leader's last name" "sched-messaging" \
	"$(q "$db" "SELECT comm FROM process WHERE tgid = $PT")"
check_eq "perf -t: thread lifetimes with tgid $PT" "$want" \
	"$(q "$db" "SELECT count(*) FROM thread WHERE tgid = $PT")"
check_eq "perf -t: one 'top --by process' row for tgid $PT" 1 \
	"$(cq top --by process | awk -F'|' -v t="$PT" '$1 == t' | wc -l)"
ran=$(q "$db" "SELECT count(DISTINCT s.pid) FROM sched s JOIN thread t ON t.pid = s.pid AND t.tgid = $PT")
check_eq "perf -t: 'top --by process' threads column" "$ran" \
	"$(cq top --by process | awk -F'|' -v t="$PT" '$1 == t { print $3 }')"
check_eq "perf -t: 'top --by thread' rows with tgid $PT (one per thread that ran)" "$ran" \
	"$(cq top --by thread | awk -F'|' -v t="$PT" '$2 == t' | wc -l)"

# 3. The forked run.
want=$((40 * groups))
check_eq "perf (processes): processes forked by $PP (process.parent_tgid)" "$want" \
	"$(q "$db" "SELECT count(*) FROM process WHERE parent_tgid = $PP")"
kids=$(q "$db" "SELECT group_concat(tgid, ' ') FROM process WHERE parent_tgid = $PP")
rows=$(cq top --by process | awk -F'|' -v k=" $kids " 'index(k, " " $1 " ")' | wc -l)
check_eq "perf (processes): 'top --by process' rows of those processes" "$want" "$rows"
check_eq "perf: 'top --by comm' has one sched-messaging row" 1 \
	"$(cq top --by comm | awk -F'|' '$1 == "sched-messaging"' | wc -l)"

# 4. The same CPU time, however it is grouped (each row rounded to µs).
sum_col() { awk -F'|' -v c="$1" '{ s += $c } END { printf "%.0f\n", s }'; }
by_comm=$(cq top --by comm | sum_col 3)
by_proc=$(cq top --by process | sum_col 4)
by_thread=$(cq top --by thread | sum_col 4)
check_true "top --by process total = --by comm total to 1 ms" "$by_comm ms" "$by_proc ms" \
	test $(( by_proc - by_comm <= 1 && by_comm - by_proc <= 1 )) = 1
check_true "top --by thread total = --by comm total to 1 ms" "$by_comm ms" "$by_thread ms" \
	test $(( by_thread - by_comm <= 1 && by_comm - by_thread <= 1 )) = 1
log "$(q "$db" "SELECT count(*) $tasks_wo") task lifetimes without a tgid (gone before the /proc snapshot reached them); snapshots took $(stat "$db" snapshot_ns) ns"
log "python3 $PY: $py_threads threads; perf -t $PT: $ran threads ran; perf $PP: $(q "$db" "SELECT count(*) FROM process WHERE parent_tgid = $PP") processes"
finish
