#!/usr/bin/env bash
# What live capture costs the traced machine. `perf bench sched messaging`
# run RUNS times in each of four settings, interleaved, in one run:
#   bare      no tracing;
#   enabled   the same events enabled in a private instance, nobody reading
#             (the tracepoints' own cost);
#   trace-cmd `trace-cmd record -d --no-filter` of the same events into a
#             private instance, to a trace.dat;
#   commd     commd capturing into SQLite (default settings);
#   commd-CLK commd with --clock CLK, for each CLK in $CLOCKS (none by
#             default; CLOCKS=mono shows what the mono clock costs);
#   commd-stacks  commd --stacks, with STACKS=1 (the kernel stack of
#             every switch into sleep: what it costs);
#   commd-ch  commd shipping to ClickHouse, with CLICKHOUSE=URL (a server
#             with `commd clickhouse-schema` applied; bench/fleet.sh
#             starts one): what shipping costs.
# Prints the workload's median time in each and its own CPU time, the CPU
# seconds commd and trace-cmd spent (user+sys from their rusage,
# /usr/bin/time, children included) per million events stored, and the
# events each lost; the CPU each tracer ran while the load ran (schedstat
# of its processes and threads) against all it used; and, round by round,
# commd's time against trace-cmd's with a distribution-free 95% interval
# for its median. Dirty pages are written back before every timed load (a
# previous run's files must not be flushed during the next), and trace-cmd
# and commd swap places every other round.
#   [CLOCKS="mono ..."] [STACKS=1] [CLICKHOUSE=URL] bench/live-overhead.sh [RUNS] [GROUPS] [LOOPS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
groups=${2:-20}
loops=${3:-1000}
"$top/scripts/setup" "$top/build"
. "$top/scripts/tracing-guard.sh"
work=$(mktemp -d /tmp/commd-overhead.XXXXXX)
bg=
cleanup() {
	[ -n "$bg" ] && kill -TERM $bg 2>/dev/null && wait 2>/dev/null
	rmdir "$tr/instances/commd-bench-$$" 2>/dev/null || true
	rm -rf "$work"
	restore_tracing
}
trap cleanup EXIT
events="sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_waking,sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit,sched:sched_process_free,sched:sched_migrate_task,task:task_rename,task:task_newtask"
kb=16384	# commd's --buffer-kb auto on a machine of 1 GiB a CPU or more; trace-cmd gets the same
# load [TRACER]: the workload's time, its own CPU seconds (user+sys, its
# rusage) and, with a tracer's pid, the CPU seconds the tracer's processes
# and threads ran while the load did.
load() {
	local t a=0 b=0
	sync; sleep 1
	[ -n "${1:-}" ] && a=$(ran_ns "$1")
	t=$(/usr/bin/time -f "%U %S" -o "$work/load.time" \
		perf bench sched messaging -g "$groups" -l "$loops" 2>/dev/null | awk '/Total time/ { print $3 }')
	[ -n "${1:-}" ] && b=$(ran_ns "$1")
	echo "$t $(cpu_s "$work/load.time") $(awk -v a="$a" -v b="$b" 'BEGIN { print (b - a) / 1e9 }')"
}
# ran_ns PID: nanoseconds on a CPU (schedstat) of PID, its threads and its
# descendants', so far.
ran_ns() {
	local p c t ns=0
	for p in $(tree_of "$1"); do
		for c in /proc/"$p"/task/*/schedstat; do
			read -r t _ 2> /dev/null < "$c" && ns=$((ns + t))
		done
	done
	echo "$ns"
}
tree_of() { local c; echo "$1"; for c in $(pgrep -P "$1"); do tree_of "$c"; done; }
# The child of /usr/bin/time (started in the background as $bg).
child_of() { local c; until c=$(pgrep -P "$1"); do sleep 0.05; done; echo "$c"; }
cpu_s() { awk 'END { print $1 + $2 }' "$1"; }	# the last line: /usr/bin/time may say the exit status first
# stored DB: the events a capture stored, the events it lost and its loss rows.
stored() {
	sqlite3 -separator " " "$1" "select (select value from stats where name = 'events'), (select coalesce(sum(max(count, 0)), 0) from lost_events), (select count(*) from lost_events)"
}

# commd_run KEY [ARGS...]: one commd capture around one load.
commd_run() {
	local key=$1 cd_pid
	shift
	/usr/bin/time -f "%U %S" -o "$work/c$i.time" \
		"$top/build/commd" --foreground --db "$work/c$i.db" --socket "$work/c$i.sock" \
		--instance "commd-bench-$$" "$@" 2> "$work/c$i.log" &
	bg=$!
	cd_pid=$(child_of "$bg")
	until grep -q "capturing into" "$work/c$i.log"; do sleep 0.05; done
	echo "$key $(load "$cd_pid")" >> "$work/results"
	kill -TERM "$cd_pid"; wait "$bg" || true; bg=
	echo "${key}_cpu $(cpu_s "$work/c$i.time") $(stored "$work/c$i.db")" >> "$work/results"
	rm -f "$work/c$i.db"*
}

# tc_run: one trace-cmd record around one load, stopped with SIGINT after it.
tc_run() {
	local tc rec
	tc=()
	for e in ${events//,/ }; do tc+=(-e "$e"); done
	/usr/bin/time -f "%U %S" -o "$work/tc$i.time" \
		trace-cmd record -q -d --no-filter -B "$instance" -b "$kb" "${tc[@]}" \
		-o "$work/t$i.dat" > "$work/tc$i.log" 2>&1 &
	bg=$!
	rec=$(child_of "$bg")
	until [ "$(cat "$tr/instances/$instance/tracing_on" 2>/dev/null)" = 1 ]; do sleep 0.05; done
	sleep 0.5
	echo "trace-cmd $(load "$rec")" >> "$work/results"
	kill -INT "$rec"; wait "$bg" || true; bg=
	rmdir "$tr/instances/$instance" 2>/dev/null || true
	echo "$saved_on" > "$tr/tracing_on"
}

# tc_count: what round $i's trace-cmd stored and lost (read back with
# commd import), after the round's timed loads.
tc_count() {
	"$top/build/commd" import --no-progress "$work/t$i.dat" -o "$work/t$i.db" || { cat "$work/tc$i.log" >&2; exit 1; }
	echo "tc_cpu $(cpu_s "$work/tc$i.time") $(stored "$work/t$i.db")" >> "$work/results"
	rm -f "$work/t$i.dat" "$work/t$i.db"
}

: > "$work/results"
for i in $(seq "$runs"); do
	echo "bare $(load)" >> "$work/results"

	# enabled, nobody reading (overwrite mode: the buffer just wraps)
	inst=$tr/instances/commd-bench-$$
	mkdir "$inst"
	echo "$kb" > "$inst/buffer_size_kb"
	for e in ${events//,/ }; do echo "$e" >> "$inst/set_event"; done
	echo 1 > "$inst/tracing_on"
	echo "enabled $(load)" >> "$work/results"
	echo 0 > "$inst/tracing_on"
	echo > "$inst/set_event"
	rmdir "$inst"

	# trace-cmd and commd (then commd with each clock of $CLOCKS), in
	# turns: whichever runs second finds the machine as the first left it
	if [ $((i % 2)) = 1 ]; then
		tc_run
		commd_run commd
	else
		commd_run commd
		tc_run
	fi
	for clk in ${CLOCKS:-}; do
		commd_run "commd-$clk" --clock "$clk"
	done
	[ -z "${STACKS:-}" ] || commd_run commd-stacks --stacks
	# shipping to ClickHouse (the shipper is commd's child: its CPU is in
	# commd's rusage, and its rows are in the server when the round ends)
	[ -z "${CLICKHOUSE:-}" ] || commd_run commd-ch --clickhouse "$CLICKHOUSE" \
		--host-name "bench-$$-$i"
	tc_count
done

[ -n "${DEBUG:-}" ] && cat "$work/results" >&2
extra=
for clk in ${CLOCKS:-}; do extra+=" commd-$clk"; done
[ -z "${STACKS:-}" ] || extra+=" commd-stacks"
[ -z "${CLICKHOUSE:-}" ] || extra+=" commd-ch"
awk -v g="$groups" -v l="$loops" -v n="$runs" -v extra="$extra" '
function median(k,   i, j, t, m) {
	m = cnt[k]
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
		if (v[k, j] < v[k, i]) { t = v[k, i]; v[k, i] = v[k, j]; v[k, j] = t }
	return m % 2 ? v[k, (m + 1) / 2] : (v[k, m / 2] + v[k, m / 2 + 1]) / 2
}
/_cpu/ { k = $1; cpu[k] += $2; ev[k] += $3; lost[k] += $4; rec[k] += $5; next }
{ v[$1, ++cnt[$1]] = $2; o[$1, cnt[$1]] = $2; own[$1] += $3; ran[$1] += $4 }
END {
	printf "perf bench sched messaging -g %d -l %d, %d runs each (interleaved), median time:\n", g, l, n
	b = median("bare")
	printf "  bare         %7.3f s  (runs %.3f to %.3f)\n", b, v["bare", 1], v["bare", cnt["bare"]]
	nk = split("enabled trace-cmd commd" extra, ks, " ")
	for (i = 1; i <= nk; i++) {
		t = median(ks[i]); m[ks[i]] = t
		printf "  %-12s %7.3f s  (%+.1f%% against bare; runs %.3f to %.3f)\n", ks[i], t, (t / b - 1) * 100, v[ks[i], 1], v[ks[i], cnt[ks[i]]]
	}
	printf "median time under commd / under trace-cmd: %.3f\n", m["commd"] / m["trace-cmd"]
	# Each round runs the four settings back to back: the median of the
	# ratios of each round against the bare run of the same round is
	# steadier when the machine drifts between rounds.
	printf "paired: median over the rounds of (setting / that round bare run - 1):\n"
	for (i = 1; i <= nk; i++) {
		k = ks[i]
		for (j = 1; j <= cnt[k]; j++) v["p" k, j] = (o[k, j] / o["bare", j] - 1) * 100
		cnt["p" k] = cnt[k]
		printf "  %-12s %+.1f%% (rounds %+.1f%% to %+.1f%%)\n", k, median("p" k), v["p" k, 1], v["p" k, cnt[k]]
	}
	# commd against trace-cmd round by round (the two run back to back,
	# in turns), with the distribution-free 95% interval for the median:
	# the d-th smallest to the d-th largest, d from the binomial(n, 1/2)
	# tail of at most 2.5%.
	nd = 0
	for (j = 1; j <= cnt["commd"] && j <= cnt["trace-cmd"]; j++) {
		v["d", j] = (o["commd", j] / o["trace-cmd", j] - 1) * 100; nd++
		if (v["d", j] <= 0) faster++
	}
	cnt["d"] = nd
	if (nd) {
		md = median("d")
		p = 0.5 ^ nd; tail = p; d = 0
		while (tail <= 0.025) { d++; p = p * (nd - d + 1) / d; tail += p }
		printf "commd against trace-cmd, round by round (%d rounds): median %+.2f%%", nd, md
		if (d >= 1)
			printf ", 95%% interval %+.2f%% to %+.2f%%", v["d", d], v["d", nd - d + 1]
		printf "; commd as fast or faster in %d of %d\n", faster, nd
	}
	# The own CPU of the load: a tracer that slows the traced code itself
	# (cache, memory, its tracepoints) shows here; one that only takes
	# CPU from it does not.
	printf "own CPU of the load (user+sys, its rusage), mean of the rounds:\n"
	printf "  bare         %.2f s\n", own["bare"] / cnt["bare"]
	for (i = 1; i <= nk; i++)
		printf "  %-12s %.2f s (%+.1f%%)\n", ks[i], own[ks[i]] / cnt[ks[i]], (own[ks[i]] / cnt[ks[i]]) / (own["bare"] / cnt["bare"]) * 100 - 100
	# What a tracer runs while the load runs is what it takes from it;
	# what it does before and after (start, the last drain, a file
	# written out) is not.
	printf "tracer CPU a round: while the load ran (its processes and threads, schedstat) / in all (rusage):\n"
	for (i = 2; i <= nk; i++) {
		k = ks[i]; c = (k == "trace-cmd" ? "tc" : k) "_cpu"
		printf "  %-12s %.3f s / %.3f s\n", k, ran[k] / cnt[k], cpu[c] / cnt[k]
	}
	printf "CPU per stored event (user+sys, all runs):\n"
	printf "  commd        %.3f us  (%.2f s per million; %d events, %d lost in %d loss records)\n", cpu["commd_cpu"] / ev["commd_cpu"] * 1e6, cpu["commd_cpu"] / ev["commd_cpu"] * 1e6, ev["commd_cpu"], lost["commd_cpu"], rec["commd_cpu"]
	printf "  trace-cmd    %.3f us  (%.2f s per million; %d events, %d lost in %d loss records)\n", cpu["tc_cpu"] / ev["tc_cpu"] * 1e6, cpu["tc_cpu"] / ev["tc_cpu"] * 1e6, ev["tc_cpu"], lost["tc_cpu"], rec["tc_cpu"]
	for (i = 4; i <= nk; i++) {
		k = ks[i] "_cpu"
		printf "  %-12s %.3f us  (%.2f s per million; %d events, %d lost in %d loss records)\n", ks[i], cpu[k] / ev[k] * 1e6, cpu[k] / ev[k] * 1e6, ev[k], lost[k], rec[k]
	}
}' "$work/results"
