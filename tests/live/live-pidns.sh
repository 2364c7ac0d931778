#!/usr/bin/env bash
# live-pidns.sh - commd in a PID namespace other than the host's.
#
# The kernel stamps every event with the task's pid in the initial PID
# namespace; a container's /proc numbers its tasks differently. So:
#
#  1. under `unshare --pid --fork --mount-proc` (a container without the
#     host's PID namespace) commd says so at start in one line, seeds no
#     name from that /proc (no comm_history row of source 'proc'), and no
#     name is wrong for it: host pid 1 is never called 'commd' (the
#     namespace's pid 1), a marker task started on the host before commd is
#     never given another name;
#  2. under `unshare --pid --fork` with the host's /proc left in place,
#     /proc still speaks of the trace's pids: commd says that it runs in
#     another namespace with the host's /proc and seeds from it (the marker
#     is named from /proc).
#
# Needs root and tracefs (FAILS without them).
. "$(dirname "$0")/lib.sh"

need_live
command -v unshare > /dev/null || abort "unshare (util-linux)" "in PATH" "missing"

marker=$(sleeper_copy pidns-mark)
"$marker" 600 &
MARK=$!
HELPER_PIDS+=("$MARK")

# run_in_ns N UNSHARE-OPTIONS...: commd in a new PID namespace for a
# second of load, then SIGTERM to commd (the namespace's pid 1); sets
# DB and ERR.
run_in_ns() {
	local n=$1 ns_pid inner i
	shift
	DB=$TMP/ns-$n.db
	ERR=$TMP/ns-$n.err
	unshare "$@" -- "$COMMD" --foreground --db "$DB" --instance "$(inst "$n")" \
		--socket none 2> "$ERR" < /dev/null &
	ns_pid=$!
	COMMD_PIDS+=("$ns_pid")
	wait_ready "$ns_pid" "$ERR" ||
		abort "commd under unshare $* becomes ready" "'commd: capturing into ...'" \
			"stderr: $(head -c 2000 "$ERR")"
	inner=
	for ((i = 0; i < 100; i++)); do
		inner=$(pgrep -P "$ns_pid" -x commd || true)
		[ -n "$inner" ] && break
		sleep 0.05
	done
	[ -n "$inner" ] || abort "commd under unshare $*: its process" "a child of unshare" "none"
	COMMD_PIDS+=("$inner")
	perf bench sched messaging -g 2 -l 50 > /dev/null 2>&1 || true
	kill -TERM "$MARK" 2> /dev/null || true	# an exit the trace names
	sleep 1.2
	kill -TERM "$inner"
	# unshare --fork exits with its child's status.
	STOP_RC=0
	timeout 60 tail --pid="$ns_pid" -f /dev/null || STOP_RC=timeout
	[ "$STOP_RC" = 0 ] && { wait "$ns_pid" || STOP_RC=$?; }
	check_eq "unshare $*: commd's exit status on SIGTERM" 0 "$STOP_RC"
	check_integrity "unshare $*" "$DB"
}

# --- 1. a container's /proc ---------------------------------------------------
run_in_ns 1 --pid --fork --mount-proc
check_eq "own /proc: one line says the pids are the host's and /proc is not" 1 \
	"$(grep -c "PID namespace other than the host's: the trace's pids are the host's and this /proc is not" "$ERR")"
check_eq "own /proc: comm_history rows from /proc" 0 \
	"$(q "$DB" "select count(*) from comm_history where source = 'proc'")"
check_eq "own /proc: host pid 1 named 'commd' (the namespace's pid 1)" 0 \
	"$(q "$DB" "select count(*) from comm_history where pid = 1 and comm = 'commd'")"
check_eq "own /proc: names of the marker's pid $MARK other than pidns-mark" "" \
	"$(q "$DB" "select group_concat(distinct comm) from comm_history where pid = $MARK and comm != 'pidns-mark'")"
check_true "own /proc: sched_switch rows stored" "> 0" \
	"$(q "$DB" "select count(*) from sched_switch")" \
	[ "$(q "$DB" "select count(*) from sched_switch")" -gt 0 ]

# --- 2. another namespace, the host's /proc ------------------------------------
"$marker" 600 &
MARK=$!
HELPER_PIDS+=("$MARK")
run_in_ns 2 --pid --fork
check_eq "host's /proc: no warning" 0 "$(grep -c "this /proc is not" "$ERR")"
check_eq "host's /proc: says so" 1 "$(grep -c "with the host's /proc: names are taken from it" "$ERR")"
check_eq "host's /proc: the marker named from /proc" "pidns-mark" \
	"$(q "$DB" "select group_concat(distinct comm) from comm_history where pid = $MARK and source = 'proc'")"
check_true "host's /proc: comm_history rows from /proc" "> 10" \
	"$(q "$DB" "select count(*) from comm_history where source = 'proc'")" \
	[ "$(q "$DB" "select count(*) from comm_history where source = 'proc'")" -gt 10 ]

finish
