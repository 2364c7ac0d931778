#!/bin/bash
# commq timeline: the SVG is well-formed XML with one lane per CPU, a
# bounded number of slice rects (at most one per pixel column and lane),
# one colour per comm that stays the same in every picture, idle grey,
# wakeup ticks on the lanes of the CPUs that have wakeups, hatched losses
# where sched-drops.dat lost events, a time axis, and a legend led by the
# busiest comm.  A trace a thousand times bigger gives a file of the same
# order.  HTML, stdout, --from/--to, the socket, and refusals that leave
# an existing file alone.
set -euo pipefail
# shellcheck source=tests/reports/lib.sh
source "$(dirname "$0")/lib.sh"
need xmllint libxml2-utils
need python3 python3
import sched-v7
import sched-drops
import sched-rename
PLOT_W=1112	# the default 1200 px less the margins (timeline.c)

# lanes SVG — the lanes' CPUs, one a line
lanes() {
	grep -o '<g class="lane" data-cpu="[0-9]*"' "$1" | grep -o '[0-9]*' || true
}

# colours SVG — "comm<TAB>#colour" for every slice rect, sorted, unique
colours() {
	grep -o '<rect class="s" [^>]*fill="#[0-9a-f]*"[^>]*><title>[^<]*</title>' "$1" |
		sed 's/.*fill="\(#[0-9a-f]*\)".*<title>\(.*\)<\/title>/\2\t\1/' |
		sort -u || true
}

# check_svg NAME SVG DB — the structure of a whole-capture picture of DB.
check_svg() {
	local name=$1 svg=$2 db=$3 n rects
	xmllint --noout "$svg" 2>"$T/xml.err" ||
		fail "$name: not well-formed XML: $(head -n 3 "$T/xml.err")"
	ref "$db" "select cpu from sched union select cpu from lost_events
		where cpu is not null order by cpu" >"$T/cpus"
	lanes "$svg" >"$T/lanes"
	expect_same "$name: one lane per CPU" "$T/cpus" "$T/lanes"
	n=$(wc -l <"$T/cpus")
	rects=$(grep -c '<rect class="s" ' "$svg" || true)
	((rects > 0)) || fail "$name: no slice rects"
	((rects <= n * PLOT_W)) ||
		fail "$name: $rects slice rects for $n lanes of $PLOT_W px"
	# lane by lane, at most one rect of each kind per pixel column
	awk -v w="$PLOT_W" '
		/<g class="lane"/ { lane++; delete k }
		/<rect class="(s|idle|lost|lostev)" / {
			match($0, /class="[a-z]*"/); c = substr($0, RSTART, RLENGTH)
			if (++k[c] > w) { print "lane " lane " " c " > " w; exit 1 }
		}' "$svg" >"$T/awk.out" || fail "$name: $(cat "$T/awk.out")"
	# a comm has one colour
	colours "$svg" >"$T/colours"
	expect_eq "$name: one colour per comm" \
		"$(cut -f1 "$T/colours" | sort | uniq -d)" ""
	# idle is grey and drawn
	grep -q '<rect class="idle" [^>]*fill="#e4e4e4"' "$svg" ||
		fail "$name: no idle rects"
	# wakeup ticks on the lanes of the CPUs that have wakeups
	ref "$db" "select distinct cpu from wakeup_latency order by cpu" >"$T/wcpus"
	awk '/<g class="lane"/ { match($0, /data-cpu="[0-9]*"/)
		cpu = substr($0, RSTART + 10, RLENGTH - 11) }
		/<path class="wake"/ { print cpu }' "$svg" >"$T/wlanes"
	expect_same "$name: wakeup ticks on the CPUs with wakeups" "$T/wcpus" "$T/wlanes"
	# a time axis with ticks, labelled from the capture start
	n=$(grep -o '<text x="[0-9.]*" y="[0-9]*" text-anchor="middle">+[0-9.]*m\?s</text>' \
		"$svg" | wc -l)
	((n >= 4 && n <= 30)) || fail "$name: $n time axis labels"
	grep -q 'text-anchor="middle">+0ms</text>' "$svg" ||
		fail "$name: the axis does not start at +0ms"
	# the legend: the busiest comm first, with its time
	expected=$(ref "$db" "select comm || ' ' || printf('%.3f', sum(dur) / 1e6) || ' ms'
		from sched where pid <> 0 group by comm order by sum(dur) desc, comm limit 1")
	expect_eq "$name: legend" "$expected" \
		"$(grep -o '<g class="key"[^>]*><rect[^>]*/><text[^>]*>[^<]*' "$svg" |
		   head -n 1 | sed 's/.*>//')"
}

