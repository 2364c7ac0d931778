#!/usr/bin/env bash
# fleet-import.sh - recorded traces shipped (`commd ship --once`) to a
# ClickHouse cluster arrive whole (docs/fleet.md):
#
#  - a trace.dat import has no wall clock (no clock_map row): the rows'
#    `time` is the ts in seconds, a number of a few hundred. ClickHouse
#    18.16 reads a DateTime of fewer than 5 digits only while 19 bytes of
#    its read buffer follow it, so where a buffer ended on one the insert
#    failed ("Cannot parse datetime": none of sched-drops.dat's 5,472
#    switches arrived, gzip'ed). Each table ClickHouse holds for the host
#    equals its SQLite rows (fleet-compare.py), gzip'ed and plain, and
#    `time` is the ts's second;
#  - a gzip'ed body is several gzip members, a block of rows each, rows
#    cut across members: the same rows arrive as sent plain;
#  - a rename as the capture's last event: its name (begun after the
#    capture's end) arrives, and the name before it ends; the same as an
#    earlier boot's last event, shipped by the next boot's shipper;
#  - a capture with no switch ships to its end.
# Needs clickhouse-server, clickhouse-client and curl (no tracefs).
. "$(dirname "$0")/../live/lib.sh"
for t in clickhouse-server clickhouse-client curl; do
	command -v "$t" > /dev/null || abort "fleet_import: $t" "installed (scripts/setup)" "missing"
done
. "$(dirname "$0")/clickhouse.sh"
: "${TESTDATA:?TESTDATA not set}"

chmod 0755 "$TMP"
base=$(ch_free_base 26000 600) || abort "fleet_import: free ports for two ClickHouse servers" "ten from 26000" "none"
H1=$base T1=$((base + 1)) H2=$((base + 4)) T2=$((base + 5))
cleanup_ch() { ch_cluster_stop 2> /dev/null || true; }
CLEANUP_HOOKS+=(cleanup_ch)
ch_cluster_start "$TMP/ch" "$H1" "$T1" "$H2" "$T2" commd_import ||
	abort "fleet_import: two ClickHouse servers start" "both answer /ping" \
		"$(cat "$TMP"/ch/*/log/stdout 2>/dev/null | tail -n 5)"
"$COMMD" clickhouse-schema --cluster commd_import > "$TMP/ddl.sql"
for p in "$T1" "$T2"; do
	clickhouse-client --port "$p" --multiquery < "$TMP/ddl.sql" 2> "$TMP/ddl.err" ||
		abort "fleet_import: the schema applies on the server at port $p" "no error" \
			"$(head -n 3 "$TMP/ddl.err")"
done

