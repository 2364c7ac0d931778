# shellcheck shell=bash
# daemon.sh - helpers of the tests that run the real commd on the real
# tracefs (tests/live, tests/server): source it after check.sh.
#
# Needs TMP (check.sh) and INST_PREFIX (the test's instance names).

# _alive PID: running (not gone, not a zombie).
_alive() {
	local st
	st=$(awk '{print $3}' "/proc/$1/stat" 2> /dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# serve_pids DB: pids of `commd serve ... --db DB` (DB may be a pattern:
# the cleanup passes "$TMP/*").
serve_pids() {
	local p c
	for p in /proc/[0-9]*; do
		c=$( { tr '\0' ' ' < "$p/cmdline"; } 2> /dev/null) || continue
		# shellcheck disable=SC2053,SC2027 # $1 unquoted: a pattern
		if [[ $c == "commd serve "*"--db "$1" "* ]]; then
			printf '%s\n' "${p#/proc/}"
		fi
	done
}

# inst N: the name of this test's instance number N.
inst() { printf '%s-%s' "$INST_PREFIX" "$1"; }

# need_tracefs DIR WHY: root and a usable tracefs at DIR (mounted if it
# is not; an instance can be made and removed), and the sqlite3 shell, or
# the test fails; WHY says why root is needed.
need_tracefs() {
	local t=$1 probe=$1/instances/$INST_PREFIX-probe
	[ "$(id -u)" = 0 ] || abort "running as root ($2)" "uid 0" "uid $(id -u)"
	if [ ! -d "$t/instances" ]; then
		mount -t tracefs nodev "$t" 2> "$TMP/mount.err" || true
	fi
	[ -d "$t/instances" ] || abort "tracefs at $t" "mounted (or mountable) with instances/" \
		"no $t/instances; mount -t tracefs: $(cat "$TMP/mount.err" 2> /dev/null)"
	if ! mkdir "$probe" 2> "$TMP/probe.err"; then
		abort "creating a tracefs instance ($probe)" "mkdir succeeds" "$(cat "$TMP/probe.err")"
	fi
	rmdir "$probe" || abort "removing the probe instance $probe" "rmdir succeeds" "failed"
	command -v sqlite3 > /dev/null || abort "sqlite3 shell" "in PATH" "missing"
}

# stop_commd PID SIGNAL [SECONDS]: sends SIGNAL, waits for the exit and
# sets STOP_RC to its status ("timeout" if it did not exit, then SIGKILLs
# it) and STOP_MS to how long the stop took.
stop_commd() {
	local pid=$1 sig=$2 limit=$(( ${3:-120} * 20 )) i t0
	t0=$(date +%s%N)
	kill "-$sig" "$pid"
	for ((i = 0; i < limit; i++)); do
		_alive "$pid" || break
		sleep 0.05
	done
	if _alive "$pid"; then
		kill -KILL "$pid" 2> /dev/null || true
		wait "$pid" 2> /dev/null || true
		STOP_RC=timeout
	else
		STOP_RC=0
		wait "$pid" 2> /dev/null || STOP_RC=$?
	fi
	STOP_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
}
