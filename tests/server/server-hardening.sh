#!/usr/bin/env bash
# server-hardening.sh - what an attack run found (issue 21 points 1-3), each
# case as the command that showed it:
#
#  1. commd changes nothing it did not create: --db in a directory others
#     can write (/tmp-like, 1777) is refused in one line and the directory
#     keeps its mode; a directory the test made keeps its mode; without a
#     group commd the database, its WAL and shm are 0600 root:root;
#  2. root follows no one's links: a symlink at the database path is
#     refused and its target untouched; --socket at a regular file or a
#     symlink is refused and the file stays; `commd import` does not write
#     through a link planted at the temporary name it used to take
#     (OUT.tmp-<pid>: pid 1 in a new PID namespace);
#  3. the deadline is the deadline (query-timeout-ms 1000): 150 statements
#     of randomblob(16000000) in one request, two printf('%.*c', 1e9, 'x'),
#     and a runaway query sent with --timeout 6000 all end within 2.5 s
#     with "query timed out" or "string or blob too big"; fts3_tokenizer()
#     (it hands out the process's addresses) is refused.
#
# Needs root and tracefs (FAILS without them). Runs where there is no group
# commd (lib.sh: the test's own /etc/group).
. "$(dirname "$0")/lib.sh"

need_live

# run_refused WHAT ERRFILE ARGS...: commd with ARGS must exit non-zero
# within 20 s; sets RR_RC.
run_refused() {
	local what=$1 err=$2
	shift 2
	RR_RC=0
	timeout -s KILL 20 "$COMMD" --foreground --config /dev/null "$@" 2> "$err" < /dev/null || RR_RC=$?
	check_true "$what: commd refuses to start" "exit status != 0 (not killed)" "$RR_RC" \
		eval '[ "$RR_RC" != 0 ] && [ "$RR_RC" != 137 ]'
}

# --- 1. directories and modes -------------------------------------------------------
shared=$TMP/shared
mkdir "$shared"
chmod 1777 "$shared"
run_refused "--db in a directory others can write" "$TMP/shared.err" \
	--db "$shared/x.db" --instance "$(inst shared)" --socket none
check_match "--db in a directory others can write: one line says why" \
	"other users can write this directory" "$(cat "$TMP/shared.err")"
check_eq "--db in a directory others can write: its mode and owner unchanged" \
	"drwxrwxrwt root root" "$(stat -c '%A %U %G' "$shared")"
check_eq "--db in a directory others can write: no database made" "" "$(ls -A "$shared")"

start_ready 1
small_load
sleep 1.2
check_eq "a database directory the test made: unchanged" "drwxr-xr-x root root" \
	"$(stat -c '%A %U %G' "$(dirname "$DB")")"
for f in "$DB" "$DB-wal" "$DB-shm"; do
	check_eq "no group commd: $(basename "$f") is root's alone" "-rw------- root root" \
		"$(stat -c '%A %U %G' "$f" 2>&1)"
done
sq "select count(*) > 0 from sched_switch" -list -noheader
check_eq "the query server (nobody) still answers from the 0600 database" "0 1" "$SQ_RC $SQ_OUT"

# --- 3. deadlines (on the same commd: query-timeout-ms 1000 set below) ---------------
stop_commd "$COMMD_PID" TERM 60
printf 'query-timeout-ms = 1000\n' > "$TMP/timeout.conf"
chmod 0644 "$TMP/timeout.conf"
DB=$TMP/db-1/1.db SOCK=$TMP/run/1.sock ERR=$TMP/1b.err
"$COMMD" --foreground --config "$TMP/timeout.conf" --db "$DB" --instance "$(inst 1b)" \
	--socket "$SOCK" 2> "$ERR" < /dev/null &
COMMD_PID=$!
COMMD_PIDS+=("$COMMD_PID")
for _ in $(seq 600); do
	grep -q '^commd: capturing into ' "$ERR" 2> /dev/null && [ -S "$SOCK" ] && break
	sleep 0.05
