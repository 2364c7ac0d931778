# lib.sh - shared helpers of the query-server tests (source it, don't run it).
#
# These tests run the real commd as root on the real tracefs, each with its
# own instances commd-srvtest-<test pid>-<n> and its own mktemp -d
# directory, and talk to its query server (`commd serve`) over the socket
# with commq and with rawclient (tests/server/rawclient.c). They FAIL
# (never skip) when not root or when tracefs is not usable.
#
# Environment: COMMD, COMMQ, RAWCLIENT (required), TESTDATA, SRCDIR;
# SERVER_KEEP=1 keeps the temporary directory.
#
# Every check records a failure with fail() (what, expected, got) and
# returns, so one run reports every mismatch; abort() ends the test when
# nothing after would mean anything; finish() last.
#
# The EXIT trap ALWAYS kills (SIGKILL, by pid) every commd and helper the
# test started and the query servers of its databases, removes every
# instance commd-srvtest-<pid>-* left behind, runs the test's own
# CLEANUP_HOOKS and removes the directory.
#
# Users and groups are the test's own: as root, the script runs again in a
# private mount namespace (unshare --mount) where /etc/passwd and
# /etc/group are copies without any "commd" user or group, whatever the
# machine has; a test adds its own with ns_add_group/ns_add_user. Nothing
# outside the test ever sees them (commd looks up "commd" by name: a real
# one made for a test would change every other commd started meanwhile).

# shellcheck disable=SC2034 # LAST_OK, STOP_RC, STOP_MS: for the callers
set -euo pipefail

: "${COMMD:?COMMD not set (run through ctest, or export COMMD=build/commd)}"
: "${COMMQ:?COMMQ not set (run through ctest, or export COMMQ=build/commq)}"
: "${RAWCLIENT:?RAWCLIENT not set (run through ctest, or build tests/server/rawclient.c)}"

if [ -z "${SERVER_IN_NS:-}" ] && [ "$(id -u)" = 0 ]; then
	exec unshare --mount --propagation private -- env SERVER_IN_NS=1 bash "$0" "$@"
fi

TRACEFS=/sys/kernel/tracing
# TEST_NAME, the checks (log, fail, check_eq, check_true, check_match,
# abort, finish), FAILURES, CHECKS, LAST_OK, the directory $TMP and the
# EXIT trap that runs CLEANUP_HOOKS (this file's first, then the test's).
# shellcheck source=../lib/check.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
CHECK_FAILED_STATUS=0	# set -e: a failed check_* returns 0, LAST_OK says it
CHECK_KEEP=${SERVER_KEEP:-0}
# The query server runs as an unprivileged user: it must reach the
# database (in $TMP/db-N) and the socket (in $TMP/run).
chmod 0755 "$TMP"
COMMD_PIDS=()		# every commd this test started
HELPER_PIDS=()		# every other background process it started
NS_NEXT_ID=64000	# ids for ns_add_group/ns_add_user
INST_PREFIX=commd-srvtest-$$
# _alive, serve_pids, inst, need_tracefs
# shellcheck source=../lib/daemon.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/daemon.sh"

# Runaway SQL: never ends by itself.
RUNAWAY="with recursive c(x) as (select 1 union all select x+1 from c) select count(*) from c"


# serve_pid DB: the one query server of DB ("" when none, "a b" when several).
serve_pid() {
	serve_pids "$1" | tr '\n' ' ' | sed 's/ $//'
}

# serve_settled PID: whether the query server PID is through its set-up
# (it opens its connections as root, then drops to its user and to nice
# 0: under ASan that takes a while after the process appears).
serve_settled() {
	local uid
	uid=$(awk '$1 == "Uid:" { print $2 }' "/proc/$1/status" 2> /dev/null)
	[ -n "$uid" ] && [ "$uid" != 0 ] &&
		[ "$(awk '{ print $19 }' "/proc/$1/stat" 2> /dev/null)" -ge 0 ] 2> /dev/null
}

# wait_serve DB [SECONDS] [NOT_PID]: waits for exactly one query server
# of DB (other than NOT_PID), and up to 10 s more for it to settle (the
# checks on its user and nice value then tell a failure from a start
# still under way); echoes its pid, or "" after SECONDS (5).
wait_serve() {
	local i p limit=$(( ${2:-5} * 20 ))
	for ((i = 0; i < limit; i++)); do
		p=$(serve_pid "$1")
		if [ -n "$p" ] && [ "$p" = "${p%% *}" ] && [ "$p" != "${3:-}" ]; then
			for ((i = 0; i < 200; i++)); do
				serve_settled "$p" && break
				sleep 0.05
			done
			echo "$p"
			return 0
		fi
		sleep 0.05
	done
	echo ""
}

