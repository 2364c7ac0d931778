#!/usr/bin/env bash
# server-safety.sh - the query server's limits (issue 5 point 5; the
# checklist in docs/server-safety.md), each shown with capture's row
# count still rising meanwhile:
#
#  1. the socket 0660 in a directory commd made 0750 (root:root without a
#     group commd): nobody cannot even reach it;
#  2. a request is checked whole before anything runs: "select 1; drop
#     table x" gives one error frame and no rows; transactions (begin,
#     commit, end, rollback, savepoint, release), ATTACH, PRAGMA writes,
#     INSERT/UPDATE/DELETE, DDL, load_extension are refused (PROTO_ERR_DENIED);
#  3. SQLite's limits: expression depth 200, 500 result columns, 100
#     compound terms, 16 MiB strings, 1000-byte LIKE patterns: past them an
#     error, below them an answer;
#  4. the default deadline, configured (--query-timeout-ms 4000), cuts a
#     runaway recursive CTE off at ~4 s (PROTO_ERR_TIMEOUT);
#  5. memory per query (--query-max-mem-mb 16): a query that needs more
#     ends with "out of memory ... 16 MiB", a smaller one answers; a sort
#     that spills to temporary files answers from memory, not disk;
#  6. result bytes per query (--query-max-result-mb 1): the rows up to
#     1 MiB, then an error frame (PROTO_ERR_LIMIT) that says how many rows
#     and bytes were sent; commq exits 1 with that message; a row larger
#     than a frame (1 MiB) is refused so too, the rows before it sent;
#  7. connections (--query-max-conns 8): root has 8 more held for it (no
#     member can lock root out); with 16 of root's open, a 17th gets "too
#     many connections" (PROTO_ERR_BUSY) and is closed, the 16 are
#     answered, a log line says so; once they close, connections work again
#     (a member's share: server-quotas);
#  8. without options, the deadline is 30 s: a runaway is cut off after
#     ~30 s (not before 25 s); and the server's SQLite memory as a whole
#     is bounded (512 MiB) where a query's own cap (--query-max-mem-mb
#     2048) is not: a 600 MB sort runs out of memory, one of 200 MB
#     answers, before it and after it (what the first freed was given
#     back to the count), and the server's peak RSS stays under 600 MiB;
#  9. no sanitizer report in commd's stderr (an ASan build: see
#     docs/server-safety.md).
#
# Needs root and tracefs (FAILS without them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/safety-lib.sh"

need_live
start_ready_at 1 "$TMP/sockdir/1.sock" --query-timeout-ms 4000 --query-max-mem-mb 16 \
	--query-max-result-mb 1 --query-max-conns 8
serve=$SERVE_PID
small_load

# raw WHAT SQL: a 'Q' (no limit, the default deadline) through rawclient;
# sets OUT.
raw() {
	OUT=$(timeout -s KILL 60 "$RAWCLIENT" "$SOCK" "q:0:0:$2" read:50 2>&1) || true
}

# --- 1. the socket and its directory -------------------------------------------
check_eq "the socket's directory, made by commd" "drwxr-x--- root root" "$(stat -c '%A %U %G' "$TMP/sockdir")"
check_eq "the socket" "srw-rw---- root root" "$(stat -c '%A %U %G' "$SOCK")"
as nobody nogroup "$RAWCLIENT" "$SOCK" "q:0:0:select 1" read:5
check_eq "nobody cannot reach the socket (the directory): rawclient exit status" 2 "$AS_RC"
check_match "nobody cannot reach the socket: EACCES" "Permission denied" "$AS_ERR"

# --- 2. a request is checked whole; only reads ------------------------------------
n0=$(switches)
denied() {	# SQL: one 'X' code 1001 frame, nothing else
	raw "" "$1"
	check_eq "refused whole: $1" "X code=1001" "$(grep -v '^SUMMARY' <<< "$OUT" | cut -d' ' -f1,2 | tr '\n' ';' | sed 's/;$//')"
}
raw "" "select 1; drop table x"
check_match "'select 1; drop table x' (no table x): refused whole, one error frame, no rows" \
	"^X code=[0-9]+ offset=[-0-9]+ msg=[^;]*;SUMMARY frames=1 rows=0 " "$(tr '\n' ';' <<< "$OUT")"
