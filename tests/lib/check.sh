# shellcheck shell=bash
# check.sh - what every test directory's lib.sh (and naming/live-names.sh)
# shares: the checks and their counters, a scratch directory and the EXIT
# trap that cleans up. Source it (don't run it), by a path relative to the
# sourcing file, so that it is found wherever the tests are run from:
#
#	. "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
#
# It sets
#   TEST_NAME        the script's name without .sh: the prefix of log(),
#                    finish() and the cleanup's messages
#   TMP              a new directory, ${TMPDIR:-/tmp}/commd-$TEST_NAME.XXXXXX
#   FAILURES CHECKS  failed checks / checks so far; LAST_OK is 1 when the
#                    last check_* passed, 0 when it failed
#   CLEANUP_HOOKS=() commands the EXIT trap evals, in order (a lib.sh adds
#                    its own cleanup first; a test appends its own after)
# and installs the EXIT trap: every hook (a failed one is reported, the
# others still run), then $TMP removed, then exit with the script's status
# (a hook sets CHECK_RC=1 to make a failed cleanup fail the test). The
# INT/TERM traps are the sourcing file's: trap them to an exit so that the
# EXIT trap runs.
#
# Set by the sourcing file after sourcing:
#   CHECK_FAILED_STATUS  what a failed check_eq/check_true/check_match
#                        returns: 1 (default) for `check_eq ... || ...`; 0
#                        for scripts under set -e that read LAST_OK instead
#   CHECK_KEEP           1: keep $TMP (and say so) instead of removing it
#
# Every check records a failure with fail() and returns, so one run
# reports every mismatch; abort() when nothing after would mean anything;
# finish() last.

# shellcheck disable=SC2034 # LAST_OK: for the callers
TEST_NAME=$(basename "$0" .sh)
FAILURES=0
CHECKS=0
LAST_OK=1
CHECK_FAILED_STATUS=1
CHECK_KEEP=0
CHECK_RC=0
CLEANUP_HOOKS=()
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commd-$TEST_NAME.XXXXXX")

_check_exit() {
	CHECK_RC=$?
	local h
	trap - EXIT
	for h in "${CLEANUP_HOOKS[@]}"; do
		eval "$h" || echo "$TEST_NAME: cleanup step failed: $h" >&2
	done
	if [ "$CHECK_KEEP" = 1 ]; then
		echo "$TEST_NAME: kept $TMP" >&2
	else
		rm -rf "$TMP"
	fi
	exit "$CHECK_RC"
}
trap _check_exit EXIT

log() { printf '%s: %s\n' "$TEST_NAME" "$*"; }

# remove_instances DIR...: rmdir each tracefs instance DIR that exists,
# waiting up to 10 s for a killed reader's fds to close; one that stays
# is reported and makes the test fail (CHECK_RC=1).
remove_instances() {
	local d i
	for d in "$@"; do
		[ -d "$d" ] || continue
		for i in $(seq 20); do
			rmdir "$d" 2> /dev/null && break
			sleep 0.5
		done
		if [ -d "$d" ]; then
			echo "$TEST_NAME: cleanup: cannot remove $d" >&2
			CHECK_RC=1
		fi
	done
	return 0
}

# kill_tree PID...: SIGKILL to each PID and every process below it. The
# tree is collected first: a workload such as perf bench messaging forks
# workers that, once their parent is gone, would wait on their pipes
# forever under init.
kill_tree() {
	local all=() todo=("$@") p c
	while [ ${#todo[@]} -gt 0 ]; do
		p=${todo[0]}
		todo=("${todo[@]:1}")
		[ -n "$p" ] || continue
		all+=("$p")
		for c in $(pgrep -P "$p" 2> /dev/null); do todo+=("$c"); done
	done
	[ ${#all[@]} -gt 0 ] && kill -KILL "${all[@]}" 2> /dev/null
	return 0
}

# fail WHAT [EXPECTED GOT]: records a failure; prints WHAT, and EXPECTED
# and GOT under it when given.
fail() {
	FAILURES=$((FAILURES + 1))
	if [ "$#" -ge 3 ]; then
		printf 'FAIL %s\n    expected: %s\n    got:      %s\n' "$1" "$2" "$3" >&2
	else
		printf 'FAIL %s\n' "$1" >&2
	fi
}

# wait_until SECONDS COMMAND...: runs COMMAND every 0.1 s until it
# succeeds (0) or SECONDS pass (1): for what a busy machine may take
# longer to get to (a commit behind its clock) than a fixed sleep allows.
wait_until() {
	local n=$(($1 * 10))
	shift
	while ! "$@" 2> /dev/null; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# check_eq WHAT EXPECTED GOT
check_eq() {
	CHECKS=$((CHECKS + 1))
	LAST_OK=1
	if [ "$2" != "$3" ]; then
		LAST_OK=0
		fail "$1" "$2" "$3"
		return "$CHECK_FAILED_STATUS"
	fi
	return 0
}

# check_true WHAT EXPECTED GOT COMMAND...: COMMAND must succeed.
check_true() {
	local what=$1 exp=$2 got=$3
	shift 3
	CHECKS=$((CHECKS + 1))
	LAST_OK=1
	if ! "$@"; then
		LAST_OK=0
		fail "$what" "$exp" "$got"
		return "$CHECK_FAILED_STATUS"
	fi
	return 0
}

# check_match WHAT REGEX GOT: GOT matches the extended REGEX.
check_match() {
	check_true "$1" "matching /$2/" "$3" grep -Eq -- "$2" <<< "$3"
}

# expect_eq NAME EXPECTED GOT: one line, "NAME: expected [..], got [..]".
# Always returns 0.
expect_eq() {
	CHECKS=$((CHECKS + 1))
	if [[ "$2" != "$3" ]]; then
		fail "$1: expected [$2], got [$3]"
	fi
	return 0
}

# expect_same NAME EXPECTED_FILE GOT_FILE: byte for byte; the diff is
# shown through cat -A so trailing blanks, tabs and \r are visible.
# Always returns 0.
expect_same() {
	CHECKS=$((CHECKS + 1))
	if ! cmp -s "$2" "$3"; then
		fail "$1: expected (<) vs got (>):"
		diff <(cat -A "$2") <(cat -A "$3") | head -n 40 >&2 || true
	fi
	return 0
}

# abort WHAT EXPECTED GOT: a failure that makes further checks meaningless.
abort() {
	CHECKS=$((CHECKS + 1))
	fail "$@"
	finish
}

finish() {
	if [ "$FAILURES" -gt 0 ]; then
		echo "$TEST_NAME: $FAILURES of $CHECKS checks FAILED" >&2
		exit 1
	fi
	echo "$TEST_NAME: all $CHECKS checks passed"
	exit 0
}