# _server_cleanup: the first of the EXIT trap's CLEANUP_HOOKS (the test's
# own run after it; check.sh then removes $TMP, or keeps it with
# SERVER_KEEP=1).
_server_cleanup() {
	local p
	exec 3>&2 2> /dev/null	# no "Killed" notices from bash
	for p in "${COMMD_PIDS[@]}" "${HELPER_PIDS[@]}"; do
		if _alive "$p"; then
			kill_tree "$p"
		fi
	done
	for p in "${COMMD_PIDS[@]}" "${HELPER_PIDS[@]}"; do
		wait "$p" || true
	done
	exec 2>&3 3>&-
	for p in $(serve_pids "$TMP/*"); do
		echo "$TEST_NAME: cleanup: killing query server $p left by a commd" >&2
		kill -KILL "$p" 2> /dev/null || true
	done
	remove_instances "$TRACEFS/instances/$INST_PREFIX"-*
	return 0
}
CLEANUP_HOOKS+=(_server_cleanup)
trap 'exit 130' INT
trap 'exit 143' TERM

# ctest kills a test at its TIMEOUT (300 s) without running this trap:
# end the test ourselves first (SERVER_WATCHDOG seconds, 270), so the trap
# always cleans up.
# (Short sleeps with no hold on the output: once the trap kills this
# watchdog, nothing keeps ctest's pipes open.)
( for _ in $(seq "${SERVER_WATCHDOG:-270}"); do sleep 1 > /dev/null 2>&1; done
  echo "$TEST_NAME: still running after ${SERVER_WATCHDOG:-270} s: stopping (cleanup follows)" >&2
  kill -TERM $$ ) < /dev/null > /dev/null &
HELPER_PIDS+=($!)
disown $!	# no "Killed" notice when the trap ends it


# need_live: root, a usable tracefs, rawclient, sqlite3 and setpriv, or
# the test fails.
need_live() {
	need_tracefs "$TRACEFS" "the server tests start commd, which needs uid 0"
	[ -x "$RAWCLIENT" ] || abort "rawclient" "executable at \$RAWCLIENT" "'$RAWCLIENT'"
	command -v setpriv > /dev/null || abort "setpriv (util-linux)" "in PATH" "missing"
}

# start_commd N [ARGS...]: starts commd --foreground with instance N,
# database $TMP/db-N/N.db, socket $TMP/run/N.sock (stderr in $TMP/N.err)
# in the background; sets COMMD_PID, DB, SOCK, ERR.
start_commd() {
	local n=$1
	shift
	mkdir -p "$TMP/db-$n" "$TMP/run"
	chmod 0755 "$TMP/db-$n" "$TMP/run"
	DB=$TMP/db-$n/$n.db
	SOCK=$TMP/run/$n.sock
	ERR=$TMP/$n.err
	# shellcheck disable=SC2086 # COMMD_LAUNCH: a command prefix, split
	${COMMD_LAUNCH:-} "$COMMD" --foreground --config /dev/null --db "$DB" --instance "$(inst "$n")" \
		--socket "$SOCK" "$@" 2> "$ERR" < /dev/null &
	COMMD_PID=$!
	COMMD_PIDS+=("$COMMD_PID")
}

# start_ready N [ARGS...]: start_commd, then waits (30 s) for "capturing
# into", the socket and its query server; aborts the test otherwise.
# Sets SERVE_PID too.
start_ready() {
	local i
	start_commd "$@"
	for ((i = 0; i < 600; i++)); do
		grep -q '^commd: capturing into ' "$ERR" 2> /dev/null && break
		_alive "$COMMD_PID" || break
		sleep 0.05
	done
	grep -q '^commd: capturing into ' "$ERR" 2> /dev/null ||
		abort "commd (instance $(inst "$1")) becomes ready within 30 s" \
			"'commd: capturing into ...' on stderr" \
			"$(_alive "$COMMD_PID" && echo "still not ready" || echo "exited"); stderr: $(head -c 2000 "$ERR")"
	[ -S "$SOCK" ] || abort "socket $SOCK after start" "a socket file" "$(ls -l "$SOCK" 2>&1)"
	SERVE_PID=$(wait_serve "$DB" 5)
	[ -n "$SERVE_PID" ] || abort "one query server (commd serve --db $DB) after start" \
		"one process" "'$(serve_pid "$DB")'"
}