denied "select 1; drop table capture"
denied "select 1 as a; select 2 as b; delete from capture"
denied "select count(*) from ev_sched_switch; update capture set source = 'x'"
for sql in "begin" "begin deferred" "begin immediate" "begin exclusive" "commit" "end" \
	"rollback" "savepoint s" "release s" "rollback to s" \
	"attach '$TMP/a.db' as a" "pragma journal_mode=delete" "pragma writable_schema=1" \
	"pragma query_only=0" "insert into capture(source) values ('x')" "update capture set source = 'x'" \
	"delete from capture" "create table x(y)" "create temp table x(y)" "drop table capture" \
	"alter table capture add column z" "create index x on capture(source)" "vacuum" \
	"select load_extension('x')"; do
	denied "$sql"
done
check_eq "no attached database file was made" absent "$([ -e "$TMP/a.db" ] && echo present || echo absent)"
raw "" "select 1 as a; select 2 as b"
check_eq "two reads in one request: both answered" "C 1 a:;R 1 1;C 1 b:;R 1 2;E rows=2;" \
	"$(grep -v '^SUMMARY' <<< "$OUT" | tr '\n' ';')"
rising "during the refused requests" "$n0"

# --- 3. SQLite's limits --------------------------------------------------------------
n0=$(switches)
terms() {	# N SEP WORD: WORD SEP WORD ... (N times)
	local i s=$3
	for ((i = 1; i < $1; i++)); do s="$s$2$3"; done
	printf '%s' "$s"
}
limit_case() {	# WHAT SQL_OVER REGEX SQL_UNDER
	raw "" "$2"
	check_match "$1: past the limit, an error" "^X code=[0-9]+ offset=[-0-9]+ msg=.*$3" "$OUT"
	raw "" "$4"
	check_match "$1: under the limit, an answer" "^E rows=1$" "$OUT"
}
limit_case "expression depth 200" "select $(terms 300 + 1)" "Expression tree is too large" "select $(terms 150 + 1)"
limit_case "500 columns" "select $(terms 501 , 1)" "too many columns" "select $(terms 500 , 1)"
limit_case "100 compound terms" "$(terms 101 ' union all ' 'select 1')" "too many terms in compound SELECT" \
	"select count(*) from ($(terms 100 ' union all ' 'select 1'))"
limit_case "16 MiB strings" "select length(zeroblob(16777217))" "string or blob too big" \
	"select length(zeroblob(16777216))"
limit_case "LIKE patterns of 1000 bytes" "select 'a' like '$(printf 'a%.0s' $(seq 1001))'" \
	"LIKE or GLOB pattern too complex" "select 'a' like '$(printf 'a%.0s' $(seq 1000))'"
rising "during the limit cases" "$n0"

# --- 4. the deadline (configured: 4 s) ------------------------------------------------
n0=$(switches)
t0=$(now_ms)
timeout -s KILL 60 "$RAWCLIENT" "$SOCK" "q:0:0:$RUNAWAY" read:50 > "$TMP/runaway.out" 2>&1 &
rpid=$!
HELPER_PIDS+=("$rpid")
sleep 1
rising "while a runaway recursive CTE runs" "$n0"
wait "$rpid" || true
ms=$(( $(now_ms) - t0 ))
check_match "runaway, the configured default deadline (4 s): PROTO_ERR_TIMEOUT" "^X code=1002 " "$(cat "$TMP/runaway.out")"
check_true "runaway: cut off after 3.5 to 15 s" "3500..15000 ms" "$ms ms" test "$ms" -ge 3500 -a "$ms" -le 15000
out=$(timeout -s KILL 60 "$RAWCLIENT" "$SOCK" "q:0:1000:$RUNAWAY" read:50 2>&1) || true
check_match "runaway with the client's timeout_ms 1000: PROTO_ERR_TIMEOUT" "^X code=1002 " "$out"

# --- 5. memory per query (16 MiB) --------------------------------------------------------
n0=$(switches)
gc="with recursive c(x) as (select 1 union all select x + 1 from c limit %d)
select length(group_concat(printf('%%0999d', x))), length(group_concat(printf('%%0999d', x + 1))) from c"
# shellcheck disable=SC2059
raw "" "$(printf "$gc" 10000)"
check_match "two 10 MB strings in one query (16 MiB a query): out of memory, the limit said" \
	"^X code=7 offset=-1 msg=out of memory: the query needs more than 16 MiB" "$OUT"
