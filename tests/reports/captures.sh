#!/bin/bash
# A database of more than one capture, and one retention cut: the time
# between two captures (commd stopped) and the time before the retention
# cutoff (rows deleted) are no CPU's span, so they are not "unknown" in
# top --by cpu, in the unknown-time warning, nor time of runq's queues;
# util begins at the cutoff, and util's intervals inside a stop have no
# row. Both databases are made from an import the
# way commd makes them: a cut deletes every row before the cutoff and
# writes it to stats (daemon/store_retain.c); a stop ends the capture, a
# start begins the next one (the rows between them deleted, and slices
# running at the stop left without an end, as a stop leaves them). Also:
# a CPU with no slice in the window but one before it is listed, all of
# its time unknown (a chain break on it covers the window); times of
# different kinds (a time of day and a trace time) are not compared;
# --last on a running capture ends at its newest event of any kind.
set -euo pipefail
# shellcheck source=tests/reports/lib.sh
source "$(dirname "$0")/lib.sh"
import sched-drops
db=$T/sched-drops.db
read -r S E < <(ref -separator ' ' "$db" "select start_ts, end_ts from capture")
tables=$(ref "$db" "select name from sqlite_master where type = 'table'
	and (name glob 'ev_*' or name glob 'dv_*' or name = 'switch_stack')")

# spans DB ARGS...: "cpu span_ms" a line per CPU of top --by cpu (busy +
# idle + unknown, each rounded to the µs by the report).
spans() {
	local d=$1
	shift
	commq_ok "top --by cpu $*" --db "$d" -q -csv top --by cpu "$@"
	awk -F, '{ printf "%s %.3f\n", $1, $2 + $3 + $4 }' "$T/got"
}
# spans_near NAME A B: two "cpu ms" lists, the same CPUs, each span
# within 2 µs (three terms rounded to the µs): lib.sh's near, per CPU.
spans_near() {
	local a=() b=() i
	mapfile -t a <<< "$2"
	mapfile -t b <<< "$3"
	expect_eq "$1: CPUs" "$(cut -d' ' -f1 <<< "$2" | paste -sd' ')" \
		"$(cut -d' ' -f1 <<< "$3" | paste -sd' ')"
	for i in "${!a[@]}"; do
		near "$1: CPU ${a[i]%% *}" "${a[i]#* }" "$(cut -d' ' -f2 <<< "${b[i]:-}")" 0.002
	done
}

# --- a retention cut at 40% of the capture
X=$((S + (E - S) * 4 / 10))
cut=$T/cut.db
cp "$db" "$cut"
{
	for t in $tables; do echo "DELETE FROM $t WHERE ts < $X;"; done
	echo "INSERT INTO stats (name, value) VALUES ('retention_cutoff_ts', $X);"
} | sqlite3 "$cut"
spans_near "after a cut at $X, each CPU's span is the window from the cutoff" \
	"$(spans "$db" --from "$X")" "$(spans "$cut")"
before=$(spans "$cut" --to "$X")
expect_eq "top --by cpu of the time before the cutoff: no CPU" "" "$before"
commq_ok "util after the cut" --db "$cut" -q -csv util --by cpu --interval 10ms
expect_eq "util after the cut begins at the cutoff" "$X" "$(head -1 "$T/got" | cut -d, -f1)"
# (the time before the cutoff, 40% of the capture, is not unknown: what
# is, is the window's own, its losses' as in the database uncut, and the
# part after the cutoff of each slice running across it, deleted with it)
unknown_pct() { sed -n "s/.* \([0-9.]*\)% of the CPUs' time in the window is unknown.*/\1/p" "$T/err"; }
commq_ok "top from the cutoff, uncut" --db "$db" top --from "$X"
uncut_pct=$(unknown_pct)
commq_ok "top after the cut" --db "$cut" top
cut_pct=$(unknown_pct)
awk -v a="${cut_pct:-0}" -v b="${uncut_pct:-0}" 'BEGIN { exit !(a <= b + 1) }' ||
	fail "top after the cut warns of more unknown time than the window has uncut (${uncut_pct:-0}%): $(cat "$T/err")"

# --- a cut under way: retention deletes chunk by chunk, each table at its
# own pace, and writes the cutoff when done; meanwhile its target is in
# stats (retention_target_ts). Here half the tables are cut to X, the
# others not at all: the reports begin at the target, as after the cut
# (before, the deleted time was "unknown", 21% of a whole capture in a
# helper's run, and the wakeups of a window were those tables had left).
mid=$T/mid.db
cp "$db" "$mid"
{
	i=0
	for t in $tables; do
		i=$((i + 1))
		[ $((i % 2)) = 0 ] && echo "DELETE FROM $t WHERE ts < $X;"
	done
	echo "INSERT INTO stats (name, value) VALUES ('retention_target_ts', $X);"
} | sqlite3 "$mid"
spans_near "a cut under way to $X: each CPU's span is the window from the target" \
	"$(spans "$db" --from "$X")" "$(spans "$mid")"
commq_ok "latency from the target, uncut" --db "$db" -q -csv latency --from "$X"
want=$(cat "$T/got")
commq_ok "latency during the cut" --db "$mid" -q -csv latency
expect_eq "latency during a cut: the wakeups from the target on, as uncut" "$want" "$(cat "$T/got")"
commq_ok "latency of a window before the target" --db "$mid" -csv latency --from "$S" --to "$((S + (X - S) / 2))"
expect_eq "latency of a window before the target: no wakeup" 0 "$(sed -n 2p "$T/got" | cut -d, -f1)"
grep -q "the window begins before the retention cutoff (ts $X" "$T/err" ||
	fail "latency of a window before the target warns of the cutoff: $(cat "$T/err")"
commq_ok "top of a window after it" --db "$mid" top --from "$((X + 1000000))"
grep -q "retention cutoff" "$T/err" && fail "top of a window after the target warns of the cutoff: $(cat "$T/err")"

# --- a stop 30 ms into the capture and a start 30 ms later
A=$((S + 30000000)) B=$((S + 60000000))
two=$T/two.db
cp "$db" "$two"
{
	for t in $tables; do echo "DELETE FROM $t WHERE ts >= $A AND ts < $B;"; done
	echo "UPDATE ev_sched_switch SET slice_dur = NULL WHERE ts < $A AND ts + slice_dur > $A;"
	echo "DELETE FROM dv_sched WHERE ts < $A AND ts + dur > $A;"
	echo "UPDATE capture SET end_ts = $A;"
	echo "INSERT INTO capture (source, kernel, host, start_ts, end_ts, events, clock,"
	echo "  buffer, states, cpus, boot, ts_offset) SELECT source, kernel, host, $B, $E,"
	echo "  events, clock, buffer, states, cpus, boot, ts_offset FROM capture;"
} | sqlite3 "$two"
expect_eq "the two-capture database" "2" "$(ref "$two" "select count(*) from capture")"
want=$(awk -v a=$((A - S)) -v b=$((E - B)) '{ printf "%s %.3f\n", $1, (a + b) / 1e6 }' <<< "$(spans "$db")")
spans_near "two captures: each CPU's span is their time, not the stop's 30 ms" "$want" "$(spans "$two")"
# util: per CPU, busy + idle + unknown over the intervals adds up to the
# same spans; no 10 ms interval inside the stop has a row.
util_spans() {
	commq_ok "util --by cpu $*" --db "$1" -q -csv util --by cpu --interval 10ms
	awk -F, '{ t[$3] += $4 + $5 + $6 } END { for (c in t) printf "%s %.3f\n", c, t[c] }' "$T/got" | sort -n
}
spans_near "two captures: util's intervals add up to each CPU's span, not the stop's 30 ms" \
	"$want" "$(util_spans "$two")"
expect_eq "two captures: util rows of intervals inside the stop ($A..$B)" "" \
	"$(awk -F, -v a="$A" -v b="$B" '$1 >= a && $1 + 10000000 <= b' "$T/got")"
expect_failure "a window between the captures is refused" 1 "outside every capture" \
	--db "$two" top --by cpu --from "$((A + 1))" --to "$((B - 1))"
commq_ok "runq, one capture" --db "$db" -q -csv runq
one=$(cut -d, -f1,8 "$T/got")
commq_ok "runq, two captures" --db "$two" -q -csv runq
got=$(cut -d, -f1,8 "$T/got")
expect_eq "runq: each CPU's span_ms is 30 ms less with the stop (the queue is not known then)" \
	"$(awk -F, '{ printf "%s,%.3f\n", $1, $2 - 30 }' <<< "$one")" \
	"$(awk -F, '{ printf "%s,%.3f\n", $1, $2 }' <<< "$got")"
commq_ok "runq --to the stop" --db "$two" -q -csv runq --to "$A"
one=$(commq_ok x --db "$db" -q -csv runq --to "$A"; cut -d, -f1,8 "$T/got")
expect_eq "runq up to the stop: each CPU's span_ms the same with one capture or two" \
	"$one" "$(commq_ok x --db "$two" -q -csv runq --to "$A"; cut -d, -f1,8 "$T/got")"

# --- a CPU with no slice in the window: CPU 1's chain break (its last
# slice ends before the window, its next begins after it)
read -r lo hi < <(ref -separator ' ' "$db" "
	select e, n from (select ts + dur as e, lead(ts) over (order by ts, dur) as n
		from sched where cpu = 1) where n > e order by n - e desc limit 1")
wl=$((lo + (hi - lo) / 4)) wh=$((hi - (hi - lo) / 4))
commq_ok "top --by cpu inside CPU 1's chain break" --db "$db" -csv top --by cpu --from "$wl" --to "$wh"
expect_eq "CPU 1 inside its chain break: listed, no busy or idle time" "1,0.0,0.0" \
	"$(grep '^1,' "$T/got" | cut -d, -f1-3)"
expect_eq "CPU 1 inside its chain break: all of the window unknown" \
	"$(awk -v n=$((wh - wl)) 'BEGIN { printf "%.3f", n / 1e6 }')" \
	"$(grep '^1,' "$T/got" | awk -F, '{ printf "%.3f", $4 }')"
grep -q "is unknown (CPU [0-9: .%,]*1: 100.0%" "$T/err" ||
	fail "the unknown-time warning names CPU 1 at 100%: $(cat "$T/err")"

# --- --last on a running capture: measured back from its newest event,
# of any table. CPU 0's last switch sw begins a slice shown as still
# running 400 ms on (a running capture's commit), the newest event a
# waking then. --last was measured back from the newest switch: "the
# last 100 ms" gave CPU 0 a span of 500 ms.
run=$T/running.db
cp "$db" "$run"
sw=$(ref "$run" "select max(ts) from ev_sched_switch where cpu = 0 and next_pid > 0")
{
	echo "BEGIN;"
	for t in $tables; do echo "DELETE FROM $t WHERE ts > $sw;"; done
	echo "UPDATE ev_sched_switch SET slice_dur = 400000000, slice_state = NULL WHERE cpu = 0 AND ts = $sw;
	INSERT INTO ev_sched_waking (ts, cpu, n, hid, target_pid, target_comm, prio, target_cpu)
	SELECT $sw + 400000000, 1, 0, hid, target_pid, target_comm, prio, target_cpu
	FROM ev_sched_waking ORDER BY ts DESC LIMIT 1;
	UPDATE capture SET end_ts = NULL; COMMIT;"
} | ref -bail "$run" || fail "making the running capture's database"
got=$(spans "$run" --last 0.1s)
expect_eq "running capture, --last 0.1s: CPU 0's span is the 100 ms up to the newest event" \
	"0 100.000" "$(grep '^0 ' <<< "$got")"
expect_eq "running capture, --last 0.1s: no CPU's span is longer" "" \
	"$(awk '$2 > 100.0005' <<< "$got")"

# --- --from counted from the start, --to a trace time before it: refused
# once both are trace times (the window's slices counted negative time)
expect_failure "--from +0.07s, --to a trace time 50 ms in: --from must be before --to" 1 \
	"--from must be before --to (--from +0.07s is ts $((S + 70000000))" \
	--db "$db" top --from +0.07s --to $((S + 50000000))

# --- --from a time of day, --to a trace time: not compared
expect_failure "a time of day against a trace time is not refused as out of order" 1 \
	"no clock readings" --db "$db" top --from 2020-01-01T00:00:00Z --to "$E"
finish
