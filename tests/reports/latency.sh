#!/bin/bash
# commq latency: the log2 histogram (µs, runqlat's buckets) and the
# nearest-rank percentiles equal what awk computes from the raw
# wakeup_latency rows, for all wakeups, one comm, and a time window; the
# bar chart is scaled to the fullest bucket; -csv and -json give rows; the
# socket answers the same as --db.
set -euo pipefail
# shellcheck source=tests/reports/lib.sh
source "$(dirname "$0")/lib.sh"
import sched-v7
import sched-drops

# expected_histogram < latencies (ns, one a line) — "lo,hi,count" rows
# from slot 0 to the highest used, as runqlat prints them.
expected_histogram() {
	awk '
	{
		us = int($1 / 1000); slot = 0
		while (us >= 2) { us = int(us / 2); slot++ }
		n[slot]++; if (slot > max) max = slot; any = 1
	}
	END {
		if (!any) exit
		for (s = 0; s <= max; s++)
			printf "%.0f,%.0f,%d\n", s ? 2 ^ s : 0, 2 ^ (s + 1) - 1, n[s]
	}'
}

# expected_stats < latencies — "count,min,avg,p50,p90,p99,max" in ns,
# percentiles by nearest rank: the value at rank ceil(p/100 * n).
expected_stats() {
	sort -n | awk '
	{ v[NR] = $1; sum += $1 }
	END {
		n = NR
		if (!n) { print "0,,,,,,"; exit }
		printf "%d,%s,%.6f", n, v[1], sum / n
		split("50 90 99", p, " ")
		for (i = 1; i <= 3; i++) {
			r = int((n * p[i] + 99) / 100)
			printf ",%s", v[r]
		}
		printf ",%s\n", v[n]
	}'
}

# check_stats NAME EXPECTED GOT — GOT is the report's last csv line
# (wakeups,min_us,avg_us,p50_us,p90_us,p99_us,max_us).
check_stats() {
	local out
	out=$(awk -F, -v e="$2" -v g="$3" 'BEGIN {
		split(e, x, ","); split(g, y, ",")
		split("wakeups min avg p50 p90 p99 max", name, " ")
		if (x[1] != y[1]) print "wakeups " y[1] " != " x[1]
		for (i = 2; i <= 7; i++) {
			if (x[i] == "" || y[i] == "") {
				if (x[i] != y[i]) print name[i] ": " y[i] " != " x[i]
				continue
			}
			d = y[i] * 1000 - x[i]; if (d < 0) d = -d
			if (d > (i == 3 ? 0.51 : 0.001))
				print name[i] ": " y[i] " us != " x[i] " ns"
		}
	}')
	[[ -z $out ]] || fail "$1: $out"
}

for fixture in sched-v7 sched-drops; do
	DB=$T/$fixture.db
	base=$(ref "$DB" "select min(start_ts) from capture")
	for filter in all comm window; do
		case $filter in
		all)
			where=1 args=() ;;
		comm)
			where="comm = 'sched-messaging'"
			args=(--comm sched-messaging) ;;
		window)
			where="ts >= $((base + 10000000)) and ts < $((base + 30000000))"
			args=(--from +10ms --to +30ms) ;;
		esac
		name="latency $fixture $filter"
		ref "$DB" "select latency from wakeup_latency where $where" \
			>"$T/latencies"
		[[ -s $T/latencies ]] || fail "$name: the fixture has no wakeups"
		expected_histogram <"$T/latencies" >"$T/expected"
		commq_ok "$name" --db "$DB" -csv -noheader latency "${args[@]}"
		# csv: the histogram's rows, then the statistics' row
		head -n -1 "$T/got" >"$T/hist"
		expect_same "$name: histogram" "$T/expected" "$T/hist"
		check_stats "$name: percentiles" \
			"$(expected_stats <"$T/latencies")" "$(tail -n 1 "$T/got")"
		# column mode: the same counts as a bar chart, 40 stars for
		# the fullest bucket, the others in proportion (rounded down)
		commq_ok "$name (chart)" --db "$DB" latency "${args[@]}"
		awk -F'[:|]' '/->/ {
			split($1, r, "->"); gsub(/ /, "", r[1]); gsub(/ /, "", r[2])
			gsub(/ /, "", $2); stars = $3; gsub(/[^*]/, "", stars)
			print r[1] "," r[2] "," $2 "," length(stars) "," length($3)
		}' "$T/got" >"$T/chart"
		max=$(cut -d, -f3 "$T/expected" | sort -n | tail -n 1)
		awk -F, -v max="$max" '{ printf "%s,%d,40\n", $0, int($3 * 40 / max) }' \
			"$T/expected" >"$T/expected_chart"
		expect_same "$name: bar chart" "$T/expected_chart" "$T/chart"
		grep -q '^     usecs               : count    distribution$' "$T/got" ||
			fail "$name: the chart has no runqlat header"
		grep -q '^wakeups  *min_us  *avg_us  *p50_us  *p90_us  *p99_us  *max_us' "$T/got" ||
			fail "$name: no percentile table after the chart"
	done
