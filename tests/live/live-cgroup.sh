#!/usr/bin/env bash
# live-cgroup.sh - cgroup_history, `commq top --by cgroup` and `commq util
# --by cgroup` against the kernel's own account of each cgroup's CPU time:
#
#   two cgroups the test makes in the unified (v2) hierarchy, a and b; a
#   busy loop in each, and a third one started in a and moved to b 2 s
#   into a 5 s measurement (echo PID > b/cgroup.procs while commd
#   captures). Per cgroup, commd's CPU time over the 5 s is within 2% of
#   the delta of the cgroup's own cpu.stat usage_usec (read at the start
#   and the end, their wall-clock times mapped to the trace clock with
#   the capture's clock readings); the moved task has a row in a that
#   ends where its row in b begins, at the move (within 50 ms of the time
#   the test wrote its pid), from a cgroup_attach_task event; a third
#   cgroup, c, holds ten tasks that each touch 64 MiB and exit, one after
#   another: the kernel charges c for their exit path after
#   sched_process_exit (unmapping the memory), and so must commd (a
#   task's row ends at its last switch-out; ending it at the exit left
#   13% of c's time to no cgroup); tasks alive
#   at the start came from /proc ('proc'), the busy loops' children from
#   their fork; util --by cgroup adds up to top --by cgroup.
#
#   commd captures with sched_stat_runtime added to its default events.
#   This VM records no switch out of some tasks (the threads of its PID 1,
#   tokio-rt-worker: 15 of 15 switches into them in a 5 s capture had no
#   switch out; on other boots swapper/1), so with the default events the
#   time from such a switch-in to the CPU's next event is nobody's, and
#   how wide that is only start_err says (live-util.sh checks the kernel's
#   figure against those bounds). Here the kernel's own run-time updates
#   place those starts (docs/derived.md): the check is the exact one.
#   Without the events, cgroup a came out 2-5% short on a quiet machine
#   once commd itself stopped waking every 5 ms.
. "$(dirname "$0")/lib.sh"
need_live

v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$v2" ] || abort "a cgroup v2 hierarchy mounted" "cgroup2 in /proc/mounts" "none"
base=$v2/commd-test-$$
mkdir "$base" "$base/a" "$base/b" "$base/c" || abort "making cgroups in $v2" "mkdir succeeds" "failed"
rm_cgroups() {
	local p
	for p in $(cat "$base"/a/cgroup.procs "$base"/b/cgroup.procs "$base"/c/cgroup.procs 2> /dev/null); do
		kill -KILL "$p" 2> /dev/null || true
	done
	sleep 0.2
	rmdir "$base/a" "$base/b" "$base/c" "$base" 2> /dev/null || true
}
CLEANUP_HOOKS=(rm_cgroups "${CLEANUP_HOOKS[@]}")

chmod 0755 "$TMP"
in=$(inst cg)
db=$TMP/cg.db
start_ready "capture" "$TMP/commd.err" "$db" "$in" --commit-ms 200 \
	--events "$(events_plus sched:sched_stat_runtime)"

# spin CGROUP: a busy loop that first puts itself into CGROUP.
spin() {
	bash -c 'echo $$ > "$1/cgroup.procs" && exec bash -c "while :; do :; done"' spin "$1" &
	HELPER_PIDS+=("$!")
	LAST=$!
}
spin "$base/a"; pa=$LAST
spin "$base/b"; pb=$LAST
spin "$base/a"; pm=$LAST
sleep 0.5
usage() { awk '$1 == "usage_usec" { print $2 }' "$1/cpu.stat"; }
t0=${EPOCHREALTIME/./}000; ua0=$(usage "$base/a"); ub0=$(usage "$base/b"); uc0=$(usage "$base/c")
# c: tasks that exit with 64 MiB to unmap, one after another; the kernel
# charges c for their exit path (after sched_process_exit) too
bash -c 'echo $$ > "$1/cgroup.procs" && exec python3 -c "
import mmap, os
for i in range(10):
    pid = os.fork()
    if pid == 0:
        m = mmap.mmap(-1, 64 << 20)
        for off in range(0, 64 << 20, 4096):
            m[off] = 1
        os._exit(0)
    os.waitpid(pid, 0)
"' exiters "$base/c" &
pc=$!
HELPER_PIDS+=("$pc")
sleep 2
tm=${EPOCHREALTIME/./}000
echo "$pm" > "$base/b/cgroup.procs"
sleep 3
t1=${EPOCHREALTIME/./}000; ua1=$(usage "$base/a"); ub1=$(usage "$base/b"); uc1=$(usage "$base/c")
kill -KILL "$pa" "$pb" "$pm" 2> /dev/null || true
wait "$pc" 2> /dev/null || true
sleep 0.5
stop_commd "$COMMD_PID" TERM
check_eq "exit status after SIGTERM" 0 "$STOP_RC"

