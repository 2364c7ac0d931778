#!/usr/bin/env bash
# server-concurrency.sh - queries run side by side, and beside capture
# (server.h: "a long query never delays another client's short one";
# docs/architecture.md section 1: nothing a query does can block
# ingestion):
#
#  1. a runaway query (--timeout 12) runs in the background; meanwhile a
#     short query from another client answers in < 3 s (while the runaway
#     still runs), several times over,
#     and the runaway is cut off at ~12 s with a time-out error;
#  2. capture keeps committing while the runaway runs (sched_switch rows
#     and the newest ts grow between 1 s and 4 s into it);
#  3. 20 clients at once (each its own queries over a fixed range, plus its
#     own number) all get exactly the right answer, and so do 20 clients
#     at once while a runaway runs (within 3 s of the round without it);
#     capture grows across them.
#
# Needs root and tracefs (FAILS without them).
. "$(dirname "$0")/lib.sh"

need_live
start_ready 1
serve=$SERVE_PID
fixed_range
ref=$(q "select count(*) from ev_sched_switch where ts <= $TS")
top="select next_comm || ',' || count(*) from ev_sched_switch where ts <= $TS group by next_comm order by count(*) desc, next_comm limit 3"
refc=$(q "$top")

# --- 1. a long query does not delay a short one ----------------------------------
long_start() {	# OUTFILE TIMEOUT: the runaway in the background; sets LONG_PID
	( t0=$(date +%s%N)
	  rc=0
	  "$COMMQ" --socket "$SOCK" --timeout "$2" "$RUNAWAY" > "$1.out" 2> "$1.err" || rc=$?
	  echo "$rc $(( ($(date +%s%N) - t0) / 1000000 ))" > "$1.rc" ) &
	LONG_PID=$!
	HELPER_PIDS+=("$LONG_PID")
}
long_start "$TMP/long1" 12
sleep 0.5
n1=$(switches)
ts1=$(q "select max(ts) from ev_sched_switch")
# (-q: one query per check, without the look-up of lost events)
for i in 1 2 3 4 5; do
	sq "select count(*) from ev_sched_switch where ts <= $TS" -list -noheader -q
	check_eq "short query $i while a runaway runs: answer" "0 $ref" "$SQ_RC $SQ_OUT"
	# (< 3 s: the runaway lasts 12; a loaded machine stretches every time.)
	check_true "short query $i while a runaway runs: answered in < 3 s" "< 3000 ms" "$SQ_MS ms" [ "$SQ_MS" -lt 3000 ]
	sleep 0.5
done
check_eq "the runaway is still running during the short queries" running \
	"$(_alive "$LONG_PID" && echo running || echo "finished: $(cat "$TMP/long1.rc" 2> /dev/null)")"
sleep 1
n2=$(switches)
ts2=$(q "select max(ts) from ev_sched_switch")
check_true "capture commits while the runaway runs: sched_switch rows grow" "> $n1" "$n2" [ "$n2" -gt "$n1" ]
check_true "capture commits while the runaway runs: the newest ts grows" "> $ts1" "$ts2" [ "$ts2" -gt "$ts1" ]
wait "$LONG_PID" || true
read -r lrc lms < "$TMP/long1.rc"
check_eq "runaway --timeout 12: exit status" 1 "$lrc"
check_match "runaway --timeout 12: timed out" "time[ds]? ?out|deadline" "$(cat "$TMP/long1.err")"
check_true "runaway --timeout 12: cut off between 11.5 and 15 s" "11500..15000 ms" "$lms ms" \
	eval '[ "$lms" -ge 11500 ] && [ "$lms" -le 15000 ]'

# Two runaways at once, and still a short query answers at once.
long_start "$TMP/long2" 4
p2=$LONG_PID
long_start "$TMP/long3" 4
p3=$LONG_PID
sleep 0.5
sq "select 42" -list -noheader
check_eq "short query beside two runaways: answer" "0 42" "$SQ_RC $SQ_OUT"
# (Two CPU-bound runaways can fill both CPUs of a small machine: 2 s.)
check_true "short query beside two runaways: answered in < 4 s" "< 4000 ms" "$SQ_MS ms" [ "$SQ_MS" -lt 4000 ]
wait "$p2" "$p3" || true

# --- 3. 20 clients at once -----------------------------------------------------------
many() {	# TAG: 20 clients at once; checks every answer
	local tag=$1 i pids=() rc got exp
	for i in $(seq 20); do
		( rc=0
		  "$COMMQ" --socket "$SOCK" -list -noheader -q \
			"select $i, count(*) from ev_sched_switch where ts <= $TS; $top" \
			> "$TMP/many-$tag-$i.out" 2> "$TMP/many-$tag-$i.err" || rc=$?
		  echo "$rc" > "$TMP/many-$tag-$i.rc" ) &
		pids+=($!)
		HELPER_PIDS+=($!)
	done
	wait "${pids[@]}" || true
	for i in $(seq 20); do
		got="exit $(cat "$TMP/many-$tag-$i.rc" 2> /dev/null): $(cat "$TMP/many-$tag-$i.out" "$TMP/many-$tag-$i.err" 2> /dev/null)"
		exp="exit 0: $i|$ref
$refc"
		check_eq "$tag: client $i of 20 at once: its answer" "$exp" "$got"
	done
}
n1=$(switches)
t0=$(now_ms)
many "20 clients"
alone=$(( $(now_ms) - t0 ))
log "20 clients at once: $alone ms"
long_start "$TMP/long4" 5
sleep 0.3
t0=$(now_ms)
many "20 clients beside a runaway"
ms=$(( $(now_ms) - t0 ))
# Compared with the same round without the runaway (a loaded machine
# stretches both): the runaway holds one worker, not the other clients.
check_true "20 clients beside a runaway: answered within 3 s of the round without it ($alone ms)" \
	"< $((alone + 3000)) ms" "$ms ms" [ "$ms" -lt $((alone + 3000)) ]
wait "$LONG_PID" || true
sleep 1.2
n2=$(switches)
check_true "capture grows across the 20-client rounds" "> $n1" "$n2" [ "$n2" -gt "$n1" ]
check_eq "the same query server process throughout" "$serve" "$(serve_pid "$DB")"
stop_commd "$COMMD_PID" TERM 60
check_eq "SIGTERM: exit status" 0 "$STOP_RC"
finish
