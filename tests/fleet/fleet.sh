#!/usr/bin/env bash
# fleet.sh - two hosts' commd ship to one ClickHouse cluster (docs/fleet.md):
#
#  - two ClickHouse servers on loopback are the two shards of a cluster
#    (clickhouse.sh); `commd clickhouse-schema --cluster` applied to both;
#  - two commd daemons are two hosts (their own --instance, --db,
#    --host-name; host A takes its ClickHouse user and password file from
#    a config file), each shipping to its own shard, under a load of
#    `perf bench sched messaging` and a task that renames itself to names
#    with tabs, newlines, backslashes, quotes and bytes that are not UTF-8;
#  - mid-run the ClickHouse server of host B is killed (SIGKILL) for
#    4 s and started again, and host A's commd is killed (SIGKILL) and
#    started again on the same database;
#  - after both stop (SIGTERM: a last round ships the rest), for each host
#    and table the rows ClickHouse holds (FINAL, through the Distributed
#    tables) equal the host's SQLite rows byte for byte (fleet-compare.py:
#    no row missing, none twice, no byte changed);
#  - host B's sd_notify STATUS= (to a stand-in notify socket) gives its
#    backlog: at least 3 s while its server is away;
#  - while ClickHouse is away, --max-age cuts nothing unshipped, and a cut
#    --max-db-mb forces is counted (stats unshipped_cut) and, once
#    ClickHouse answers, shipped as a row in gaps;
#  - an earlier boot's rows, stored while nothing was shipped, are shipped
#    after the "reboot" under their own boot (host E);
#  - a CPU offline for 6-40 s (host F): the slice it last began has no end
#    until it is back; the other CPUs' rows are shipped meanwhile, and its
#    own, that slice among them, once it is back;
#  - a wakeup that waits 3.5 s (host G: a SCHED_FIFO task behind another)
#    reaches ClickHouse, stored though it was after rows already shipped;
#    host G's last round finds its server away (killed before the SIGTERM,
#    started 3 s after it) and is tried again: every row arrives;
#  - the servers and daemons are stopped, their ports free, nothing left.
# Needs root and tracefs (FAILS without them), clickhouse-server,
# clickhouse-client, curl and perf.
. "$(dirname "$0")/../live/lib.sh"
need_live
need_perf
for t in clickhouse-server clickhouse-client curl; do
	command -v "$t" > /dev/null || abort "fleet: $t" "installed (scripts/setup)" "missing"
done
. "$(dirname "$0")/clickhouse.sh"

chmod 0755 "$TMP"
base=$(ch_free_base 20000 600) || abort "fleet: free ports for two ClickHouse servers" "ten from 20000" "none"
H1=$base T1=$((base + 1)) H2=$((base + 4)) T2=$((base + 5))
cleanup_ch() {
	ch_cluster_stop 2> /dev/null || true
	pkill -KILL -f "^commd ship --db $TMP/" 2> /dev/null || true
}
CLEANUP_HOOKS+=(cleanup_ch)
ch_cluster_start "$TMP/ch" "$H1" "$T1" "$H2" "$T2" commd_fleet ||
	abort "fleet: two ClickHouse servers start" "both answer /ping" "$(cat "$TMP"/ch/*/log/stdout 2>/dev/null | tail -n 5)"
"$COMMD" clickhouse-schema --cluster commd_fleet > "$TMP/ddl.sql"
for p in "$T1" "$T2"; do
	clickhouse-client --port "$p" --multiquery < "$TMP/ddl.sql" 2> "$TMP/ddl.err" ||
		fail "fleet: the schema applies on the server at port $p" "no error" "$(head -n 3 "$TMP/ddl.err")"
done