for fixture in sched-v7 sched-drops sched-rename; do
	commq_ok "timeline $fixture" --db "$T/$fixture.db" timeline -o "$T/$fixture.svg"
	check_svg "timeline $fixture" "$T/$fixture.svg" "$T/$fixture.db"
	ls "$T/$fixture.svg".* >/dev/null 2>&1 && fail "timeline $fixture: temp file left"
done

# the same picture every time; the colours of the comms outside each
# picture's twelve busiest (the legend's, which get colours far apart) are
# the name's, whatever the window or the trace
commq_ok timeline_again --db "$T/sched-v7.db" timeline -o "$T/again.svg"
cmp -s "$T/sched-v7.svg" "$T/again.svg" || fail "timeline: two renders differ"
commq_ok timeline_window --db "$T/sched-v7.db" timeline --from +15ms --to +25ms \
	-o "$T/window.svg"
legend_comms() {
	grep -o 'class="key" data-comm="[^"]*"' "$1" | sed 's/.*data-comm="\(.*\)"/\1/' || true
}
check_colours() {
	{ legend_comms "$2"; legend_comms "$3"; } | sort -u >"$T/busiest"
	awk -F'\t' 'NR == FNR { b[$1] = 1; next } !($1 in b)' "$T/busiest" <(colours "$2") >"$T/c1"
	awk -F'\t' 'NR == FNR { b[$1] = 1; next } !($1 in b)' "$T/busiest" <(colours "$3") >"$T/c2"
	join -t $'\t' "$T/c1" "$T/c2" | awk -F'\t' '$2 != $3' >"$T/clash"
	[[ -s $T/clash ]] && fail "$1: colours changed: $(cat "$T/clash")"
	# a busiest comm's slices have its legend colour
	grep -o 'class="key" data-comm="[^"]*"><rect[^>]*fill="#[0-9a-f]*"' "$2" |
		sed 's/.*data-comm="\([^"]*\)".*fill="\(#[0-9a-f]*\)"/\1\t\2/' | sort >"$T/legend1"
	join -t $'\t' "$T/legend1" <(colours "$2") | awk -F'\t' '$2 != $3' >"$T/clash"
	[[ -s $T/clash ]] && fail "$1: a busiest comm's slices not in its legend colour: $(cat "$T/clash")"
	return 0
}
check_colours "colours across windows" "$T/sched-v7.svg" "$T/window.svg"
check_colours "colours across traces" "$T/sched-v7.svg" "$T/sched-drops.svg"
grep -q "data-lo=\"$(($(ref "$T/sched-v7.db" "select min(start_ts) from capture") + 15000000))\"" \
	"$T/window.svg" || fail "timeline --from: the window does not start at +15ms"
grep -q 'text-anchor="middle">+16ms</text>' "$T/window.svg" ||
	fail "timeline --from: no +16ms tick"

# losses: the loss records hatched on their CPUs' lanes (sched-drops.dat
# has them on both), slices with a loss inside hatched too; none where
# nothing was lost
for cpu in $(ref "$T/sched-drops.db" "select distinct cpu from lost_events order by cpu"); do
	awk -v cpu="$cpu" '/<g class="lane"/ { on = index($0, "data-cpu=\"" cpu "\"") > 0 }
		on && /<rect class="lostev" [^>]*fill="url\(#hatch\)"/ { found = 1 }
		END { exit !found }' "$T/sched-drops.svg" ||
		fail "timeline sched-drops: no hatched loss on CPU $cpu"