for f in sched-drops sched-v7; do
	db=$TMP/$f.db
	"$COMMD" import --no-progress "$TESTDATA/$f.dat" -o "$db" > /dev/null 2>&1 ||
		abort "fleet_import: commd import $f.dat" "exit 0" "failed"
	# sched-drops.dat as imported: its boot the recording's (the file's
	# trace id, or a hash), what ship takes without --boot; sched-v7.dat
	# given one and --boot (the earlier sections use it)
	boot=$(sqlite3 "$db" "SELECT boot FROM capture")
	if [ "$f" = sched-drops ]; then
		check_match "fleet_import: $f.dat: the import's boot" '^(trace|file)-[0-9a-f]{16}$' "$boot"
		"$COMMD" ship --db "$db" --clickhouse "http://127.0.0.1:$H1/?database=commd" \
			--host-name "$f-other" --boot some-other-boot --once > "$TMP/ship-other" 2>&1 &&
			rc=0 || rc=$?
		check_eq "fleet_import: $f.dat: ship --once of a boot no capture has: exit status" 1 "$rc"
		check_match "fleet_import: $f.dat: ship --once of a boot no capture has: the error" \
			"no capture of boot some-other-boot to ship" "$(cat "$TMP/ship-other")"
		bootarg=()
	else
		sqlite3 "$db" "UPDATE capture SET boot = 'imported'"
		boot=imported bootarg=(--boot imported)
	fi
	check_eq "fleet_import: $f.dat has no wall clock" 0 \
		"$(sqlite3 "$db" "SELECT count(*) FROM clock_map")"
	for gz in yes no; do
		host=$f-$gz
		"$COMMD" ship --db "$db" --clickhouse "http://127.0.0.1:$H1/?database=commd" \
			--host-name "$host" "${bootarg[@]}" --gzip "$gz" --once > "$TMP/ship-$host" 2>&1 &&
			rc=0 || rc=$?
		check_eq "fleet_import: $host: commd ship --once exit status" 0 "$rc"
		check_eq "fleet_import: $host: no insert failed" "" \
			"$(grep -i "inserting\|cannot parse" "$TMP/ship-$host" | head -n 3)"
		/usr/bin/python3 "$(dirname "$0")/fleet-compare.py" "$db" "$host" "$boot" "$H1" \
			> "$TMP/compare-$host" 2>&1 && rc=0 || rc=$?
		log "$host: $(tr '\n' ';' < "$TMP/compare-$host")"
		check_eq "fleet_import: $host: every table in ClickHouse equals SQLite (fleet-compare.py)" 0 "$rc"
		check_eq "fleet_import: $host: every switch's time is its ts in seconds" \
			"$(sqlite3 "$db" "SELECT count(*) FROM sched_switch") 0" \
			"$(ch_query 1 "SELECT count(), countIf(toUInt32(time) != intDiv(ts, 1000000000))
				FROM commd.sched_switch FINAL WHERE host = '$host'" | tr '\t' ' ')"
	done
done

# commq --clickhouse latency --by host: percentiles by nearest rank, the
# value at rank ceil(p/100 * n), as the local report gives them.
# cases/hotplug-v6.dat has 330 latencies: p50's rank (165) and p90's
# (297) are whole, where quantileExact took the next (765.3 against
# 705.348 us, 43701.3 against 42238.022).
db=$TMP/hotplug.db
"$COMMD" import --no-progress "$TESTDATA/cases/hotplug-v6.dat" -o "$db" > /dev/null 2>&1 ||
	abort "fleet_import: commd import hotplug-v6.dat" "exit 0" "failed"
"$COMMD" ship --db "$db" --clickhouse "http://127.0.0.1:$H1/?database=commd" \
	--host-name hotplug --once > "$TMP/ship-hotplug" 2>&1 && rc=0 || rc=$?
check_eq "fleet_import: hotplug: commd ship --once exit status" 0 "$rc"
"$COMMQ" --clickhouse "http://127.0.0.1:$H1/?database=commd" -list -noheader \
	latency --by host > "$TMP/lat-fleet" 2> "$TMP/lat-fleet.err" ||
	fail "fleet_import: commq --clickhouse latency --by host" "exit 0" "$(cat "$TMP/lat-fleet.err")"
