#!/usr/bin/env bash
# live-ids.sh - a database whose history ids have passed 2^32 (a long-lived
# database on a machine that forks and renames without end: ids only
# grow, each capture continuing from the highest) goes on taking rows:
# the next capture's comm_history rows get ids past 2^32, its events name
# them (no row whose hid has no history row), and nothing stalls. (Ids
# were 32 bits in the writer: they wrapped to small ids the first
# capture had used, and every commit failed on the primary key.)
#
# Needs root and tracefs (FAILS without them).
. "$(dirname "$0")/lib.sh"

need_live

db=$TMP/ids.db
start_ready "ids: first capture" "$TMP/c1.err" "$db" "$(inst 1)"
sleep 0.5
stop_commd "$COMMD_PID" TERM
check_eq "ids: first capture's exit status after SIGTERM" 0 "$STOP_RC"
first=$(q "$db" "SELECT count(*) FROM comm_history")
check_true "ids: the first capture wrote history rows" "> 0" "$first" [ "${first:-0}" -gt 0 ]
# ids just below 2^32, as months of rows would leave them
big=4294967290
sqlite3 "$db" "INSERT INTO comm_history(id, pid, comm, start_ts, end_ts, source)
	VALUES ($big, 2147483000, 'before-wrap', 1, 2, 'test');
	INSERT INTO comms(id, comm) VALUES ($big, 'before-wrap');
	INSERT INTO event_types(id, system, name) VALUES ($big, 'test', 'before_wrap')"

mark=$(sleeper_copy ids-marker)
start_ready "ids: second capture" "$TMP/c2.err" "$db" "$(inst 2)"
for _ in 1 2 3 4 5 6 7 8 9 10; do "$mark" 0.01; done
sleep 0.5
stop_commd "$COMMD_PID" TERM
check_eq "ids: second capture's exit status after SIGTERM" 0 "$STOP_RC"
[ "$LAST_OK" = 1 ] || sed 's/^/    stderr: /' "$TMP/c2.err" >&2
check_integrity "ids" "$db"
check_eq "ids: errors logged by the second capture" "" \
	"$(grep -iE 'error|fail|constraint' "$TMP/c2.err" | head -5)"
got=$(q "$db" "SELECT count(*) FROM comm_history WHERE id > 4294967295")
check_true "ids: the second capture's history rows have ids past 2^32" "> 0" "$got" \
	[ "${got:-0}" -gt 0 ]
check_eq "ids: history rows below the first capture's own" "$first" \
	"$(q "$db" "SELECT count(*) FROM comm_history WHERE id < $big")"
cap2=$(q "$db" "SELECT start_ts FROM capture WHERE id = 2")
got=$(q "$db" "SELECT count(*) FROM ev_sched_switch WHERE ts >= $cap2")
check_true "ids: the second capture stored switches" "> 0" "$got" [ "${got:-0}" -gt 0 ]
check_eq "ids: the second capture's switches whose hid or next_hid names no history row" 0 \
	"$(q "$db" "SELECT count(*) FROM ev_sched_switch e WHERE ts >= $cap2 AND (
		NOT EXISTS (SELECT 1 FROM comm_history h WHERE h.id = e.hid) OR
		NOT EXISTS (SELECT 1 FROM comm_history h WHERE h.id = e.next_hid))")"
# Each marker's switches, in or out: on this VM a switch out of swapper/1
# is never traced, and a marker that ran on CPU 1 only after idle moments
# had no switch in recorded (9 of 10 in an ASan run); its switch out to
# sleep and at its exit are.
got=$(q "$db" "SELECT count(DISTINCT h.id) || ' ' || sum(h.id <= 4294967295) FROM ev_sched_switch e
	JOIN comm_history h ON h.id IN (e.next_hid, e.hid) WHERE e.ts >= $cap2 AND h.comm = 'ids-marker'")
check_true "ids: the 10 markers' switches name them through history rows (rows, of them below 2^32)" \
	">= 10 rows, 0 below" "$got" [ "${got% *}" -ge 10 -a "${got#* }" = 0 ]
finish
