#!/usr/bin/env bash
# import-drops.sh - events the kernel dropped from a full buffer not in
# overwrite mode are flagged on no page: only the CPU stats trace-cmd
# saved count them (`trace-cmd report --stat`: "dropped events"). Each
# CPU's count is one lost_events row at that CPU's last record, a
# kernel_dropped_events stats row and one warning. A file whose losses the
# pages flag (sched-drops.dat: overwritten events, "dropped events: 0")
# keeps exactly the rows trace-cmd report shows: nothing counted twice.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dat=$TESTDATA/cases/drops-nooverwrite.dat	# rb_dr: -b 4 -O nooverwrite
pages=$TESTDATA/sched-drops.dat

# stat_dropped DAT: "CPU COUNT" per CPU with dropped events, from
# trace-cmd report --stat.
stat_dropped() {
	trace-cmd report --stat -i "$1" 2> /dev/null |
		awk '/^CPU: / { cpu = $2 } /^dropped events: / && $3 > 0 { print cpu, $3 }'
}

# last_ts DAT CPU: the ns timestamp of the CPU's last record (report -t).
last_ts() {
	LC_ALL=C trace-cmd report -t -i "$1" 2> /dev/null |
		sed -n "s/.*-[0-9]* *\[0*$2\] *\([0-9]*\)\.\([0-9]*\): .*/\1\2/p" | tail -n 1
}

want=$(stat_dropped "$dat")
check_eq "drops-nooverwrite.dat: trace-cmd report --stat shows dropped events on both CPUs" \
	2 "$(grep -c '' <<< "$want")" || true
check_eq "drops-nooverwrite.dat: trace-cmd report shows no DROPPED line (no page flags them)" \
	0 "$("$TRACECMD_COUNTS" "$dat" | awk '$1 == "DROPPED_LINES" { print $2 }')" || true

db=$TMPDIR_TEST/drops.db
if import_ok "$dat" "$db"; then
	check_eq "lost_events rows (cpu count, by cpu) vs report --stat's dropped events" \
		"$want" "$(q "$db" "select cpu || ' ' || count from lost_events order by cpu")" || true
	check_eq "stats kernel_dropped_events (cpu value, by cpu)" \
		"$want" "$(q "$db" "select cpu || ' ' || value from stats where name = 'kernel_dropped_events' order by cpu")" || true
	while read -r cpu _; do
		check_eq "CPU $cpu's lost_events row: ts is the CPU's last record's" \
			"$(last_ts "$dat" "$cpu")" \
			"$(q "$db" "select ts from lost_events where cpu = $cpu")" || true
	done <<< "$want"
	total=$(awk '{ s += $2 } END { print s }' <<< "$want")
	check_match "one warning line with the total" \
		"^commd: .*drops-nooverwrite.dat: the kernel dropped $total events \(rb_dr CPU 0: [0-9]+, rb_dr CPU 1: [0-9]+\): a full buffer not in overwrite mode" \
		"$(cat "$TMPDIR_TEST/import.err")" || true
	check_eq "stderr lines" 1 "$(grep -c '' "$TMPDIR_TEST/import.err" || true)" || true
	check_eq "every record imported (rows vs trace-cmd report's TOTAL_RECORDS)" \
		"$("$TRACECMD_COUNTS" "$dat" | awk '$1 == "TOTAL_RECORDS" { print $2 }')" \
		"$(total_event_rows "$db")" || true
fi

# Losses the pages flag are not counted again from the stats.
check_eq "sched-drops.dat: trace-cmd report --stat dropped events" "" "$(stat_dropped "$pages")" || true
db=$TMPDIR_TEST/pages.db
if import_ok "$pages" "$db"; then
	check_counts "$pages" "$db" "sched-drops.dat"
	check_eq "sched-drops.dat: stats kernel_dropped_events rows" 0 \
		"$(q "$db" "select count(*) from stats where name = 'kernel_dropped_events'")" || true
fi
finish
