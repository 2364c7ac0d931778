#!/usr/bin/env bash
# live-sigkill.sh - SIGKILL mid-load leaves a consistent database that the
# next start continues (docs/architecture.md section 5):
#
#  1. start, load (perf bench sched messaging), kill -9 while the load runs:
#     the database passes integrity_check and holds the committed events;
#     the instance is left behind (nobody removed it);
#  2. start again with the same database and instance: it reclaims the
#     instance and becomes ready; a second capture row; new rows after the
#     first capture's last one; SIGTERM: exit 0, instance gone;
#  3. afterwards: integrity_check ok; no comm_history row from before the
#     restart is still open (end_ts NULL); no event stored twice (no two
#     sched_switch rows with the same ts and cpu); the second capture's
#     stats 'events' == its 'kernel_read_events'; every row of the second
#     capture's events lies after the first capture's last event; no
#     runqueue_wait, preempt_wait or offcpu row spans the restart; names
#     and cgroup memberships of the first capture end with it, and none
#     is left open after the clean stop.
#
# Needs root and tracefs (FAILS without them) and perf.
. "$(dirname "$0")/lib.sh"

need_live
need_perf

in=$(inst 1)
db=$TMP/kill.db

# --- 1. SIGKILL mid-load ---------------------------------------------------------
start_ready "first start" "$TMP/a.err" "$db" "$in"
apid=$COMMD_PID
perf bench sched messaging -g 10 -l 3000 > "$TMP/perf-bg.out" 2>&1 &
perfpid=$!
HELPER_PIDS+=("$perfpid")
# Three spinners on the CPUs until after the restart: one is always
# waiting, through the kill and the time commd is down.
hogs=()
for _ in 1 2 3; do
	sh -c 'while :; do :; done' &
	hogs+=("$!")
	HELPER_PIDS+=("$!")
done
# two commits (1000 ms) into the load: switches committed (a busy
# machine's writer may lag behind), then one commit more
switched() { [ "$(q "$db" "SELECT count(*) FROM (SELECT 1 FROM ev_sched_switch LIMIT 1)")" -gt 0 ]; }
wait_until 30 switched || true	# (the check after the kill says)
sleep 1.2
check_eq "first start: perf bench still running when commd is killed" running \
	"$(_alive "$perfpid" && echo running || echo finished)"
serve1=$(serve_pids "$db" | tr '\n' ' ')
kill -KILL "$apid"
t_kill=$(date +%s%N)
rc=0
wait "$apid" 2> /dev/null || rc=$?
check_eq "first start: exit status of commd after kill -9" 137 "$rc"
wait "$perfpid" 2> /dev/null || true
check_eq "after kill -9: instance $in (left behind, expected)" present "$(instance_state "$in")"
check_integrity "after kill -9" "$db"
rows1=$(q "$db" "SELECT count(*) FROM ev_sched_switch")
max1=$(max_event_ts "$db")
hid1=$(q "$db" "SELECT max(id) FROM comm_history")
check_true "after kill -9: sched_switch rows committed before the kill" "> 0" "$rows1" [ "$rows1" -gt 0 ]
check_eq "after kill -9: capture rows" 1 "$(q "$db" "SELECT count(*) FROM capture")"
open1=$(q "$db" "SELECT count(*) FROM comm_history WHERE end_ts IS NULL")
log "after kill -9: $rows1 sched_switch rows, last event ts $max1, $hid1 comm_history rows ($open1 open)"

# --- 2. restart on the same database and instance ---------------------------------
# At once, as systemd's Restart= would: what the killed commd left (its
# instance, its socket file, its query server still exiting) must not stop it.
left=""
for p in $serve1; do
	_alive "$p" && left+="$p "
done
start_commd "$TMP/b.err" "$db" "$in"
r=0
wait_ready "$COMMD_PID" "$TMP/b.err" || r=$?
if [ "$r" != 0 ]; then
	rc=0
	[ "$r" = 1 ] && { wait "$COMMD_PID" 2> /dev/null || rc=$?; }
	CHECKS=$((CHECKS + 1))
	fail "restart right after kill -9 (same db, same instance: reclaims it): commd becomes ready" \
		"'commd: capturing into ...' on stderr" \
		"$([ "$r" = 1 ] && echo "exit $rc" || echo "nothing in 30 s"); stderr: $(head -c 1000 "$TMP/b.err"); query server(s) of the killed commd (pids ${serve1:-none}) still running at the restart: ${left:-none}"
	for _ in $(seq 600); do
		[ -z "$(serve_pids "$db")" ] && break
		sleep 0.05
	done
	log "the killed commd's query server was gone $(( ($(date +%s%N) - t_kill) / 1000000 )) ms after the kill -9; starting again"
	start_ready "restart, second try (after the old query server exited)" "$TMP/b2.err" "$db" "$in"
else
	log "restart right after kill -9: ready (query server(s) of the killed commd still running at the restart: ${left:-none})"
