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
# T, ref, start_fake_server, stop_fake_server, finish
# shellcheck source=../lib/commq.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/commq.sh"
DB=$T/t.db

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