done
grep -q '<pattern id="hatch"' "$T/sched-drops.svg" || fail "timeline: no hatch pattern"
grep -q '<rect class="lost" [^>]*fill="url(#hatch-slice)"' "$T/sched-drops.svg" ||
	fail "timeline sched-drops: slices with a loss inside are not hatched"
grep -q 'class="lostev"' "$T/sched-v7.svg" && fail "timeline sched-v7: losses drawn"

# names that are markup, controls or not UTF-8 stay well-formed
cp "$T/sched-rename.db" "$T/hostile.db"
ref "$T/hostile.db" "update comm_history set comm = '<a href=\"x\">&amp;' || char(1) ||
	cast(x'ff' as text) || 'é' where comm = 'sleep'"
commq_ok timeline_hostile --db "$T/hostile.db" timeline -o "$T/hostile.svg"
xmllint --noout "$T/hostile.svg" 2>"$T/xml.err" ||
	fail "timeline hostile names: not well-formed: $(head -n 3 "$T/xml.err")"
grep -qF '&lt;a href=&quot;x&quot;&gt;&amp;amp;??é' "$T/hostile.svg" ||
	fail "timeline hostile names: not escaped as expected"

# synthetic DB — a database of commd's schema (schema/*.sql through the
# sqlite3 shell) holding only what the timeline reads: slices and wakeups
# as rows of dv_sched and dv_wakeup_latency, named through comm_history.
synthetic() {
	cat "$SRCDIR"/schema/[0-9][0-9][0-9]-*.sql | ref "$1"
}

# a trace a thousand times bigger than sched-v7.dat: 1000 comms on 16
# CPUs, a million slices and 100000 wakeups in 39 ms, then 1 ms of idle;
# the file stays small and the rects bounded
synthetic "$T/big.db"
ref "$T/big.db" < "$TESTDATA/million-slices.sql"
commq_ok timeline_big --db "$T/big.db" timeline -o "$T/big.svg"
check_svg "timeline big" "$T/big.svg" "$T/big.db"
size=$(stat -c %s "$T/big.svg")
((size < 3000000)) || fail "timeline big: $size bytes"
# outside the twelve busiest, a comm keeps its colour from window to window
commq_ok timeline_big_window --db "$T/big.db" timeline --from +10ms --to +20ms -o "$T/big-w.svg"
check_colours "colours across windows (1000 tasks)" "$T/big.svg" "$T/big-w.svg"
[[ -n $(join -t $'\t' "$T/c1" "$T/c2") ]] || fail "colours across windows (1000 tasks): no comm in common"
# The busiest comms' colours: the legend's first twelve (1000 tasks, the
# busiest first), no two closer than 29 in CIELAB (CIE76 delta E), none
# within 40 of the idle grey.
grep -o 'class="key" data-comm="[^"]*"><rect[^>]*fill="#[0-9a-f]*"' "$T/big.svg" |
	sed 's/.*fill="\(#[0-9a-f]*\)"/\1/' | head -n 12 >"$T/palette"
