#!/usr/bin/env bash
# live-tampered.sh - another program changes commd's instance while it
# captures, and commd sets it back instead of capturing nothing in silence:
#
#  - an event added to the instance: removed again, one warning saying
#    nothing was lost, no lost_events row;
#  - what `trace-cmd reset -a` does to an instance it cannot remove (seen on
#    this machine: tracing_on 0 and every event disabled), done here by
#    hand so that the global buffer is not touched: commd says so in one
#    warning naming what changed, within a few commits, and the instance
#    is capturing again (tracing_on 1, the same set_event);
#  - its trace clock written by someone else (which also resets the ring
#    buffer and its counters): set back to commd's clock, one warning;
#  - a marker run after each is stored (the capture goes on; the test waits
#    for the first to be committed before writing the clock, which empties
#    the buffer);
#  - each change is a lost_events row of unknown count (NULL) per CPU, and
#    no loss row with a count (the counters' reset is not taken for drops);
#    stats 'instance_restored' = 3;
#  - SIGTERM: exit 0, the instance removed, integrity_check ok, stored
#    events = rows of the ev_* tables, the stop line says losses of
#    unknown count.
#
# Needs root and tracefs (FAILS without them) and perf.
. "$(dirname "$0")/lib.sh"

need_live
need_perf

in=$(inst t)
I=$T/instances/$in
db=$TMP/t.db
err=$TMP/t.err
ncpus=$(getconf _NPROCESSORS_CONF)

start_ready "tampered" "$err" "$db" "$in" --commit-ms 200
want_events=$(cat "$I/set_event")
check_true "tampered: events enabled at the start" "some" "'$want_events'" [ -n "$want_events" ]
perf_messaging "tampered: before" -g 2 -l 50

# warned N: waits (5 s at most) until stderr has N "changed by another
# program" warnings.
warned() {
	for _ in $(seq 100); do
		[ "$(grep -c 'changed by another program' "$err")" -ge "$1" ] && return 0
		sleep 0.05
	done
	return 1
}
# marker NAME: runs a copy of /bin/true called NAME and waits (5 s at
# most) until its exec is committed: writing the trace clock resets the
# ring buffer, and what commd had not read yet is gone with it.
marker() {
	cp /bin/true "$TMP/$1"
	"$TMP/$1"
	for _ in $(seq 100); do
		[ "$(q "$db" "SELECT count(*) FROM sched_process_exec WHERE filename = '$TMP/$1'")" = 1 ] && return 0
		sleep 0.05
	done
}

# 0. An event added to the instance: removed again, nothing lost.
echo sched:sched_stat_runtime >> "$I/set_event"
warned 1 || true
check_match "tampered: the warning for an added event" \
	"^commd: instance $in was changed by another program \(events '[^']*sched:sched_stat_runtime[^']*'\): set back; only events were added, nothing was lost$" \
	"$(grep 'changed by another program' "$err")"
check_eq "tampered: set_event after the added event was removed" "$want_events" "$(cat "$I/set_event")"
check_eq "tampered: lost_events rows after an added event" 0 "$(q "$db" "SELECT count(*) FROM lost_events")"

# 1. As trace-cmd reset -a: tracing off, every event disabled.
echo 0 > "$I/tracing_on"
: > "$I/set_event"
warned 2 || true
check_eq "tampered: warnings after tracing_on 0 and set_event emptied" 2 \
	"$(grep -c 'changed by another program' "$err")"
check_match "tampered: the warning names what changed" \
	"^commd: instance $in was changed by another program \(tracing_on 0, events '', as trace-cmd reset -a does\): set back; what was not traced in between is lost, a lost_events row of unknown count per CPU$" \
	"$(grep 'changed by another program' "$err" | tail -n 1)"
check_eq "tampered: tracing_on after commd set it back" 1 "$(cat "$I/tracing_on")"
check_eq "tampered: set_event after commd set it back" "$want_events" "$(cat "$I/set_event")"
perf_messaging "tampered: after the reset" -g 2 -l 50
marker after-reset

# 2. The trace clock changed under it.
clk=mono
grep -qw mono "$I/trace_clock" || clk=global
echo "$clk" > "$I/trace_clock"
warned 3 || true
check_match "tampered: the clock's warning" \
	"^commd: instance $in was changed by another program \(trace_clock $clk\): set back;" \
	"$(grep 'changed by another program' "$err" | tail -n 1)"
check_match "tampered: trace_clock after commd set it back" '\[local\]' "$(cat "$I/trace_clock")"
perf_messaging "tampered: after the clock" -g 2 -l 50
marker after-clock

stop_commd "$COMMD_PID" TERM 120
check_eq "tampered: exit status after SIGTERM" 0 "$STOP_RC"
check_eq "tampered: instance after the stop" absent "$(instance_state "$in")"
check_integrity "tampered" "$db"
check_eq "tampered: rows of the ev_* tables vs 'events'" "$(stat "$db" events)" "$(event_rows "$db")"
check_eq "tampered: lost_events rows of unknown count" $((2 * ncpus)) \
	"$(q "$db" "SELECT count(*) FROM lost_events WHERE count IS NULL")"
check_eq "tampered: lost_events rows with a count (no drops; the reset counters are no loss)" 0 \
	"$(q "$db" "SELECT count(*) FROM lost_events WHERE count IS NOT NULL")"
check_eq "tampered: stats 'instance_restored'" 3 "$(stat "$db" instance_restored)"
for m in after-reset after-clock; do
	check_eq "tampered: the exec of marker $m" 1 \
		"$(q "$db" "SELECT count(*) FROM sched_process_exec WHERE filename = '$TMP/$m'")"
done
check_match "tampered: the stop line" "^commd: stopped after .* lost, more of unknown count while another program had changed the instance$" \
	"$(grep '^commd: stopped after' "$err")"
finish
