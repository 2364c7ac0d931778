#!/usr/bin/env bash
# tracecmd-counts.sh - reference event counts for a trace.dat, taken from
# `trace-cmd report` (helper for integration tests, not a test itself).
#
# Usage: tracecmd-counts.sh TRACE.DAT [BUFFER]
#
# Prints, sorted by name (LC_ALL=C):
#   <event_name> <count>        one line per event name seen by trace-cmd report
# followed by these summary lines, always in this order:
#   DROPPED_LINES <n>           lines "CPU:N [K EVENTS DROPPED]" + "CPU:N [EVENTS DROPPED]"
#   DROPPED_EVENTS <sum>        sum of K over the lines that carry a count
#   DROPPED_UNKNOWN <n>         lines without a count (record->missed_events < 0)
#   TOTAL_RECORDS <n>           sum of all per-event counts
#   UNPARSED_LINES <n>          other lines (should be 0; header "cpus=N" excluded)
#
# Line format (trace-cmd 3.1 tracecmd/trace-read.c trace_show_data()):
#   [<buffer>: ]"%16s-%-5d [%03d]" comm,pid,cpu  then " %6.1000d:" (or
#   " %9.1d:" with -t, "%12d:" for non-time clocks: no blank before a
#   timestamp of 13 digits or more)  then " %s: " event name.
# The comm comes from the saved_cmdlines snapshot and may contain spaces,
# ':', '[', ']' and '-', so the event name is found with the first match of
#   -PID +[CPU] +TS: NAME:
# A comm is at most 15 bytes and the shortest possible full match is 16
# bytes with a fractional timestamp, so a match cannot start inside the comm
# (with the local/global/mono clocks used here).  Event names are printed
# without their system, so equal names from two systems are merged.
# With several buffers (instances) trace-cmd report prefixes every line with
# the buffer name; the search is unanchored so all buffers are counted,
# or, with BUFFER, only the lines of the instance BUFFER.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 TRACE.DAT [BUFFER]" >&2
	exit 2
fi
file=$1
buffer=${2:-}
if [ ! -r "$file" ]; then
	echo "$0: cannot read $file" >&2
	exit 2
fi

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# -t: full nanosecond timestamps (no rounding to microseconds)
LC_ALL=C trace-cmd report -t -i "$file" > "$tmp"
if [ -n "$buffer" ]; then
	# The header, then BUFFER's lines without their "BUFFER: " prefix.
	LC_ALL=C awk -v p="$buffer: " 'NR == 1 && /^ *cpus=[0-9]+$/ { print; next }
		index($0, p) == 1 { print substr($0, length(p) + 1) }' "$tmp" > "$tmp.b"
	mv "$tmp.b" "$tmp"
fi

LC_ALL=C awk '
BEGIN { dl = 0; de = 0; du = 0; total = 0; unparsed = 0; header = 1 }
header && /^ *cpus=[0-9]+$/ { header = 0; next }
{ header = 0 }
/CPU:[0-9]+ \[[0-9]+ EVENTS DROPPED\]$/ {
	s = $0
	sub(/.*CPU:[0-9]+ \[/, "", s)
	sub(/ EVENTS DROPPED\]$/, "", s)
	dl++; de += s + 0
	next
}
/CPU:[0-9]+ \[EVENTS DROPPED\]$/ { dl++; du++; next }
{
	if (match($0, /-[0-9]+ +\[[0-9][0-9][0-9]+\] *[0-9]+(\.[0-9]+)?: [^: ]+:/)) {
		m = substr($0, RSTART, RLENGTH)
		sub(/^.*[0-9]: /, "", m)      # drop "-PID [CPU] TS: "
		sub(/:$/, "", m)
		count[m]++
		total++
	} else {
		unparsed++
	}
}
END {
	for (e in count) printf "%s %d\n", e, count[e] | "LC_ALL=C sort"
	close("LC_ALL=C sort")
	printf "DROPPED_LINES %d\n", dl
	printf "DROPPED_EVENTS %d\n", de
	printf "DROPPED_UNKNOWN %d\n", du
	printf "TOTAL_RECORDS %d\n", total
	printf "UNPARSED_LINES %d\n", unparsed
}' "$tmp"
