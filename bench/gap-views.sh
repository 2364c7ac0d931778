#!/usr/bin/env bash
# What the views computed when read cost with many losses, two builds side
# by side: one recording imported by each build (its own schema), then N
# losses spread evenly over its time, alternating between CPUs 0 and 1,
# each a gap of 50 µs (from_ts where the schema has it), and each view
# read whole through the sqlite3 shell (count and sum of dur), best of
# RUNS wall times.
#   bench/gap-views.sh TRACE.dat COMMD_A COMMD_B [LOSSES] [RUNS]
set -euo pipefail
trace=$1 a=$2 b=$3 losses=${4:-2000} runs=${5:-3}
work=$(mktemp -d /tmp/commd-gap-views.XXXXXX)
trap 'rm -rf "$work"' EXIT
for v in a b; do
	bin=${!v}
	"$bin" import --no-progress "$trace" -o "$work/$v.db" > /dev/null
	read -r lo hi < <(sqlite3 -separator ' ' "$work/$v.db" "SELECT min(ts), max(ts) FROM sched")
	step=$(( (hi - lo) / losses ))
	cols="cpu, ts, count" vals="i % 2, $lo + i * $step + 7, 3"
	if sqlite3 "$work/$v.db" "SELECT from_ts FROM lost_events LIMIT 0" 2> /dev/null; then
		cols="$cols, from_ts" vals="$vals, $lo + i * $step + 7 - 50000"
	fi
	sqlite3 "$work/$v.db" "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k
		WHERE i < $losses - 1) INSERT INTO lost_events ($cols) SELECT $vals FROM k"
done
printf '%-14s %12s %12s\n' view "A (s)" "B (s)"
for view in preempt_wait offcpu runqueue_wait runqueue; do
	row=$view
	for v in a b; do
		best=
		for r in $(seq "$runs"); do
			/usr/bin/time -f %e -o "$work/t" sqlite3 "$work/$v.db" \
				"SELECT count(*), total(dur) FROM $view" > /dev/null
			t=$(cat "$work/t")
			if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
		done
		row="$row $best"
	done
	printf '%-14s %12s %12s\n' $row
done
