#!/bin/bash
# --sql prints each report's SQL without touching a database; that SQL
# runs as it is in the sqlite3 shell and gives what the report prints.
# Times for --from/--to: units, bare seconds, ns timestamps, '+' from the
# capture start (else from the first slice), ISO 8601 times of day mapped
# with clock_map, --last, and clear refusals (a time outside every
# capture among them).
set -euo pipefail
# shellcheck source=tests/reports/lib.sh
source "$(dirname "$0")/lib.sh"
import sched-drops
DB=$T/sched-drops.db
pid=$(ref "$DB" "select pid from comm_history where comm = 'sched-messaging' limit 1")

reports=(
	"top"
	"top --by process --from +10ms --to +50ms"
	"top --by cpu --from 181.1 --to 181.15s"
	"latency"
	"latency --comm sched-messaging --from +20ms"
	"top --last 30ms"
	"latency --last 1s"
	"history $pid"
	"lost"
)
# Printing the SQL needs no database: not even a socket.
export COMMD_SOCKET=$T/no-such-socket
for r in "${reports[@]}"; do
	# shellcheck disable=SC2086
	commq_ok "sql $r" --sql $r
	cp "$T/got" "$T/q.sql"
	[[ -s $T/q.sql ]] || fail "sql $r: nothing printed"
	expect_eq "sql $r: ends a statement" ";" "$(tail -c 2 "$T/q.sql" | head -c 1)"
	ref -csv "$DB" <"$T/q.sql" >"$T/expected" 2>"$T/sqlite.err" ||
		fail "sql $r: sqlite3 refused it: $(cat "$T/sqlite.err")"
	# shellcheck disable=SC2086
	commq_ok "run $r" --db "$DB" -csv -noheader $r
	expect_same "sql $r: sqlite3 gives what the report prints" \
		"$T/expected" "$T/got"
done
# the timeline's SQL: five statements that sqlite3 runs
commq_ok "sql timeline" --sql timeline --from +1ms
ref -csv "$DB" <"$T/got" >"$T/rows" 2>"$T/sqlite.err" ||
	fail "sql timeline: sqlite3 refused it: $(cat "$T/sqlite.err")"
base=$(ref "$DB" "select min(start_ts) from capture")
expect_eq "sql timeline: the window first" "$((base + 1000000))" \
	"$(head -n 1 "$T/rows" | cut -d, -f1)"
expect_eq "sql timeline: statements" 5 "$(grep -c ';$' "$T/got")"
# --sql after the report's options, before them, with -o: all the same
commq_ok "sql order" top --by cpu --sql
cp "$T/got" "$T/a"
commq_ok "sql order 2" --sql top --by=cpu
expect_same "sql anywhere" "$T/a" "$T/got"
unset COMMD_SOCKET

# time_sql TIME — the SQL value --from TIME gives the window (from the
# retention cutoff on: max(cutoff, TIME)).
cutoff="(SELECT coalesce(max(value), 0) FROM stats WHERE name IN ('retention_cutoff_ts', 'retention_target_ts') AND capture IS NULL)"
time_sql() {
	"$COMMQ" --sql top --from "$1" 2>&1 | head -n 1 |
		sed -n 's/^WITH w0(lo, hi) AS (SELECT \(.*\), 9223372036854775807),$/\1/p' |
		awk -v p="max($cutoff, " '{ if (index($0, p) == 1 && substr($0, length($0)) == ")")
			print substr($0, length(p) + 1, length($0) - length(p) - 1); else print "unclipped: " $0 }'
}
rel="(coalesce((SELECT min(start_ts) FROM capture), (SELECT min(ts) FROM (SELECT min(ts) AS ts FROM ev_sched_switch WHERE slice_dur IS NOT NULL UNION ALL SELECT min(ts) FROM dv_sched))) +"
while read -r input want; do
	[[ $want == REL* ]] && want="$rel ${want#REL })"
	expect_eq "time $input" "$want" "$(time_sql "$input")"
