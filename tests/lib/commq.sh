# shellcheck shell=bash
# commq.sh - helpers of the tests that run commq against databases and the
# fake server (tests/client, tests/reports): source it after check.sh.
#
# Sets T (the scratch directory), SOCK and FAKE_PID; the fake server is
# stopped by the EXIT trap.
T=$TMP
SOCK=
FAKE_PID=

stop_fake_server() {
	if [[ -n $FAKE_PID ]]; then
		kill "$FAKE_PID" 2>/dev/null || true
		wait "$FAKE_PID" 2>/dev/null || true
	fi
}
CLEANUP_HOOKS+=(stop_fake_server)

# ref DB SQL... — the reference: the sqlite3 shell with no ~/.sqliterc to
# change its habits.
ref() {
	sqlite3 -init /dev/null -batch "$@"
}

# start_fake_server [DB] — serves DB (default $DB) on the socket $SOCK with
# fake-server (tests/client/fake-server.c), which runs any SQL on it as
# commd's server would and logs a line per connection and per query in
# $T/server.log.
start_fake_server() {
	: "${FAKE_SERVER:?FAKE_SERVER must name the fake-server of tests/client}"
	SOCK=$T/sock
	"$FAKE_SERVER" "$SOCK" "${1:-$DB}" 2>>"$T/server.log" &
	FAKE_PID=$!
	local i
	for ((i = 0; i < 200; i++)); do
		[[ -S $SOCK ]] && return 0
		sleep 0.05
	done
	echo "FAIL fake-server did not start: $(cat "$T/server.log")" >&2
	exit 1
}

# finish: in place of check.sh's, which counts checks; these tests also
# fail() directly, so they report failures only.
finish() {
	if ((FAILURES)); then
		echo "$TEST_NAME: $FAILURES check(s) failed" >&2
		exit 1
	fi
	echo "$TEST_NAME: all checks passed"
}
