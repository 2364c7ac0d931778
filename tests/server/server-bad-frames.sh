#!/usr/bin/env bash
# server-bad-frames.sh - malformed or hostile input on the socket closes
# only that connection (common/protocol.h; docs/architecture.md section
# 5: a malformed or oversized frame closes that one connection):
#
#  1. garbage bytes, text, a length of 0, of 0xFFFFFFFF, of 1 MiB + 1
#     (header alone, and with the whole body), an unknown frame type, a
#     server-only frame type sent by the client, a 'Q' shorter than 8
#     bytes, a second 'Q' before the first one's answer, a good 'Q'
#     followed by a bad frame: each gets an 'X' frame with code 1000
#     (PROTO_ERR_FRAME) and then the connection is closed;
#     a truncated frame (then shutdown, or close) is dropped silently;
#     after each one a commq query works and the query server is the same
#     process (nothing crashed, nothing restarted);
#  2. what is allowed: a frame of exactly 1 MiB, a frame dribbled in in
#     pieces, an empty SQL ('Q' of exactly 8 bytes) are answered and the
#     connection stays usable;
#  3. clients that ask for a huge result and never read it: the server's
#     memory stays bounded (+64 MiB at most), another client's short query
#     answers in < 1 s meanwhile, and once they close their workers are
#     free again at once; clients that send a query and vanish, 200
#     connections that open and close: no fd left behind;
#  4. a 'Q' whose SQL holds a NUL byte ("select 1\0x", "\0") is answered
#     (an error or the rows, then 'E'/'X') within 2 s, and leaves no
#     thread spinning: the server is idle afterwards, SIGTERM stops commd
#     within 10 s.
#
# Needs root and tracefs (FAILS without them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/safety-lib.sh"

need_live
start_ready 1
serve=$SERVE_PID
dpid=$COMMD_PID
small_load
sleep 1.2
fds0=$(fd_count "$serve")

# after WHAT: the server still answers, and is the same process.
after() {
	sq "select 6 * 7" -list -noheader
	check_eq "$1: then a commq query answers" "0 42" "$SQ_RC $SQ_OUT"
	check_eq "$1: then the query server is the same process" "$serve" "$(serve_pid "$DB")"
}

# bad WHAT X|noX|X+ ACTIONS...: the connection ends (EOF/RESET within 5 s)
# with no result frames, after an 'X' code 1000 (X) or silently (noX); X+:
# result frames of a good query sent before the bad frame are allowed.
bad() {
	local what=$1 want=$2 out
	shift 2
	out=$(timeout -s KILL 30 "$RAWCLIENT" "$SOCK" "$@" drain:5 2>&1) || true
	check_match "$what: the server closes the connection" "^(EOF|RESET)$" "$out"
	if [ "$want" != X+ ]; then
		check_true "$what: no result frames" "no C/R/E frames" "$(tr '\n' ';' <<< "$out")" \
			eval '! grep -Eq "^[CRE] " <<< "$out"'
	fi
	if [ "$want" != noX ]; then
		check_match "$what: an 'X' frame with PROTO_ERR_FRAME (1000) first" "^X code=1000 " "$out"
	fi
	after "$what"
}