# host A: user and password file from a config file (root's, 0600)
printf '' > "$TMP/ch-password"
chmod 0600 "$TMP/ch-password"
printf 'clickhouse-user = default\nclickhouse-password-file = %s\n' "$TMP/ch-password" > "$TMP/a.conf"
chmod 0644 "$TMP/a.conf"
ina=$(inst fa) inb=$(inst fb)
dba=$TMP/a.db dbb=$TMP/b.db
start_a() {
	start_ready "fleet host A" "$TMP/a.err" "$dba" "$ina" --config "$TMP/a.conf" --commit-ms 200 \
		--clickhouse "http://127.0.0.1:$H1/?database=commd" --host-name "host-a"
	pid_a=$COMMD_PID
}
start_a
# host B tells a stand-in for systemd's notify socket its backlog
"$NOTIFY_LISTEN" -t "$TMP/notify.sock" 120 > "$TMP/notify.out" 2> "$TMP/notify.err" &
HELPER_PIDS+=("$!")
for _ in $(seq 100); do
	[ -S "$TMP/notify.sock" ] && break
	sleep 0.02
done
NOTIFY_SOCKET=$TMP/notify.sock start_ready "fleet host B" "$TMP/b.err" "$dbb" "$inb" --commit-ms 200 \
	--clickhouse "http://127.0.0.1:$H2/?database=commd" --host-name "host-b"
pid_b=$COMMD_PID
boot=$(cat /proc/sys/kernel/random/boot_id)

# a task renaming itself to names a shell would not print
/usr/bin/python3 - > /dev/null 2>&1 <<'PY' &
import ctypes, time
libc = ctypes.CDLL(None)
names = [b"tab\there", b"new\nline", b"back\\slash", b"quo'te\"d", b"\xff\xfebytes", b"caf\xc3\xa9", b"0123456789abcde"]
end = time.time() + 14
while time.time() < end:
    for n in names:
        libc.prctl(15, n, 0, 0, 0)
        t = time.time()
        while time.time() - t < 0.001:
            pass
        time.sleep(0.002)
PY
HELPER_PIDS+=("$!")
start_load 14

sleep 3
# (host B's shipper has shipped once, its STATUS= says a backlog: a slow
# build's first round can take longer than 3 s, and a server killed
# before it left "nothing shipped yet" for the whole outage)
for ((i = 0; i < 300; i++)); do
	grep -q "ClickHouse backlog" "$TMP/notify.out" 2> /dev/null && break
	sleep 0.2
done
log "killing ClickHouse server 2 (host B's shard) for 4 s"
ch_kill 2 KILL
sleep 4
ch_start 2 || fail "fleet: ClickHouse server 2 starts again" "it answers" "no"
sleep 2
log "SIGKILL of host A's commd, started again on its database"
kill -KILL "$pid_a"
wait "$pid_a" 2> /dev/null || true
sleep 0.5
start_a
sleep 4
stop_load

for h in a b; do
	pid=$([ "$h" = a ] && echo "$pid_a" || echo "$pid_b")
	stop_commd "$pid" TERM
	check_eq "fleet: host $h commd exit status after SIGTERM" 0 "$STOP_RC"
done
check_true "fleet: host A shipped (its log)" "a line about shipping" "$(grep -c ClickHouse "$TMP/a.err") lines" \
	grep -q "shipping to ClickHouse" "$TMP/a.err"
check_true "fleet: host B noticed its ClickHouse was away" "a warning" "$(grep -c clickhouse "$TMP/b.err") lines" \
	grep -q "clickhouse: " "$TMP/b.err"
# sd_notify STATUS: the backlog in seconds of trace, grown while server 2
# was away for 4 s, and back down once it returned
backlog=$(sed -n 's/.*STATUS=.*ClickHouse backlog \([0-9.]*\) s.*/\1/p' "$TMP/notify.out" |
	awk '{ if ($1 > max) max = $1; last = $1; n++ } END { printf "%d %.1f %.1f", n, max, last }')
read -r nb maxb lastb <<< "$backlog"
log "host B's STATUS: $nb backlog readings, at most $maxb s, last $lastb s"
check_true "fleet: host B's STATUS= backlog while its server was away" ">= 3 s" "$maxb s" \
	awk -v m="$maxb" 'BEGIN { exit !(m >= 3) }'