done

DB=$T/sched-v7.db
# json: two arrays, each valid
commq_ok latency_json --db "$DB" -json latency
expect_eq "latency json arrays" 2 "$(grep -c '^\[' "$T/got")"
awk '/^\[/ { n++ } { print > (dir "/part" n ".json") }' dir="$T" "$T/got"
for part in 1 2; do
	expect_eq "latency json $part valid" 1 \
		"$(ref :memory: "select json_valid(readfile('$T/part$part.json'))")"
done
grep -q '^\[{"usecs_lo":0,"usecs_hi":1,"count":[0-9]*},$' "$T/part1.json" ||
	fail "latency json: histogram keys: $(head -n 1 "$T/part1.json")"
grep -q '^\[{"wakeups":[0-9]*,"min_us":' "$T/part2.json" ||
	fail "latency json: statistics keys: $(head -n 1 "$T/part2.json")"

# nothing to count: no chart, a row of zero wakeups
commq_ok latency_none --db "$DB" latency --comm no-such-comm
grep -q distribution "$T/got" && fail "latency_none: a chart with no wakeups"
commq_ok latency_none_csv --db "$DB" -csv latency --comm no-such-comm
expect_eq latency_none_csv "wakeups,min_us,avg_us,p50_us,p90_us,p99_us,max_us
0,,,,,," "$(cat "$T/got")"
# a quote in the name is SQL-quoted, not SQL
commq_ok latency_quote --db "$DB" -csv -noheader latency --comm "it's"
expect_eq latency_quote "0,,,,,," "$(cat "$T/got")"
# csv: two results, each with its header (unless -noheader)
commq_ok latency_csv_headers --db "$DB" -csv latency
expect_eq "latency csv: a header line per result" \
	"1:usecs_lo,usecs_hi,count $(( $(wc -l <"$T/got") - 1 )):wakeups,min_us,avg_us,p50_us,p90_us,p99_us,max_us" \
	"$(grep -n '[a-z]' "$T/got" | tr '\n' ' ' | sed 's/ $//')"

# the socket answers as the file does
start_fake_server "$DB"
for args in "" "--comm sched-messaging" "--from +5ms --to +15ms"; do
	for mode in -column -csv; do
		# shellcheck disable=SC2086
		commq_ok "latency_file $args $mode" --db "$DB" $mode latency $args
		cp "$T/got" "$T/file"
		# shellcheck disable=SC2086
		commq_ok "latency_socket $args $mode" --socket "$SOCK" $mode latency $args
		expect_same "latency_socket_same_as_file $args $mode" "$T/file" "$T/got"
	done
done

# the percentiles run on a connection of their own while the histogram
# runs (and the look for the window's warnings on a third, without -q);
# where the server refuses the second connection (a user's share of them
# taken), they run on the report's own after it: the same answer either
# way, the percentiles sent once unless refused
PCT='o AS MATERIALIZED (SELECT latency FROM l ORDER BY latency)'
for q in "" -q; do
	for mode in -column -csv; do
		# shellcheck disable=SC2086
		commq_ok "latency_file $q $mode" --db "$DB" $q $mode latency
		cp "$T/got" "$T/file"
		: >"$T/server.log"
		# shellcheck disable=SC2086
		commq_ok "latency_beside $q $mode" --socket "$SOCK" $q $mode latency
		expect_same "latency_beside_same_as_file $q $mode" "$T/file" "$T/got"
		expect_eq "latency $q $mode: connections" "$([[ $q ]] && echo 2 || echo 3)" \
			"$(grep -c '^connection' "$T/server.log")"
		expect_eq "latency $q $mode: the percentiles sent once" 1 "$(grep -cF "$PCT" "$T/server.log")"
	done
