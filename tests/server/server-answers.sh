#!/usr/bin/env bash
# server-answers.sh - the query server answers while capture runs
# (issue 5, docs/architecture.md section 1, commd-tables(5)):
#
#  1. after a small load, `commq --socket S "select comm, count(*) from
#     sched_switch group by comm"` returns rows, and names the load's tasks;
#  2. over a fixed historical range (the first rows, ts <= TS, and
#     ts < TS, both committed long ago) the socket answers exactly what
#     `commq --db DB` and the sqlite3 shell answer, twice: counts,
#     group-bys, the capture row;
#  3. every output mode (-column -list -csv -json -line, -header,
#     -noheader, -separator, -nullvalue) prints over the socket exactly
#     what it prints with --db, for values of every type;
#  4. several statements in one batch give every result set; --limit N
#     gives the first N rows and says on stderr when it left rows out
#     (not when there were no more); a 'Q' frame's row_limit counts rows
#     and its end frame says whether rows were left;
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
# committed (every 1000 ms; a busy machine's writer may lag behind): the
# load's rows in the file, then one commit more
load_stored() {
	[ "$(q "SELECT count(*) FROM (SELECT 1 FROM sched_switch WHERE comm = 'srvtest-load' OR
		prev_comm = 'srvtest-load' OR next_comm = 'srvtest-load' LIMIT 1)")" -gt 0 ]
}
wait_until 30 load_stored || true	# (the checks below say)
sleep 1.2
# (--timeout 25: the whole table, on a machine that may be very busy;
# -q: a busy machine may also lose events, which commq would warn about.)
sq "select comm, count(*) from sched_switch group by comm" --timeout 25 -q
check_eq "socket: group by comm: exit status" 0 "$SQ_RC"
check_eq "socket: group by comm: stderr" "" "$SQ_ERR"
nrows=$(($(wc -l < "$TMP/sq.out") - 2))
check_true "socket: group by comm: rows (after a header and a rule)" "> 3 rows" \
	"$nrows rows: $(head -c 500 "$TMP/sq.out")" [ "$nrows" -gt 3 ]
sq "select count(*) from sched_switch where comm = 'srvtest-load' or prev_comm = 'srvtest-load' or next_comm = 'srvtest-load'" -noheader -list --timeout 25
check_true "socket: the load's task srvtest-load is in sched_switch" "> 0 rows" \
	"'$SQ_OUT' (exit $SQ_RC, $SQ_ERR)" [ "${SQ_OUT:-0}" -gt 0 ]

# --- 2. same answers as --db over a fixed range ---------------------------------
fixed_range
log "fixed range: sched_switch ts <= $TS ($R rows)"
# The first rows of sched_switch, named as the view names them (a join on
# the base tables: cheap however big the table has grown).
named="from ev_sched_switch e join comm_history h on h.id = e.hid where e.ts <= $TS"
for sql in \
	"select count(*) from ev_sched_switch where ts <= $TS" \
	"select coalesce(h.comm, '<...>') as comm, count(*), sum(e.prev_prio), min(e.ts), max(e.ts) $named group by 1 order by 1" \
	"select cpu, count(*) from ev_sched_switch where ts <= $TS group by cpu order by cpu" \
	"select comm, count(*) from sched_switch where ts < $TS group by comm order by comm" \
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
sq "select count(*) from sched_switch where ts < $TS" -noheader -list
check_eq "socket: the view's count over ts < TS equals ev_sched_switch's" \
	"$(q "select count(*) from ev_sched_switch where ts < $TS")" "$SQ_OUT"
check_eq "every row of the fixed range has a name (joins comm_history)" "$R" "$(q "select count(*) $named")"