log "host B's STATUS backlog, a reading a second: $(sed -n 's/.*STATUS=.*ClickHouse backlog \([0-9.]*\) s.*/\1/p' "$TMP/notify.out" | awk 'NR % 5 == 1' | tr '\n' ' ')"
for h in a b; do
	db=$([ "$h" = a ] && echo "$dba" || echo "$dbb")
	/usr/bin/python3 "$(dirname "$0")/fleet-compare.py" "$db" "host-$h" "$boot" "$H1" \
		> "$TMP/compare-$h" 2>&1 && rc=0 || rc=$?
	log "host $h: $(tr '\n' ';' < "$TMP/compare-$h")"
	check_eq "fleet: host $h: every table in ClickHouse equals SQLite (fleet-compare.py)" 0 "$rc"
done
n=$(ch_query 1 "SELECT count() FROM commd.sched_switch FINAL WHERE boot = '$boot' AND host = 'host-b'")
check_true "fleet: host B's rows are read through server 1 (the other shard)" "> 0" "$n" test "${n:-0}" -gt 0
n=$(ch_query 1 "SELECT count() FROM commd.capture FINAL WHERE boot = '$boot' AND host = 'host-a'")
check_eq "fleet: host A's two captures (before and after the SIGKILL)" 2 "$n"
n=$(ch_query 1 "SELECT count() FROM commd.comm_history FINAL WHERE host = 'host-a' AND comm = 'tab\\there'")
check_true "fleet: a name with a tab arrived as it is" "> 0" "$n" test "${n:-0}" -gt 0

# commq --clickhouse: the fleet's answers equal each host's own
"$COMMQ" --clickhouse "http://127.0.0.1:$H1/?database=commd" -list -noheader \
	top --by host > "$TMP/top-fleet" 2> "$TMP/top-fleet.err" ||
	fail "fleet: commq --clickhouse top --by host" "exit 0" "$(cat "$TMP/top-fleet.err")"
"$COMMQ" --clickhouse "http://127.0.0.1:$H1/?database=commd" -list -noheader \
	latency --by host > "$TMP/lat-fleet" 2> "$TMP/lat-fleet.err" ||
	fail "fleet: commq --clickhouse latency --by host" "exit 0" "$(cat "$TMP/lat-fleet.err")"
