#!/usr/bin/env bash
# server-answers.sh - the query server answers while capture runs
# (issue 5, DESIGN.md sections 2 and 4):
#
#  1. after a small load, `commq --socket S "select comm, count(*) from
#     sched_switch group by comm"` returns rows, and names the load's tasks;
#  2. over a fixed historical range (ts < T, T committed long ago) the
#     socket answers exactly what `commq --db DB` and the sqlite3 shell
#     answer: counts, a group-by, the capture row;
#  3. every output mode (-column -list -csv -json -line, -header,
#     -noheader, -separator, -nullvalue) prints over the socket exactly
#     what it prints with --db, for values of every type;
#  4. several statements in one batch give every result set; --limit N
#     gives the first N rows; a 'Q' frame's row_limit counts rows;
#  5. the same connection answers query after query (rawclient).
#
# Needs root and tracefs (FAILS without them).
. "$(dirname "$0")/lib.sh"

need_live
start_ready 1

# --- 1. answers during capture ------------------------------------------------
cp /bin/true "$TMP/srvtest-load"
for _ in $(seq 50); do
	"$TMP/srvtest-load"
done
sleep 2.5	# two commits
sq "select comm, count(*) from sched_switch group by comm"
check_eq "socket: group by comm: exit status" 0 "$SQ_RC"
check_eq "socket: group by comm: stderr" "" "$SQ_ERR"
nrows=$(($(wc -l < "$TMP/sq.out") - 2))
check_true "socket: group by comm: rows (after a header and a rule)" "> 3 rows" \
	"$nrows rows: $(head -c 500 "$TMP/sq.out")" [ "$nrows" -gt 3 ]
sq "select count(*) from sched_switch where comm = 'srvtest-load' or prev_comm = 'srvtest-load' or next_comm = 'srvtest-load'" -noheader -list
check_true "socket: the load's task srvtest-load is in sched_switch" "> 0 rows" \
	"'$SQ_OUT' (exit $SQ_RC, $SQ_ERR)" [ "${SQ_OUT:-0}" -gt 0 ]

# --- 2. same answers as --db over a fixed range ---------------------------------
T=$(stable_ts)
log "fixed range: ts < $T"
ref=$(q "select count(*) from ev_sched_switch where ts < $T")
check_true "reference count over ts < T" "> 0" "$ref" [ "$ref" -gt 0 ]
for sql in \
	"select count(*) from sched_switch where ts < $T" \
	"select comm, count(*), sum(prev_prio), min(ts), max(ts) from sched_switch where ts < $T group by comm order by comm" \
	"select cpu, count(*) from sched_switch where ts < $T group by cpu order by cpu" \
	"select count(*) from capture" \
	"select source, kernel, host, start_ts from capture order by 1"; do
	for round in 1 2; do
		sq "$sql" -csv -noheader
		dq "$sql" -csv -noheader
		check_eq "socket vs --db (round $round): exit status: $sql" "0 0" "$SQ_RC $DQ_RC"
		check_eq "socket vs --db (round $round): $sql" "$DQ_OUT" "$SQ_OUT"
	done
	ref=$(sqlite3 -readonly -batch -noheader -csv "$DB" "$sql")
	check_eq "socket vs the sqlite3 shell: $sql" "$ref" "$SQ_OUT"
done
sq "select count(*) from sched_switch where ts < $T" -noheader -list
check_eq "socket: count over ts < T equals ev_sched_switch's" \
	"$(q "select count(*) from ev_sched_switch where ts < $T")" "$SQ_OUT"

# --- 3. every output mode over the socket ---------------------------------------
vals="select 1 as i, -9223372036854775808 as big, 2.5 as r, 1e300 as e, null as n, 'a,b \"c''d' as t, x'00ff41' as b, 'multi
line' as m, '' as empty"
rng="select comm, count(*) as n, min(ts) as first from sched_switch where ts < $T group by comm order by comm limit 15"
for mode in "" -column -table -list -csv -json -line "-list -header" "-csv -header" \
	"-column -noheader" "-list -separator ;" "-csv -separator ;" "-list -nullvalue NULL" \
	"-json -nullvalue NULL" "-line -nullvalue (nil)"; do
	for sql in "$vals" "$rng"; do
		# shellcheck disable=SC2086 # $mode: several words
		sq "$sql" $mode
		# shellcheck disable=SC2086
		dq "$sql" $mode
		what="output mode '${mode:-default}' (${sql:0:30}...)"
		check_eq "$what: exit status socket, --db" "0 0" "$SQ_RC $DQ_RC"
		check_eq "$what: socket prints what --db prints" "$DQ_OUT" "$SQ_OUT"
		check_eq "$what: stderr over the socket" "" "$SQ_ERR"
	done
