#!/usr/bin/env bash
# server-refusals.sh - the query server answers reads only
# (docs/architecture.md section 5: anything but a read is refused before
# it runs, a runaway query is cut off at its deadline):
#
#  1. insert/update/delete/replace/drop/create/alter/create temp/
#     create index/create view/create trigger/reindex/analyze/begin
#     (plain, deferred, immediate, exclusive)/commit/end/rollback/
#     savepoint/release/rollback to/ATTACH '/etc/passwd'/PRAGMA writes (journal_mode=delete,
#     writable_schema=1, user_version=99, query_only=0)/load_extension('x')/
#     readfile('/etc/shadow') (no such function)/writefile/VACUUM/
#     VACUUM INTO a file: each a clear error on stderr, exit status 1,
#     nothing printed, no file created;
#  2. a write after a good statement in one batch: refused, exit 1;
#  3. malformed SQL: the syntax error, exit 1;
#  4. a runaway query with --timeout 1 is cut off within ~2 s with an
#     error that says it timed out; with no --timeout the server's default
#     deadline (here --query-timeout-ms 5000: the built-in 30 s is
#     server-safety.sh's) cuts it off too;
#  5. afterwards: the fixed range (ts <= TS) and the schema are unchanged,
#     journal_mode is still wal, the database passes integrity_check, the
#     query server is the same process, capture went on.
#
# Needs root and tracefs (FAILS without them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/safety-lib.sh"

need_live
start_ready 1 --query-timeout-ms 5000
serve=$SERVE_PID
fixed_range
count_range() { q "select (select count(*) from ev_sched_switch where ts <= $TS) || '/' || (select count(*) from capture) || '/' || (select count(*) from comm_history where start_ts < $TS)"; }
before=$(count_range)
schema=$(q "select group_concat(type || ':' || name || ':' || coalesce(sql, ''), char(10)) from (select * from sqlite_master order by name)" | md5sum)
uv=$(q "pragma user_version")
log "fixed range ts <= $TS: $before (sched_switch/capture/comm_history rows)"

# --- 1. statements that would write, reach outside, or load code ----------------
n_attack=$(switches)
refuse() {	# WHAT-REGEX SQL
	local re=$1 sql=$2
	sq "$sql"
	check_eq "refused: $sql: exit status" 1 "$SQ_RC"
	check_eq "refused: $sql: nothing on stdout" "" "$SQ_OUT"
	check_match "refused: $sql: a clear error on stderr" "$re" "$SQ_ERR"
}
DENIED='not allowed|not authorized|read.?only|denied'
refuse "$DENIED" "insert into capture(source) values ('x')"
refuse "$DENIED" "insert into ev_sched_switch select * from ev_sched_switch limit 1"
refuse "$DENIED" "update capture set source = 'x'"
refuse "$DENIED" "delete from ev_sched_switch"
refuse "$DENIED" "replace into capture(id, source) values (1, 'x')"
refuse "$DENIED" "drop table capture"
refuse "$DENIED" "drop view sched_switch"
refuse "$DENIED" "create table srvtest(x)"
refuse "$DENIED" "create temp table srvtest(x)"
refuse "$DENIED" "create index srvtest on ev_sched_switch(cpu)"
refuse "$DENIED" "create view srvtest as select 1"
refuse "$DENIED" "create trigger srvtest after insert on capture begin select 1; end"
refuse "$DENIED" "alter table capture add column srvtest"
refuse "$DENIED" "reindex"
refuse "$DENIED" "analyze"
refuse "$DENIED" "begin"
refuse "$DENIED" "begin deferred"
refuse "$DENIED" "begin immediate"
refuse "$DENIED" "begin exclusive"
refuse "$DENIED" "commit"
refuse "$DENIED" "end"
refuse "$DENIED" "rollback"
refuse "$DENIED" "savepoint s"
refuse "$DENIED" "release s"
refuse "$DENIED" "rollback to s"
refuse "$DENIED|too many attached" "ATTACH '/etc/passwd' AS p"
refuse "$DENIED|too many attached" "ATTACH '$TMP/attached.db' AS p"
refuse "$DENIED" "PRAGMA journal_mode=delete"
refuse "$DENIED" "PRAGMA writable_schema=1"
refuse "$DENIED" "PRAGMA writable_schema=ON"
refuse "$DENIED" "PRAGMA user_version=99"
refuse "$DENIED" "PRAGMA query_only=0"
refuse "$DENIED" "PRAGMA wal_checkpoint(TRUNCATE)"
refuse "$DENIED|not authorized to use function" "select load_extension('x')"
refuse "$DENIED|not authorized to use function" "select load_extension('/usr/lib/x86_64-linux-gnu/libsqlite3.so.0', 'sqlite3_extension_init')"
refuse "no such function: readfile" "select readfile('/etc/shadow')"
refuse "no such function: writefile" "select writefile('$TMP/written', 'x')"
refuse "$DENIED" "VACUUM"
refuse "$DENIED" "VACUUM INTO '$TMP/vacuumed.db'"
refuse "$DENIED" "VACUUM INTO '/tmp/commd-srvtest-$$-vacuumed.db'"
for f in "$TMP/attached.db" "$TMP/written" "$TMP/vacuumed.db" "/tmp/commd-srvtest-$$-vacuumed.db"; do
	check_eq "no file $f was created" absent "$([ -e "$f" ] && echo present || echo absent)"
	rm -f "$f"