for h in a b; do
	db=$([ "$h" = a ] && echo "$dba" || echo "$dbb")
	# (counts: the rounding of ms and us is each engine's own)
	want=$("$COMMQ" --db "$db" -q -list -noheader "SELECT count(*) FROM sched WHERE pid > 0")
	got=$(awk -F'|' -v h="host-$h" '$1 == h { print $2 }' "$TMP/top-fleet")
	check_eq "fleet: top --by host, host $h: slices as commq --db counts them" "$want" "$got"
	want=$("$COMMQ" --db "$db" -q -list -noheader "SELECT count(*) FROM wakeup_latency")
	got=$(awk -F'|' -v h="host-$h" '$1 == h { print $2 }' "$TMP/lat-fleet")
	check_eq "fleet: latency --by host, host $h: wakeups as commq --db counts them" "$want" "$got"
	# percentiles by nearest rank, as the local report (quantileExact
	# took the next rank where p * n is whole); each engine rounds to
	# 0.1 us its own way
	for k in 50 90 99; do
		want=$(sqlite3 "$db" "SELECT latency FROM wakeup_latency ORDER BY latency
			LIMIT 1 OFFSET ((SELECT count(*) FROM wakeup_latency) * $k + 99) / 100 - 1")
		col=$((k == 50 ? 3 : k == 90 ? 4 : 5))
		got=$(awk -F'|' -v h="host-$h" -v c=$col '$1 == h { print $c }' "$TMP/lat-fleet")
		check_true "fleet: latency --by host, host $h: p$k as the local nearest rank ($want ns)" \
			"within 0.1 us" "${got:-none}" \
			awk -v w="${want:-0}" -v g="${got:-x}" 'BEGIN { d = w / 1e3 - g; exit !(g != "x" && d <= 0.051 && d >= -0.051) }' || true
	done
	want=$("$COMMQ" --db "$db" -q -list -noheader "SELECT sum(dur) FROM sched WHERE pid > 0")
	got=$("$COMMQ" --clickhouse "http://127.0.0.1:$H1/?database=commd" -list -noheader \
		"SELECT sum(dur) FROM sched FINAL WHERE pid > 0 AND host = 'host-$h'" 2>&1)
	check_eq "fleet: CPU time (ns), host $h: ClickHouse as SQLite" "$want" "$got"
done
got=$("$COMMQ" --clickhouse "http://127.0.0.1:$H1/?database=commd" -list -noheader \
	"SELECT count() FROM sched_switch FINAL WHERE boot = '$boot'" 2>&1)
want=$(( $(sqlite3 "$dba" "SELECT count(*) FROM sched_switch") + $(sqlite3 "$dbb" "SELECT count(*) FROM sched_switch") ))
check_eq "fleet: commq --clickhouse SQL: both hosts' switches" "$want" "$got"

# An earlier boot's backlog: host E captures without shipping, the
# machine "reboots" (its capture is filed under another boot id, as a
# real reboot leaves it: ended, before this boot's captures in ts), and
# host E starts again shipping: the earlier boot's rows go under their
# own boot, none missing and none twice across the two.
log "an earlier boot's backlog"
ine=$(inst fe)
dbe=$TMP/e.db
start_ready "fleet host E, not shipping" "$TMP/e1.err" "$dbe" "$ine" --commit-ms 200
pid_e=$COMMD_PID
start_load 2
sleep 2
stop_load
stop_commd "$pid_e" TERM
sqlite3 "$dbe" "UPDATE capture SET boot = 'an-earlier-boot'" ||
	fail "fleet: host E's capture filed under an earlier boot" "sqlite3 exit 0" "failed"
end1=$(sqlite3 "$dbe" "SELECT end_ts FROM capture WHERE boot = 'an-earlier-boot'")
# a loss of the earlier boot, a second before its end: this boot began
# less than a minute after it (in ts, as after a quick reboot), and the
# rows just before a boot's first capture are looked at as its own
sqlite3 "$dbe" "INSERT INTO lost_events (cpu, ts, count) VALUES (0, $end1 - 1000000000, 7)" ||
	fail "fleet: host E's earlier boot: a loss stored" "sqlite3 exit 0" "failed"
start_ready "fleet host E, shipping" "$TMP/e2.err" "$dbe" "$ine" --commit-ms 200 \
	--clickhouse "http://127.0.0.1:$H1/?database=commd" --host-name "host-e"
pid_e=$COMMD_PID
start_load 2
sleep 2
stop_load
stop_commd "$pid_e" TERM
check_eq "fleet: host E commd exit status after SIGTERM" 0 "$STOP_RC"
for t in sched_switch sched_waking sched_stat_runtime sched wakeup_latency lost_events; do
	want=$(sqlite3 "$dbe" "SELECT count(*), coalesce(sum(ts % 1000003), 0) FROM $t WHERE ts <= $end1" | tr '|' ' ')
	got=$(ch_query 1 "SELECT count(), sum(ts % 1000003) FROM commd.$t FINAL WHERE host = 'host-e' AND boot = 'an-earlier-boot'" | tr '\t' ' ')
	check_eq "fleet: host E's earlier boot: $t rows (count, sum of ts mod 1000003) in ClickHouse as in SQLite up to its end" \
		"$want" "$got"
	want=$(sqlite3 "$dbe" "SELECT count(*) FROM $t")
	got=$(ch_query 1 "SELECT count() FROM commd.$t FINAL WHERE host = 'host-e'")
	check_eq "fleet: host E, both boots: $t rows, none missing and none twice" "$want" "$got"
done
check_eq "fleet: host E's earlier boot: its capture row" 1 \
	"$(ch_query 1 "SELECT count() FROM commd.capture FINAL WHERE host = 'host-e' AND boot = 'an-earlier-boot'")"

# A CPU whose slice stays open (host F): the highest CPU that can go
# offline is taken offline for 6 to 40 s while the load runs on the others, so
# the slice it last began has no end until it comes back (it then ends at
# the CPU's last event before, the rest being unknown time). Its rows
# wait for that end; the other CPUs' rows do not (they are in ClickHouse
# while it is still offline; a shipper that held every CPU's rows at the
# oldest open slice, and stopped waiting for one after 60 s, lost that
# slice's row when it ended later), and once it is back nothing is
# missing: every CPU's sched rows in ClickHouse equal SQLite's.
log "a CPU offline for 6 to 40 s while shipping"
cpu_off=
for c in $(seq "$(($(nproc --all) - 1))" -1 1); do
	if [ -w "/sys/devices/system/cpu/cpu$c/online" ] &&
	   [ "$(cat "/sys/devices/system/cpu/cpu$c/online")" = 1 ]; then
		cpu_off=$c
		break
	fi
done
if [ -z "$cpu_off" ]; then
	log "no CPU here can go offline (one CPU, or no CPU hotplug): the open-slice check is not run"
else
	_cpu_back() { echo 1 > "/sys/devices/system/cpu/cpu$cpu_off/online" 2> /dev/null || true; }
	CLEANUP_HOOKS=(_cpu_back "${CLEANUP_HOOKS[@]}")
	inf=$(inst ff)
	dbf=$TMP/f.db
	start_ready "fleet host F" "$TMP/f.err" "$dbf" "$inf" --commit-ms 200 \
		--clickhouse "http://127.0.0.1:$H1/?database=commd" --host-name "host-f"
	pid_f=$COMMD_PID
	start_load 24
	sleep 2
	echo 0 > "/sys/devices/system/cpu/cpu$cpu_off/online"
	sleep 0.3
	t_off=$(sqlite3 "$dbf" "SELECT max(ts) FROM ev_sched_switch WHERE cpu = $cpu_off")
	# (up to 40 s: the newest event, less the 2 s that make a row final,
	# moves in steps of seconds under this load, and everything runs on
	# the CPU left, a slow build's shipper at nice 10 too)
	for ((i = 0; i < 100; i++)); do
		sleep 0.4
		got=$(ch_query 1 "SELECT count() FROM commd.sched FINAL WHERE host = 'host-f' AND cpu <> $cpu_off AND ts > ${t_off:-0} + 1000000000" 2> "$TMP/f-query.err") ||
			got="ClickHouse: $(head -c 300 "$TMP/f-query.err")"
		[[ $got =~ ^[0-9]+$ ]] && [ "$got" -gt 0 ] && [ "$i" -ge 14 ] && break
	done
	echo 1 > "/sys/devices/system/cpu/cpu$cpu_off/online"
	n_after=$got
	[[ $n_after =~ ^[0-9]+$ ]] || n_after=0
	check_true "fleet: host F, cpu$cpu_off offline: the other CPUs' slices more than 1 s after it went offline are in ClickHouse" \
		"> 0 rows" "${got:-none}" test "$n_after" -gt 0
	sleep 2
	stop_load
	stop_commd "$pid_f" TERM
	check_eq "fleet: host F commd exit status after SIGTERM" 0 "$STOP_RC"
	want=$(sqlite3 "$dbf" "SELECT group_concat(cpu || ':' || n, ' ') FROM (SELECT cpu, count(*) AS n FROM sched GROUP BY cpu ORDER BY cpu)")
	got=$(ch_query 1 "SELECT arrayStringConcat(groupArray(concat(toString(cpu), ':', toString(n))), ' ') FROM (SELECT cpu, count() AS n FROM commd.sched FINAL WHERE host = 'host-f' GROUP BY cpu ORDER BY cpu)")
	check_eq "fleet: host F: sched rows per CPU (cpu:rows), ClickHouse as SQLite" "$want" "$got"
	want=$(sqlite3 "$dbf" "SELECT count(*) || ' ' || coalesce(sum(dur), 0) FROM sched WHERE cpu = $cpu_off AND ts = ${t_off:-0}")
	got=$(ch_query 1 "SELECT concat(toString(count()), ' ', toString(ifNull(sum(dur), 0))) FROM commd.sched FINAL WHERE host = 'host-f' AND cpu = $cpu_off AND ts = ${t_off:-0}")
	check_true "fleet: host F: the slice cpu$cpu_off began last before it went offline is stored" "1 row" "$want" \
		test "${want%% *}" = 1
	check_eq "fleet: host F: that slice (rows, ns) in ClickHouse as in SQLite" "$want" "$got"
	_cpu_back
fi

# A wakeup that waits longer than a row takes to be final (host G): a
# SCHED_FIFO task of priority 5 sleeps 0.5 s on a CPU that one of
# priority 10 keeps for 4 s (RT throttling gives the rest to fair tasks,
# not to it), so its wakeup's latency is about 3.5 s. Its wakeup_latency
# row is keyed by the waking's ts and stored when the task runs, after a
# shipper that passes rows 2 s old has passed that ts; the shipper holds
# wakeup_latency back to the oldest wakeup still pending (before, the row
# stayed in SQLite alone).
log "a wakeup that waits 3.5 s while shipping"
cpu_hog=$(($(nproc) - 1))
ing=$(inst fg)
dbg=$TMP/g.db
start_ready "fleet host G" "$TMP/g.err" "$dbg" "$ing" --commit-ms 200 \
	--clickhouse "http://127.0.0.1:$H1/?database=commd" --host-name "host-g"
pid_g=$COMMD_PID
sleep 1
/usr/bin/python3 - "$cpu_hog" > "$TMP/g-hog.out" 2>&1 <<'PY' || fail "fleet: host G: the hog runs" "exit 0" "$(tail -n 3 "$TMP/g-hog.out")"
import os, sys, time
cpu = int(sys.argv[1])
os.sched_setaffinity(0, {cpu})
r, w = os.pipe()
child = os.fork()
if child == 0:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(5))
    os.write(w, b"x")
    time.sleep(0.5)
    os._exit(0)
