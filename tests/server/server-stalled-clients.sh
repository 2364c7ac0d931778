#!/usr/bin/env bash
# server-stalled-clients.sh - clients that ask for a big result and do not
# read it must not take the server away from everyone else (server.h: "a
# long query never delays another client's short one ... rows are streamed
# to the client in batches with back-pressure"):
#
#  1. twice as many stalled clients as the server starts workers with (8;
#     `commd serve` starts 4 by default), all at once, each with
#     timeout_ms 60000, hold their connections open without reading;
#     meanwhile a short query from another client answers in < 2 s, three
#     times over;
#  2. the server's memory stays bounded meanwhile (+64 MiB at most);
#  3. once they close, everything answers at once.
#
# Needs root and tracefs (FAILS without them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/safety-lib.sh"

need_live
start_ready 1
serve=$SERVE_PID
small_load
sleep 1.2
rss0=$(proc_field "$serve" VmRSS | awk '{print $1}')
huge="select * from ev_sched_switch a, ev_sched_switch b, ev_sched_switch c"
pids=()
for i in $(seq 8); do
	"$RAWCLIENT" "$SOCK" rcvbuf:4096 "q:0:60000:$huge" sleep:12 > "$TMP/stalled-$i.out" 2>&1 &
	pids+=($!)
	HELPER_PIDS+=($!)
done
n_attack=$(switches)
sleep 1.5
log "with 8 stalled clients: the query server has $(find "/proc/$serve/task" -mindepth 1 -maxdepth 1 | wc -l) threads (the loop and its workers)"
for i in 1 2 3; do
	sq "select count(*) from capture" -list -noheader --timeout 5
	check_eq "8 stalled clients: another client's query $i: answer" "0 1" "$SQ_RC $SQ_OUT$([ -z "$SQ_ERR" ] || echo " (stderr: ${SQ_ERR:0:200})")"
	check_true "8 stalled clients: another client's query $i: answered in < 2 s" "< 2000 ms" "$SQ_MS ms" [ "$SQ_MS" -lt 2000 ]
done
rss1=$(proc_field "$serve" VmRSS | awk '{print $1}')
log "query server VmRSS: $rss0 kB before, $rss1 kB with 8 stalled clients"
check_true "8 stalled clients: the server's memory stays bounded" "VmRSS < $rss0 + 65536 kB" "$rss1 kB" \
	[ "$rss1" -lt $((rss0 + 65536)) ]
rising "with 8 stalled clients" "$n_attack"
reap "${pids[@]}"
sleep 0.3
sq "select 5" -list -noheader --timeout 5
check_eq "after the stalled clients closed: a query" "0 5" "$SQ_RC $SQ_OUT"
check_true "after the stalled clients closed: answered in < 1 s" "< 1000 ms" "$SQ_MS ms" [ "$SQ_MS" -lt 1000 ]
check_eq "the same query server process throughout" "$serve" "$(serve_pid "$DB")"
stop_commd "$COMMD_PID" TERM 60
check_eq "SIGTERM: exit status" 0 "$STOP_RC"
no_sanitizer_reports "the query server (commd's stderr)"
finish
