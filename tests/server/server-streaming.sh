#!/usr/bin/env bash
# server-streaming.sh - many clients streaming big results at once, over
# and over (server.h: "rows are streamed to the client in batches with
# back-pressure"):
#
#  - round after round (for about 100 s), 6 clients at once each read a
#    result of up to 100000 rows (several MiB, so the server's output
#    buffer fills up and drains again: back-pressure on every batch);
#    every client gets every row and the end frame, with no 30 s silence;
#  - after every round a short query from another client answers;
#  - the query server is pinned to one CPU (taskset), as on a one-CPU
#    machine: its threads are preempted often, which is when races between
#    the event loop and the workers show.
#
# On a failure the test prints what the query server's threads are doing
# (and their stacks, when gdb is installed).
#
# Needs root and tracefs (FAILS without them).
. "$(dirname "$0")/lib.sh"

need_live
command -v taskset > /dev/null || abort "taskset (util-linux)" "in PATH" "missing"
start_ready 1
serve=$SERVE_PID
small_load
sleep 2.2
R=$(q "select min(20000, count(*)) from ev_sched_switch")
TS=$(q "select ts from ev_sched_switch order by ts limit 1 offset $((R - 1))")
huge="select a.*, b.ts from ev_sched_switch a, (select ts from ev_sched_switch order by ts limit 20) b where a.ts <= $TS limit 100000"
big=$(q "select count(*) from ($huge)")
taskset -a -p 1 "$serve" > /dev/null || abort "taskset -a -p 1 $serve" "exit 0" "failed"
log "$big rows per client, 6 clients a round, query server $serve on CPU 0"

t_end=$(( $(now_ms) + 100000 ))
round=0
bad=""
while [ "$(now_ms)" -lt "$t_end" ] && [ -z "$bad" ]; do
	round=$((round + 1))
	pids=()
	for c in 1 2 3 4 5 6; do
		"$RAWCLIENT" "$SOCK" "q:0:120000:$huge" read:30 > "$TMP/stream-$c.out" 2>&1 &
		pids+=($!)
		HELPER_PIDS+=($!)
	done
	wait "${pids[@]}" || true
	for c in 1 2 3 4 5 6; do
		got=$(tail -n 2 "$TMP/stream-$c.out" | tr '\n' ';')
		if ! grep -Eq "^E rows=$big;SUMMARY frames=[0-9]+ rows=$big " <<< "$got"; then
			bad="round $round, client $c: $got"
			break
		fi
	done
	if [ -z "$bad" ]; then
		sq "select 1" -list -noheader
		[ "$SQ_RC $SQ_OUT" = "0 1" ] || bad="round $round: a short query afterwards: exit $SQ_RC, '$SQ_OUT' $SQ_ERR"
	fi
done
CHECKS=$((CHECKS + 1))
if [ -n "$bad" ]; then
	fail "6 clients streaming $big rows each, round after round: every row, every end frame" \
		"E rows=$big, then the end of the stream, every time" "$bad"
	log "$(server_state)"
	if command -v gdb > /dev/null; then
		timeout -s KILL 30 gdb -p "$serve" -batch -ex "thread apply all bt 8" 2>&1 |
			grep -E '^Thread|^#[0-7] ' | cut -c1-160 >&2 || true
	fi
else
	log "$round rounds, every client got all its $big rows"
fi
check_eq "the same query server process throughout" "$serve" "$(serve_pid "$DB")"
stop_commd "$COMMD_PID" TERM 60
check_eq "SIGTERM: exit status" 0 "$STOP_RC"
finish
