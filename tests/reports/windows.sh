#!/bin/bash
# A report's window starts with the slice each CPU runs at lo, found by the
# CPU (schema 029): a step back of at most 100 ms through the time key,
# then the indexes of long slices and derived slices by CPU, never a read
# back through every CPU's rows to a start long before lo. Checked on
# sched-drops.dat imported and made four times as long (copies shifted
# past each other), where CPU 1 then idles for 200 ms in one long slice
# (the slices that began in it deleted, the one before stretched over
# them) and the capture says 4 CPUs (2 and 3 possible, never traced, as
# nosmt's siblings are):
#
#  - the report's statement finds the slices by the two indexes
#    (EXPLAIN QUERY PLAN), not by a scan of the switches;
#  - for windows inside the long slice, across its start and its end, just
#    past 100 ms into it and elsewhere: commq top --by cpu's busy and idle
#    time per CPU and top --by comm's time per comm are the sums of the
#    sched view's slices clipped to the window (the sqlite3 shell, a scan
#    of the whole view); CPUs 2 and 3 are in no row.
set -euo pipefail
# shellcheck source=tests/reports/lib.sh
source "$(dirname "$0")/lib.sh"
import sched-drops
DB=$T/sched-drops.db
TAB=$'\t'

# Four times as long: every table with a ts, copied past its rows twice.
tables=$(ref "$DB" "select m.name from sqlite_master m where m.type = 'table'
	and m.name <> 'capture' and exists (select 1 from pragma_table_info(m.name) p
	where p.name = 'ts')")
lo=$(ref "$DB" "select start_ts from capture")
for _ in 1 2; do
	hi=$(ref "$DB" "select max(end_ts $(for t in $tables; do printf ', (select coalesce(max(ts), 0) from %s)' "$t"; done)) from capture")
	span=$((hi - lo + 1000000))
	{
		echo "BEGIN;"
		for t in $tables; do
			cols=$(ref "$DB" "select group_concat(name, ', ') from pragma_table_info('$t') where name <> 'ts'")
			echo "INSERT INTO $t (ts, $cols) SELECT ts + $span, $cols FROM $t WHERE ts >= $lo AND ts <= $hi;"
		done
		echo "UPDATE capture SET end_ts = $((hi + span)); COMMIT;"
	} | ref -bail "$DB" || { fail "growing the database"; finish; }
done
end=$(ref "$DB" "select end_ts from capture")
expect_eq "the database spans 400 ms or more" 1 "$(( end - lo >= 400000000 ))"

# CPU 1 idles for 200 ms from its first switch 100 ms in: one long slice.
t1=$(ref "$DB" "select min(ts) from ev_sched_switch where cpu = 1 and ts >= $lo + 100000000
	and slice_dur is not null")
ref -bail "$DB" "BEGIN;
	DELETE FROM ev_sched_switch WHERE cpu = 1 AND ts > $t1 AND ts < $t1 + 200000000;
	DELETE FROM dv_sched WHERE cpu = 1 AND ts > $t1 AND ts < $t1 + 200000000;
	UPDATE ev_sched_switch SET slice_dur = min(
		(SELECT min(ts) FROM ev_sched_switch WHERE cpu = 1 AND ts > $t1),
		coalesce((SELECT min(ts) FROM dv_sched WHERE cpu = 1 AND ts > $t1), 1 << 62)) - ts
	WHERE cpu = 1 AND ts = $t1;
	UPDATE capture SET cpus = 4;
	COMMIT;"
long=$(ref "$DB" "select slice_dur from ev_sched_switch where cpu = 1 and ts = $t1")
expect_eq "CPU 1's slice at $t1 is long (200 ms or more)" 1 "$(( long >= 200000000 ))"
expect_eq "it is the only slice of CPU 1 overlapping its stretch" 1 \
	"$(ref "$DB" "select count(*) from sched where cpu = 1 and ts < $t1 + $long and ts + dur > $t1")"

# The statement's plan: the CPUs' slices at lo by the indexes.
commq_ok "top --sql" --db "$DB" top --by cpu --from $((t1 + 50000000)) --to $((t1 + 60000000)) --sql
ref "$DB" "EXPLAIN QUERY PLAN $(cat "$T/got")" >"$T/plan" 2>&1 || fail "EXPLAIN: $(cat "$T/plan")"
for index in ev_sched_switch_long dv_sched_cpu; do
	grep -q "USING .*INDEX $index " "$T/plan" ||
		fail "the plan of top --by cpu uses $index: $(grep -c . "$T/plan") lines, not it"
done
if grep -Eq "SCAN (e|d|ev_sched_switch|dv_sched)\b" "$T/plan"; then
	fail "the plan scans a table of slices whole: $(grep -E "SCAN (e|d|ev_sched_switch|dv_sched)\b" "$T/plan" | head -3)"
fi

# check_window NAME FROM TO — top --by cpu and --by comm against the
# slices clipped by the sqlite3 shell.
check_window() {
	local name=$1 a=$2 b=$3 clip
	clip="min(ts + dur, $b) - max(ts, $a)"
	ref -separator "$TAB" "$DB" "select cpu, sum(case when pid <> 0 then $clip else 0 end),
		sum(case when pid = 0 then $clip else 0 end) from sched
		where ts < $b and ts + dur > $a group by cpu order by cpu" >"$T/expected"
	commq_ok "$name: top --by cpu" --db "$DB" -list -noheader -separator "$TAB" \
		top --by cpu --from "$a" --to "$b"
	expect_eq "$name: top --by cpu's CPUs" "$(cut -f1 "$T/expected" | tr '\n' ' ')" \
		"$(cut -f1 "$T/got" | tr '\n' ' ')"
	while IFS=$TAB read -r cpu busy idle; do
		read -r gbusy gidle < <(awk -F'\t' -v c="$cpu" '$1 == c { print $2, $3 }' "$T/got")
		near "$name: CPU $cpu busy_ms" "$(awk -v n="$busy" 'BEGIN { printf "%.6f", n / 1e6 }')" "${gbusy:-}" 0.0011
		near "$name: CPU $cpu idle_ms" "$(awk -v n="$idle" 'BEGIN { printf "%.6f", n / 1e6 }')" "${gidle:-}" 0.0011
	done <"$T/expected"
	ref -separator "$TAB" "$DB" "select comm, sum($clip) from sched
		where ts < $b and ts + dur > $a group by comm order by comm" >"$T/expected"
	commq_ok "$name: top" --db "$DB" -list -noheader -separator "$TAB" top --from "$a" --to "$b"
	out=$(awk -F'\t' 'NR == FNR { ns[$1] = $2; next }
		{ seen[$1] = 1; if (!($1 in ns)) { print "unexpected " $1; next }
		  d = $3 * 1e6 - ns[$1]; if (d < 0) d = -d; if (d > 1000) print $1 ": " $3 " ms != " ns[$1] " ns" }
		END { for (k in ns) if (!(k in seen)) print "missing " k }' "$T/expected" "$T/got")
	[[ -z $out ]] || fail "$name: top per comm: $out"
}

check_window "inside the long slice" $((t1 + 50000000)) $((t1 + 60000000))
check_window "deep inside it" $((t1 + 150000000)) $((t1 + 160000000))
check_window "100 ms and 1 ns into it" $((t1 + 100000001)) $((t1 + 110000000))
check_window "across its end" $((t1 + long - 5000000)) $((t1 + long + 20000000))
check_window "across its start" $((t1 - 3000000)) $((t1 + 2000000))
check_window "at its start" "$t1" $((t1 + 1000000))
check_window "before it" $((lo + 20000000)) $((lo + 40000000))
check_window "the whole database" "$lo" "$end"
finish