# --- 3. every output mode over the socket ---------------------------------------
vals="select 1 as i, -9223372036854775808 as big, 2.5 as r, 1e300 as e, null as n, 'a,b \"c''d' as t, x'00ff41' as b, 'multi
line' as m, '' as empty"
rng="select coalesce(h.comm, '<...>') as comm, count(*) as n, min(e.ts) as first $named group by 1 order by 1 limit 15"
for mode in "" -column -table -list -csv -json -line "-list -header" "-csv -header" \
	"-column -noheader" "-list -separator ;" "-csv -separator ;" "-list -nullvalue NULL" \
	"-json -nullvalue NULL" "-line -nullvalue (nil)"; do
	for sql in "$vals" "$rng"; do
		# shellcheck disable=SC2086 # $mode: several words
		sq "$sql" $mode -q
		# shellcheck disable=SC2086
		dq "$sql" $mode -q
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
sql="select ts, cpu from ev_sched_switch where ts <= $TS order by ts, cpu, n"
sq "$sql" --limit 5 -csv -noheader
check_eq "--limit 5: exit status" 0 "$SQ_RC"
check_eq "--limit 5: rows" 5 "$(grep -c . <<< "$SQ_OUT")"
check_eq "--limit 5: the first five rows" "$(q "$sql limit 5" | tr '|' ',')" "$SQ_OUT"
check_match "--limit 5: stderr says rows were left out" "cut at --limit 5 rows" "$SQ_ERR"
sq "select 1 union all select 2" --limit 2 -csv -noheader
check_eq "--limit 2 on two rows: nothing said (nothing left out)" "" "$SQ_ERR"
sq "select 1 union all select 2; select 3" --limit 2 -csv -noheader
check_match "--limit 2 with a statement left unrun: cut" "cut at --limit 2 rows" "$SQ_ERR"
sq "top" --limit 1 -csv
check_match "a report cut by --limit says so" "the report was cut at --limit 1 rows" "$SQ_ERR"
sq "select * from sched_switch" --limit 1 -list -noheader
check_eq "--limit 1 on the whole table: rows" 1 "$(grep -c . <<< "$SQ_OUT")"
sq "select x from (select 1 as x union all select 2 union all select 3) order by x" --limit 0 -list
check_eq "--limit 0: no limit" "1
2
3" "$SQ_OUT"
out=$("$RAWCLIENT" "$SOCK" "q:3:0:select ts from ev_sched_switch where ts <= $TS" read:10 2>&1) || true
check_match "'Q' frame with row_limit 3: the end frame counts 3 rows, cut" "^E rows=3 cut$" "$out"
check_match "'Q' frame with row_limit 3: 3 rows in the frames" "SUMMARY frames=[0-9]+ rows=3 " "$out"

# --- 5. one connection, query after query ----------------------------------------
out=$("$RAWCLIENT" "$SOCK" "q:0:0:select 11" read:10 "q:0:0:select 22" read:10 \
	"q:0:0:select count(*) from ev_sched_switch where ts <= $TS" read:10 2>&1) || true
check_eq "three queries on one connection" "C 1 11:
R 1 11
E rows=1
C 1 22:
R 1 22
E rows=1
C 1 count(*):
R 1 $R
E rows=1" "$(grep -v '^SUMMARY' <<< "$out")"
n=$(q "select count(*) from ev_sched_switch")
huge="select a.*, b.ts from ev_sched_switch a, (select ts from ev_sched_switch order by ts limit 20) b where a.ts <= $TS limit 100000"
big=$(q "select count(*) from ($huge)")
out=$("$RAWCLIENT" "$SOCK" "q:0:120000:$huge" read:30 2>&1 | tail -n 2) || true
check_eq "a big result ($big rows): the end frame counts them all" "E rows=$big" "$(head -n 1 <<< "$out")"
check_match "a big result ($big rows): streamed in several rows frames, read to the end" \
	"^SUMMARY frames=([3-9]|[1-9][0-9]+) rows=$big " "$(tail -n 1 <<< "$out")"

# Capture went on all the while.
sleep 1.2
check_true "capture keeps committing (sched_switch rows grow)" "> $n" "$(switches)" [ "$(switches)" -gt "$n" ]
stop_commd "$COMMD_PID" TERM 60
check_eq "SIGTERM: exit status" 0 "$STOP_RC"
log "SIGTERM: commd exited after $STOP_MS ms"
finish