check_eq "fleet_import: hotplug: latencies" 330 "$(sqlite3 "$db" "SELECT count(*) FROM wakeup_latency")"
for k in 50 90 99; do
	want=$(sqlite3 "$db" "SELECT round(latency / 1e3, 1) FROM wakeup_latency ORDER BY latency
		LIMIT 1 OFFSET ((SELECT count(*) FROM wakeup_latency) * $k + 99) / 100 - 1")
	col=$((k == 50 ? 3 : k == 90 ? 4 : 5))
	check_eq "fleet_import: latency --by host, hotplug: p$k by nearest rank" "$want" \
		"$(awk -F'|' -v c=$col '$1 == "hotplug" { printf "%.1f\n", $c }' "$TMP/lat-fleet")"
done

# Two captures of one boot whose clocks map to the time of day
# differently (the clock stepped between them, or another trace clock):
# each row's time is its own capture's. One offset per boot, the newest
# reading's, gave capture 1's rows shipped after capture 2 began (a
# backlog across a restart) capture 2's: an hour off here.
db=$TMP/two-clocks.db
cp "$TMP/sched-v7.db" "$db"
read -r c1s c1e < <(sqlite3 -separator ' ' "$db" "SELECT start_ts, end_ts FROM capture")
off1=1700000000000000000 off2=$((1700000000000000000 + 3600000000000))
sqlite3 "$db" "INSERT INTO clock_map (capture, ts, realtime, err) VALUES (1, $c1s, $c1s + $off1, 0);
	INSERT INTO capture (source, kernel, host, start_ts, end_ts, events, boot, ts_offset)
	SELECT source, kernel, host, $c1e + 2000000000, $c1e + 3000000000, events, boot, 0 FROM capture;
	INSERT INTO clock_map (capture, ts, realtime, err)
	VALUES (2, $c1e + 2000000000, $c1e + 2000000000 + $off2, 0)"
"$COMMD" ship --db "$db" --clickhouse "http://127.0.0.1:$H1/?database=commd" \
	--host-name two-clocks --boot imported --once > "$TMP/ship-two-clocks" 2>&1 && rc=0 || rc=$?
check_eq "fleet_import: two-clocks: commd ship --once exit status" 0 "$rc"
check_eq "fleet_import: two-clocks: capture 1's switches, their time from capture 1's clock" \
	"$(sqlite3 "$db" "SELECT count(*) FROM sched_switch") 0" \
	"$(ch_query 1 "SELECT count(), countIf(toUInt32(time) != intDiv(ts + $off1, 1000000000))
		FROM commd.sched_switch FINAL WHERE host = 'two-clocks'" | tr '\t' ' ')"

# A rename as a capture's last event: the new name's row begins 1 ns
# after the event, after the capture's end_ts (the last event's ts). The
# last round went up to that end only: the new name was never sent and
# the old one stayed open (end_ts NULL) in ClickHouse (a CI run's fleet
# test, host B's last event an exec of awk). The import's database is
# given what a capture ending so stores: its last open name ends at the
# end + 1 and a name begins and ends there.
db=$TMP/renamed-last.db
cp "$TMP/sched-v7.db" "$db"
sqlite3 "$db" "CREATE TEMP TABLE o AS SELECT id, pid, tgid, life, parent, end_ts AS t
		FROM comm_history WHERE end_ts = (SELECT max(end_ts) FROM capture) ORDER BY id DESC LIMIT 1;
	INSERT INTO comm_history (pid, tgid, comm, start_ts, end_ts, source, life, parent)
	SELECT pid, tgid, 'named last', t + 1, t + 1, 'task_rename', life, parent FROM o;
	UPDATE comm_history SET end_ts = (SELECT t + 1 FROM o) WHERE id = (SELECT id FROM o)"
check_eq "fleet_import: renamed-last.db: a name begun and ended 1 ns after the capture's end" \
	"1 1" "$(sqlite3 "$db" "SELECT count(*), (SELECT count(*) FROM comm_history WHERE
		end_ts = (SELECT max(end_ts) FROM capture) + 1 AND comm <> 'named last')
		FROM comm_history WHERE comm = 'named last' AND start_ts = (SELECT max(end_ts) FROM capture) + 1" |
		tr '|' ' ')"
"$COMMD" ship --db "$db" --clickhouse "http://127.0.0.1:$H1/?database=commd" \
	--host-name renamed-last --boot imported --once > "$TMP/ship-renamed-last" 2>&1 && rc=0 || rc=$?
check_eq "fleet_import: renamed-last: commd ship --once exit status" 0 "$rc"
/usr/bin/python3 "$(dirname "$0")/fleet-compare.py" "$db" renamed-last imported "$H1" \
	> "$TMP/compare-renamed-last" 2>&1 && rc=0 || rc=$?
log "renamed-last: $(grep -a "comm_history\|FAIL" "$TMP/compare-renamed-last" | tr '\n' ';')"
check_eq "fleet_import: renamed-last: every table in ClickHouse equals SQLite (fleet-compare.py)" 0 "$rc"

