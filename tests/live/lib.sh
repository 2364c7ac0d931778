# lib.sh - shared helpers of the live tests (source it, don't run it).
#
# The live tests run the real commd as root on the real tracefs, each in
# its own instances named commd-test-<test pid>-<n> and its own mktemp -d
# directory. They FAIL (never skip) when not root or when tracefs is not
# mounted and cannot be mounted.
#
# Environment (COMMD_TEST_ENV in tests/CMakeLists.txt): COMMD (required),
# COMMQ, TESTDATA, SRCDIR; LIVE_KEEP=1 keeps the temporary directory.
#
# Every check records a failure with fail() (what, expected, got) and
# returns, so one run reports every mismatch; abort() for failures after
# which nothing else is meaningful; finish() last.
#
# The EXIT trap ALWAYS kills (SIGKILL, by pid) every commd and helper
# process the test started, then removes any instance commd-test-<pid>-*
# left behind, and the temporary directory.

# shellcheck disable=SC2034 # LAST_OK, STOP_RC, STOP_MS, RUN_RC: for the callers
set -euo pipefail

: "${COMMD:?COMMD not set (run through ctest, or export COMMD=build/commd)}"

T=/sys/kernel/tracing
# TEST_NAME, the checks (log, fail, check_eq, check_true, abort, finish),
# FAILURES, CHECKS, LAST_OK, the directory $TMP and the EXIT trap.
# shellcheck source=../lib/check.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
CHECK_FAILED_STATUS=0	# set -e: a failed check_* returns 0, LAST_OK says it
CHECK_KEEP=${LIVE_KEEP:-0}
COMMD_PIDS=()		# every commd this test started
HELPER_PIDS=()		# every other background process it started
INST_PREFIX=commd-test-$$
# _alive, serve_pids, inst, need_tracefs
# shellcheck source=../lib/daemon.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/daemon.sh"

# _live_cleanup: the first of the EXIT trap's CLEANUP_HOOKS (check.sh
# then removes $TMP, or keeps it with LIVE_KEEP=1).
_live_cleanup() {
	local p
	for p in "${COMMD_PIDS[@]}" "${HELPER_PIDS[@]}"; do
		if _alive "$p"; then
			kill_tree "$p"
		fi
	done
	for p in "${COMMD_PIDS[@]}" "${HELPER_PIDS[@]}"; do
		wait "$p" 2> /dev/null || true
	done
	# Query servers of our commds (databases in $TMP) that outlived them.
	for p in $(serve_pids "$TMP/*"); do
		echo "$TEST_NAME: cleanup: killing query server $p left by a commd: $(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null)" >&2
		kill -KILL "$p" 2> /dev/null || true
	done
	remove_instances "$T/instances/$INST_PREFIX"-*
	return 0
}
CLEANUP_HOOKS+=(_live_cleanup)
trap 'exit 130' INT
trap 'exit 143' TERM

# need_live: root and a usable tracefs, or the test fails.
need_live() {
	need_tracefs "$T" "live tests need uid 0"
}

# need_perf: perf bench sched messaging works.
need_perf() {
	command -v perf > /dev/null || abort "perf (for perf bench sched messaging)" "in PATH" "missing"
}

# start_commd ERRFILE DB INSTANCE [ARGS...]: starts commd --foreground in
# the background (stderr to ERRFILE); sets COMMD_PID.
start_commd() {
	local err=$1 db=$2 in=$3
	shift 3
	"$COMMD" --foreground --db "$db" --instance "$in" \
		--socket "$TMP/$in.sock" "$@" 2> "$err" < /dev/null &
	COMMD_PID=$!
	COMMD_PIDS+=("$COMMD_PID")
}

# wait_ready PID ERRFILE [SECONDS]: returns 0 once ERRFILE has the
# "capturing into" line, 1 when commd exited first, 2 on timeout.
wait_ready() {
	local pid=$1 err=$2 limit=$(( ${3:-30} * 20 )) i
	for ((i = 0; i < limit; i++)); do
		grep -q '^commd: capturing into ' "$err" 2> /dev/null && return 0
		_alive "$pid" || {
			grep -q '^commd: capturing into ' "$err" 2> /dev/null && return 0
			return 1
		}
		sleep 0.05
	done
	return 2
}

# start_ready WHAT ERRFILE DB INSTANCE [ARGS...]: start_commd + wait_ready,
# aborting the test when commd does not become ready.
start_ready() {
	local what=$1 err=$2 r=0
	shift 2
	start_commd "$err" "$@"
	wait_ready "$COMMD_PID" "$err" || r=$?
	case $r in
	0) ;;
	1) wait "$COMMD_PID" 2> /dev/null || r=$?
	   abort "$what: commd becomes ready" "'commd: capturing into ...' on stderr" \
		"exited (status $r) first; stderr: $(head -c 2000 "$err")" ;;
	*) abort "$what: commd becomes ready within 30 s" "'commd: capturing into ...' on stderr" \
		"nothing after 30 s; stderr: $(head -c 2000 "$err")" ;;
	esac
}


