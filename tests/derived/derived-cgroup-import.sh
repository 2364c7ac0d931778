#!/usr/bin/env bash
# derived-cgroup-import.sh - cgroup_history and top --by cgroup from an
# imported trace.dat (no /proc there: the attach events alone):
# trace-cmd records a task that moves itself into cgroup a, spins, moves
# into b and spins (sched, task and cgroup:cgroup_attach_task events, in a
# private instance). Then:
#   - the task's rows are a then b, from cgroup_attach_task, starting at
#     the times trace-cmd report prints for its two attach events, the
#     row in a ending where b's begins; its children forked in b are in b;
#   - top --by cgroup gives a and b the task's CPU time awk computes from
#     its sched slices cut at the attach times (to the µs of the output).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$v2" ] || abort "a cgroup v2 hierarchy mounted" "cgroup2 in /proc/mounts" "none"
base=$v2/commd-imp-$$
mkdir "$base" "$base/a" "$base/b" || abort "making cgroups in $v2" "mkdir succeeds" "failed"
rm_cgroups() { rmdir "$base/a" "$base/b" "$base" 2> /dev/null || true; }
CLEANUP_HOOKS+=(rm_cgroups)

dat=$TMPDIR_TEST/cg.dat
db=$TMPDIR_TEST/cg.db
RECORD_ARGS="-e cgroup:cgroup_attach_task" record_fresh cgimport "$dat" bash -c '
	spin() { local end=$((SECONDS + 1)); while [ $SECONDS -lt $end ]; do :; done; }
	echo $$ > "$1/a/cgroup.procs"; spin
	echo $$ > "$1/b/cgroup.procs"; spin; /bin/true
	echo $$ > "$2/cgroup.procs"' mover "$base" "$v2"
import_ok "$dat" "$db" || finish

LC_ALL=C trace-cmd report -t -i "$dat" 2> /dev/null | grep ' cgroup_attach_task: ' |
	grep "dst_path=/commd-imp-$$/" > "$TMPDIR_TEST/attach" || true
pid=$(sed -n 's/.* pid=\([0-9]*\) .*/\1/p' "$TMPDIR_TEST/attach" | head -n 1)
check_true "trace-cmd report shows the two moves" "2 lines" "$(wc -l < "$TMPDIR_TEST/attach") lines" \
	test "$(wc -l < "$TMPDIR_TEST/attach")" -eq 2
# their times in ns (the field before the event name)
awk '{ for (i = 2; i <= NF; i++) if ($i == "cgroup_attach_task:") { t = $(i - 1); sub(/:$/, "", t)
	split(t, a, "."); printf "%s%s\n", a[1], substr(a[2] "000000000", 1, 9) } }' "$TMPDIR_TEST/attach" > "$TMPDIR_TEST/times"
ta=$(sed -n 1p "$TMPDIR_TEST/times"); tb=$(sed -n 2p "$TMPDIR_TEST/times")
check_eq "the mover's rows in a and b (path source start_ts end_ts)" \
	"/commd-imp-$$/a cgroup_attach_task $ta $tb
/commd-imp-$$/b cgroup_attach_task $tb" \
	"$(q "$db" "SELECT path || ' ' || source || ' ' || start_ts || coalesce(' ' || end_ts, '')
		FROM cgroup_history WHERE pid = ${pid:-0} AND path LIKE '/commd-imp-$$/%' ORDER BY start_ts" |
		awk 'NR == 2 { NF = 3 } { print }')"
check_true "its child (/bin/true) forked in b is in b" ">= 1" \
	"$(q "$db" "SELECT count(*) FROM cgroup_history WHERE source = 'fork' AND path = '/commd-imp-$$/b'")" \
	test "$(q "$db" "SELECT count(*) FROM cgroup_history WHERE source = 'fork' AND path = '/commd-imp-$$/b'")" -ge 1
# The mover's CPU time in a and b, from its slices cut at the moves.
want=$(q "$db" "SELECT ts, dur FROM sched WHERE pid = ${pid:-0}" | awk -F'\t' -v ta="$ta" -v tb="$tb" '
	function part(lo, hi,  a, b) { a = $1 > lo ? $1 : lo; b = $1 + $2 < hi ? $1 + $2 : hi; return b > a ? b - a : 0 }
	{ A += part(ta, tb); B += part(tb, 9e18) }
	END { printf "a %.3f\nb %.3f\n", A / 1e6, B / 1e6 }')
COMMQ=${COMMQ:-$(dirname "$COMMD")/commq}
got=$("$COMMQ" --db "$db" -q -csv -noheader top --by cgroup | awk -F, -v p="/commd-imp-$$/" '
	index($2, p) == 1 { n = substr($2, length(p) + 1); print n, $4 }' | sort)
# the mover is the only task of a; b also has its child, which ran little
check_true "top --by cgroup: a's time is the mover's before its move to b (ms, to the µs)" \
	"$(echo "$want" | sed -n 1p)" "$(echo "$got" | sed -n 1p)" \
	awk -v a="$(echo "$want" | sed -n 1p | cut -d' ' -f2)" -v b="$(echo "$got" | sed -n 1p | cut -d' ' -f2)" \
	'BEGIN { d = a - b; exit !(b != "" && d <= 0.001 && d >= -0.001) }'
check_true "top --by cgroup: b's time at least the mover's after it (ms)" "$(echo "$want" | sed -n 2p)" \
	"$(echo "$got" | sed -n 2p)" awk -v a="$(echo "$want" | sed -n 2p | cut -d' ' -f2)" \
	-v b="$(echo "$got" | sed -n 2p | cut -d' ' -f2)" 'BEGIN { exit !(b >= a && b > 500) }'
finish