# sq SQL [OPTIONS...]: commq over the socket $SOCK; sets SQ_RC, SQ_OUT,
# SQ_ERR, SQ_MS (never fails the script).
sq() {
	local sql=$1 t0
	shift
	t0=$(date +%s%N)
	SQ_RC=0
	timeout -s KILL 30 "$COMMQ" --socket "$SOCK" "$@" "$sql" > "$TMP/sq.out" 2> "$TMP/sq.err" || SQ_RC=$?
	SQ_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
	SQ_OUT=$(cat "$TMP/sq.out")
	SQ_ERR=$(head -c 2000 "$TMP/sq.err")
	if [ "$SQ_RC" = 137 ]; then
		SQ_ERR="(commq killed after 30 s) $SQ_ERR"
		log "commq --socket $* '${sql:0:80}' got no answer in 30 s; $(server_state)"
	fi
}

# server_state: what the query server(s) of $DB are doing (diagnostics).
server_state() {
	local p t
	for p in $(serve_pids "$DB"); do
		printf 'query server %s threads:' "$p"
		for t in /proc/"$p"/task/*; do
			printf ' %s:%s:%s' "${t##*/}" "$(awk '{print $3}' "$t/stat" 2> /dev/null)" "$(cat "$t/wchan" 2> /dev/null)"
		done
		printf '; fds %s; ' "$(fd_count "$p")"
	done
	printf 'load %s' "$(cut -d' ' -f1-3 /proc/loadavg)"
}

# dq SQL [OPTIONS...]: the same through commq --db $DB (read-only file).
dq() {
	local sql=$1
	shift
	DQ_RC=0
	timeout -s KILL 60 "$COMMQ" --db "$DB" "$@" "$sql" > "$TMP/dq.out" 2> "$TMP/dq.err" || DQ_RC=$?
	DQ_OUT=$(cat "$TMP/dq.out")
	DQ_ERR=$(head -c 2000 "$TMP/dq.err")
}

# q SQL: the sqlite3 shell on $DB, read-only (the reference).
q() {
	sqlite3 -readonly -batch -noheader "$DB" "$1"
}

# switches: the newest committed sched_switch row (its ts: grows with
# every commit, costs nothing on a big table: the key begins with ts).
switches() {
	q "SELECT coalesce(max(ts), 0) FROM ev_sched_switch"
}

# switched_past TS: a switch after TS is committed.
switched_past() {
	[ "$(switches)" -gt "$1" ]
}

# small_load: some scheduling (forks, execs, switches) for a moment.
small_load() {
	local i
	for i in $(seq 100); do
		/bin/true
	done
	sleep 0.3
}

# fixed_range: sets TS and R, a fixed historical range of sched_switch:
# the rows with ts <= TS (committed, never to change: about the first
# 20000, so that queries over it stay cheap however busy the machine is),
# R of them; every event before TS is committed too (taken after a load
# and two commits, returned after two commits more and once switches 2 s
# of trace time later are).
fixed_range() {
	small_load
	sleep 2.2
	wait_until 30 switched_past 0 || true
	R=$(q "SELECT min(20000, count(*)) FROM ev_sched_switch")
	[ "$R" -gt 0 ] || abort "sched_switch rows after a load and two commits" "> 0" "$R"
	TS=$(q "SELECT ts FROM ev_sched_switch ORDER BY ts LIMIT 1 OFFSET $((R - 1))")
	sleep 2.2
	# and switches 2 s of trace time past TS committed (a busy
	# machine's writer may lag behind its commits' clock)
	wait_until 30 switched_past $((TS + 2000000000)) || true
	R=$(q "SELECT count(*) FROM ev_sched_switch WHERE ts <= $TS")
}

# reap PID...: SIGKILLs background helpers and waits for them, quietly.
reap() {
	local p
	exec 3>&2 2> /dev/null	# no "Killed" notices from bash
	for p in "$@"; do
		kill -KILL "$p" || true
	done
	for p in "$@"; do
		wait "$p" || true
	done
	exec 2>&3 3>&-
}

# proc_field PID FIELD: a /proc/PID/status field's value.
proc_field() {
	awk -v f="$2:" '$1 == f { $1 = ""; sub(/^ /, ""); print; exit }' "/proc/$1/status" 2> /dev/null
}

# fd_count PID: open fds of PID.
fd_count() {
	find "/proc/$1/fd" -mindepth 1 -maxdepth 1 2> /dev/null | wc -l
}

# socket_count PID: the sockets of PID (the query server's: one a
# connection, and its listening ones).
socket_count() {
	find "/proc/$1/fd" -mindepth 1 -maxdepth 1 -lname 'socket:*' 2> /dev/null | wc -l
}