# shellcheck disable=SC2059
raw "" "$(printf "$gc" 1000)"
check_match "two 1 MB strings: answered" "^E rows=1$" "$OUT"
sq "select 6 * 7" -list -noheader
check_eq "after the query out of memory: a query" "0 42" "$SQ_RC $SQ_OUT"
# A sort larger than the sorter's memory (2 MiB: the cache) spills to its
# temporary files; they are memory, counted against the cap, never disk:
# 6 MB sorted answers, in order, and the server writes (wchar: every
# write, sockets too) nothing of its size; 40 MB runs out of the 16 MiB.
# (The keys are 0..n-1 shuffled: x * 7919 mod n, 7919 a prime not dividing n.)
srt="with recursive c(x) as (select 1 union all select x + 1 from c limit %d)
select count(*), group_concat(k) = (select group_concat(x - 1) from c), sum(length(y))
from (select k, printf('%%090d', k) as y from (select x * 7919 %% %d as k from c) order by y)"
w0=$(awk '/^wchar/ { print $2 }' "/proc/$serve/io")
# shellcheck disable=SC2059
raw "" "$(printf "$srt" 60000 60000)"
w1=$(awk '/^wchar/ { print $2 }' "/proc/$serve/io")
check_match "6 MB sorted (16 MiB a query): answered" "^E rows=1$" "$OUT"
check_match "6 MB sorted: every row, in order" "^R 1 60000[|]1[|]5400000$" "$OUT"
check_true "6 MB sorted: the server wrote under 1 MiB (no temporary file on disk)" \
	"< 1048576 bytes" "$((w1 - w0)) bytes" test $((w1 - w0)) -lt 1048576
# shellcheck disable=SC2059
raw "" "$(printf "$srt" 400000 400000)"
check_match "40 MB sorted (16 MiB a query): out of memory, the limit said" \
	"^X code=7 offset=-1 msg=out of memory: the query needs more than 16 MiB" "$OUT"
rising "across the memory cases" "$n0"

# --- 6. result bytes per query (1 MiB) ----------------------------------------------------
n0=$(switches)
big="with recursive c(x) as (select 1 union all select x + 1 from c limit 200000) select x, printf('%0100d', x) from c"
raw "" "$big"
x=$(grep '^X ' <<< "$OUT")
check_match "a 22 MB result (1 MiB a query): cut off with PROTO_ERR_LIMIT, rows and bytes said" \
	"^X code=1004 offset=-1 msg=result cut off after [0-9]+ rows, [0-9]+ bytes: the server sends at most 1 MiB per query" "$x"
rows=$(sed -E 's/.*after ([0-9]+) rows.*/\1/' <<< "$x")
bytes=$(sed -E 's/.*rows, ([0-9]+) bytes.*/\1/' <<< "$x")
got=$(sed -nE 's/^SUMMARY frames=[0-9]+ rows=([0-9]+) bytes=([0-9]+)$/\1 \2/p' <<< "$OUT")
check_eq "the rows said are the rows received" "$rows" "${got%% *}"
check_true "bytes sent: 1 MiB and at most a row more" "1048576..1048800" "$bytes" \
	[ "$bytes" -ge 1048576 ] && [ "$bytes" -le 1048800 ]
sq "$big" -list -noheader
check_eq "commq on the cut-off result: exit status" 1 "$SQ_RC"
check_match "commq on the cut-off result: says so" "result cut off after [0-9]+ rows" "$SQ_ERR"
sq "select count(*) from ($big)" -list -noheader
check_eq "the same rows counted (a small answer): answered" "0 200000" "$SQ_RC $SQ_OUT"
raw "" "select 1 as a union all select zeroblob(2000000) union all select 3"
check_match "a row larger than a frame (1 MiB): the rows before it, then PROTO_ERR_LIMIT" \
	"^C 1 a:;R 1 1;X code=1004 offset=-1 msg=row 2 is larger than a frame" "$(tr '\n' ';' <<< "$OUT")"
rising "across the result-size cases" "$n0"

# --- 7. connections (8) -------------------------------------------------------------------
n0=$(switches)
pids=()
s0=$(socket_count "$serve")
for i in $(seq 16); do
	"$RAWCLIENT" "$SOCK" sleep:10 "q:0:0:select $i * 11" read:20 > "$TMP/held-$i.out" 2>&1 &
	pids+=($!)
	HELPER_PIDS+=($!)