done
sq "$vals" -json
if command -v python3 > /dev/null && python3 -c 'import json' 2> /dev/null; then
	got=$(python3 -c 'import json, sys; d = json.load(sys.stdin); print(d[0]["i"], d[0]["n"], d[0]["t"])' <<< "$SQ_OUT" 2>&1) || true
	check_eq "-json over the socket parses as JSON" "1 None a,b \"c'd" "$got"
fi
sq "select 1 as x" -csv -header
check_eq "-csv -header over the socket" "x
1" "$SQ_OUT"

# --- 4. several statements, --limit ---------------------------------------------
sq "select 1 as a; select 'two' as b, 3 as c; select count(*) from capture" -list -noheader
check_eq "three statements in one batch: exit status" 0 "$SQ_RC"
check_eq "three statements in one batch: every result" "1
two|3
$(q "select count(*) from capture")" "$SQ_OUT"
sq "select 1; select 2;" -csv
dq "select 1; select 2;" -csv
check_eq "two statements, -csv: socket vs --db" "$DQ_OUT" "$SQ_OUT"
sql="select ts, cpu from sched_switch where ts < $T order by ts, cpu"
sq "$sql" --limit 5 -csv -noheader
check_eq "--limit 5: exit status" 0 "$SQ_RC"
check_eq "--limit 5: rows" 5 "$(grep -c . <<< "$SQ_OUT")"
check_eq "--limit 5: the first five rows" "$(q "$sql limit 5" | tr '|' ',')" "$SQ_OUT"
sq "select * from sched_switch" --limit 1 -list -noheader
check_eq "--limit 1 on the whole table: rows" 1 "$(grep -c . <<< "$SQ_OUT")"
sq "select x from (select 1 as x union all select 2 union all select 3) order by x" --limit 0 -list
check_eq "--limit 0: no limit" "1
2
3" "$SQ_OUT"
out=$("$RAWCLIENT" "$SOCK" "q:3:0:select ts from ev_sched_switch where ts < $T" read:10 2>&1) || true
check_match "'Q' frame with row_limit 3: the end frame counts 3 rows" "^E rows=3$" "$out"
check_match "'Q' frame with row_limit 3: 3 rows in the frames" "SUMMARY frames=[0-9]+ rows=3 " "$out"

# --- 5. one connection, query after query ----------------------------------------
out=$("$RAWCLIENT" "$SOCK" "q:0:0:select 11" read:10 "q:0:0:select 22" read:10 \
	"q:0:0:select count(*) from ev_sched_switch where ts < $T" read:10 2>&1) || true
check_eq "three queries on one connection" "C 1 11:
R 1 11
E rows=1
C 1 22:
R 1 22
E rows=1
C 1 count(*):
R 1 $(q "select count(*) from ev_sched_switch where ts < $T")
E rows=1" "$(grep -v '^SUMMARY' <<< "$out")"
n=$(q "select count(*) from ev_sched_switch")
out=$("$RAWCLIENT" "$SOCK" "q:0:0:select * from ev_sched_switch where ts < $T" read:30 2>&1 | tail -n 1) || true
check_match "a big result streamed in several rows frames, read to the end" \
	"SUMMARY frames=([3-9]|[1-9][0-9]+) rows=$(q "select count(*) from ev_sched_switch where ts < $T") " "$out"

# Capture went on all the while.
sleep 1.2
check_true "capture keeps committing (sched_switch rows grow)" "> $n" "$(switches)" [ "$(switches)" -gt "$n" ]
stop_commd "$COMMD_PID" TERM 60
check_eq "SIGTERM: exit status" 0 "$STOP_RC"
finish