# The same rename as the last event of an earlier boot's capture, its
# rows not shipped before the reboot (ClickHouse away): the next boot's
# shipper sends that boot's rows first, up to its last end. It went to
# that end only, and the new name, begun 1 ns after it, was never sent
# (the next boot's rows begin after it). The next boot (a capture 2 s
# later, a name and a switch of its own) ships its own rows alone.
db=$TMP/earlier.db
cp "$TMP/renamed-last.db" "$db"
sqlite3 "$db" "UPDATE capture SET source = 'live';
	INSERT INTO capture (source, kernel, host, start_ts, end_ts, events, boot, ts_offset)
	SELECT 'live', kernel, host, max(end_ts) + 2000000000, max(end_ts) + 3000000000, events,
		'later', 0 FROM capture;
	INSERT INTO comm_history (pid, tgid, comm, start_ts, end_ts, source, life)
	SELECT 4242, 4242, 'later name', start_ts + 1, NULL, 'proc', 0 FROM capture
	WHERE boot = 'later';
	INSERT INTO ev_sched_switch (ts, cpu, n, next_pid, hid, prev_pid, prev_prio, prev_state,
		next_prio, next_hid)
	SELECT start_ts + 5, 0, 0, 0, (SELECT id FROM comm_history WHERE comm = 'later name'),
		4242, 120, 1, 120, (SELECT id FROM comm_history WHERE comm = 'later name')
	FROM capture WHERE boot = 'later'"
"$COMMD" ship --db "$db" --clickhouse "http://127.0.0.1:$H1/?database=commd" \
	--host-name earlier --boot later --once > "$TMP/ship-earlier" 2>&1 && rc=0 || rc=$?
check_eq "fleet_import: earlier: commd ship --once exit status" 0 "$rc"
check_eq "fleet_import: earlier: the earlier boot's names, its last one too, under that boot" \
	"$(sqlite3 "$db" "SELECT count(*), sum(comm = 'named last') FROM comm_history
		WHERE comm <> 'later name'" | tr '|' ' ')" \
	"$(ch_query 1 "SELECT count(), sum(comm = 'named last') FROM commd.comm_history FINAL
		WHERE host = 'earlier' AND boot = 'imported'" | tr '\t' ' ')"
check_eq "fleet_import: earlier: the next boot's name alone under the next boot" "1 later name" \
	"$(ch_query 1 "SELECT count(), any(comm) FROM commd.comm_history FINAL
		WHERE host = 'earlier' AND boot = 'later'" | tr '\t' ' ')"
check_eq "fleet_import: earlier: the earlier boot's switches under it" \
	"$(sqlite3 "$db" "SELECT count(*) - 1 FROM sched_switch")" \
	"$(ch_query 1 "SELECT count() FROM commd.sched_switch FINAL
		WHERE host = 'earlier' AND boot = 'imported'")"

# A capture with no switch (a trace recorded without sched_switch): the
# round's frontier was the newest switch, none, and nothing of it was
# sent (the import's wakeups, names, ...). Ended, it ships to its end.
db=$TMP/no-switch.db
cp "$TMP/sched-v7.db" "$db"
sqlite3 "$db" "DELETE FROM ev_sched_switch; DELETE FROM dv_sched"
check_eq "fleet_import: no-switch.db: no switch, wakeups and names" "0 1 1" \
	"$(sqlite3 "$db" "SELECT count(*), (SELECT count(*) > 0 FROM sched_waking),
		(SELECT count(*) > 0 FROM comm_history) FROM sched_switch" | tr '|' ' ')"
"$COMMD" ship --db "$db" --clickhouse "http://127.0.0.1:$H1/?database=commd" \
	--host-name no-switch --boot imported --once > "$TMP/ship-no-switch" 2>&1 && rc=0 || rc=$?
check_eq "fleet_import: no-switch: commd ship --once exit status" 0 "$rc"
/usr/bin/python3 "$(dirname "$0")/fleet-compare.py" "$db" no-switch imported "$H1" \
	> "$TMP/compare-no-switch" 2>&1 && rc=0 || rc=$?
log "no-switch: $(tr '\n' ';' < "$TMP/compare-no-switch")"
check_eq "fleet_import: no-switch: every table in ClickHouse equals SQLite (fleet-compare.py)" 0 "$rc"
check_eq "fleet_import: no-switch: its wakings arrived" \
	"$(sqlite3 "$db" "SELECT count(*) FROM sched_waking")" \
	"$(ch_query 1 "SELECT count() FROM commd.sched_waking FINAL WHERE host = 'no-switch'")"

