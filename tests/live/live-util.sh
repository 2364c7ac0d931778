#!/usr/bin/env bash
# live-util.sh - `commq util` against the kernel's own account of each
# CPU's time, /proc/stat, live, under a load that varies:
#
#   commd captures (its default events, and --events ... with
#   sched_stat_runtime in a second round) while a load goes from nothing
#   to one spinning task, two, perf bench sched messaging, and back to
#   nothing. The test reads /proc/stat at whole seconds of the wall clock
#   (the time of each reading recorded), so that second k of
#   `commq util --from T0 --interval 1s` (T0 the first reading's time,
#   mapped to the trace clock by the capture's clock readings) covers the
#   same time as readings k and k+1. The kernel's busy share of a CPU's
#   second is what its idle+iowait delta leaves of the second: on a
#   tickless kernel those come from the idle accounting itself, exact,
#   while user+nice+system+irq+softirq+steal are charged a tick at a time
#   and miss the short runs of a nearly idle CPU (one woken between ticks
#   runs uncharged: 2% of a second seen busy here, 0 in those fields);
#   /proc/stat counts in USER_HZ ticks (10 ms): a delta is exact to a
#   tick or two, which 2% allows. Interrupts that come while a CPU is idle
#   end its idle time for their length (tickless idle accounting stops at
#   irq entry), so the kernel counts them busy, while the task on the CPU,
#   all a tracer of the scheduler sees, is still the idle task: the
#   kernel's busy share may exceed commd's by that much as well. This
#   kernel has no IRQ_TIME_ACCOUNTING (the irq field stays 0, softirq is
#   charged a tick at a time), so that side allows 2% more, and the
#   second's softirq share (measured here: 2.6% over in a quiet second
#   of a full test run, whose disk I/O the other tests make; 3.2% in
#   another, its softirq 0, the second after the load had stopped).
#
#   With sched_stat_runtime (the kernel's own run-time updates place the
#   switches nobody recorded: docs/derived.md), per CPU and second,
#   commd's busy time (busy_ms / 1000) is within 2% of the second of the
#   kernel's. With the default events, a switch nobody recorded leaves
#   time no event attributes (unknown; on this VM the time after every
#   switch into a task whose switch out is never traced: swapper/1 on
#   some boots, the threads of PID 1 on others): there the kernel's busy
#   share lies within 2% of [busy, busy + unknown].
#
# Also: the seconds' busy + idle + unknown make up the second; the sum of
# util's busy over the seconds equals top --by cpu's busy for the same
# window (to rounding: 1 µs a row).
. "$(dirname "$0")/lib.sh"
need_live
need_perf

chmod 0755 "$TMP"
secs=${UTIL_SECONDS:-12}

# spin SECONDS: a busy loop in the shell, for SECONDS.
spin() {
	local end=$((SECONDS + $1))
	while [ "$SECONDS" -lt "$end" ]; do :; done
}

# The load, by second from its start: 0-1 nothing, 2-3 one spinner,
# 4-5 two, 6-8 perf bench messaging, then nothing.
load() {
	sleep 2
	spin 2 &
	sleep 2
	spin 2 &
	spin 2
	wait
	perf bench sched messaging -g 4 -l 2000 > /dev/null 2>&1 &
	local p=$!
	sleep 3
	kill "$p" 2> /dev/null || true
	wait
}

# sample FILE: /proc/stat's cpuN lines at whole seconds of the wall clock,
# secs + 1 of them: "realtime_ns cpu busy_ticks idle_ticks" lines.
sample() {
	local out=$1 k now next line cpu u n s i w q sq st
	now=${EPOCHREALTIME/./}
	next=$(( (now / 1000000 + 1) * 1000000 ))
	for ((k = 0; k <= secs; k++)); do
		now=${EPOCHREALTIME/./}
		[ "$next" -gt "$now" ] && sleep "$(printf '0.%06d' $((next - now)))"
		now=${EPOCHREALTIME/./}
		while read -r cpu u n s i w q sq st _; do
			case $cpu in
			cpu[0-9]*) echo "${now}000 ${cpu#cpu} $((u + n + s + q + sq + st)) $((i + w)) $((q + sq))" ;;
			esac
		done < /proc/stat >> "$out"
		next=$((next + 1000000))
	done
}

