#!/usr/bin/env bash
# server-sigterm.sh - stopping commd stops its query server and removes
# the socket (docs/architecture.md sections 1 and 5):
#
#  1. SIGTERM of an idle commd: exit 0 (within 15 s), the query server exits too, the
#     socket file is removed, the instance is gone; commq then fails
#     clearly (exit != 0, "cannot connect");
#  2. the same with a client connected and idle;
#  3. the same while a runaway query (--timeout 60) runs, and
#  4. while a client that does not read a huge result (timeout_ms 60000)
#     is connected: commd still exits within 15 s (the query server does
#     not sit out the query's deadline first);
#  5. kill -9 of commd: its query server exits on its own within 5 s; the
#     socket file left behind does not stop the next commd on the same
#     path, which answers queries.
#
# Needs root and tracefs (FAILS without them).
. "$(dirname "$0")/lib.sh"

need_live

# stopped WHAT LIMIT_MS: checks after stop_commd (commd $dpid, server $spid).
stopped() {
	local what=$1 limit=$2
	check_eq "$what: commd's exit status" 0 "$STOP_RC"
	check_true "$what: commd exits within $((limit / 1000)) s" "< $limit ms" "$STOP_MS ms" [ "$STOP_MS" -lt "$limit" ]
	check_eq "$what: the query server (pid $spid) is gone" gone "$(_alive "$spid" && echo running || echo gone)"
	check_eq "$what: no query server of the database left" "" "$(serve_pid "$DB")"
	check_eq "$what: the socket file is removed" absent "$([ -e "$SOCK" ] && echo present || echo absent)"
	check_eq "$what: the instance is removed" absent "$([ -d "$TRACEFS/instances/$(inst "$n")" ] && echo present || echo absent)"
	check_eq "$what: integrity_check" ok "$(q "pragma integrity_check")"
	sq "select 1"
	check_eq "$what: commq afterwards: exit status" 1 "$SQ_RC"
	check_match "$what: commq afterwards: a clear error" "cannot connect|[Nn]o such file" "$SQ_ERR"
}

# --- 1. idle ------------------------------------------------------------------------
n=1
start_ready $n
dpid=$COMMD_PID spid=$SERVE_PID
sq "select count(*) from capture" -list -noheader
check_eq "before SIGTERM: a query" "0 1" "$SQ_RC $SQ_OUT"
stop_commd "$dpid" TERM 60
stopped "SIGTERM, idle" 15000
log "SIGTERM, idle: commd exited after $STOP_MS ms"

# --- 2. a client connected, idle --------------------------------------------------
n=2
start_ready $n
dpid=$COMMD_PID spid=$SERVE_PID
"$RAWCLIENT" "$SOCK" "q:0:0:select 1" read:5 sleep:30 > "$TMP/idle.out" 2>&1 &
cpid=$!
HELPER_PIDS+=("$cpid")
sleep 0.5
stop_commd "$dpid" TERM 60
stopped "SIGTERM with an idle client connected" 15000
reap "$cpid"

# --- 3. a runaway query ------------------------------------------------------------
n=3
start_ready $n
dpid=$COMMD_PID spid=$SERVE_PID
"$COMMQ" --socket "$SOCK" --timeout 60 "$RUNAWAY" > "$TMP/runaway.out" 2>&1 &
cpid=$!
HELPER_PIDS+=("$cpid")
sleep 0.5
stop_commd "$dpid" TERM 90
stopped "SIGTERM while a runaway query (--timeout 60) runs" 15000
log "SIGTERM with a runaway query running: commd exited after $STOP_MS ms; the client said: $(head -c 300 "$TMP/runaway.out")"
reap "$cpid"

# --- 4. a client that does not read ---------------------------------------------------
n=4
start_ready $n
dpid=$COMMD_PID spid=$SERVE_PID
small_load
sleep 1.2
"$RAWCLIENT" "$SOCK" rcvbuf:4096 "q:0:60000:select * from ev_sched_switch a, ev_sched_switch b, ev_sched_switch c" \
	sleep:60 > "$TMP/stalled.out" 2>&1 &
cpid=$!
HELPER_PIDS+=("$cpid")
sleep 1
stop_commd "$dpid" TERM 90
stopped "SIGTERM while a client does not read its huge result (timeout_ms 60000)" 15000
log "SIGTERM with a stalled client: commd exited after $STOP_MS ms"
reap "$cpid"

# --- 5. kill -9 of commd ---------------------------------------------------------------
n=5
start_ready $n
dpid=$COMMD_PID spid=$SERVE_PID
kill -KILL "$dpid"
{ wait "$dpid"; } 2> /dev/null || true
for ((i = 0; i < 100; i++)); do
	_alive "$spid" || break
	sleep 0.05
done
check_eq "kill -9 of commd: its query server exits within 5 s" gone "$(_alive "$spid" && echo running || echo gone)"
check_eq "kill -9 of commd: the socket file is left behind (nobody removed it)" present "$([ -S "$SOCK" ] && echo present || echo absent)"
rmdir "$TRACEFS/instances/$(inst $n)" 2> /dev/null || true
sock=$SOCK db=$DB
"$COMMD" --foreground --config /dev/null --db "$db" --instance "$(inst 6)" --socket "$sock" 2> "$TMP/6.err" < /dev/null &
COMMD_PID=$!
COMMD_PIDS+=("$COMMD_PID")
for ((i = 0; i < 600; i++)); do
	grep -q '^commd: capturing into ' "$TMP/6.err" 2> /dev/null && break
	_alive "$COMMD_PID" || break
	sleep 0.05
done
check_match "a new commd on the stale socket path becomes ready" "^commd: capturing into " "$(cat "$TMP/6.err")"
spid=$(wait_serve "$db" 5)
sq "select count(*) from capture" -list -noheader
check_eq "a new commd on the stale socket path answers (two captures now)" "0 2" "$SQ_RC $SQ_OUT"
n=6
dpid=$COMMD_PID
stop_commd "$dpid" TERM 60
stopped "SIGTERM of the commd started on the stale socket" 15000
finish