done <<EOF
1.5 1500000000
2 2000000000
.5 500000000
5. 5000000000
1.5s 1500000000
150ms 150000000
0.25ms 250000
20us 20000
20µs 20000
1.5us 1500
123ns 123
0ns 0
0.000000001 1
0.000000001s 1
999999999 999999999000000000
171094783149 171094783149
1234567890 1234567890
+2s REL 2000000000
+150ms REL 150000000
+0 REL 0
+1234567890 REL 1234567890
EOF

for bad in "" abc 1x 1.5ns 1.0000000001s 1e3 -1 + +s 1.2.3 "1 s" 10S 9223372036854775808ns 181073560268s; do
	expect_failure "bad time [$bad]" 2 "--from" --db "$DB" top --from "$bad"
done
expect_failure "time too large" 2 "too large" --sql top --to 9223372036854775808ns
expect_failure "sub-ns" 2 "precise to the nanosecond" --sql top --to 1.5ns
expect_failure "from after to" 2 "--from must be before --to" --sql top --from 2s --to 1s
expect_failure "empty window" 2 "--from must be before --to" --sql top --from +1ms --to +1ms

# '+' counts from the capture start, else from the first slice
# plus_is WHAT DB ZERO: top over +10ms..+20ms of DB equals top over the
# absolute ZERO + 10 ms .. ZERO + 20 ms
plus_is() {
	commq_ok "rel $1" --db "$2" -csv top --from +10ms --to +20ms
	cp "$T/got" "$T/rel"
	commq_ok "abs $1" --db "$2" -csv top --from "$(($3 + 10000000))" \
		--to "$(($3 + 20000000))ns"
	expect_same "'+' from $1" "$T/got" "$T/rel"
}
plus_is "capture.start_ts" "$DB" "$base"
# (a capture whose start lies 3 ms before its first slice, so that the
# two rules differ: each CPU's first slice starts at its first event)
cp "$DB" "$T/early.db"
ref "$T/early.db" "update capture set start_ts = start_ts - 3000000"
plus_is "an earlier capture.start_ts" "$T/early.db" "$((base - 3000000))"
cp "$T/early.db" "$T/nocapture.db"
ref "$T/nocapture.db" "delete from capture"
first=$(ref "$DB" "select min(ts) from sched")
((first > base - 3000000)) || fail "the first slice should come after the capture start"
plus_is "the first slice without a capture row" "$T/nocapture.db" "$first"

# A time of day (ISO 8601), mapped with the clock readings: a reading
# says trace-clock $base is 2026-12-01T10:00:00.000000000Z, so
# 10:00:00.010Z is base + 10 ms, in every zone's spelling.
cp "$DB" "$T/wall.db"
cap=$(ref "$T/wall.db" "select max(id) from capture")
epoch=$(date -u -d 2026-12-01T10:00:00Z +%s)
ref "$T/wall.db" "insert into clock_map values ($cap, $base, ${epoch}000000000 - $base * 0, 500)"
ref "$T/wall.db" "update clock_map set realtime = ${epoch}000000000"
commq_ok wall_rel --db "$T/wall.db" -csv top --from +10ms --to +20ms
cp "$T/got" "$T/rel"
for spelling in "2026-12-01T10:00:00.010Z|2026-12-01T10:00:00.02Z" \
	"2026-12-01T11:00:00.010+01:00|2026-12-01T11:00:00.020+0100" \
	"2026-12-01 09:00:00.010-01|2026-12-01T10:00:00.020000000z"; do
	IFS='|' read -r from to <<<"$spelling"
	commq_ok "wall $from" --db "$T/wall.db" -csv top --from "$from" --to "$to"
	expect_same "--from $from --to $to = +10ms..+20ms" "$T/rel" "$T/got"
