#!/usr/bin/env bash
# live-runq.sh - the run-queue waits (runqueue_wait, runqueue, commq runq)
# against the kernel's own account of them, live:
#
#   four busy loops and two tasks that sleep 3 ms at a time share the two
#   CPUs while commd captures (default events). The kernel adds each wait
#   of a task on a run queue to the task's run delay (/proc/PID/schedstat,
#   field 2: sched_info, counted when the wait ends: the task runs, or a
#   migration takes it to another CPU's queue). The test reads it for the
#   six tasks at T0 and, 5 s later, at T1 (their wall-clock times, mapped
#   to the trace clock with the capture's clock readings). The six tasks'
#   deltas together must be within 5% of the sum of their waits in
#   runqueue_wait that ended in (T0, T1], and each task's within 5% plus
#   10 µs for each of its runs (field 3): the kernel reads its run-queue
#   clock, not the tracepoints' clock, at the enqueue and when schedule()
#   begins, which puts each of its waits a few µs apart from the events'
#   (the log prints how far a run; a task of short waits, as the
#   sleepers' tens of µs, shows it). Where the kernel keeps per-CPU
#   counts (/proc/schedstat, CONFIG_SCHEDSTATS: field 8 of each cpuN line
#   is the run delay of the waits that ended on that CPU), the same per
#   CPU; this VM's kernel has none (said in the log).
#
# Also: commq runq's wait_ms over the whole capture is runqueue_wait's sum
# of known waits per CPU (and of those open at the end, up to it), the
# busy loops' mean queue length is > 0.5, and while they run some of
# them are queued at the newest event.
. "$(dirname "$0")/lib.sh"
need_live

chmod 0755 "$TMP"
in=$(inst rq)
db=$TMP/rq.db
start_ready "capture" "$TMP/commd.err" "$db" "$in" --commit-ms 200

mkfifo "$TMP/never"
pids=()
for i in 1 2 3 4; do
	bash -c 'while :; do :; done' &
	pids+=("$!")
	HELPER_PIDS+=("$!")
done
for i in 1 2; do
	bash -c 'exec 3<> "$1"; while :; do read -t 0.003 -u 3 || :; done' sleeper "$TMP/never" &
	pids+=("$!")
	HELPER_PIDS+=("$!")
done
sleep 1

# read_delays FILE: "pid run_delay" for each task, and "cpuN delay" lines
# from /proc/schedstat when there is one; the realtime of the reading first.
read_delays() {
	local p a b c
	{
		echo "t ${EPOCHREALTIME/./}000"
		for p in "${pids[@]}"; do
			read -r a b c < "/proc/$p/schedstat"
			echo "$p $b $c"
		done
		if [ -r /proc/schedstat ]; then
			awk '$1 ~ /^cpu[0-9]+$/ { print $1, $9 }' /proc/schedstat
		fi
	} > "$1"
}
read_delays "$TMP/d0"
sleep 5
read_delays "$TMP/d1"
# While they run: four busy loops on two CPUs keep two of them queued at
# any time, waits still open at the newest event (schema 031: before it
# they were no wait at all, and `runq --last` missed the queue of now).
sleep 0.5
open=$(q "$db" "SELECT count(*) FROM runqueue_wait WHERE ended = 'open' AND pid IN ($(IFS=,; echo "${pids[*]}"))")
check_true "while the load runs: its tasks still queued at the newest event (runqueue_wait ended 'open')" \
	">= 1" "$open" test "$open" -ge 1
# and a task running now (its switch in stored, its slice not ended yet:
# no sched row) is not one of them
open=$(q "$db" "SELECT count(*) FROM runqueue_wait w WHERE ended = 'open' AND EXISTS (
	SELECT 1 FROM ev_sched_switch x WHERE x.ts >= w.ts AND x.next_pid = w.pid)")
check_eq "while the load runs: open waits of tasks switched in since" 0 "$open"
for p in "${pids[@]}"; do kill -KILL "$p" 2> /dev/null || true; done
sleep 0.5
stop_commd "$COMMD_PID" TERM
check_eq "exit status after SIGTERM" 0 "$STOP_RC"