# run_commd_fg ERRFILE COMMAND...: runs COMMAND (commd, possibly behind
# setpriv) to completion, for start-up errors: stderr to ERRFILE, stdout to
# ERRFILE.out. Sets RUN_RC to the exit status, or to "still running after
# 20 s (killed)" when it did not exit.
run_commd_fg() {
	local err=$1
	shift
	RUN_RC=0
	timeout -s KILL 20 "$@" 2> "$err" < /dev/null > "$err.out" || RUN_RC=$?
	[ "$RUN_RC" = 137 ] && RUN_RC="still running after 20 s (killed)"
	return 0
}

# events_plus EVENT: commd's default events (as check-config prints them)
# and EVENT, for --events.
events_plus() {
	local d
	d=$(env -u COMMD_EVENTS "$COMMD" check-config /dev/null | sed -n 's/^events = //p')
	[ -n "$d" ] || abort "commd's default events" "an 'events = ' line from check-config" "none"
	printf '%s,%s' "$d" "$1"
}

# q DB SQL: one query through the sqlite3 shell, read-only, '|' separated.
q() {
	sqlite3 -readonly -batch -noheader "$1" "$2"
}

# instance_state INSTANCE: "present" or "absent".
instance_state() {
	if [ -d "$T/instances/$1" ]; then echo present; else echo absent; fi
}

# check_integrity WHAT DB
check_integrity() {
	local got
	got=$(q "$2" "PRAGMA integrity_check" 2>&1 | head -c 2000) || true
	check_eq "$1: PRAGMA integrity_check on $2" "ok" "$got"
}

# event_rows DB [WHERE]: rows over every ev_* base table (each stored event
# is one row of exactly one of them).
event_rows() {
	local t sql="" where=${2:+ WHERE $2}
	for t in $(q "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'ev\\_%' ESCAPE '\\' ORDER BY name"); do
		sql+="(SELECT count(*) FROM $t$where) + "
	done
	q "$1" "SELECT ${sql}0"
}

# max_event_ts_sql DB: a query of the latest ts over every ev_* base table
# (to read in one statement with others: one commit's snapshot).
max_event_ts_sql() {
	local t sql=""
	for t in $(q "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'ev\\_%' ESCAPE '\\' ORDER BY name"); do
		sql+="SELECT max(ts) AS ts FROM $t UNION ALL "
	done
	printf 'SELECT max(ts) FROM (%sSELECT NULL)' "$sql"
}

# max_event_ts DB: the latest ts over every ev_* base table.
max_event_ts() {
	q "$1" "$(max_event_ts_sql "$1")"
}

# stat DB NAME [CAPTURE]: the whole-capture (cpu NULL) value of a stats row.
stat() {
	local cap=${3:+ AND capture = $3}
	q "$1" "SELECT group_concat(value) FROM stats WHERE name = '$2' AND cpu IS NULL$cap"
}

# sleeper_copy NAME: a copy of /bin/sleep called NAME in $TMP (its comm).
sleeper_copy() {
	cp /bin/sleep "$TMP/$1"
	printf '%s\n' "$TMP/$1"
}

# marker NAME [AFTER]: runs a task called NAME (a copy of sleep, 20 ms)
# between two readings of the time of day, then sleeps AFTER seconds
# (0.3): MARK_PID, MARK_T0, MARK_T1 (ns since the epoch).
marker() {
	local mark
	mark=$(sleeper_copy "$1")
	MARK_T0=$(date +%s%N)
	"$mark" 0.02 &
	MARK_PID=$!
	wait "$MARK_PID"
	MARK_T1=$(date +%s%N)
	sleep "${2:-0.3}"
}

# iso_ns TIME: a time of day as wall() gives it (ISO 8601 UTC with ns) in
# ns since the epoch; "none" when TIME is not one.
iso_ns() {
	python3 -c 'import sys, calendar, time
s = sys.argv[1]
print(calendar.timegm(time.strptime(s[:19], "%Y-%m-%dT%H:%M:%S")) * 10**9 + int(s[20:29]))' "$1" 2> /dev/null ||
		echo none
}

# perf_messaging WHAT ARGS...: perf bench sched messaging ARGS, aborting
# the test when perf fails. Output in $TMP/perf.out.
perf_messaging() {
	local what=$1 rc=0 pid
	shift
	# In the background + wait: a signal to the test runs its trap at once.
	perf bench sched messaging "$@" > "$TMP/perf.out" 2>&1 &
	pid=$!
	HELPER_PIDS+=("$pid")
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || abort "$what: perf bench sched messaging $*" "exit 0" \
		"exit $rc: $(tail -c 1000 "$TMP/perf.out")"
}

# start_load SECONDS: perf bench sched messaging in a loop for SECONDS, in
# its own process group (setsid execs in place: its pid is the group's
# id), so that stop_load kills it with every perf and child it forked.
# stop_load is the first cleanup step at exit as well.
LOAD_PGID=
start_load() {
	setsid bash -c 'end=$((SECONDS + $1))
		while [ "$SECONDS" -lt "$end" ]; do
			perf bench sched messaging -g 4 -l 200 > /dev/null 2>&1 || sleep 0.2
		done' load "$1" &
	LOAD_PGID=$!
	HELPER_PIDS+=("$LOAD_PGID")
}
stop_load() {
	if [ -n "$LOAD_PGID" ]; then
		kill -KILL -- "-$LOAD_PGID" 2> /dev/null || true
		wait "$LOAD_PGID" 2> /dev/null || true
	fi
	LOAD_PGID=
}
CLEANUP_HOOKS=(stop_load "${CLEANUP_HOOKS[@]}")
