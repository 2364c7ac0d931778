#!/usr/bin/env bash
# Soak: commd for DURATION seconds (default 1800) under changing load —
# perf bench sched messaging, perf bench sched pipe, idle spells — with a
# client querying over the socket in a loop. Every 10 s it samples the
# daemon's and the query server's resident memory and open fds, the WAL and
# database sizes and the events stored, into bench/soak.csv, and draws
# bench/soak.svg. Prints min/median/max of each and the growth over the
# second half (what "bounded" means here).
#   bench/soak.sh [DURATION] [MAX_DB_MB]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
duration=${1:-1800}
maxdb=${2:-64}
"$top/scripts/setup" "$top/build"
work=$(mktemp -d /tmp/commd-soak.XXXXXX)
chmod 755 "$work"	# the query server (user commd or nobody) reads the database
db=$work/soak.db
sock=$work/s.sock
inst=commd-soak-$$
csv=$top/bench/soak.csv
svg=$top/bench/soak.svg
pids=()
cleanup() {
	# the load's and the client's loops, then what they were running
	# (only this script's own: other perf runs on the machine are left)
	for p in "${pids[@]}"; do kill -STOP "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do
		pkill -KILL -P "$p" 2>/dev/null || true
		kill -KILL "$p" 2>/dev/null || true
	done
	[ -n "${commd_pid:-}" ] && kill -TERM "$commd_pid" 2>/dev/null && wait "$commd_pid" 2>/dev/null
	rmdir "/sys/kernel/tracing/instances/$inst" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

"$top/build/commd" --foreground --db "$db" --instance "$inst" --socket "$sock" \
	--max-db-mb "$maxdb" 2>"$work/commd.log" &
commd_pid=$!
until grep -q "capturing into" "$work/commd.log"; do sleep 0.1; done
serve_pid() { pgrep -f "commd serve .*--db $db" | head -1; }

( # the load: changing, with idle spells
	while :; do
		perf bench sched messaging -g 10 -l 500 >/dev/null 2>&1
		perf bench sched pipe -l 200000 >/dev/null 2>&1
		sleep 20
		perf bench sched messaging -g 2 -l 2000 >/dev/null 2>&1
		sleep 5
	done
) & pids+=($!)
( # a client querying in a loop
	while :; do
		"$top/build/commq" --socket "$sock" -noheader \
			"select comm, count(*) from sched_switch group by comm order by 2 desc limit 5" \
			>/dev/null 2>&1 || true
		sleep 1
	done
) & pids+=($!)

size() { stat -c %s "$1" 2>/dev/null || echo 0; }
rss() { awk '/VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
echo "t_s,commd_rss_kb,commd_fds,serve_rss_kb,serve_fds,wal_bytes,db_bytes,switch_rowid" > "$csv"
start=$(date +%s)
while :; do
	now=$(( $(date +%s) - start ))
	[ "$now" -gt "$duration" ] && break
	sp=$(serve_pid || true)
	rows=$("$top/build/commq" --socket "$sock" -noheader \
		"select coalesce(max(rowid), 0) from ev_sched_switch" 2>/dev/null || echo 0)
	echo "$now,$(rss "$commd_pid"),$(fds "$commd_pid"),$(rss "${sp:-0}"),$(fds "${sp:-0}"),$(size "$db-wal"),$(size "$db"),$rows" >> "$csv"
	sleep 10
done

# Figures and a picture.
summary() {	# min, median, max and 2nd-half growth of each column
	local i name n half
	n=$(($(wc -l < "$csv") - 1))
	half=$((n / 2 + 1))
	printf "%-14s %12s %12s %12s %14s\n" sample min median max 2nd-half-growth
	for i in 2 3 4 5 6 7 8; do
		name=$(head -1 "$csv" | cut -d, -f"$i")
		tail -n +2 "$csv" | cut -d, -f"$i" | tr -d ' ' | sort -n > "$work/col"
		printf "%-14s %12s %12s %12s %14s\n" "$name" "$(head -1 "$work/col")" \
			"$(sed -n "$(( (n + 1) / 2 ))p" "$work/col")" "$(tail -1 "$work/col")" \
			"$(( $(tail -n +2 "$csv" | sed -n "${n}p" | cut -d, -f"$i" | tr -d ' ') - \
			     $(tail -n +2 "$csv" | sed -n "${half}p" | cut -d, -f"$i" | tr -d ' ') ))"
	done
}
summary
awk -F, -v W=800 -v H=420 'NR > 1 { n++; t[n] = $1; r[n] = $2; s[n] = $4; w[n] = $6 / 1024; d[n] = $7 / 1024; if ($1 > tm) tm = $1
		for (k = 2; k <= 7; k++) if (k != 3 && k != 5) { x = (k >= 6) ? $k / 1024 : $k; if (x > ym) ym = x } }
	END {
		if (!tm) tm = 1; if (!ym) ym = 1
		printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H
		printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		printf "<text x=\"60\" y=\"20\">commd soak: KiB over time (s), max %d KiB, %d s</text>\n", ym, tm
		printf "<line x1=\"60\" y1=\"380\" x2=\"780\" y2=\"380\" stroke=\"black\"/><line x1=\"60\" y1=\"40\" x2=\"60\" y2=\"380\" stroke=\"black\"/>\n"
		split("#1f77b4 #ff7f0e #2ca02c #d62728", col, " ")
		split("commd RSS,serve RSS,WAL size,DB size", lab, ",")
		for (c = 1; c <= 4; c++) {
			printf "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col[c]
			for (j = 1; j <= n; j++) {
				y = (c == 1) ? r[j] : (c == 2) ? s[j] : (c == 3) ? w[j] : d[j]
				printf "%.1f,%.1f ", 60 + 720 * t[j] / tm, 380 - 340 * y / ym
			}
			printf "\"/>\n<text x=\"%d\" y=\"405\" fill=\"%s\">%s</text>\n", 60 + (c - 1) * 180, col[c], lab[c]
		}
		print "</svg>"
	}' "$csv" > "$svg"
echo "samples in $csv, plot in $svg" >&2