# --- 1. malformed frames -------------------------------------------------------
n_attack=$(switches)
bad "garbage bytes (length 0xDEADBEEF)" X hex:DEADBEEF0102030405060708
bad "4096 bytes of 0xA5" X fill:4096:A5
bad "an HTTP request" X "hex:$(printf 'GET / HTTP/1.0\r\n\r\n' | od -An -tx1 | tr -d ' \n')"
bad "a length of 0" X hex:00000000
bad "a length of 0 with a type byte" X hex:0000000051
bad "a length of 0xFFFFFFFF" X hex:FFFFFFFF51
bad "a length of 0x80000000" X hex:8000000051
bad "a length of 1 MiB + 1 (header only)" X hex:00100001
bad "a 'Q' frame of 1 MiB + 1 (whole body sent)" X "qsize:1048577:select 1"
bad "an unknown frame type 'Z'" X frame:Z:00
bad "frame type 0x00" X "hex:00000001 00"
bad "frame type 0xFF" X "hex:00000002 FF00"
bad "a server-only frame type 'E' from the client" X frame:E:00000000000000000000000000000000
bad "a server-only frame type 'X' from the client" X frame:X:0000000000000000
bad "a server-only frame type 'C' from the client" X frame:C:0000
bad "a server-only frame type 'R' from the client" X frame:R:0000
bad "a 'Q' with no payload" X frame:Q:
bad "a 'Q' with a 1-byte payload" X frame:Q:00
bad "a 'Q' with a 7-byte payload" X frame:Q:00000000000000
bad "a second 'Q' before the first one's answer" X "q:0:3000:$RUNAWAY" "q:0:0:select 1"
bad "a good 'Q' then a length-0 frame" X+ "q:0:0:select 1" hex:00000000
bad "a truncated frame, then shutdown" noX hex:00000010510000 shutwr
bad "a truncated header, then shutdown" noX hex:0000 shutwr
bad "a second 'Q' during a runaway (runaway --timeout 3 s)" X "q:0:3000:$RUNAWAY" sleep:0.3 "q:0:0:select 1"
for what in "a truncated frame, then close" "a 'Q' sent, then close at once"; do
	if [ "$what" = "a truncated frame, then close" ]; then
		"$RAWCLIENT" "$SOCK" hex:0000001051000000 > /dev/null 2>&1 || true
	else
		"$RAWCLIENT" "$SOCK" "q:0:0:select * from ev_sched_switch" > /dev/null 2>&1 || true
	fi
	after "$what"
done

rising "during the malformed frames" "$n_attack"

# --- 2. allowed edge cases ------------------------------------------------------
out=$(timeout -s KILL 30 "$RAWCLIENT" "$SOCK" "qsize:1048576:select 7 as seven" read:10 "q:0:0:select 8" read:10 2>&1) || true
check_eq "a 'Q' frame of exactly 1 MiB: answered, then the next query on the connection" \
	"C 1 seven:;R 1 7;E rows=1;C 1 8:;R 1 8;E rows=1;" "$(grep -v '^SUMMARY' <<< "$out" | tr '\n' ';')"
out=$(timeout -s KILL 30 "$RAWCLIENT" "$SOCK" hex:00 sleep:0.2 hex:0000 sleep:0.2 hex:1151 sleep:0.2 \
	hex:00000000 sleep:0.2 hex:00000000 sleep:0.2 hex:73656c65637420 sleep:0.2 hex:31 read:10 2>&1) || true
check_eq "a frame dribbled in seven pieces: answered" "C 1 1:;R 1 1;E rows=1;" "$(grep -v '^SUMMARY' <<< "$out" | tr '\n' ';')"
out=$(timeout -s KILL 30 "$RAWCLIENT" "$SOCK" frame:Q:0000000000000000 read:10 "q:0:0:select 9" read:10 2>&1) || true
check_match "an empty SQL ('Q' of 8 bytes): an 'E' or 'X' answer" "^(E rows=0|X code=)" "$(head -n 1 <<< "$out")"
check_eq "an empty SQL: the connection stays usable" "C 1 9:;R 1 9;E rows=1;" "$(grep -v '^SUMMARY' <<< "$out" | sed 1d | tr '\n' ';')"
out=$(timeout -s KILL 30 "$RAWCLIENT" "$SOCK" "q:0:0:select 1; -- a comment" read:10 2>&1) || true
check_eq "SQL ending in a comment" "C 1 1:;R 1 1;E rows=1;" "$(grep -v '^SUMMARY' <<< "$out" | tr '\n' ';')"

# --- 3. clients that never read ------------------------------------------------------
rss0=$(proc_field "$serve" VmRSS | awk '{print $1}')
huge="select * from ev_sched_switch a, ev_sched_switch b, ev_sched_switch c"
pids=()
for i in 1 2 3; do
	"$RAWCLIENT" "$SOCK" rcvbuf:4096 "q:0:60000:$huge" sleep:6 > "$TMP/stalled-$i.out" 2>&1 &
	pids+=($!)
	HELPER_PIDS+=($!)
