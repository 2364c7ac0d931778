#!/usr/bin/env bash
# live-loss.sh - loss is recorded, never silent: commd with a tiny ring
# buffer (--buffer-kb 8) is stopped (SIGSTOP) for 2 s while `perf bench
# sched messaging` runs, so the kernel must drop events; after SIGCONT and
# a clean stop:
#
#  - lost_events has rows, with a positive total count, on the CPUs whose
#    per_cpu stats counted drops, every row inside the capture;
#  - the per-CPU counts in lost_events add up to the kernel's own drop and
#    overrun counts for the capture (stats kernel_dropped_events +
#    kernel_overrun, per CPU);
#  - what the kernel did hand over is all stored: stats 'events' ==
#    'kernel_read_events' == rows of the ev_* tables;
#  - the derived sched slices that span a loss are flagged (lost = 1);
#  - `commq lost` reports the losses.
#  - each loss lies where the events went missing: the kernel counts drops
#    only in per_cpu stats, so commd places them by the time it read the
#    stats while the buffer was full (every event stamped before was in the
#    buffer, every later one was written after the read that made room).
#    The stop is the longest stretch without events of a CPU that dropped
#    events: a lost_events row of the CPU must lie in it (between its two
#    events), and no slice of a messaging task of a second or more (the
#    stop, read as running when a loss is misplaced) is unflagged.
#
# Needs root and tracefs (FAILS without them) and perf.
. "$(dirname "$0")/lib.sh"

need_live
need_perf

in=$(inst 1)
db=$TMP/loss.db
start_ready "loss" "$TMP/commd.err" "$db" "$in" --buffer-kb 8 --commit-ms 200
perf bench sched messaging -g 10 -l 2000 > "$TMP/perf.out" 2>&1 &
load=$!
HELPER_PIDS+=("$load")
sleep 0.3
kill -STOP "$COMMD_PID"
sleep 2
kill -CONT "$COMMD_PID"
wait "$load" || abort "loss: perf bench sched messaging" "exit 0" "$(tail -c 500 "$TMP/perf.out")"
sleep 0.5
stop_commd "$COMMD_PID" TERM 120
check_eq "loss: commd exit status after SIGTERM" 0 "$STOP_RC"
check_eq "loss: instance $in after the stop" absent "$(instance_state "$in")"
check_integrity "loss" "$db"

rows=$(q "$db" "SELECT count(*) FROM lost_events")
total=$(q "$db" "SELECT coalesce(sum(count), 0) FROM lost_events WHERE count > 0")
check_true "loss: lost_events rows" "> 0" "$rows" [ "$rows" -gt 0 ]
check_true "loss: events counted lost" "> 0" "$total" [ "$total" -gt 0 ]
check_eq "loss: lost_events rows outside the capture" "" \
	"$(q "$db" "SELECT 'cpu ' || l.cpu || ' ts ' || l.ts || ' (capture ' || c.start_ts || '..' || c.end_ts || ')' FROM lost_events l, capture c WHERE l.ts < c.start_ts OR l.ts > c.end_ts")"
kernel=$(q "$db" "SELECT cpu || '=' || sum(value) FROM stats WHERE name IN ('kernel_dropped_events', 'kernel_overrun') AND cpu IS NOT NULL GROUP BY cpu HAVING sum(value) > 0 ORDER BY cpu" | tr '\n' ' ')
ours=$(q "$db" "SELECT cpu || '=' || sum(count) FROM lost_events WHERE count > 0 GROUP BY cpu ORDER BY cpu" | tr '\n' ' ')
check_eq "loss: lost per CPU (lost_events) vs the kernel's drops + overruns (per_cpu stats)" "$kernel" "$ours"

events=$(stat "$db" events)
check_eq "loss: stats 'events' vs 'kernel_read_events'" "$(stat "$db" kernel_read_events)" "$events"
check_eq "loss: rows of the ev_* tables vs stats 'events'" "$events" "$(event_rows "$db")"
# Where the losses lie (see the head).
evs=""
for t in $(q "$db" "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'ev\\_%' ESCAPE '\\' ORDER BY name"); do
	evs+="${evs:+ UNION ALL }SELECT cpu, ts FROM $t"
done
gaps=$(q "$db" "WITH e AS ($evs),
	g AS (SELECT cpu, ts AS a, lead(ts) OVER (PARTITION BY cpu ORDER BY ts) AS b FROM e),
	dropped AS (SELECT cpu FROM stats WHERE name IN ('kernel_dropped_events', 'kernel_overrun')
		AND cpu IS NOT NULL GROUP BY cpu HAVING sum(value) > 0),
	longest AS (SELECT g.cpu, g.a, g.b, row_number() OVER (PARTITION BY g.cpu ORDER BY g.b - g.a DESC) AS k
		FROM g JOIN dropped USING (cpu) WHERE g.b IS NOT NULL)
	SELECT cpu || ':' || a || ':' || b FROM longest WHERE k = 1 ORDER BY cpu")
check_true "loss: CPUs that dropped events, with their longest stretch without events" "> 0" \
	"$(echo "$gaps" | grep -c :)" [ -n "$gaps" ]
for g in $gaps; do
	IFS=: read -r cpu a b <<< "$g"
	log "loss: CPU $cpu: no events for $(( (b - a) / 1000000 )) ms (the stop: $a..$b)"
	check_true "loss: CPU $cpu: its longest stretch without events is the stop (>= 1 s)" ">= 1000000000" \
		"$((b - a))" [ "$((b - a))" -ge 1000000000 ]
	check_eq "loss: CPU $cpu: lost_events rows inside the stop ($a..$b), between its events" 1 \
		"$(q "$db" "SELECT count(*) > 0 FROM lost_events WHERE cpu = $cpu AND ts >= $a AND ts < $b")"
done
check_eq "loss: slices of a messaging task of 1 s or more not flagged lost" "" \
	"$(q "$db" "SELECT cpu || ' ' || pid || ' ' || ts || ' +' || dur FROM sched
		WHERE comm = 'sched-messaging' AND dur >= 1000000000 AND lost = 0")"
check_eq "loss: slices spanning a loss of their CPU not flagged lost" "" \
	"$(q "$db" "SELECT s.cpu || ' ' || s.pid || ' ' || s.ts || ' +' || s.dur FROM sched s, lost_events l
		WHERE l.cpu = s.cpu AND l.ts > s.ts AND l.ts < s.ts + s.dur AND s.lost = 0")"

flagged=$(q "$db" "SELECT count(*) FROM sched WHERE lost = 1")
check_true "loss: sched slices flagged lost" "> 0" "$flagged" [ "$flagged" -gt 0 ]

"$COMMQ" --db "$db" lost > "$TMP/lost.out" 2> "$TMP/lost.err" || true
log "commq lost: $(head -c 600 "$TMP/lost.out" | tr '\n' ';')"
for c in $(q "$db" "SELECT DISTINCT cpu FROM lost_events WHERE count > 0 ORDER BY cpu"); do
	grep -Eq "(^| )$c( |$)" "$TMP/lost.out" && got=listed || got=missing
	check_eq "loss: commq lost lists CPU $c" listed "$got"
done
log "lost $total events in $rows records; $events stored; $flagged slices flagged"
finish