done
[ -n "$(wait_serve "$DB" 5)" ] || abort "a query server for the deadline checks" "one" "none"
blobs=$(for _ in $(seq 150); do printf 'select length(randomblob(16000000));'; done)
deadline_case() {	# WHAT EXPECTED-ERROR ARGS...
	local what=$1 want=$2
	shift 2
	sq "$@"
	check_true "$what: ends within 2.5 s under a 1 s deadline" "< 2500 ms" "$SQ_MS ms" \
		[ "$SQ_MS" -lt 2500 ]
	check_match "$what: says why" "$want" "$SQ_ERR"
}
deadline_case "150 x randomblob(16000000) in one request" "query timed out" "$blobs" -list -noheader
deadline_case "two printf('%.*c', 1e9, 'x')" "string or blob too big|query timed out" \
	"select length(printf('%.*c', 1e9, 'x')); select length(printf('%.*c', 1e9, 'x'));" -list -noheader
deadline_case "a runaway query with --timeout 6000 (over the configured 1000)" "query timed out" \
	"$RUNAWAY" -list -noheader --timeout 6000
sq "select hex(fts3_tokenizer('simple'))" -list -noheader
check_true "fts3_tokenizer (it hands out addresses): refused" "exit != 0, not allowed" \
	"$SQ_RC $SQ_OUT $SQ_ERR" eval '[ "$SQ_RC" != 0 ] && [[ $SQ_ERR == *"not allowed"* ]]'
sq "select printf('%5.2f|%-4s|%c|%.3c', 3.14159, 'ab', 'xyz', 'y')" -list -noheader
check_eq "printf still formats" "0  3.14|ab  |x|yyy" "$SQ_RC $SQ_OUT"
stop_commd "$COMMD_PID" TERM 60

# --- 2. links -----------------------------------------------------------------------
mkdir -p "$TMP/db-3" "$TMP/run3"
chmod 0755 "$TMP/db-3" "$TMP/run3"
echo "precious" > "$TMP/target"
ln -s "$TMP/target" "$TMP/db-3/3.db"
run_refused "a symlink at the database path" "$TMP/link.err" \
	--db "$TMP/db-3/3.db" --instance "$(inst 3)" --socket none
check_match "a symlink at the database path: says so" "symbolic link" "$(cat "$TMP/link.err")"
check_eq "a symlink at the database path: its target untouched" "precious" "$(cat "$TMP/target")"
rm "$TMP/db-3/3.db"

echo "not a socket" > "$TMP/run3/file.sock"
run_refused "--socket at a regular file" "$TMP/sockfile.err" \
	--db "$TMP/db-3/3.db" --instance "$(inst 3)" --socket "$TMP/run3/file.sock"
check_match "--socket at a regular file: says so" "is not a socket" "$(cat "$TMP/sockfile.err")"
check_eq "--socket at a regular file: the file stays" "not a socket" "$(cat "$TMP/run3/file.sock")"
ln -s "$TMP/target" "$TMP/run3/link.sock"
run_refused "--socket at a symlink" "$TMP/socklink.err" \
	--db "$TMP/db-3/3.db" --instance "$(inst 3)" --socket "$TMP/run3/link.sock"
check_eq "--socket at a symlink: link and target stay" "precious" "$(cat "$TMP/run3/link.sock")"

# The import's temporary file: once OUT.tmp-<pid>; in a new PID namespace
# the import is pid 1, so a link planted there would be written through.
out=$TMP/imp/out.db
mkdir -p "$TMP/imp"
echo "precious" > "$TMP/imp-target"
ln -s "$TMP/imp-target" "$out.tmp-1"
rc=0
unshare --pid --fork --mount-proc "$COMMD" import --no-progress "$TESTDATA/sched-v7.dat" -o "$out" \
	> /dev/null 2> "$TMP/imp.err" || rc=$?
check_eq "commd import next to a planted link: exit status" 0 "$rc"
check_eq "commd import: the planted link's target untouched" "precious" "$(cat "$TMP/imp-target")"
check_eq "commd import: the database made" "ok" "$(sqlite3 "$out" "pragma integrity_check" 2>&1)"
check_eq "commd import: no temporary file left" "" \
	"$(find "$TMP/imp" -name 'out.db.tmp-*' ! -name 'out.db.tmp-1')"

finish