expect_eq "timeline legend: twelve colours" 12 "$(wc -l <"$T/palette")"
out=$(python3 - "$T/palette" <<'PY'
import itertools, sys
def lab(h):
    r, g, b = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = lambda c: c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = lin(r), lin(g), lin(b)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    f = lambda t: t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
de = lambda a, b: sum((p - q) ** 2 for p, q in zip(lab(a), lab(b))) ** 0.5
cols = open(sys.argv[1]).read().split()
for a, b in itertools.combinations(cols, 2):
    if de(a, b) < 29:
        print("%s and %s: delta E %.1f" % (a, b, de(a, b)))
for a in cols:
    if de(a, "#e4e4e4") < 40:
        print("%s against idle grey: delta E %.1f" % (a, de(a, "#e4e4e4")))
PY
)
[[ -z $out ]] || fail "timeline legend colours too close: $out"
# HTML: a page that draws itself from every slice of the window; its data
# (one JSON object in a script element) holds every slice, wakeup and loss
# SQL gives for the window, nothing merged.  page_data PAGE prints counts
# and a digest of the slices (cpu, ts - capture start, dur, pid, comm).
page_data() {
	/usr/bin/python3 - "$1" <<'PY'
import json, re, sys
html = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read()
m = re.search(r'<script id="data" type="application/json">(.*?)</script>', html, re.S)
d = json.loads(m.group(1))
tasks = {t[0]: t for t in d["tasks"]}
s, ts, rows = d["s"], 0, []
for i in range(0, len(s), 7):
    ts += s[i + 1]
    t = tasks[s[i + 3]]
    rows.append("%d|%d|%d|%d|%s" % (s[i], ts + d["window"][0], s[i + 2], t[1], t[3]))
print("slices", len(s) // 7, d["n"][0])
print("wakeups", len(d["w"]) // 6, d["n"][2])
print("losses", len(d["lost"]), d["n"][3])
for r in sorted(rows):
    print("S", r)
PY
}
commq_ok timeline_big_html --db "$T/big.db" timeline -o "$T/big.html"
page_data "$T/big.html" >"$T/big.page"
expect_eq "timeline page: a million slices, none merged" "slices 1000016 1000016" \
	"$(grep '^slices' "$T/big.page")"
expect_eq "timeline page: every wakeup" "wakeups 100016 100016" "$(grep '^wakeups' "$T/big.page")"
for fixture in sched-drops sched-v7; do
	commq_ok "timeline page $fixture" --db "$T/$fixture.db" -q timeline -o "$T/$fixture.html"
	grep -q '^<!DOCTYPE html>' "$T/$fixture.html" || fail "timeline page: no doctype"
	grep -q 'src=\|href="http' "$T/$fixture.html" && fail "timeline page: refers to the network"
	page_data "$T/$fixture.html" >"$T/page"
	b=$(ref "$T/$fixture.db" "select coalesce((select min(start_ts) from capture), (select min(ts) from sched))")
	e=$(ref "$T/$fixture.db" "select max(end_ts) from capture")
	ref "$T/$fixture.db" "select 'S ' || cpu || '|' || (ts - $b) || '|' || dur || '|' || pid || '|' || comm
		from sched where ts < $e and ts + dur > $b" | sort >"$T/want"
	grep '^S ' "$T/page" >"$T/got"
	expect_same "timeline page $fixture: the slices SQL gives" "$T/want" "$T/got"
	expect_eq "timeline page $fixture: wakeups" \
		"$(ref "$T/$fixture.db" "select count(*) from wakeup_latency where ts >= $b and ts < $e")" \
		"$(awk '/^wakeups/ { print $2 }' "$T/page")"
	expect_eq "timeline page $fixture: losses" \
		"$(ref "$T/$fixture.db" "select count(*) from lost_events where ts >= $b and ts <= $e")" \
		"$(awk '/^losses/ { print $2 }' "$T/page")"
done
# names that are markup or not UTF-8 cannot end the script element
commq_ok timeline_page_hostile --db "$T/hostile.db" -q timeline -o "$T/hostile.html"
[[ $(grep -c '</script>' "$T/hostile.html") == 2 ]] ||
	fail "timeline page hostile names: a name closed the script element"
grep -qF '\u003ca href=\"x\">&amp;' "$T/hostile.html" ||
	fail "timeline page hostile names: not escaped as expected"
# past two million slices the page says to narrow the window
ref "$T/big.db" "insert into dv_sched (ts, cpu, n, dur, hid, prio, end_state, lost)
	select ts + 19, cpu, 1, 10, hid, 120, 1, 0 from dv_sched where ts < 1039000000;
	insert into dv_sched (ts, cpu, n, dur, hid, prio, end_state, lost)
	select ts + 29, cpu, 2, 5, hid, 120, 1, 0 from dv_sched where n = 0 and ts < 1039000000"
expect_failure "timeline page: too many slices" 1 "narrow it with --from/--to" \
	--db "$T/big.db" -q timeline -o "$T/toobig.html"
[[ -e $T/toobig.html ]] && fail "timeline page: a file written for a window too big"
# -o - : SVG on stdout
commq_ok timeline_stdout --db "$T/sched-v7.db" timeline -o -
expect_same "timeline -o -" "$T/sched-v7.svg" "$T/got"
# over the socket: the same picture
start_fake_server "$T/sched-drops.db"
commq_ok timeline_socket --socket "$SOCK" timeline -o "$T/socket.svg"
expect_same "timeline socket same as file" "$T/sched-drops.svg" "$T/socket.svg"
# the window's start as the time of day, where a clock reading maps it
cp "$T/sched-v7.db" "$T/wall.db"
ref "$T/wall.db" "insert into clock_map select id, start_ts, 1796140000000000000, 500 from capture"
commq_ok timeline_wall --db "$T/wall.db" timeline -o -
grep -q 'from the capture start; from 2026-12-01T15:46:40.000000000Z)' "$T/got" ||
	fail "timeline: no time of day in the subtitle: $(grep -o 'y="34"[^<]*' "$T/got")"
grep -q 'from the capture start)' "$T/sched-v7.svg" ||
	fail "timeline: a time of day without a clock reading"

# unknown time (in no slice: CPU 1 of other-events has switches nobody
# traced, out of swapper/1, and no sched_stat_runtime to place them: 0.59
# of the millisecond after +62 ms) is drawn apart from idle and from
# losses, only on the lanes that have it. (sched-v7's such switches are
# all placed by the kernel's runtimes now, its own or another CPU's.)
import other-events
commq_ok timeline_unknown --db "$T/other-events.db" -q timeline -o "$T/unknown.svg" --from +62ms --to +63ms
awk '/<g class="lane" data-cpu="/ { split($0, a, "\""); cpu = a[4] }
	/class="unknown"/ { n[cpu]++ }
	END { printf "%d %d", n[0] + 0, n[1] + 0 }' "$T/unknown.svg" >"$T/unknown.n"
read -r u0 u1 <"$T/unknown.n" || true
[ "$u1" -gt 0 ] || fail "timeline: no unknown rect on CPU 1 (u0 $u0, u1 $u1)"
grep -q 'fill="url(#dots)"' "$T/unknown.svg" || fail "timeline: unknown not drawn with its own pattern"
grep -q 'unknown (no event says who ran)' "$T/unknown.svg" || fail "timeline: unknown not in the legend"

# refusals; an existing picture stays when a new one cannot be made
expect_failure "timeline without -o" 2 "needs -o FILE" --db "$T/sched-v7.db" timeline
expect_failure "timeline -o .png" 2 "writes .svg or .html (or SVG to stdout with -o -), not '.png'" \
	--db "$T/sched-v7.db" timeline -o "$T/t.png"
expect_failure "timeline -o without an extension" 2 "not a file without an extension" \
	--db "$T/sched-v7.db" timeline -o "$T/t"
[[ ! -e $T/t.png && ! -e $T/t ]] || fail "timeline: a refused -o FILE was written"
expect_failure "timeline bad dir" 1 "No such file or directory" \
	--db "$T/sched-v7.db" timeline -o "$T/no/such/dir.svg"
expect_failure "timeline width" 1 "--width" --db "$T/sched-v7.db" timeline \
	--width 10 -o "$T/x.svg"
synthetic "$T/empty.db"
cp "$T/sched-v7.svg" "$T/keep.svg"
expect_failure "timeline nothing" 1 "nothing to draw" --db "$T/empty.db" \
	timeline -o "$T/keep.svg"
cmp -s "$T/keep.svg" "$T/sched-v7.svg" || fail "timeline: a failed render touched the file"
ls "$T"/keep.svg.* >/dev/null 2>&1 && fail "timeline: a failed render left a temp file"

finish