done
# (at most 8 s: they ask their query 10 s after they connect)
wait_sockets "$serve" $((s0 + 16)) 8
out=$(timeout -s KILL 30 "$RAWCLIENT" "$SOCK" "q:0:0:select 1" drain:10 2>&1) || true
check_match "root's 17th connection: PROTO_ERR_BUSY, too many connections" \
	"^X code=1003 offset=-1 msg=too many connections: the server takes 8 at a time" "$out"
check_match "root's 17th connection: then closed" "^(EOF|RESET)$" "$out"
check_true "root's 17th connection: no answer" "no C/R/E" "$(tr '\n' ';' <<< "$out")" eval '! grep -Eq "^[CRE] " <<< "$out"'
sq "select 1"
check_eq "commq as root's 17th connection: exit status" 1 "$SQ_RC"
check_match "commq as root's 17th connection: says so" "too many connections" "$SQ_ERR"
rising "with the connections all taken" "$n0"
wait "${pids[@]}" || true
for i in $(seq 16); do
	check_eq "held connection $i of 16: answered after the refusals" "C 1 $i * 11:;R 1 $((i * 11));E rows=1;" \
		"$(grep -v '^SUMMARY' "$TMP/held-$i.out" | tr '\n' ';')"
done
check_match "a log line for the refused connections" \
	"commd serve: .*refused a connection from uid 0 .*16 connections open, the limit" "$(cat "$ERR")"
sleep 0.5
sq "select 5" -list -noheader
check_eq "once they closed: a query" "0 5" "$SQ_RC $SQ_OUT"
check_eq "the same query server process throughout" "$serve" "$(serve_pid "$DB")"
stop_commd "$COMMD_PID" TERM 60
check_eq "SIGTERM: exit status" 0 "$STOP_RC"
no_sanitizer_reports "commd 1"

# --- 8. the default deadline: 30 s; the server's memory as a whole ------------------------
start_ready 2 --query-max-mem-mb 2048
serve=$SERVE_PID
# N rows of 100 kB sorted (shuffled keys, told apart by their first bytes)
bigsort="with recursive c(x) as (select 1 union all select x + 1 from c limit %d)
select count(*), sum(length(y)) from (select printf('%%d', x * 7919 %% %d) || hex(zeroblob(50000)) as y from c order by y)"
for n in 2000 6000 2000; do
	# shellcheck disable=SC2059
	raw "" "$(printf "$bigsort" "$n" "$n")"
	if [[ $n == 2000 ]]; then
		check_match "200 MB sorted (2048 MiB a query, 512 MiB the server): answered" \
			"^R 1 2000[|]200006890$" "$OUT"
	else
		check_match "600 MB sorted (2048 MiB a query, 512 MiB the server): out of memory" \
			"^X code=7 offset=-1 msg=out of memory$" "$OUT"
	fi
done
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$serve/status")
# (grep reads all of ldd's output: with -q it could stop at the match
# and ldd, still writing, die of SIGPIPE, which pipefail takes for "no")
if ldd "$COMMD" | grep libasan > /dev/null; then
	# ASan's shadow and its quarantine of freed memory are RSS too
	log "the server's peak RSS: $hwm kB (an ASan build: not checked)"
else
	check_true "the server's peak RSS under 600 MiB" "< 614400 kB" "$hwm kB" test "$hwm" -lt 614400
fi
n0=$(switches)
t0=$(now_ms)
timeout -s KILL 90 "$RAWCLIENT" "$SOCK" "q:0:0:$RUNAWAY" read:80 > "$TMP/runaway2.out" 2>&1 &
rpid=$!
HELPER_PIDS+=("$rpid")
sleep 10
rising "10 s into a runaway with the default deadline" "$n0"
wait "$rpid" || true
ms=$(( $(now_ms) - t0 ))
check_match "runaway, no deadline given: PROTO_ERR_TIMEOUT" "^X code=1002 " "$(cat "$TMP/runaway2.out")"
check_true "runaway, no deadline given: cut off at the 30 s default" "25000..60000 ms" "$ms ms" \
	[ "$ms" -ge 25000 ] && [ "$ms" -le 60000 ]
log "runaway with the default deadline: cut off after $ms ms"
stop_commd "$COMMD_PID" TERM 60
check_eq "SIGTERM: exit status" 0 "$STOP_RC"
no_sanitizer_reports "commd 2"
finish