# wait_sockets PID N SECONDS: until PID holds N sockets, SECONDS at most:
# clients started in the background are connected (a slow build's take a
# while). Asked of the server, not by one more client, which would take
# a slot itself.
wait_sockets() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		[ "$(socket_count "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
}

# now_ms: monotonic-enough wall time in ms.
now_ms() {
	echo $(( $(date +%s%N) / 1000000 ))
}

# check_unprivileged WHAT PID EXPECTED_UID
check_unprivileged() {
	local what=$1 pid=$2 uid=$3 f
	check_eq "$what: Uid (real, effective, saved, fs)" "$uid $uid $uid $uid" "$(proc_field "$pid" Uid | tr -s '\t ' ' ')"
	read -r -a g <<< "$(proc_field "$pid" Gid)"
	check_true "$what: no gid 0 (real, effective, saved, fs)" "4 gids != 0" "${g[*]}" \
		eval '[ "${#g[@]}" = 4 ] && [ "${g[0]}" != 0 ] && [ "${g[1]}" != 0 ] && [ "${g[2]}" != 0 ] && [ "${g[3]}" != 0 ]'
	check_true "$what: no group 0 among the supplementary groups" "no 0" "Groups: $(proc_field "$pid" Groups)" \
		eval '! grep -qw 0 <<< "$(proc_field "$pid" Groups)"'
	for f in CapInh CapPrm CapEff CapAmb CapBnd; do
		check_eq "$what: $f" 0000000000000000 "$(proc_field "$pid" "$f")"
	done
	check_eq "$what: NoNewPrivs" 1 "$(proc_field "$pid" NoNewPrivs)"
	check_eq "$what: its parent is commd" "$COMMD_PID" "$(proc_field "$pid" PPid)"
}

# as USER GROUPS-OPTION COMMAND...: runs COMMAND as USER; sets AS_RC,
# AS_OUT, AS_ERR.
as() {
	local user=$1 gopt=$2
	shift 2
	AS_RC=0
	if [ "$gopt" = init ]; then
		timeout -s KILL 30 setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups "$@" \
			> "$TMP/as.out" 2> "$TMP/as.err" || AS_RC=$?
	else
		timeout -s KILL 30 setpriv --reuid="$user" --regid="$gopt" --clear-groups "$@" \
			> "$TMP/as.out" 2> "$TMP/as.err" || AS_RC=$?
	fi
	AS_OUT=$(cat "$TMP/as.out")
	AS_ERR=$(head -c 1000 "$TMP/as.err")
}

# ns_free_id: an id that no user and no group has (from 64000 up).
ns_free_id() {
	while getent passwd "$NS_NEXT_ID" > /dev/null || getent group "$NS_NEXT_ID" > /dev/null; do
		NS_NEXT_ID=$((NS_NEXT_ID + 1))
	done
	echo "$NS_NEXT_ID"
	NS_NEXT_ID=$((NS_NEXT_ID + 1))
}

# ns_add_group NAME [MEMBERS]: a group in this test's /etc/group.
ns_add_group() {
	local id
	id=$(ns_free_id)
	printf '%s:x:%s:%s\n' "$1" "$id" "${2:-}" >> "$TMP/etc/group"
}

# ns_add_user NAME GROUP: a user (no home, no shell) in this test's
# /etc/passwd whose primary group is GROUP (made when absent).
ns_add_user() {
	local id gid
	getent group "$2" > /dev/null || ns_add_group "$2"
	gid=$(getent group "$2" | cut -d: -f3)
	id=$(ns_free_id)
	printf '%s:x:%s:%s::/nonexistent:/usr/sbin/nologin\n' "$1" "$id" "$gid" >> "$TMP/etc/passwd"
}

# Runs at once: this test's own /etc/passwd and /etc/group (see above).
hermetic_users() {
	local f
	[ "$(id -u)" = 0 ] || return 0	# need_live fails the test
	[ "${SERVER_IN_NS:-}" = 1 ] || abort "a private mount namespace" "unshare --mount worked" "not in one"
	mkdir "$TMP/etc"
	for f in passwd group; do
		grep -v '^commd:' "/etc/$f" > "$TMP/etc/$f" || true
		chmod 0644 "$TMP/etc/$f"
		mount --bind "$TMP/etc/$f" "/etc/$f" ||
			abort "bind-mounting a copy of /etc/$f in the test's mount namespace" "mount succeeds" "failed"
	done
	getent group commd > /dev/null && abort "no group commd in the test's namespace" "absent" "$(getent group commd)"
	getent passwd commd > /dev/null && abort "no user commd in the test's namespace" "absent" "$(getent passwd commd)"
	return 0
}
hermetic_users
