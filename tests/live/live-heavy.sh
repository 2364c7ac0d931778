#!/usr/bin/env bash
# live-heavy.sh - the issue's acceptance figure: with default settings (no
# --buffer-kb, no --commit-ms), `perf bench sched messaging -g 20 -l 1000`
# under capture loses nothing:
#
#  - after SIGTERM: exit 0, instance gone, integrity_check ok;
#  - lost_events is empty;
#  - every kernel_dropped_events and kernel_overrun row is 0;
#  - stats 'events' == 'kernel_read_events' (cpu NULL) == rows in the ev_*
#    tables.
# Prints events/s (over the capture's first..last event) and perf's time.
#
# Needs root and tracefs (FAILS without them) and perf.
. "$(dirname "$0")/lib.sh"

need_live
need_perf

in=$(inst 1)
db=$TMP/heavy.db
start_ready "heavy" "$TMP/commd.err" "$db" "$in"
t0=$(date +%s%N)
perf_messaging "heavy" -g 20 -l 1000
t1=$(date +%s%N)
stop_commd "$COMMD_PID" TERM 240
check_eq "heavy: commd exit status after SIGTERM (stop took $STOP_MS ms)" 0 "$STOP_RC"
[ "$LAST_OK" = 1 ] || sed 's/^/    stderr: /' "$TMP/commd.err" >&2
check_eq "heavy: instance $in after the stop" absent "$(instance_state "$in")"
[ -f "$db" ] || abort "heavy: database $db" "exists" "missing"
check_integrity "heavy" "$db"

got=$(q "$db" "SELECT count(*) || ' rows, ' || coalesce(sum(count), 0) || ' events (' || (count(*) - count(count)) || ' unknown)' FROM lost_events")
check_eq "heavy: lost_events" "0 rows, 0 events (0 unknown)" "$got"
if [ "$LAST_OK" = 0 ]; then
	q "$db" "SELECT 'cpu ' || l.cpu || ' at +' || printf('%.3f', (l.ts - c.start_ts) / 1e9) || ' s: ' || coalesce(l.count, 'unknown')
		|| ' lost (capture ' || printf('%.3f', (c.end_ts - c.start_ts) / 1e9) || ' s)'
		FROM lost_events l, capture c ORDER BY l.ts LIMIT 20" | sed 's/^/    lost_events: /' >&2
fi
got=$(q "$db" "SELECT coalesce(group_concat('cpu' || cpu || '=' || value, ' '), '') FROM stats WHERE name = 'kernel_dropped_events' AND value <> 0")
check_eq "heavy: kernel_dropped_events rows that are not 0" "" "$got"
check_eq "heavy: kernel_dropped_events rows (one per CPU)" "$(getconf _NPROCESSORS_CONF)" \
	"$(q "$db" "SELECT count(*) FROM stats WHERE name = 'kernel_dropped_events' AND cpu IS NOT NULL")"
got=$(q "$db" "SELECT coalesce(group_concat('cpu' || cpu || '=' || value, ' '), '') FROM stats WHERE name = 'kernel_overrun' AND value <> 0")
check_eq "heavy: kernel_overrun rows that are not 0" "" "$got"
events=$(stat "$db" events)
read=$(stat "$db" kernel_read_events)
check_eq "heavy: stats 'events' vs 'kernel_read_events' (cpu NULL)" "$read" "$events"
check_eq "heavy: rows over all ev_* tables vs stats 'events'" "$events" "$(event_rows "$db")"
got=$(q "$db" "SELECT count(*) FROM sched_switch WHERE comm = 'sched-messaging'")
check_true "heavy: sched_switch rows with comm 'sched-messaging'" "> 0" "$got" [ "$got" -gt 0 ]

span=$(q "$db" "SELECT end_ts - start_ts FROM capture")
rate=$(awk -v e="${events:-0}" -v s="${span:-0}" 'BEGIN { if (s > 0) printf "%.0f", e / (s / 1e9); else print "?" }')
log "perf bench sched messaging -g 20 -l 1000: $(grep -o 'Total time: .*' "$TMP/perf.out" || echo '?') (wall $(( (t1 - t0) / 1000000 )) ms)"
log "stored $events events in $(awk -v s="${span:-0}" 'BEGIN { printf "%.2f", s / 1e9 }') s of capture: $rate events/s; stop (drain + commit) took $STOP_MS ms; database $(du -m "$db" | cut -f1) MB"
log "commd: $(grep -E 'stored|lost' "$TMP/commd.err" | tail -1)"
finish
