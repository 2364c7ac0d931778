# shellcheck shell=bash
# lib.sh — sourced by the client tests: a scratch directory, a small
# database built with the sqlite3 shell, and checks that print what they
# expected and what they got.  Each test runs every check, then fails if
# any did.

: "${COMMQ:?COMMQ must name the commq binary}"
if ! command -v sqlite3 >/dev/null; then
	echo "SKIP: the sqlite3 shell is needed as the reference" >&2
	exit 77
fi

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
DB=$T/t.db
failures=0

fail() {
	printf 'FAIL %s\n' "$1" >&2
	failures=$((failures + 1))
}

# The reference: sqlite3 with no ~/.sqliterc to change its habits.
ref() {
	sqlite3 -init /dev/null -batch "$@"
}

# expect_same NAME EXPECTED_FILE GOT_FILE — byte for byte; the diff is
# shown through cat -A so trailing blanks and \r are visible.
expect_same() {
	if ! cmp -s "$2" "$3"; then
		fail "$1: expected (<) vs got (>):"
		diff <(cat -A "$2") <(cat -A "$3") | head -n 40 >&2 || true
	fi
}

# expect_eq NAME EXPECTED GOT
expect_eq() {
	if [[ "$2" != "$3" ]]; then
		fail "$1: expected [$2], got [$3]"
	fi
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
# same bytes for SQL with the same flags.
same_as_sqlite3() {
	local name=$1 sql=$2
	shift 2
	ref "$@" "$DB" "$sql" >"$T/expected"
	commq_ok "$name" --db "$DB" "$@" "$sql"
	expect_same "$name" "$T/expected" "$T/got"
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

finish() {
	if ((failures)); then
		echo "$failures check(s) failed" >&2
		exit 1
	fi
	echo "all checks passed"
}