fi
bpid=$COMMD_PID
check_eq "restart: instance $in while it runs" present "$(instance_state "$in")"
check_eq "restart: $in/tracing_on" 1 "$(cat "$T/instances/$in/tracing_on" 2> /dev/null || echo missing)"
perf_messaging "restart" -g 4 -l 200
kill "${hogs[@]}" 2> /dev/null || true
wait "${hogs[@]}" 2> /dev/null || true
stop_commd "$bpid" TERM
check_eq "restart: exit status after SIGTERM" 0 "$STOP_RC"
[ "$LAST_OK" = 1 ] || sed 's/^/    stderr: /' "$TMP/b.err" >&2
check_eq "restart: instance $in after the stop" absent "$(instance_state "$in")"

for _ in $(seq 200); do
	[ -z "$(serve_pids "$db" | grep -Fxf <(tr ' ' '\n' <<< "$serve1" | grep .) || true)" ] && break
	sleep 0.05
done
got=$(serve_pids "$db" | grep -Fxf <(tr ' ' '\n' <<< "$serve1" | grep .) | tr '\n' ' ' || true)
check_eq "the killed commd's query server (pids ${serve1:-none}) 10 s after its kill -9 (PR_SET_PDEATHSIG)" "" "$got"

# --- 3. the database after both -------------------------------------------------------
check_integrity "after the restart" "$db"
check_eq "after the restart: capture rows" 2 "$(q "$db" "SELECT count(*) FROM capture")"
cap2=$(q "$db" "SELECT max(id) FROM capture")
rows2=$(q "$db" "SELECT count(*) FROM ev_sched_switch WHERE ts > $max1")
check_true "after the restart: sched_switch rows with ts > the first capture's last ($max1)" \
	"> 0" "$rows2" [ "$rows2" -gt 0 ]
got=$(q "$db" "SELECT count(*) FROM sched_switch WHERE ts > $max1 AND comm = 'sched-messaging'")
check_true "after the restart: sched_switch rows of the second load (comm sched-messaging)" \
	"> 0" "$got" [ "$got" -gt 0 ]
check_eq "after the restart: sched_switch rows from before the restart (unchanged)" "$rows1" \
	"$(q "$db" "SELECT count(*) FROM ev_sched_switch WHERE ts <= $max1")"
got=$(q "$db" "SELECT count(*) || ' e.g. ' || coalesce(group_concat(id || ':' || pid || ':' || coalesce(comm, 'NULL') || ':' || start_ts || ':' || source, ' '), '') FROM (SELECT * FROM comm_history WHERE end_ts IS NULL AND id <= $hid1 LIMIT 5)")
check_eq "after the restart: comm_history rows of the first capture (id <= $hid1) still open (end_ts NULL)" "0 e.g. " "$got"
got=$(q "$db" "SELECT count(*) || ' e.g. ' || coalesce(group_concat(ts || '@' || cpu || 'x' || n, ' '), '') FROM (SELECT ts, cpu, count(*) AS n FROM ev_sched_switch GROUP BY ts, cpu HAVING count(*) > 1 LIMIT 5)")
check_eq "after the restart: (ts, cpu) pairs stored twice in ev_sched_switch" "0 e.g. " "$got"
got=$(q "$db" "SELECT start_ts > $max1 AND end_ts >= start_ts FROM capture WHERE id = $cap2")
check_eq "after the restart: second capture's start_ts > first capture's last event and end_ts >= start_ts" 1 "$got"
check_eq "after the restart: second capture's stats 'events' vs its 'kernel_read_events'" \
	"$(stat "$db" kernel_read_events "$cap2")" "$(stat "$db" events "$cap2")"
check_eq "after the restart: second capture's 'events' vs rows stored after the restart" \
	"$(stat "$db" events "$cap2")" "$(event_rows "$db" "ts > $max1")"
# No wait spans the restart (the first load ran on through it): what a
# task did while nothing was captured is unknown, so no preempt_wait or
# offcpu row has the second capture's start inside it, and a
# runqueue_wait begun before has no end.
s2=$(q "$db" "SELECT start_ts FROM capture WHERE id = $cap2")
spans=$(q "$db" "SELECT count(*) FROM runqueue_wait WHERE ts < $s2 AND dur IS NULL")
for v in runqueue_wait preempt_wait offcpu; do
	check_eq "after the restart: $v rows with the second capture's start inside them" 0 \
		"$(q "$db" "SELECT count(*) FROM $v WHERE ts < $s2 AND ts + dur >= $s2")"
done
log "runqueue_wait rows begun in the first capture with no end: $spans"
# Names and cgroup memberships known in the first capture end with it
# (its last event), not at the second's start: nothing was captured in
# between. After the clean stop nothing is left open.
e1=$(q "$db" "SELECT end_ts FROM capture WHERE id < $cap2 ORDER BY id DESC LIMIT 1")
for t in comm_history cgroup_history; do
	check_eq "after the restart: $t rows of the first capture ending after its end" 0 \
		"$(q "$db" "SELECT count(*) FROM $t WHERE start_ts <= $e1 AND end_ts > $e1")"
	check_eq "after the clean stop: $t rows still open" 0 \
		"$(q "$db" "SELECT count(*) FROM $t WHERE end_ts IS NULL")"
done
log "cgroup_history rows: $(q "$db" "SELECT count(*) FROM cgroup_history")"
log "first capture: $rows1 sched_switch rows; second: $rows2; second capture stored $(stat "$db" events "$cap2") events"
finish
