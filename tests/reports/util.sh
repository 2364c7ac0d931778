#!/bin/bash
# commq util: busy, idle and unknown time per CPU and interval, and CPU
# time per comm and interval, against awk cutting the raw sched slices at
# the interval edges itself (intervals of an odd length, so that slices
# cross them; the whole capture and a --from/--to window); every interval
# of every CPU adds up to its length; the options it refuses.
set -euo pipefail
# shellcheck source=tests/reports/lib.sh
source "$(dirname "$0")/lib.sh"
import sched-v7
import sched-drops
TAB=$'\t'

# reference DB LO HI IV BY: awk's rows from the raw slices of [LO, HI)
# cut into intervals of IV from LO: "k cpu busy idle" (BY cpu, every CPU
# with a slice, every interval) or "k comm ns" (BY comm, tasks only).
reference() {
	local db=$1 lo=$2 hi=$3 iv=$4 by=$5
	ref -separator "$TAB" "$db" "select ts, dur, cpu, pid, comm from sched" |
	awk -F'\t' -v lo="$lo" -v hi="$hi" -v iv="$iv" -v by="$by" '
		{
			a = $1 > lo ? $1 : lo; b = $1 + $2 < hi ? $1 + $2 : hi
			cpus[$3] = 1
			while (a < b) {
				k = int((a - lo) / iv); e = lo + (k + 1) * iv
				if (e > b) e = b
				if (by == "cpu") { if ($4 != 0) busy[k, $3] += e - a; else idle[k, $3] += e - a }
				else if ($4 != 0) t[k SUBSEP $5] += e - a
				a = e
			}
		}
		END {
			n = int((hi - lo + iv - 1) / iv)
			if (by == "cpu") {
				for (k = 0; k < n; k++) for (c in cpus)
					printf "%d\t%s\t%d\t%d\n", k, c, busy[k, c], idle[k, c]
			} else {
				for (x in t) { split(x, p, SUBSEP); printf "%d\t%s\t%d\n", p[1], p[2], t[x] }
			}
		}' | sort
}

for fixture in sched-v7 sched-drops; do
	DB=$T/$fixture.db
	lo=$(ref "$DB" "select min(start_ts) from capture")
	hi=$(ref "$DB" "select max(end_ts) from capture")
	iv=7000001
	for win in whole part; do
		args=() wlo=$lo whi=$hi
		if [[ $win == part ]]; then
			wlo=$((lo + 5000000)) whi=$((lo + 30000000))
			args=(--from +5ms --to +30ms)
		fi
		n=$(( (whi - wlo + iv - 1) / iv ))

		# --by cpu: k, cpu, busy, idle (ns) against awk; unknown the rest
		commq_ok "util $fixture $win" --db "$DB" -list -separator "$TAB" util \
			--interval 7000001ns "${args[@]}"
		reference "$DB" "$wlo" "$whi" "$iv" cpu > "$T/expected"
		awk -F'\t' -v lo="$wlo" -v iv="$iv" '{ printf "%d\t%s\t%.0f\t%.0f\n", ($1 - lo) / iv, $3, $4 * 1e6, $5 * 1e6 }' \
			"$T/got" | sort > "$T/mine"
		expect_eq "util $fixture $win: intervals x CPUs" "$(wc -l < "$T/expected")" "$(wc -l < "$T/mine")"
		out=$(join -t "$TAB" -j1 <(awk -F'\t' '{ print $1 "_" $2 "\t" $3 "\t" $4 }' "$T/expected" | sort) \
			<(awk -F'\t' '{ print $1 "_" $2 "\t" $3 "\t" $4 }' "$T/mine" | sort) |
			awk -F'\t' '{ d = $2 - $4; e = $3 - $5; if (d < -500 || d > 500 || e < -500 || e > 500)
				print $1 ": busy/idle " $4 "/" $5 " != " $2 "/" $3 }' | head -5)
		[[ -z $out ]] || fail "util $fixture $win: $out"
		expect_eq "util $fixture $win: intervals" "$n" "$(cut -f1 "$T/got" | sort -u | wc -l)"
		# busy + idle + unknown is the interval (the last one may be shorter)
		out=$(awk -F'\t' -v lo="$wlo" -v hi="$whi" -v iv="$iv" '{
			len = ($1 + iv > hi ? hi - $1 : iv) / 1e6
			d = $4 + $5 + $6 - len; if (d < -0.002 || d > 0.002)
				print "interval " $1 " cpu " $3 ": " $4 "+" $5 "+" $6 " != " len }' "$T/got" | head -3)
		[[ -z $out ]] || fail "util $fixture $win: $out"

		# --by comm: k, comm, ns against awk
		commq_ok "util --by comm $fixture $win" --db "$DB" -list -separator "$TAB" util --by comm \
			--interval 7000001ns "${args[@]}"
		reference "$DB" "$wlo" "$whi" "$iv" comm > "$T/expected"
		awk -F'\t' -v lo="$wlo" -v iv="$iv" '{ printf "%d\t%s\t%.0f\n", ($1 - lo) / iv, $3, $5 * 1e6 }' \
			"$T/got" | sort > "$T/mine"
		expect_eq "util --by comm $fixture $win: rows" "$(wc -l < "$T/expected")" "$(wc -l < "$T/mine")"
		out=$(paste "$T/expected" "$T/mine" | awk -F'\t' '{ d = $3 - $6
			if ($1 != $4 || $2 != $5 || d < -500 || d > 500) print $0 }' | head -3)
		[[ -z $out ]] || fail "util --by comm $fixture $win: $out"
	done