# A batch ends at the first new ts after 1,000,000 rows. The SELECT's
# LIMIT of 1,000,001 rows ended it too: when the 1,000,001st row had the
# 1,000,000th's ts, the round took the table for done and the rows after
# it were never sent (nor those after rows of sched skipped as sent).
# task_rename gets a million rows more, the 1,000,000th and 1,000,001st
# of one ts.
db=$TMP/batch.db
cp "$TMP/sched-v7.db" "$db"
sqlite3 "$db" "WITH RECURSIVE i(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM i WHERE k < 1000010)
	INSERT INTO ev_task_rename (ts, cpu, n, hid, target_pid, oldcomm, newcomm)
	SELECT 171100000000 + k - (k = 1000000), 0, k = 1000000, hid, target_pid, oldcomm, newcomm
	FROM i, (SELECT * FROM ev_task_rename ORDER BY ts LIMIT 1)"
check_eq "fleet_import: batch.db: the 1,000,000th and 1,000,001st task_rename of one ts" \
	"1000012 1" "$(sqlite3 "$db" "SELECT count(*), (SELECT count(DISTINCT ts) FROM (SELECT ts FROM
		task_rename ORDER BY ts LIMIT 2 OFFSET 999999)) FROM task_rename" | tr '|' ' ')"
# lost_events, read whole each round (no cursor), past a batch's million
# rows: the round went on asking the same first million for ever
sqlite3 "$db" "WITH RECURSIVE i(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM i WHERE k < 1000005)
	INSERT INTO lost_events (cpu, ts, count) SELECT k % 2, 171110000000 + k, 1 FROM i"
timeout "${SHIP_TIMEOUT:-600}" "$COMMD" ship --db "$db" --clickhouse "http://127.0.0.1:$H1/?database=commd" \
	--host-name batch --boot imported --once > "$TMP/ship-batch" 2>&1 && rc=0 || rc=$?
check_eq "fleet_import: batch: commd ship --once exit status (124: still asking after ${SHIP_TIMEOUT:-600} s)" 0 "$rc"
check_eq "fleet_import: batch: every task_rename row in ClickHouse, once" \
	"$(sqlite3 "$db" "SELECT count(*), count(DISTINCT ts) FROM task_rename" | tr '|' ' ')" \
	"$(ch_query 1 "SELECT count(), uniqExact(ts) FROM commd.task_rename FINAL
		WHERE host = 'batch'" | tr '\t' ' ')"
check_eq "fleet_import: batch: every lost_events row in ClickHouse, once" \
	"$(sqlite3 "$db" "SELECT count(*), count(DISTINCT ts) FROM lost_events" | tr '|' ' ')" \
	"$(ch_query 1 "SELECT count(), uniqExact(ts) FROM commd.lost_events FINAL
		WHERE host = 'batch'" | tr '\t' ' ')"

# a host name longer than the config allows (255 bytes) is refused, not
# cut or overrun
long=$(printf 'h%.0s' $(seq 256))
"$COMMD" ship --db "$TMP/sched-v7.db" --clickhouse "http://127.0.0.1:$H1/?database=commd" \
	--host-name "$long" --boot imported --once > "$TMP/ship-long" 2>&1 && rc=0 || rc=$?
check_eq "fleet_import: a --host-name of 256 bytes: exit status 2" 2 "$rc"
check_eq "fleet_import: a --host-name of 256 bytes: says why" 1 \
	"$(grep -c "at most 255 bytes" "$TMP/ship-long")"
check_eq "fleet_import: a --host-name of 256 bytes: nothing shipped" 0 \
	"$(ch_query 1 "SELECT count() FROM commd.sched_switch WHERE host = '$long'")"

cleanup_ch
for p in "$H1" "$T1" "$H2" "$T2"; do
	check_eq "fleet_import: port $p free after the stop" "" "$(ss -Hltn "sport = :$p")"
done
finish