done

# --- 2. a refused statement after a good one ------------------------------------
sq "select 1; delete from ev_sched_switch where ts <= $TS"
check_eq "'select 1; delete ...': exit status" 1 "$SQ_RC"
check_match "'select 1; delete ...': refused with a clear error" "$DENIED" "$SQ_ERR"
sq "select 1; PRAGMA journal_mode=delete; select 2"
check_eq "'select 1; PRAGMA journal_mode=delete; select 2': exit status" 1 "$SQ_RC"
check_match "'select 1; PRAGMA journal_mode=delete; select 2': refused" "$DENIED" "$SQ_ERR"

# Reads that must stay allowed: PRAGMA table_info, sqlite_master.
sq "PRAGMA table_info(capture)" -list -noheader
check_eq "PRAGMA table_info(capture) is allowed: exit status" 0 "$SQ_RC"
check_match "PRAGMA table_info(capture): lists the source column" "\|source\|" "$SQ_OUT"
sq "select count(*) from sqlite_master" -list -noheader
check_eq "select from sqlite_master is allowed" "0 $(q "select count(*) from sqlite_master")" "$SQ_RC $SQ_OUT"

# --- 3. malformed SQL ------------------------------------------------------------
sq "selec 1 from capture"
check_eq "malformed SQL: exit status" 1 "$SQ_RC"
check_match "malformed SQL: the syntax error" "syntax error" "$SQ_ERR"
sq "select nosuchcolumn from capture"
check_eq "unknown column: exit status" 1 "$SQ_RC"
check_match "unknown column: the error" "no such column: nosuchcolumn" "$SQ_ERR"

# --- 4. runaway queries are cut off ------------------------------------------------
sq "$RUNAWAY" --timeout 1
check_eq "runaway, --timeout 1: exit status" 1 "$SQ_RC"
check_match "runaway, --timeout 1: the error says it timed out" "time[ds]? ?out|deadline" "$SQ_ERR"
check_true "runaway, --timeout 1: cut off within ~2 s" "<= 2500 ms" "$SQ_MS ms" [ "$SQ_MS" -le 2500 ]
check_true "runaway, --timeout 1: not before 1 s" ">= 900 ms" "$SQ_MS ms" [ "$SQ_MS" -ge 900 ]
sq "$RUNAWAY" --timeout 0.3
check_match "runaway, --timeout 0.3: timed out" "time[ds]? ?out|deadline" "$SQ_ERR"
check_true "runaway, --timeout 0.3: cut off within ~1.3 s" "<= 1800 ms" "$SQ_MS ms" [ "$SQ_MS" -le 1800 ]
sq "select count(*) from ev_sched_switch a, ev_sched_switch b, ev_sched_switch c" --timeout 1
check_eq "cross join runaway, --timeout 1: exit status" 1 "$SQ_RC"
check_match "cross join runaway, --timeout 1: timed out" "time[ds]? ?out|deadline" "$SQ_ERR"
check_true "cross join runaway, --timeout 1: cut off within ~2 s" "<= 2500 ms" "$SQ_MS ms" [ "$SQ_MS" -le 2500 ]
sq "$RUNAWAY"
check_eq "runaway, no --timeout (the server's default deadline): exit status" 1 "$SQ_RC"
check_match "runaway, no --timeout: timed out (not killed by the test's 60 s guard)" "time[ds]? ?out|deadline" "$SQ_ERR"
check_true "runaway, no --timeout: cut off at the configured 5 s" "4500..12000 ms" "$SQ_MS ms" \
	[ "$SQ_MS" -ge 4500 ] && [ "$SQ_MS" -le 12000 ]
log "runaway with the server's default deadline was cut off after $SQ_MS ms"
out=$("$RAWCLIENT" "$SOCK" "q:0:500:$RUNAWAY" read:10 2>&1) || true
check_match "'Q' frame with timeout_ms 500: an 'X' frame with PROTO_ERR_TIMEOUT (1002)" "^X code=1002 " "$out"

rising "during the refusals and runaways (parts 1 to 4)" "$n_attack"

# --- 5. nothing changed, nothing stopped ------------------------------------------
check_eq "after the refusals: rows of the fixed range (sched_switch/capture/comm_history)" "$before" "$(count_range)"
check_eq "after the refusals: schema (md5 of sqlite_master)" "$schema" \
	"$(q "select group_concat(type || ':' || name || ':' || coalesce(sql, ''), char(10)) from (select * from sqlite_master order by name)" | md5sum)"
check_eq "after the refusals: PRAGMA journal_mode" wal "$(q "pragma journal_mode")"
check_eq "after the refusals: PRAGMA user_version" "$uv" "$(q "pragma user_version")"
check_eq "after the refusals: the same query server process" "$serve" "$(serve_pid "$DB")"
n=$(switches)
sleep 1.5
check_true "capture went on (sched_switch rows grow)" "> $n" "$(switches)" [ "$(switches)" -gt "$n" ]
sq "select count(*) from ev_sched_switch where ts <= $TS" -list -noheader
check_eq "a query after the refusals" "0 ${before%%/*}" "$SQ_RC $SQ_OUT"
stop_commd "$COMMD_PID" TERM 60
check_eq "SIGTERM: exit status" 0 "$STOP_RC"
check_eq "integrity_check after the stop" ok "$(q "pragma integrity_check")"
no_sanitizer_reports "the query server (commd's stderr)"
finish