t0=$(awk '$1 == "t" { print $2 }' "$TMP/d0")
t1=$(awk '$1 == "t" { print $2 }' "$TMP/d1")
# The trace-clock time of realtime R: the latest clock reading before it.
tc() { echo "(SELECT $1 - (realtime - ts) FROM clock_map WHERE realtime <= $1 ORDER BY realtime DESC LIMIT 1)"; }
ended="ended IS NOT NULL AND ts + dur > $(tc "$t0") AND ts + dur <= $(tc "$t1")"
ksum=0 msum=0
for p in "${pids[@]}"; do
	read -r k0 n0 < <(awk -v p="$p" '$1 == p { print $2, $3 }' "$TMP/d0")
	read -r k1 n1 < <(awk -v p="$p" '$1 == p { print $2, $3 }' "$TMP/d1")
	kern=$((k1 - k0)) runs=$((n1 - n0))
	mine=$(q "$db" "SELECT coalesce(sum(dur), 0) FROM runqueue_wait WHERE pid = $p AND $ended")
	ksum=$((ksum + kern)) msum=$((msum + mine))
	log "pid $p: run delay over the 5 s: kernel $kern ns, commd $mine ns; $runs runs," \
		"$(awk -v a="$kern" -v b="$mine" -v n="$runs" 'BEGIN { printf "%.2f µs a run apart", n ? (b - a) / n / 1000 : 0 }')"
	check_true "pid $p: run delay in (T0, T1] within 5% (+ 10 µs a run) of the kernel's (/proc/$p/schedstat)" \
		"$kern ± 5% ± $runs x 10 µs" "$mine" \
		awk -v a="$kern" -v b="$mine" -v n="$runs" 'BEGIN { d = b - a; if (d < 0) d = -d; exit !(a > 0 && d <= a * 0.05 + n * 10000) }'
done
check_true "the six tasks' run delay together within 5% of the kernel's" "$ksum ± 5%" "$msum" \
	awk -v a="$ksum" -v b="$msum" 'BEGIN { exit !(a > 0 && b >= a * 0.95 && b <= a * 1.05) }'
if grep -q '^cpu' "$TMP/d0"; then
	while read -r cpu k0; do
		k1=$(awk -v c="$cpu" '$1 == c { print $2 }' "$TMP/d1")
		n=${cpu#cpu}
		mine=$(q "$db" "SELECT coalesce(sum(dur), 0) FROM runqueue_wait WHERE cpu = $n AND $ended")
		log "$cpu: run delay over the 5 s: kernel $((k1 - k0)) ns, commd $mine ns"
		check_true "$cpu: run delay within 5% of the kernel's (/proc/schedstat field 8)" \
			"$((k1 - k0)) ± 5%" "$mine" \
			awk -v a="$((k1 - k0))" -v b="$mine" 'BEGIN { exit !(a > 0 && b >= a * 0.95 && b <= a * 1.05) }'
	done < <(grep '^cpu' "$TMP/d0")
else
	log "no /proc/schedstat on this kernel (CONFIG_SCHEDSTATS off): the per-CPU run delay is not checked, the per-task one is"
fi

"$COMMQ" --db "$db" -q -csv -noheader runq > "$TMP/runq" 2>&1 || fail "commq runq" "exit 0" "$(cat "$TMP/runq")"
check_eq "commq runq: wait_ms per CPU = the sum of the CPU's known waits and open ones to the end" \
	"$(q "$db" "SELECT cpu || ',' || printf('%.3f', sum(coalesce(dur, (SELECT max(end_ts) FROM capture) - ts)) / 1e6)
		    FROM runqueue_wait WHERE dur IS NOT NULL OR ended = 'open' GROUP BY cpu ORDER BY cpu")" \
	"$(awk -F, '{ printf "%s,%.3f\n", $1, $7 }' "$TMP/runq")"
check_true "commq runq: a queue under four busy loops on two CPUs (mean > 0.5 on each)" "> 0.5" \
	"$(cut -d, -f2 "$TMP/runq" | tr '\n' ' ')" awk -F, '$2 <= 0.5 { bad = 1 } END { exit bad || NR < 2 }' "$TMP/runq"
finish