iso() { printf '%s.%09dZ' "$(date -u -d "@$(($1 / 1000000000))" +%Y-%m-%dT%H:%M:%S)" $(($1 % 1000000000)); }
"$COMMQ" --db "$db" -q -csv -noheader top --by cgroup --from "$(iso "$t0")" --to "$(iso "$t1")" \
	> "$TMP/top" 2> "$TMP/top.err" || fail "commq top --by cgroup" "exit 0" "$(cat "$TMP/top.err")"
for c in a b c; do
	path=/commd-test-$$/$c
	case $c in
	a) k=$(( (ua1 - ua0) * 1000 )) ;;
	b) k=$(( (ub1 - ub0) * 1000 )) ;;
	c) k=$(( (uc1 - uc0) * 1000 )) ;;
	esac
	mine=$(awk -F, -v p="$path" '$2 == p { printf "%.0f", $4 * 1e6 }' "$TMP/top")
	log "cgroup $c: kernel $k ns (cpu.stat usage_usec), commd ${mine:-none} ns"
	check_true "cgroup $c: CPU time within 2% of its cpu.stat usage_usec" "$k ± 2%" "${mine:-none}" \
		awk -v a="$k" -v b="${mine:-0}" 'BEGIN { exit !(a > 0 && b >= a * 0.98 && b <= a * 1.02) }'
done

# The moved task: a row in a, then one in b from the move on.
# (Before them, from its fork, the test's own cgroup: it put itself in a.)
rows=$(q "$db" "SELECT path || ' ' || source || ' ' || start_ts || ' ' || coalesce(end_ts, '') FROM cgroup_history WHERE pid = $pm ORDER BY start_ts" | tail -n 2)
log "the moved task's last rows: $(echo "$rows" | tr '\n' ';')"
check_eq "the moved task: its cgroups in order" "/commd-test-$$/a /commd-test-$$/b" \
	"$(echo "$rows" | awk '{ print $1 }' | tr '\n' ' ' | sed 's/ $//')"
check_eq "... the move from a cgroup_attach_task event" cgroup_attach_task \
	"$(echo "$rows" | awk 'NR == 2 { print $2 }')"
check_eq "... the row in a ends where the one in b begins" \
	"$(echo "$rows" | awk 'NR == 1 { print $4 }')" "$(echo "$rows" | awk 'NR == 2 { print $3 }')"
moved=$(q "$db" "SELECT start_ts - (SELECT $tm - (realtime - ts) FROM clock_map WHERE realtime <= $tm ORDER BY realtime DESC LIMIT 1) FROM cgroup_history WHERE pid = $pm AND path = '/commd-test-$$/b'")
check_true "... at the move (within 50 ms after the test wrote its pid)" "0 to 50000000 ns" "${moved:-none}" \
	test "${moved:-999999999999}" -ge 0 -a "${moved:-999999999999}" -le 50000000
check_true "tasks alive at the start have rows from /proc" "> 10" \
	"$(q "$db" "SELECT count(*) FROM cgroup_history WHERE source = 'proc'")" \
	test "$(q "$db" "SELECT count(*) FROM cgroup_history WHERE source = 'proc'")" -gt 10

# util --by cgroup adds up to top --by cgroup over the same window.
"$COMMQ" --db "$db" -q -csv -noheader util --by cgroup --interval 1s --from "$(iso "$t0")" \
	--to "$(iso "$t1")" > "$TMP/util" 2>&1 || fail "commq util --by cgroup" "exit 0" "$(cat "$TMP/util")"
for c in a b; do
	path=/commd-test-$$/$c
	check_true "cgroup $c: util --by cgroup's seconds add up to top's (1 µs a row)" \
		"$(awk -F, -v p="$path" '$2 == p { print $4 }' "$TMP/top") ms" \
		"$(awk -F, -v p="$path" '$4 == p { s += $6 } END { printf "%.3f", s }' "$TMP/util") ms" \
		awk -F, -v p="$path" -v top="$(awk -F, -v p="$path" '$2 == p { print $4 }' "$TMP/top")" \
		'$4 == p { s += $6; n++ } END { d = s - top; exit !(n > 0 && d <= 0.001 * n && d >= -0.001 * n) }' "$TMP/util"
done
finish
