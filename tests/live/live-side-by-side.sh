#!/usr/bin/env bash
# live-side-by-side.sh - two commd with different instance names (and
# databases, sockets) capture at the same time, each through its own
# tracefs instance, under one `perf bench sched messaging` load:
#
#  - both become ready, both instances exist at once;
#  - a third commd asking for an instance already in use is refused (one
#    line, non-zero exit) and the running ones are untouched;
#  - each answers queries on its own socket while the other runs;
#  - each stores the load (sched_switch rows of sched-messaging), loses
#    nothing, and stores exactly what the kernel handed it ('events' ==
#    'kernel_read_events' == rows of the ev_* tables);
#  - stopping one leaves the other capturing; both instances are gone at
#    the end and both databases pass integrity_check.
#
# Needs root and tracefs (FAILS without them) and perf.
. "$(dirname "$0")/lib.sh"

need_live
need_perf

a=$(inst a)
b=$(inst b)
chmod 755 "$TMP"	# the query servers (user commd or nobody) read the databases
start_ready "side by side: A" "$TMP/a.err" "$TMP/a.db" "$a"
pa=$COMMD_PID
start_ready "side by side: B" "$TMP/b.err" "$TMP/b.db" "$b"
pb=$COMMD_PID
check_eq "side by side: both instances exist" "present present" "$(instance_state "$a") $(instance_state "$b")"

run_commd_fg "$TMP/c.err" "$COMMD" --foreground --db "$TMP/c.db" --instance "$a" --socket "$TMP/c.sock"
check_true "side by side: a third commd on instance A: exit status" "!= 0" "$RUN_RC" [ "$RUN_RC" != 0 ]
check_eq "side by side: a third commd on instance A: one line on stderr" 1 "$(grep -c . "$TMP/c.err")"
log "third commd said: $(head -c 300 "$TMP/c.err")"
check_eq "side by side: A still running, its instance still there" "yes present" \
	"$(_alive "$pa" && echo yes || echo no) $(instance_state "$a")"

perf_messaging "side by side" -g 10 -l 500
sleep 1.5
for x in a b; do
	got=$("$COMMQ" --socket "$TMP/$(inst "$x").sock" -list -noheader \
		"SELECT count(*) > 0 FROM sched_switch WHERE comm = 'sched-messaging'" 2> "$TMP/$x.q.err") || got="error: $(cat "$TMP/$x.q.err")"
	check_eq "side by side: ${x^^} answers on its own socket while both run" 1 "$got"
done

stop_commd "$pa" TERM 120
check_eq "side by side: A's exit status after SIGTERM" 0 "$STOP_RC"
check_eq "side by side: after A stops, A's instance gone, B's still there" "absent present" \
	"$(instance_state "$a") $(instance_state "$b")"
check_eq "side by side: B still running after A stopped" yes "$(_alive "$pb" && echo yes || echo no)"
before=$(q "$TMP/b.db" "SELECT count(*) FROM sched_switch")
perf_messaging "side by side: B alone" -g 2 -l 200
sleep 1.5
after=$(q "$TMP/b.db" "SELECT count(*) FROM sched_switch")
check_true "side by side: B keeps capturing after A stopped ($before -> $after rows)" "more rows" "$after" [ "$after" -gt "$before" ]
stop_commd "$pb" TERM 120
check_eq "side by side: B's exit status after SIGTERM" 0 "$STOP_RC"
check_eq "side by side: B's instance after the stop" absent "$(instance_state "$b")"

for x in a b; do
	db=$TMP/$x.db
	check_integrity "side by side: ${x^^}" "$db"
	events=$(stat "$db" events)
	check_eq "side by side: ${x^^}: 'events' vs 'kernel_read_events'" "$(stat "$db" kernel_read_events)" "$events"
	check_eq "side by side: ${x^^}: rows of the ev_* tables vs 'events'" "$events" "$(event_rows "$db")"
	check_eq "side by side: ${x^^}: lost_events rows" 0 "$(q "$db" "SELECT count(*) FROM lost_events")"
	got=$(q "$db" "SELECT count(*) FROM sched_switch WHERE comm = 'sched-messaging'")
	check_true "side by side: ${x^^}: sched_switch rows of sched-messaging" "> 0" "$got" [ "$got" -gt 0 ]
	log "${x^^}: $events events"
done
finish
