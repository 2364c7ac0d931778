#!/usr/bin/env bash
# The timeline page with a million slices: how long headless Chromium takes
# to open it and draw it first, and to redraw it at each zoom step.
#
# Two windows of about a million slices each:
#   synthetic  1000 tasks on 16 CPUs, 1,000,016 slices in 40 ms (the
#              database tests/reports/timeline.sh builds)
#   recorded   the first million slices of the big trace (bench/
#              bigtrace.sh: perf bench sched messaging, recorded once)
# For each: `commq timeline -o FILE.html` (time and size, /usr/bin/time),
# then RUNS loads of the file in headless Chromium (tests/reports/
# browser.py perf): the page's own figures, first draw in ms from the
# start of navigation (reading the file, parsing its JSON, laying out the
# lanes, drawing) and the redraws of ten zoom steps into the middle.
#   bench/timeline.sh [RUNS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-3}
"$top/scripts/setup" "$top/build"
work=$(mktemp -d /tmp/commd-timeline.XXXXXX)
trap 'rm -rf "$work"' EXIT
commd=$top/build/commd commq=$top/build/commq

cat "$top"/schema/[0-9][0-9][0-9]-*.sql | sqlite3 -batch "$work/synthetic.db"
sqlite3 -batch "$work/synthetic.db" < "$top/tests/data/million-slices.sql"
windows="synthetic"
if [ -s /var/cache/commd-bench/big.dat ]; then	# bench/bigtrace.sh records it
	"$commd" import /var/cache/commd-bench/big.dat -o "$work/recorded.db" >/dev/null 2>&1
	# the window of the first million slices
	to=$("$commq" --db "$work/recorded.db" -q -list -noheader \
		"select ts - (select min(start_ts) from capture) from sched order by ts limit 1 offset 999999")
	windows="synthetic recorded"
fi
printf '%-10s %10s %9s %9s %12s %12s\n' window slices MB write_s first_draw_ms max_zoom_ms
for w in $windows; do
	args=()
	[ "$w" = recorded ] && args=(--to "+$to")
	/usr/bin/time -f %e -o "$work/time" "$commq" --db "$work/$w.db" -q timeline "${args[@]}" \
		-o "$work/$w.html"
	slices=$(grep -o '"n":\[[0-9]*' "$work/$w.html" | grep -o '[0-9]*$')
	mb=$(awk -v b="$(stat -c %s "$work/$w.html")" 'BEGIN { printf "%.1f", b / 1048576 }')
	for ((r = 0; r < runs; r++)); do
		COMMQ=$commq /usr/bin/python3 "$top/tests/reports/browser.py" perf "$work/$w.html" |
			tee -a "$work/$w.perf" >&2
	done
	first=$(sed 's/first draw \([0-9]*\) ms.*/\1/' "$work/$w.perf" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	zoom=$(sed 's/.*max \([0-9.]*\)$/\1/' "$work/$w.perf" | sort -n | tail -n 1)
	printf '%-10s %10s %9s %9s %12s %12s\n' "$w" "$slices" "$mb" "$(cat "$work/time")" "$first" "$zoom"
done
echo "first_draw_ms: median of $runs loads; max_zoom_ms: the slowest of $((runs * 10)) zoom redraws"
