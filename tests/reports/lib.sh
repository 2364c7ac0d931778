# shellcheck shell=bash
# lib.sh — sourced by the report tests (commq top, latency, history, lost,
# timeline): a scratch directory, fixtures imported with the real commd,
# and checks that say what they expected and what they got.  The expected
# figures come from the sqlite3 shell or awk, computed another way than
# the report's own SQL.  Each script runs every check, then fails if any
# did.  A missing tool is a failure that names the package to install.
#
# Environment (COMMD_TEST_ENV): COMMD, COMMQ, TESTDATA, SRCDIR; and
# FAKE_SERVER (tests/client/fake-server.c) for socket mode.

: "${COMMD:?COMMD must name the commd binary}"
: "${COMMQ:?COMMQ must name the commq binary}"
: "${TESTDATA:?TESTDATA must name tests/data}"

# TEST_NAME, the checks (fail, expect_eq, expect_same), FAILURES, the
# scratch directory $TMP and the EXIT trap that removes it.
# shellcheck source=../lib/check.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
# T, ref, start_fake_server, stop_fake_server, finish
# shellcheck source=../lib/commq.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/commq.sh"

# need TOOL PACKAGE — a tool the test cannot do without.
need() {
	if ! command -v "$1" >/dev/null; then
		echo "FAIL $TEST_NAME needs '$1': install the Debian package $2" >&2
		exit 1
	fi
}
need sqlite3 sqlite3
need awk mawk

# commq_ok NAME ARGS... — commq's stdout to $T/got; a failure is recorded
# with its stderr.
commq_ok() {
	local name=$1 rc=0
	shift
	timeout 120 "$COMMQ" "$@" >"$T/got" 2>"$T/err" </dev/null || rc=$?
	if ((rc)); then
		fail "$name: expected exit 0, got $rc: $(cat "$T/err")"
	fi
}

# expect_failure NAME STATUS MESSAGE ARGS... — commq exits STATUS and its
# stderr says MESSAGE.
expect_failure() {
	local name=$1 status=$2 message=$3 rc=0
	shift 3
	timeout 60 "$COMMQ" "$@" >"$T/out" 2>"$T/err" </dev/null || rc=$?
	expect_eq "$name: exit status" "$status" "$rc"
	grep -qF -- "$message" "$T/err" ||
		fail "$name: expected stderr to say [$message], got [$(cat "$T/err")]"
}

# import NAME — tests/data/NAME.dat imported into $T/NAME.db.
import() {
	if ! "$COMMD" import "$TESTDATA/$1.dat" -o "$T/$1.db" \
		>"$T/import.log" 2>&1; then
		echo "FAIL importing $1.dat: $(cat "$T/import.log")" >&2
		exit 1
	fi
}

# near NAME EXPECTED GOT TOLERANCE — numbers equal within TOLERANCE.
near() {
	if ! awk -v a="$2" -v b="$3" -v t="$4" \
		'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t) }'; then
		fail "$1: expected $2 (within $4), got $3"
	fi
}