done
stop_fake_server
rm -f "$SOCK"
# a failure of the percentiles' own (a deadline, say) is the report's:
# said, and not run a second time on the first connection
export FAKE_FAIL_MATCH=$PCT
start_fake_server "$DB"
unset FAKE_FAIL_MATCH
: >"$T/server.log"
rc=0
"$COMMQ" --socket "$SOCK" latency >"$T/out" 2>"$T/err" </dev/null || rc=$?
expect_eq "latency, the percentiles failing: exit status" 1 "$rc"
expect_eq "latency, the percentiles failing: the error said" 1 "$(grep -c 'FAKE_FAIL_MATCH' "$T/err")"
expect_eq "latency, the percentiles failing: sent once" 1 "$(grep -cF "$PCT" "$T/server.log")"
stop_fake_server
rm -f "$SOCK"
export FAKE_MAX_CONNS=1
start_fake_server "$DB"
unset FAKE_MAX_CONNS
for mode in -column -csv; do
	commq_ok "latency_file $mode" --db "$DB" $mode latency
	cp "$T/got" "$T/file"
	: >"$T/server.log"
	commq_ok "latency_refused $mode" --socket "$SOCK" $mode latency
	expect_same "latency_refused_same_as_file $mode" "$T/file" "$T/got"
	expect_eq "latency $mode, the second and third connections refused: they were" 2 \
		"$(grep -c '^over FAKE_MAX_CONNS' "$T/server.log")"
	expect_eq "latency $mode, refused: the percentiles on the first" 2 \
		"$(grep -cF "$PCT" "$T/server.log")"
done

# latency --by pid --preempt: the waits that begin in the window, a
# wakeup's (wakeup_latency) or a preemption's (preempt_wait), however far
# past --to the wait ends; windows across sched-v7, each cutting waits
DB=$T/sched-v7.db
read -r first last <<<"$(ref "$DB" "select min(ts) || ' ' || max(ts) from sched")"
cut=0
for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
	lo=$((first + (last - first) * k / 13)) hi=$((first + (last - first) * k / 13 + 200000))
	want=$(ref "$DB" "select (select count(*) from wakeup_latency where ts >= $lo and ts < $hi)
		+ (select count(*) from preempt_wait where ts >= $lo and ts < $hi)")
	cut=$((cut + $(ref "$DB" "select count(*) from preempt_wait
		where ts >= $lo and ts < $hi and ts + dur >= $hi")))
	commq_ok "latency_preempt $k" --db "$DB" -q -csv -noheader latency --by pid --preempt \
		--from "$lo" --to "$hi"
	expect_eq "latency --by pid --preempt [$lo, $hi): waits" "$want" \
		"$(awk -F, '{ n += $5 } END { print n + 0 }' "$T/got")"
done
[[ $cut -gt 0 ]] || fail "latency_preempt: no window cuts a preemption wait ($cut)"

# A preemption wait whose task is woken 5 µs after it left the CPU in
# plain R was a sleep (preempt_wait, schema 028), also when the slice
# that ends it is a dv_sched row of its own (its start inferred: the
# wakeup on that row, not on a switch). The report read the switch's row
# alone and counted it as a preemption.
DB2=$T/preempt-dv.db
cp "$DB" "$DB2"
read -r pts pdur ppid <<<"$(ref -separator ' ' "$DB2" "select p.ts, p.dur, p.pid from preempt_wait p
	join ev_sched_switch e on e.ts = p.ts + p.dur and e.next_pid = p.pid and e.slice_dur is not null
	where p.pid > 0 order by p.ts limit 1")"
ref -bail "$DB2" "BEGIN;
	INSERT INTO dv_sched (ts, cpu, n, dur, hid, prio, end_state, lost, wake_latency)
	SELECT ts, cpu, 0, slice_dur, next_hid, next_prio, slice_state, 0, ts - ($pts + 5000)
	FROM ev_sched_switch WHERE ts = $pts + $pdur AND next_pid = $ppid;
	UPDATE ev_sched_switch SET slice_dur = NULL, slice_state = NULL
	WHERE ts = $pts + $pdur AND next_pid = $ppid; COMMIT;" || fail "making the dv_sched slice"
expect_eq "preempt-dv.db: the wait at $pts is no preemption wait in the view" 0 \
	"$(ref "$DB2" "select count(*) from preempt_wait where ts = $pts and pid = $ppid")"
commq_ok "latency_preempt dv" --db "$DB2" -q -csv -noheader latency --by pid --preempt
expect_eq "latency --by pid --preempt, a sleep before a slice of its own: waits as the views" \
	"$(ref "$DB2" "select (select count(*) from wakeup_latency) + (select count(*) from preempt_wait)")" \
	"$(awk -F, '{ n += $5 } END { print n + 0 }' "$T/got")"
finish
