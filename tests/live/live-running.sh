#!/usr/bin/env bash
# live-running.sh - a running capture shows the tasks running now, however
# long ago they were switched in (derive_show_open, docs/derived.md):
#
#   a SCHED_FIFO busy loop pinned to CPU 0, then one pinned to CPU 1,
#   each runs for 4 s while commd
#   captures (commits every 100 ms); the kernel takes the CPU from it for
#   a moment each second (RT throttling, or the fair server that gives
#   other tasks their share), so its slices last most of a second. Polled
#   every 0.15 s, read in one statement each: the loop's newest slice in
#   `sched` reaches the newest event stored in most polls (it runs at
#   that time), and `commq top --last 0.3s` gives it most of the 0.3 s.
#   Before, a slice still open was in no view: the loop's last slice
#   there ended up to a second before the newest event (0 of 26 polls),
#   and `commq top --last` of a moment in the middle of its slice did not
#   have it at all.
#
# A slice no recorded switch began (this VM traces no switch out of
# swapper/1: on CPU 1 the loop's slices begin by inference) is shown as
# a dv_sched row of its own while it runs (n -1), dropped at each commit
# for the one as it stands then. Once the loops are gone, an idle CPU's
# open slice is shown as well (dv_open_idle): `top --by cpu --last 1s`
# covers every CPU's second up to the newest event.
#
# After SIGTERM: no switch row is left holding a slice as still running
# (those that ended otherwise, and those open at the end, are rows of
# dv_sched, their switch's row taken back), no running slice's row of its
# own is left, no CPU's slices overlap in `sched`, and each loop's time
# there is its CPU time (/proc/PID/stat, utime + stime in clock ticks)
# within 5% and 2 ticks.
#
# Needs root and tracefs (FAILS without them).
. "$(dirname "$0")/lib.sh"
need_live
# (the loop takes a CPU; on a machine of one, commd and the polls would
# share the rest of it with nothing else: exit 77, skipped)
if [ "$(nproc)" -lt 2 ]; then
	log "one CPU: the FIFO loop would leave commd 50 ms a second; skipped"
	exit 77
fi

chmod 0755 "$TMP"
in=$(inst run)
db=$TMP/run.db
start_ready "capture" "$TMP/commd.err" "$db" "$in" --commit-ms 100
sleep 0.5

cp /bin/bash "$TMP/fifo-loop"
# The loop on CPU c for 4 s: its slice reaches the newest event in most
# polls, and `commq top --last 0.3s` gives it most of the 0.3 s. Its
# CPU time (utime + stime ticks, read just before its kill) in ticks_c.
run_loop() {
	local c=$1 hog probe now=0 polls=0 own=0 r i tops=0 got="" ms st
	chrt -f 10 taskset -c "$c" "$TMP/fifo-loop" -c 'while :; do :; done' &
	hog=$!
	HELPER_PIDS+=("$hog")
	sleep 0.3
	# One statement: the loop's newest slice end on CPU c against the
	# newest event of every event table (a consistent snapshot of one
	# commit), and whether that slice is a row of its own while it runs
	# (begun by no recorded switch: dv_sched's n -1).
	probe="SELECT coalesce((SELECT max(ts + dur) FROM sched WHERE pid = $hog AND cpu = $c), 0)
		>= ($(max_event_ts_sql "$db")),
		(SELECT count(*) FROM dv_sched WHERE cpu = $c AND n = -1)"
	for _ in $(seq 26); do
		r=$(q "$db" "$probe" 2> /dev/null) || r=
		[ "${r%%|*}" = 1 ] && now=$((now + 1))
		[ "${r#*|}" = 1 ] && own=$((own + 1))
		polls=$((polls + 1))
		sleep 0.15
	done
	log "CPU $c: polls where the loop's slice reaches the newest event: $now of $polls (as a row of its own, begun by no recorded switch: $own)"
	# (it is off the CPU for a moment each second: a poll may fall
	# there; before its slices begun by no switch were shown, 18 and 19
	# of 26 reached it)
	check_true "while the FIFO loop runs on CPU $c: its slice reaches the newest event stored in 4 polls of 5" \
		">= $((polls * 4 / 5)) of $polls" "$now" test "$now" -ge $((polls * 4 / 5))

	# commq top over the last 0.3 s of what is stored, three times: the
	# loop ran most of it (it is off the CPU 50 ms a second at most)
	for i in 1 2 3; do
		"$COMMQ" --db "$db" -q -csv -noheader top --last 0.3s > "$TMP/top$c-$i" 2>&1 ||
			fail "commq top --last 0.3s" "exit 0" "$(head -c 500 "$TMP/top$c-$i")"
		ms=$(awk -F, '$1 == "fifo-loop" { print $3 }' "$TMP/top$c-$i")
		got+="${ms:-none} "
		awk -v m="${ms:-0}" 'BEGIN { exit !(m >= 150) }' && tops=$((tops + 1))
		sleep 0.35
	done
	log "CPU $c: commq top --last 0.3s: fifo-loop's time_ms: $got"
	check_true "commq top --last 0.3s while the loop runs on CPU $c: the loop (fifo-loop) ran 150 ms or more of it, in 2 of 3" \
		">= 2" "$tops ($got)" test "$tops" -ge 2

	read -r -a st < "/proc/$hog/stat"
	eval "ticks_$c=$((st[13] + st[14])) hog_$c=$hog"
	kill -KILL "$hog"
	wait "$hog" 2> /dev/null || true
	sleep 0.3
}
# CPU 0, then CPU 1: on this VM no switch out of swapper/1 is traced, so
# the loop's slices there begin by inference after each idle moment and
# are shown as rows of their own (until 2026-12-07 they were shown only
# once ended: 0 polls of 26 reached the newest event there).
run_loop 0
run_loop 1

