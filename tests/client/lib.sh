# shellcheck shell=bash
# lib.sh — sourced by the client tests: a scratch directory, a small
# database built with the sqlite3 shell, and checks that print what they
# expected and what they got.  Each test runs every check, then fails if
# any did.  start_fake_server serves the database over a socket too, and
# then same_as_sqlite3 checks commq's socket mode as well.

: "${COMMQ:?COMMQ must name the commq binary}"
if ! command -v sqlite3 >/dev/null; then
	echo "SKIP: the sqlite3 shell is needed as the reference" >&2
	exit 77
fi

# The checks (fail, expect_eq, expect_same), FAILURES, the scratch
# directory $TMP and the EXIT trap that removes it.
# shellcheck source=../lib/check.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
T=$TMP
DB=$T/t.db
SOCK=
FAKE_PID=

stop_fake_server() {
	if [[ -n $FAKE_PID ]]; then
		kill "$FAKE_PID" 2>/dev/null || true
		wait "$FAKE_PID" 2>/dev/null || true
	fi
}
CLEANUP_HOOKS+=(stop_fake_server)

# The reference: sqlite3 with no ~/.sqliterc to change its habits.
ref() {
	sqlite3 -init /dev/null -batch "$@"
}

# commq_ok NAME ARGS... — runs commq with stdout to $T/got (stdin is the
# caller's); a failure is reported with its stderr rather than silently
# stopping the script under set -e.
commq_ok() {
	local name=$1 rc=0
	shift
	"$COMMQ" "$@" >"$T/got" 2>"$T/err" || rc=$?
	if ((rc)); then
		fail "$name: expected exit 0, got $rc: $(cat "$T/err")"
	fi
}

# same_as_sqlite3 NAME SQL [FLAGS...] — commq --db and sqlite3 print the
# same bytes for SQL with the same flags; so does commq over the socket
# once start_fake_server has run.
same_as_sqlite3() {
	local name=$1 sql=$2
	shift 2
	ref "$@" "$DB" "$sql" >"$T/expected"
	commq_ok "$name" --db "$DB" "$@" "$sql"
	expect_same "$name" "$T/expected" "$T/got"
	if [[ -n $SOCK ]]; then
		commq_ok "$name (socket)" --socket "$SOCK" "$@" "$sql"
		expect_same "$name (socket)" "$T/expected" "$T/got"
	fi
}

# start_fake_server — serves $DB on the socket $SOCK with fake-server
# (tests/client/fake-server.c); it logs a line per connection and per
# query in $T/server.log.
start_fake_server() {
	: "${FAKE_SERVER:?FAKE_SERVER must name the fake-server binary}"
	SOCK=$T/sock
	"$FAKE_SERVER" "$SOCK" "$DB" 2>>"$T/server.log" &
	FAKE_PID=$!
	local i
	for ((i = 0; i < 200; i++)); do
		[[ -S $SOCK ]] && return 0
		sleep 0.05
	done
	echo "fake-server did not start: $(cat "$T/server.log")" >&2
	exit 1
}

# expect_failure NAME STATUS MESSAGE [ARGS...] — commq ARGS (stdin empty)
# exits STATUS, and the first line of its stderr carries MESSAGE.
expect_failure() {
	local name=$1 status=$2 message=$3 rc=0
	shift 3
	timeout 20 "$COMMQ" "$@" >"$T/out" 2>"$T/err" </dev/null || rc=$?
	expect_eq "$name: exit status" "$status" "$rc"
	local first
	first=$(head -n 1 "$T/err")
	[[ $first == *"$message"* ]] ||
		fail "$name: expected stderr to say [$message], got [$(cat "$T/err")]"
}

# The sample: integers, reals, text with separators, quotes, newlines,
# tabs and non-ASCII, empty text, NULLs and blobs.
make_db() {
	ref "$DB" <<'SQL'
create table t(id integer, r real, s text, note text);
insert into t values (1, 1.5, 'plain', 'x');
insert into t values (2, 0.1, 'a,b', NULL);
insert into t values (3, 1e20, 'say "hi"', 'it''s');
insert into t values (NULL, NULL, 'line1' || char(10) || 'line2', 'a b');
insert into t values (-5, 3.0, 'tab' || char(9) || 'here', '');
insert into t values (100000, 1.0 / 3, 'héllo wörld', 'a;b');
insert into t values (7, -0.25, 'ctl' || char(1) || char(13) || 'x', '\');
create table b(id integer, v blob);
insert into b values (1, x'414243'), (2, x''), (3, x'00'), (4, NULL);
SQL
}

# finish: in place of check.sh's, which counts checks; these tests also
# fail() directly, so they report failures only.
finish() {
	if ((FAILURES)); then
		echo "$FAILURES check(s) failed" >&2
		exit 1
	fi
	echo "all checks passed"
}
