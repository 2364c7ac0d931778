#!/bin/bash
# commq lost: per CPU, the loss records, the events they counted, the
# records without a count, the first and last, the slices a loss fell
# into, the chain breaks (inferred ends) and the time they leave unknown, as awk counts them from the raw rows (and as tests/data/README.md
# says sched-drops.dat has them); the kernel's dropped/overrun counters
# appear when the stats table has them; then a row for all CPUs.
set -euo pipefail
# shellcheck source=tests/reports/lib.sh
source "$(dirname "$0")/lib.sh"
import sched-drops
import sched-v7
import other-events

# expected DB — the report's rows, from lost_events, sched and stats.
expected() {
	{
		ref -csv "$1" "select 'L', cpu, ts, count from lost_events"
		ref -csv "$1" "select 'S', cpu from sched where lost = 1"
		ref -csv "$1" "select 'K', cpu, name, value from stats
			where name in ('kernel_dropped_events', 'kernel_overrun')
			and cpu >= 0"
		# chain breaks: an inferred end, and the time to the CPU's
		# next slice (of zero-length slices at one ts, the one a
		# break ends is followed by the gap)
		ref -csv "$1" "select 'B', cpu, ts, dur, end_err is not null from sched
			order by cpu, ts, dur, end_err is not null" |
			awk -F, '$2 == pc && pb { g = $3 - pe; print "B," pc "," (g > 0 ? g : 0) }
				{ pc = $2; pe = $3 + $4; pb = $5 }
				END { if (pb) print "B," pc ",0" }'
	} | awk -F, '
	{ c = $2; cpus[c] = 1 }
	$1 == "L" {
		rec[c]++
		if ($4 == "") unk[c]++; else ev[c] += $4
		if (!(c in first) || $3 < first[c]) first[c] = $3
		if (!(c in last) || $3 > last[c]) last[c] = $3
	}
	$1 == "S" { sl[c]++ }
	$1 == "B" { br[c]++; gap[c] += $3; tbr++; tgap += $3 }
	$1 == "K" {
		if ($3 == "kernel_dropped_events") { dr[c] += $4; hd[c] = 1; anyd = 1; tdr += $4 }
		else { ov[c] += $4; ho[c] = 1; anyo = 1; tov += $4 }
	}
	END {
		n = 0
		for (c in cpus) list[++n] = c + 0
		for (i = 2; i <= n; i++)	# insertion sort: few CPUs
			for (j = i; j > 1 && list[j - 1] > list[j]; j--) {
				t = list[j]; list[j] = list[j - 1]; list[j - 1] = t
			}
		for (i = 1; i <= n; i++) {
			c = list[i]
			f = (c in first) ? first[c] : ""
			l = (c in last) ? last[c] : ""
			printf "%s,%d,%.0f,%d,%s,%s,%d,%s,%s,%d,%s\n", c, rec[c], ev[c],
				unk[c], f, l, sl[c],
				hd[c] ? sprintf("%.0f", dr[c]) : "",
				ho[c] ? sprintf("%.0f", ov[c]) : "", br[c], ms(gap[c])
			trec += rec[c]; tev += ev[c]; tunk += unk[c]; tsl += sl[c]
			if (c in first && (tf == "" || first[c] < tf)) tf = first[c]
			if (c in last && (tl == "" || last[c] > tl)) tl = last[c]
		}
		printf "all,%d,%.0f,%d,%s,%s,%d,%s,%s,%d,%s\n", trec, tev, tunk, tf, tl,
			tsl, anyd ? sprintf("%.0f", tdr) : "",
			anyo ? sprintf("%.0f", tov) : "", tbr, ms(tgap)
	}
	# ns as round(ns / 1e6, 3) prints in sqlite3: 0.534, 2.0
	function ms(ns,   v) {
		v = sprintf("%.3f", ns / 1e6); sub(/0+$/, "", v); sub(/\.$/, ".0", v)
		return v
	}'
}

DB=$T/sched-drops.db
expected "$DB" >"$T/expected"
commq_ok lost_drops --db "$DB" -csv lost
expect_same lost_drops "$T/expected" "$T/got"
# what the fixture's README says: CPU0 4 records adding up to 1168, CPU1
# 98 and one without a count; 6 records, 1266 events, 1 unknown in all
expect_eq lost_drops_readme "0,4,1168,0 1,2,98,1 all,6,1266,1" \
	"$(cut -d, -f1-4 "$T/got" | tr '\n' ' ' | sed 's/ $//')"
commq_ok lost_header --db "$DB" -csv -header lost
expect_eq lost_header \
	"cpu,records,events_lost,unknown_count,first_ts,last_ts,lost_slices,kernel_dropped,kernel_overrun,chain_breaks,break_unknown_ms" \
	"$(head -n 1 "$T/got")"

# no losses at all: still the row for all CPUs, with zeros
expected "$T/sched-v7.db" >"$T/expected"
commq_ok lost_none --db "$T/sched-v7.db" -csv lost
expect_same lost_none "$T/expected" "$T/got"
expect_eq lost_none_all "all,0,0,0,," "$(tail -n 1 "$T/got" | cut -d, -f1-6)"

# other-events.dat: CPU1's chain breaks at every idle exit, two of them
# at zero-length slices sharing their ts with another; the time they
# leave unknown is CPU1's unknown time in top --by cpu (CPU1's first
# event is the capture's first), whichever order the view gives the two
expected "$T/other-events.db" >"$T/expected"
commq_ok lost_breaks --db "$T/other-events.db" -csv lost
expect_same lost_breaks "$T/expected" "$T/got"
breaks=$(awk -F, '$1 == 1 { print $11 }' "$T/got")
commq_ok lost_breaks_top --db "$T/other-events.db" -q -csv top --by cpu
expect_eq lost_breaks_as_top "$(awk -F, '$1 == 1 { print $4 }' "$T/got")" "$breaks"

# a live capture's kernel counters (commd writes them at the end), one
# CPU with counters only
cp "$DB" "$T/kernel.db"
ref "$T/kernel.db" "insert into stats (capture, name, cpu, value) values
	(1, 'kernel_dropped_events', 0, 0), (1, 'kernel_overrun', 0, 1168),
	(1, 'kernel_dropped_events', 1, 0), (1, 'kernel_overrun', 1, 758),
	(1, 'kernel_overrun', 2, 0), (1, 'kernel_read_events', -1, 19548)"
expected "$T/kernel.db" >"$T/expected"
commq_ok lost_kernel --db "$T/kernel.db" -csv lost
expect_same lost_kernel "$T/expected" "$T/got"
expect_eq lost_kernel_all "0,1926" "$(tail -n 1 "$T/got" | cut -d, -f8-9)"
expect_eq lost_kernel_cpu2 "2,0,0,0,,,0,,0,0,0.0" "$(grep '^2,' "$T/got")"

expect_failure lost_no_window 2 "--from, --to and --last are for" --db "$DB" lost --from 1s

# the socket answers as the file does
start_fake_server "$T/kernel.db"
commq_ok lost_file --db "$T/kernel.db" lost
cp "$T/got" "$T/file"
commq_ok lost_socket --socket "$SOCK" lost
expect_same lost_socket_same_as_file "$T/file" "$T/got"

finish