done

# A CPU the capture counts but no slice ever ran on (offline: a live
# capture counts the CPUs configured) is not listed, as top --by cpu
# leaves it out (util had it 100% unknown)
cp "$T/sched-v7.db" "$T/cpus3.db"
ref "$T/cpus3.db" "update capture set cpus = 3"
commq_ok "util, a CPU with no slice" --db "$T/cpus3.db" -list -separator "$TAB" -noheader util
expect_eq "util, a CPU with no slice: the CPUs listed" "0 1" "$(cut -f3 "$T/got" | sort -u | tr '\n' ' ' | sed 's/ $//')"

# --by comm over two captures with 10 ms between them: a share of the
# interval's captured part (as --by cpu's span), not of the interval
cp "$T/sched-v7.db" "$T/split.db"
s0=$(ref "$T/split.db" "select start_ts from capture")
ref "$T/split.db" "insert into capture (id, source, kernel, host, start_ts, end_ts, events, clock,
		buffer, states, cpus, boot, ts_offset)
	select 2, source, kernel, host, $s0 + 25000000, end_ts, events, clock, buffer, states, cpus,
		boot, ts_offset from capture where id = 1;
	update capture set end_ts = $s0 + 15000000 where id = 1"
commq_ok "util --by comm, two captures" --db "$T/split.db" -list -separator "$TAB" -noheader \
	util --by comm --interval 10ms
got=$(awk -F'\t' -v t="$((s0 + 10000000))" '$1 == t && $3 == "sched-messaging" { print $6 }' "$T/got")
want=$(ref "$T/split.db" "select round(100.0 * sum(min(ts + dur, $s0 + 20000000) - max(ts, $s0 + 10000000))
	/ 5000000, 2) from sched where comm = 'sched-messaging' and ts < $s0 + 20000000
	and ts + dur > $s0 + 10000000")
expect_eq "util --by comm, two captures: sched-messaging's share of [+10, +20 ms), 5 ms of it captured" \
	"$want" "$got"

# the refusals
DB=$T/sched-v7.db
expect_failure "util --by process" 2 "'commq util' goes --by cpu, comm or cgroup" --db "$DB" util --by process
expect_failure "util --interval 0" 2 "--interval takes a duration" --db "$DB" util --interval 0
expect_failure "util --interval +1s" 2 "--interval takes a duration" --db "$DB" util --interval +1s
expect_failure "top --interval" 2 "--interval is for 'commq util'" --db "$DB" top --interval 1s
expect_failure "util: too many intervals" 1 "intervals of 1 ns, more than 1000000" --db "$DB" util --interval 1ns
finish