os.read(r, 1)
time.sleep(0.1)         # the child is asleep
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
end = time.monotonic() + 4
while time.monotonic() < end:
    pass
os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
os.waitpid(child, 0)
PY
sleep 3
# and its last round finds ClickHouse away: server 1 is killed before the
# SIGTERM and started 3 s after it; the last round is tried again while
# the daemon waits, and every row arrives (before, one failed last round
# left the rest for the next start)
ch_kill 1 KILL
kill -TERM "$pid_g"
sleep 3
ch_start 1 || fail "fleet: ClickHouse server 1 starts again (host G's last round)" "it answers" "no"
stop_commd "$pid_g" 0
check_eq "fleet: host G commd exit status after SIGTERM" 0 "$STOP_RC"
check_true "fleet: host G's last round failed at first, then shipped (its log)" \
	"clickhouse: shipping again after N failures" "$(grep -c clickhouse "$TMP/g.err") lines" \
	grep -q "clickhouse: shipping again after" "$TMP/g.err"
/usr/bin/python3 "$(dirname "$0")/fleet-compare.py" "$dbg" host-g "$boot" "$H1" \
	> "$TMP/compare-g" 2>&1 && rc=0 || rc=$?
log "host g: $(grep -a "FAIL\|comm_history\|wakeup_latency" "$TMP/compare-g" | tr '\n' ';')"
check_eq "fleet: host G, its last round tried again: every table in ClickHouse equals SQLite (fleet-compare.py)" 0 "$rc"
want=$(sqlite3 "$dbg" "SELECT count(*) || ' ' || sum(latency > 2000000000) FROM wakeup_latency")
check_true "fleet: host G: a wakeup latency over 2 s stored" "> 0 of them" "$want" \
	test "${want##* }" -gt 0