done
sleep 2
n_attack=$(switches)
rss1=$(proc_field "$serve" VmRSS | awk '{print $1}')
for i in 1 2 3; do
	sq "select count(*) from capture" -list -noheader
	check_eq "3 clients not reading a huge result: another client's query $i" "0 1" "$SQ_RC $SQ_OUT"
	check_true "3 clients not reading a huge result: another client's query $i in < 1 s" "< 1000 ms" "$SQ_MS ms" [ "$SQ_MS" -lt 1000 ]
done
sleep 2
rss2=$(proc_field "$serve" VmRSS | awk '{print $1}')
log "query server VmRSS: $rss0 kB before, $rss1 kB and $rss2 kB while 3 clients do not read"
for r in "$rss1" "$rss2"; do
	check_true "3 clients not reading a huge result: the server's memory stays bounded" \
		"VmRSS < $rss0 + 65536 kB" "$r kB" [ "$r" -lt $((rss0 + 65536)) ]
done
rising "while 3 clients do not read" "$n_attack"
wait "${pids[@]}" || true
# Four (every worker of the default pool) stalled clients that then close:
# their workers must be free at once, not at their 60 s deadline.
pids=()
for i in 1 2 3 4; do
	"$RAWCLIENT" "$SOCK" rcvbuf:4096 "q:0:60000:$huge" sleep:2 > /dev/null 2>&1 &
	pids+=($!)
	HELPER_PIDS+=($!)
done
wait "${pids[@]}" || true
for i in 1 2 3 4; do
	sq "select $i" -list -noheader
	check_eq "after 4 stalled clients closed: query $i" "0 $i" "$SQ_RC $SQ_OUT"
	check_true "after 4 stalled clients closed: query $i answers in < 1 s" "< 1000 ms" "$SQ_MS ms" [ "$SQ_MS" -lt 1000 ]
done
for i in $(seq 200); do
	"$RAWCLIENT" "$SOCK" > /dev/null 2>&1 || true
done
sleep 1
after "200 connections opened and closed"
fds1=$(fd_count "$serve")
check_eq "open fds of the query server after everything (connections all closed)" "$fds0" "$fds1"
check_eq "commd itself still runs" running "$(_alive "$dpid" && echo running || echo gone)"
stop_commd "$dpid" TERM 30
check_eq "SIGTERM after the bad frames: exit status" 0 "$STOP_RC"
no_sanitizer_reports "commd 1"

# --- 4. NUL bytes in the SQL --------------------------------------------------------
start_ready 2
serve=$SERVE_PID
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2> /dev/null; }
for case in "select 1\\0x|0000000000000000 73656c6563742031 00 78" "\\0|0000000000000000 00" \
	"select 2;\\0|0000000000000000 73656c65637420323b 00"; do
	name=${case%%|*}
	t0=$(now_ms)
	out=$(timeout -s KILL 30 "$RAWCLIENT" "$SOCK" "frame:Q:${case#*|}" read:3 2>&1) || true
	ms=$(( $(now_ms) - t0 ))
	check_match "a 'Q' with SQL \"$name\": answered with an 'E' or 'X' frame" "^(E rows=|X code=)" "$out"
	check_true "a 'Q' with SQL \"$name\": answered within 2 s" "< 2000 ms" "$ms ms ($(tr '\n' ';' <<< "$out"))" [ "$ms" -lt 2000 ]
done
sleep 0.5
c0=$(ticks "$serve")
sleep 2
c1=$(ticks "$serve")
hz=$(getconf CLK_TCK)
check_true "after the NUL-byte queries (clients gone): the query server is idle" \
	"< 0.2 s of CPU in 2 s" "$(( (c1 - c0) * 1000 / hz )) ms of CPU in 2 s" [ $((c1 - c0)) -lt $((hz / 5)) ]
sq "select 1" -list -noheader
check_eq "after the NUL-byte queries: a query answers" "0 1" "$SQ_RC $SQ_OUT"
stop_commd "$COMMD_PID" TERM 10
check_eq "after the NUL-byte queries: SIGTERM stops commd within 10 s" 0 "$STOP_RC"
no_sanitizer_reports "the query server (commd's stderr)"
finish