# The loops gone, the CPUs mostly idle: every CPU's time in the last
# second is in a slice or unknown, up to the newest event: an idle CPU's
# open slice is shown too (a row of dv_open_idle, schema 032). Before,
# the time since a CPU went idle was in no slice and no span: `top --by
# cpu --last 1s` gave CPU 0 983-990 ms of the second in 5 of 6 polls.
full=0 polls=0 idle_rows=0 got=""
for _ in 1 2 3 4 5; do
	r=$("$COMMQ" --db "$db" -q -csv -noheader top --by cpu --last 1s 2>&1) ||
		fail "commq top --by cpu --last 1s" "exit 0" "$(head -c 500 <<< "$r")"
	short=$(awk -F, '$2 + $3 + $4 < 999.9 { n++ } END { print n + 0 }' <<< "$r")
	got+="$(awk -F, '{ printf "%s:%.3f ", $1, $2 + $3 + $4 }' <<< "$r")| "
	[ "$short" = 0 ] && [ -n "$r" ] && full=$((full + 1))
	polls=$((polls + 1))
	[ "$(q "$db" "SELECT count(*) FROM dv_open_idle")" -gt 0 ] && idle_rows=$((idle_rows + 1))
	sleep 0.3
done
log "commq top --by cpu --last 1s, each CPU's busy + idle + unknown ms: $got(polls with an idle CPU's open slice shown: $idle_rows of $polls)"
check_true "an idle moment: every CPU's last second is covered up to the newest event (busy + idle + unknown >= 999.9 ms) in 4 polls of 5" \
	">= 4 of $polls" "$full ($got)" test "$full" -ge 4
stop_commd "$COMMD_PID" TERM
check_eq "exit status after SIGTERM" 0 "$STOP_RC"
check_integrity "after the stop" "$db"

check_eq "after the stop: switch rows holding a slice as still running (slice_dur set, slice_state NULL)" 0 \
	"$(q "$db" "SELECT count(*) FROM ev_sched_switch WHERE slice_dur IS NOT NULL AND slice_state IS NULL")"
check_eq "after the stop: slices of one CPU that overlap in sched" 0 \
	"$(q "$db" "SELECT count(*) FROM (SELECT ts, lag(ts + dur) OVER (PARTITION BY cpu ORDER BY ts, dur) AS pe
		FROM sched WHERE dur IS NOT NULL) WHERE pe > ts")"
check_eq "after the stop: no running slice's row of its own left (dv_sched's n -1, dv_open_idle)" 0 \
	"$(q "$db" "SELECT (SELECT count(*) FROM dv_sched WHERE n < 0) + (SELECT count(*) FROM dv_open_idle)")"
hz=$(getconf CLK_TCK)
for c in 0 1; do
	eval "hog=\$hog_$c ticks=\$ticks_$c"
	mine=$(q "$db" "SELECT coalesce(sum(dur), 0) FROM sched WHERE pid = $hog")
	log "CPU $c: the loop's CPU time: kernel $ticks ticks of 1/$hz s (read just before its kill), sched $mine ns"
	check_true "the loop on CPU $c: its time in sched is its CPU time (/proc/$hog/stat) within 5% and 2 ticks" \
		"$ticks ticks ± 5% ± 2" "$mine ns" \
		awk -v k="$ticks" -v hz="$hz" -v m="$mine" 'BEGIN { t = m * hz / 1e9; d = t - k; if (d < 0) d = -d; exit !(k > 0 && d <= k * 0.05 + 2) }'
done
finish