got=$(ch_query 1 "SELECT concat(toString(count()), ' ', toString(countIf(latency > 2000000000))) FROM commd.wakeup_latency FINAL WHERE host = 'host-g'")
check_eq "fleet: host G: wakeup_latency rows (all, over 2 s), ClickHouse as SQLite" "$want" "$got"

# Retention while ClickHouse is away (host C ships to a port nobody
# listens on): by age nothing unshipped is cut; by size (max-db-mb 1)
# the cut is counted, and once ClickHouse answers a row in gaps says
# which span is missing.
log "retention while ClickHouse is away"
inc=$(inst fc)
start_ready "fleet host C" "$TMP/c.err" "$TMP/c.db" "$inc" --commit-ms 200 --max-age 2s \
	--clickhouse "http://127.0.0.1:$((base + 8))/?database=commd" --host-name "host-c"
pid_c=$COMMD_PID
start_load 6
sleep 6
stop_load
span=$(sqlite3 "$TMP/c.db" "SELECT (max(ts) - min(ts)) / 1000000000 FROM ev_sched_switch")
check_true "fleet: --max-age 2s cuts nothing while nothing is shipped" ">= 4 s of switches kept" \
	"$span s" test "${span:-0}" -ge 4
stop_commd "$pid_c" TERM
check_eq "fleet: host C commd exit status after SIGTERM" 0 "$STOP_RC"
ind=$(inst fd)
start_ready "fleet host D" "$TMP/d.err" "$TMP/d.db" "$ind" --commit-ms 200 --max-db-mb 1 \
	--clickhouse "http://127.0.0.1:$H1/?database=commd" --host-name "host-d"