done
# without a zone: the local time (TZ)
TZ=EST5 commq_ok wall_local_est --db "$T/wall.db" -csv top \
	--from "2026-12-01T05:00:00.010" --to "2026-12-01T05:00:00.020"
expect_same "local time (TZ=EST5) 05:00:00.010 = 10:00:00.010Z" "$T/rel" "$T/got"
# its SQL runs in the sqlite3 shell
commq_ok wall_sql --sql top --from 2026-12-01T10:00:00.010Z --to 2026-12-01T10:00:00.020Z
ref -csv "$T/wall.db" <"$T/got" >"$T/expected"
commq_ok wall_run --db "$T/wall.db" -csv -q top --from 2026-12-01T10:00:00.010Z \
	--to 2026-12-01T10:00:00.020Z
expect_same "wall --sql in sqlite3" "$T/expected" "$T/got"
# outside every capture, or no readings: an error that says so
expect_failure "wall before the capture" 1 "outside every capture" \
	--db "$T/wall.db" top --from 2026-11-30T10:00:00Z
expect_failure "ns outside the capture" 1 "--to 5s: outside every capture" \
	--db "$T/wall.db" top --to 5s
expect_failure "no clock readings" 1 "no clock readings to map a time of day" \
	--db "$DB" top --from 2026-12-01T10:00:00Z
expect_failure "bad date" 2 "a date and time is YYYY-MM-DDTHH:MM" \
	--sql top --from 2026-13-01T10:00:00Z
expect_failure "bad zone" 2 "a date and time is" --sql top --from 2026-12-01T10:00:00+1
# --last D: the D up to the newest event
newest=$(ref "$DB" "select max(m) from (select max(ts) as m from sched_switch
	union all select max(end_ts) from capture)")
commq_ok last --db "$DB" -csv top --last 30ms
cp "$T/got" "$T/last"
commq_ok last_abs --db "$DB" -csv top --from "$((newest - 30000000))ns"
expect_same "--last 30ms = --from newest - 30 ms" "$T/got" "$T/last"
expect_failure "--last with --from" 2 "--last covers the window up to the newest event" \
	--sql top --from +1s --last 1s
expect_failure "--from after --last" 2 "it takes no --from or --to" \
	--sql top --last 1s --to 5s
expect_failure "--last a date" 2 "--last takes a duration" --sql top --last 2026-12-01T10:00:00Z
expect_failure "--last relative" 2 "--last takes a duration" --sql top --last +1s

# the rule is in --help
"$COMMQ" --help >"$T/help"
for word in "Times T" "+2s" "10" "capture start" "top [--by comm|process|thread|cpu|cgroup]" \
	"ISO 8601" "--last D" "outside every capture" \
	"latency [--comm NAME]" "history PID" "timeline [--from T] [--to T] [--last D] -o FILE"; do
	grep -qF -- "$word" "$T/help" || fail "--help does not say [$word]"
done

# report options belong to reports
expect_failure "report option with SQL" 2 "option for reports only: --by" \
	--db "$DB" --by cpu "select 1"
expect_failure "-- makes it SQL" 1 "syntax error" --db "$DB" -- top
expect_failure "comm is latency's" 2 "--comm is for 'commq latency'" --sql top --comm x
expect_failure "by is top's, util's and latency's" 2 "--by is for 'commq top', 'latency' and 'util'" --sql history 1 --by cpu
expect_failure "latency's --by" 2 "'commq latency' goes --by pid or --by comm" --sql latency --by cpu
expect_failure "-o is timeline's" 2 "-o and --width are for 'commq timeline'" --sql lost -o x.svg
expect_failure "no -f" 2 "a report reads no -f" --sql lost -f x.sql
expect_failure "bad --by" 2 "--by takes comm, process, thread, cpu, pid, cgroup or host" --sql top --by task
expect_failure "top --by pid" 2 "(a pid's lifetime: --by thread)" --sql top --by pid

finish