iso() {	# iso NS: the UTC time of day of realtime NS, to the ns
	printf '%s.%09dZ' "$(date -u -d "@$(($1 / 1000000000))" +%Y-%m-%dT%H:%M:%S)" $(($1 % 1000000000))
}

round() {	# round NAME MODE EVENTS: one capture, its comparison
	local what=$1 mode=$2 events=$3 in db t0 t1 c lpid
	in=$(inst "$what")
	db=$TMP/$what.db
	start_ready "$what" "$TMP/$what.err" "$db" "$in" --commit-ms 200 ${events:+--events "$events"}
	sleep 0.5
	load &
	lpid=$!
	HELPER_PIDS+=("$lpid")
	# The readings on time under the load: a real-time (FIFO) sampler.
	( chrt -f -p 50 "$BASHPID" > /dev/null; sample "$TMP/$what.stat" )
	wait "$lpid" || true
	sleep 0.5	# the last second's slices end and are committed
	stop_commd "$COMMD_PID" TERM
	check_eq "$what: exit status after SIGTERM" 0 "$STOP_RC"
	t0=$(awk 'NR == 1 { print $1 }' "$TMP/$what.stat")
	t1=$((t0 + secs * 1000000000))	# the last reading's time, to within ms
	"$COMMQ" --db "$db" -q -csv -noheader util --interval 1s --from "$(iso "$t0")" \
		--to "$(iso "$t1")" > "$TMP/$what.util" 2> "$TMP/$what.util.err" ||
		fail "$what: commq util" "exit 0" "$(cat "$TMP/$what.util.err")"
	# util's seconds (ts, wall, cpu, busy, idle, unknown, pct) add up to
	# one each, the last one may be shorter. --from and --to are times of
	# day, mapped to the trace clock by the readings nearest them: when
	# the two clocks moved apart during the capture (a VM paused by its
	# host, NTP slewing), the window is 12 s and some µs of trace clock,
	# and those µs are a 13th, last interval.
	while read -r c k span; do
		check_true "$what: cpu $c second $k of util --interval 1s: busy + idle + unknown make the second" \
			"1.000 s (the last one may be shorter)" "$span s" \
			awk -v s="$span" -v k="$k" -v n="$secs" 'BEGIN { exit !(s >= 0.999 && s <= 1.001 || k == n - 1 && s <= 1.001 || k == n && s <= 0.01) }'
	done < <(awk -F, '{ printf "%s %d %.4f\n", $3, n[$3]++, ($4 + $5 + $6) / 1000 }' "$TMP/$what.util")
	# The kernel's busy share per CPU and second: readings k and k + 1,
	# "cpu k busy len irq t_k t_k+1". A reading may come late when the
	# host stalls this VM (1.19 s and 1.40 s "seconds" seen in CI), so
	# commd is asked about exactly the readings' window, not about util's
	# k-th second of 1 s.
	awk -v hz="$(getconf CLK_TCK)" '{ n = cnt[$2]++; b[$2, n] = $3; i[$2, n] = $4; t[$2, n] = $1; q[$2, n] = $5 }
	     END { for (c in cnt) for (k = 0; k + 1 < cnt[c]; k++) {
			di = i[c, k + 1] - i[c, k]; len = (t[c, k + 1] - t[c, k]) / 1e9
			busy = 1 - di / hz / len
			irq = (q[c, k + 1] - q[c, k]) / hz / len
			printf "%s %d %.4f %.4f %.4f %s %s\n", c, k, busy < 0 ? 0 : busy, len, irq, t[c, k], t[c, k + 1] } }' "$TMP/$what.stat" |
		sort -k1,1n -k2,2n > "$TMP/$what.kernel"
	# commd's busy and unknown share of each window, and the window's
	# busy + idle + unknown, as util answers for that window alone.
	: > "$TMP/$what.commd"
	while read -r k a b; do
		"$COMMQ" --db "$db" -q -csv -noheader util --interval 3600s --from "$(iso "$a")" \
			--to "$(iso "$b")" 2> "$TMP/$what.util.err" |
			awk -F, -v k="$k" -v len="$(( (b - a) ))" \
			'{ printf "%s %d %.4f %.4f %.4f\n", $3, k, $4 * 1e6 / len, $6 * 1e6 / len, ($4 + $5 + $6) * 1e6 / len }' \
			>> "$TMP/$what.commd"
	done < <(awk '$1 == 0 { print $2, $6, $7 }' "$TMP/$what.kernel")
	sort -k1,1n -k2,2n -o "$TMP/$what.commd" "$TMP/$what.commd"
	check_eq "$what: seconds compared per CPU (commd's against the kernel's)" \
		"$(cut -d' ' -f1,2 "$TMP/$what.kernel" | tr '\n' ' ')" "$(cut -d' ' -f1,2 "$TMP/$what.commd" | tr '\n' ' ')"
	join -j1 <(awk '{ print $1 "_" $2, $3, $4, $5 }' "$TMP/$what.kernel") \
		<(awk '{ print $1 "_" $2, $3, $4, $5 }' "$TMP/$what.commd") > "$TMP/$what.both"
	while read -r key kb len irq cb cu span; do
		log "$what: cpu ${key%_*} second ${key#*_}: kernel busy $kb (irq+softirq $irq), commd busy $cb (unknown $cu), second $len s"
		check_true "$what: cpu ${key%_*} second ${key#*_}: the window adds up (busy + idle + unknown)" \
			"1.000 of the readings' window" "$span" \
			awk -v s="$span" 'BEGIN { exit !(s >= 0.999 && s <= 1.001) }'
		if [ "$mode" = exact ]; then
			check_true "$what: cpu ${key%_*} second ${key#*_}: busy within 2% of the kernel's (/proc/stat; 4% + softirq below it)" \
				"$kb - $irq - 0.04 <= busy <= $kb + 0.02" "$cb" \
				awk -v a="$kb" -v b="$cb" -v q="$irq" 'BEGIN { d = a - b; exit !(d <= 0.04 + q && d >= -0.02) }'
		else
			check_true "$what: cpu ${key%_*} second ${key#*_}: the kernel's busy (/proc/stat) within 2% of [busy, busy + unknown]" \
				"$kb in [$cb - 0.02, $cb + $cu + $irq + 0.04]" "$cb + $cu" \
				awk -v a="$kb" -v b="$cb" -v u="$cu" -v q="$irq" 'BEGIN { exit !(a >= b - 0.02 && a <= b + u + q + 0.04) }'
		fi
	done < "$TMP/$what.both"
	# util's busy adds up to top --by cpu's over the same window.
	"$COMMQ" --db "$db" -q -csv -noheader top --by cpu --from "$(iso "$t0")" --to "$(iso "$t1")" \
		> "$TMP/$what.top" 2>&1 || true
	for c in $(cut -d, -f1 "$TMP/$what.top"); do
		check_true "$what: cpu $c: util's busy over the seconds equals top --by cpu's (1 µs a row)" \
			"$(awk -F, -v c="$c" '$1 == c { print $2 }' "$TMP/$what.top") ms" \
			"$(awk -F, -v c="$c" '$3 == c { s += $4 } END { printf "%.3f", s }' "$TMP/$what.util") ms" \
			awk -F, -v c="$c" -v top="$(awk -F, -v c="$c" '$1 == c { print $2 }' "$TMP/$what.top")" \
			'$3 == c { s += $4; n++ } END { d = s - top; exit !(d <= 0.001 * n && d >= -0.001 * n) }' "$TMP/$what.util"
	done
}

round default bounds ""
round runtime exact "$(events_plus sched:sched_stat_runtime)"
finish