pid_d=$COMMD_PID
ch_kill 1 KILL
start_load 8
sleep 8
stop_load
cut=$(sqlite3 "$TMP/d.db" "SELECT coalesce(max(value), 0) FROM stats WHERE name = 'unshipped_cut'")
check_true "fleet: --max-db-mb cut unshipped switches while ClickHouse was away, and counted them" \
	"stats unshipped_cut > 0" "$cut" test "${cut:-0}" -gt 0
ch_start 1 || fail "fleet: ClickHouse server 1 starts again" "it answers" "no"
for ((i = 0; i < 100; i++)); do
	n=$(ch_query 1 "SELECT count() FROM commd.gaps FINAL WHERE host = 'host-d'" 2> /dev/null || echo 0)
	[ "${n:-0}" -gt 0 ] && break
	sleep 0.2
done
check_true "fleet: a row in gaps says what was cut before it was shipped" "> 0 rows" "${n:-0}" \
	test "${n:-0}" -gt 0
stop_commd "$pid_d" TERM
check_eq "fleet: host D commd exit status after SIGTERM" 0 "$STOP_RC"
# every cut's count added up (each says it: "cutting N switches not yet
# shipped"), not the last one's alone; read once commd stopped (a cut
# goes on while it runs)
cut=$(sqlite3 "$TMP/d.db" "SELECT coalesce(max(value), 0) FROM stats WHERE name = 'unshipped_cut'")
cuts=$(grep -c "switches not yet shipped" "$TMP/d.err" || true)
logged=$(sed -n 's/.*cutting \([0-9]*\) switches not yet shipped.*/\1/p' "$TMP/d.err" |
	awk '{ s += $1 } END { print s + 0 }')
check_eq "fleet: stats unshipped_cut is the sum of the $cuts cuts' counts" "$logged" "$cut"
check_true "fleet: ... of more than one cut" "> 1 cut" "$cuts" test "${cuts:-0}" -gt 1

cleanup_ch
for p in "$H1" "$T1" "$H2" "$T2"; do
	check_eq "fleet: port $p free after the stop" "" "$(ss -Hltn "sport = :$p")"
done
finish
