#!/bin/bash
# commq's warning about lost events: one line on stderr after a batch that
# reads an event or derived table when lost_events has losses in the time
# the answer covers (the rows' ts range, else the whole capture), naming
# the CPUs; -q silences it; stdout and the exit status are the same with
# and without it.  sched-drops.dat has losses on CPUs 0 and 1, sched-v7.dat
# none (tests/data/README.md).  --db, and over the socket with fake-server.
set -euo pipefail
# shellcheck source=tests/reports/lib.sh
source "$(dirname "$0")/lib.sh"
import sched-drops
import sched-v7
DROPS=$T/sched-drops.db
CLEAN=$T/sched-v7.db

# both NAME ARGS... — commq ARGS, then commq -q ARGS (stdin empty): the
# same stdout byte for byte and the same exit status, nothing on the
# quiet run's stderr but what the loud one says besides its warnings.
# Leaves the loud run's warning lines in $T/warn, its status in $rc.
both() {
	local name=$1 quiet_rc=0
	shift
	rc=0
	timeout 60 "$COMMQ" "$@" >"$T/loud.out" 2>"$T/loud.err" </dev/null || rc=$?
	timeout 60 "$COMMQ" -q "$@" >"$T/quiet.out" 2>"$T/quiet.err" </dev/null ||
		quiet_rc=$?
	expect_same "$name: stdout with and without -q" "$T/loud.out" "$T/quiet.out"
	expect_eq "$name: exit status with and without -q" "$rc" "$quiet_rc"
	grep -F 'warning: events were lost' "$T/loud.err" >"$T/warn" || true
	grep -vE "warning: (events were lost|[0-9.]+% of the CPUs' time in the window is unknown)" \
		"$T/loud.err" >"$T/loud.rest" || true
	expect_same "$name: stderr but the warning" "$T/loud.rest" "$T/quiet.err"
	if grep -q 'lost' "$T/quiet.err"; then
		fail "$name: -q still warned: $(cat "$T/quiet.err")"
	fi
}

# warns NAME CPUS ARGS... — exactly one warning, naming CPUS ("0,1").
warns() {
	local name=$1 cpus=$2
	shift 2
	both "$name" "$@"
	expect_eq "$name: warnings" 1 "$(wc -l <"$T/warn")"
	expect_eq "$name: CPUs" "$cpus" \
		"$(sed -n 's/.* lost on CPU \([0-9,]*\) .*/\1/p' "$T/warn" | head -n 1)"
	grep -q '^commq: warning: .*(-q silences this)$' "$T/warn" ||
		fail "$name: not one commq warning line: $(cat "$T/warn")"
}

# silent NAME ARGS... — no warning.
silent() {
	local name=$1
	shift
	both "$name" "$@"
	expect_eq "$name: no warning" "" "$(cat "$T/warn")"
}

# sorted_cpus DB [WHERE] — the CPUs with losses, as the warning lists them.
sorted_cpus() {
	ref "$1" "select group_concat(distinct cpu) from lost_events ${2:-}" |
		tr ',' '\n' | sort -n | paste -sd,
}

all_cpus=$(sorted_cpus "$DROPS")
expect_eq fixture_cpus "0,1" "$all_cpus"
first_loss=$(ref "$DROPS" "select min(ts) from lost_events")
# A loss is stamped at the first event after it: what it took came after
# its CPU's last recorded event before it, where its gap begins.
gap_sql=""
for t in ev_sched_switch ev_sched_waking ev_sched_wakeup ev_sched_wakeup_new \
	ev_sched_migrate_task ev_sched_process_fork ev_sched_process_exec \
	ev_sched_process_exit ev_sched_process_free ev_task_rename ev_task_newtask \
	ev_sched_stat_runtime ev_other; do
	gap_sql+="${gap_sql:+ union all }select ts, cpu from $t"
done
first_gap=$(ref "$DROPS" "select max(e.ts) from ($gap_sql) e, lost_events l
	where l.ts = $first_loss and e.cpu = l.cpu and e.ts < l.ts")
last_loss=$(ref "$DROPS" "select max(ts) from lost_events")
base=$(ref "$DROPS" "select min(start_ts) from capture")

# run_checks TARGET... — every check, on --db FILE or --socket PATH; the
# target's database is sched-drops (its sched-v7 twin is $CLEAN_TARGET).
run_checks() {
	local how=$1
	shift
	local -a on=("$@")

	# an aggregate over everything cannot tell its time: the whole capture
	warns "$how aggregate" "$all_cpus" "${on[@]}" \
		"select count(*) from sched_switch"
	grep -qF '1266 events and 1 loss of unknown size' "$T/warn" ||
		fail "$how aggregate: counts: $(cat "$T/warn")"
	grep -qF "(ts $first_loss to $last_loss)" "$T/warn" ||
		fail "$how aggregate: times: $(cat "$T/warn")"
	local rel
	rel=$(awk -v a="$first_loss" -v b="$base" 'BEGIN { printf "+%.6fs", (a - b) / 1e9 }')
	grep -qF "between $rel and " "$T/warn" ||
		fail "$how aggregate: relative time $rel: $(cat "$T/warn")"
	# every output mode: stdout is the same without the warning
	warns "$how csv" "$all_cpus" "${on[@]}" -csv \
		"select comm, count(*) from sched group by comm order by 2 desc"
	warns "$how json" "$all_cpus" "${on[@]}" -json \
		"select cpu, count(*) from events group by cpu"

	# rows all before the first loss's gap: nothing; rows in the gap
	# (before the loss's stamp, after its CPU's last event): its CPU;
	# rows around a loss: the CPUs of the losses between their first
	# and last ts
	silent "$how before losses" "${on[@]}" \
		"select ts, cpu, prev_comm from sched_switch where ts <= $first_gap order by ts"
	warns "$how in the first gap" \
		"$(ref "$DROPS" "select cpu from lost_events where ts = $first_loss")" "${on[@]}" \
		"select ts, cpu, prev_comm from sched_switch where ts > $first_gap
			and ts < $first_loss order by ts"
	local lo=$((first_loss - 2000000)) hi=$((first_loss + 2000000))
	local win
	win=$(ref "$DROPS" "select min(ts) || ' ' || max(ts) from sched_switch
		where ts between $lo and $hi")
	warns "$how around a loss" \
		"$(sorted_cpus "$DROPS" "where ts between ${win% *} and ${win#* }")" \
		"${on[@]}" "select ts, cpu from sched_switch where ts between $lo and $hi"
	silent "$how after losses" "${on[@]}" \
		"select * from sched_waking where ts > $last_loss"
	# start_ts/end_ts count as times too; a slice ends at ts + dur
	silent "$how end_ts before losses" "${on[@]}" \
		"select ts as start_ts, ts + 1 as end_ts from sched_wakeup where ts < $first_gap - 1000"
	local slice="select ts, dur from sched where ts < $first_loss
		and ts + dur >= $first_loss order by ts desc, cpu limit 1"
	local span
	span=$(ref "$DROPS" "select ts || ' ' || (ts + dur) from ($slice)")
	warns "$how slice over a loss" \
		"$(sorted_cpus "$DROPS" "where ts between ${span% *} and ${span#* }")" \
		"${on[@]}" "$slice"

	# metadata only: no warning
	silent "$how lost_events" "${on[@]}" "select * from lost_events"
	silent "$how capture and stats" "${on[@]}" \
		"select * from capture; select * from stats"
	silent "$how comm_history" "${on[@]}" "select count(*) from comm_history"
	silent "$how table names in strings" "${on[@]}" \
		"select 'sched_switch' -- from sched
		 /* events */"
	silent "$how .tables" "${on[@]}" .tables

	# an error: its status and message, no warning
	silent "$how error" "${on[@]}" "select nosuch from sched_switch"
	expect_eq "$how error: status" 1 "$rc"

	# each statement of a script warns after itself
	printf 'select count(*) from sched_switch;\nselect count(*) from stats;\nselect count(*) from sched;\n' \
		>"$T/script.sql"
	both "$how script" "${on[@]}" -f "$T/script.sql"
	expect_eq "$how script: warnings" 2 "$(wc -l <"$T/warn")"

	# the reports: their window; lost never
	warns "$how top" "$all_cpus" "${on[@]}" top
	silent "$how top after the losses" "${on[@]}" top --from "$((last_loss + 1))"
	warns "$how latency" "$all_cpus" "${on[@]}" latency --to "$((last_loss + 1))"
	silent "$how latency before the losses" "${on[@]}" -csv latency \
		--to "$((first_gap - 1))"
	# a window inside a gap: no loss is stamped in it, yet it warns
	warns "$how top inside the first gap" \
		"$(ref "$DROPS" "select cpu from lost_events where ts = $first_loss")" "${on[@]}" \
		top --by cpu --from "$((first_gap + 1))" --to "$((first_loss - 1))"
	warns "$how history" "$all_cpus" "${on[@]}" history \
		"$(ref "$DROPS" "select pid from comm_history where start_ts < $first_loss
			and end_ts > $last_loss and pid > 0 limit 1")"
	silent "$how lost" "${on[@]}" lost
	warns "$how timeline" "$all_cpus" "${on[@]}" timeline -o - --width 300
	silent "$how --sql" "${on[@]}" top --sql
}

run_checks db --db "$DROPS"

# A running capture: a lifetime not ended yet (end_ts NULL) covers the
# time up to now, losses after its start included (history stopped at
# its start and said nothing)
cp "$DROPS" "$T/running.db"
ref "$T/running.db" "update comm_history set end_ts = NULL where pid = 15 and end_ts =
	(select max(end_ts) from comm_history where pid = 15); update capture set end_ts = NULL"
expect_eq "running capture: rcu_preempt's lifetime began before the first loss, still open" 1 \
	"$(ref "$T/running.db" "select count(*) from comm_history where pid = 15 and end_ts is null
		and start_ts < $first_loss")"
warns "running capture: history of a lifetime still open" "$all_cpus" --db "$T/running.db" history 15

# no losses: no warning, for anything
silent "clean aggregate" --db "$CLEAN" "select count(*) from sched_switch"
silent "clean top" --db "$CLEAN" top
# ... but CPU 1 of another recording without losses has switches nobody
# traced (out of swapper/1 on the VM it was made on) and no
# sched_stat_runtime to place them: 0.59 of the millisecond after +62 ms
# is in no slice (sched-v7's such edges are all placed by the kernel's
# runtimes, its own or another CPU's)
import other-events
silent "clean top, 1 ms" --db "$T/other-events.db" top --from +62ms --to +63ms
grep -q "of the CPUs' time in the window is unknown (CPU 1: " "$T/loud.err" ||
	fail "clean top, 1 ms: the unknown-time warning for CPU 1: $(cat "$T/loud.err")"
grep -q "is unknown" "$T/quiet.err" && fail "clean top -q: an unknown-time warning"
silent "clean timeline" --db "$CLEAN" timeline -o - --width 300

# The unknown-time warning, window by window, exactly when top --by cpu's
# own numbers say over 1% of the window is unknown (its first look sums the
# window without sorting it by CPU; the CPUs it names come from a second).
# Windows across the recording, some short (a CPU's gaps dominate them),
# some long; one where the ratio lies within 0.01% of 1% is not judged.
span_ns=$(ref "$CLEAN" "select max(ts) - min(ts) from ev_sched_switch")
judged=0 fired=0
for w in "0 100" "0 3" "1 2" "5 6" "10 12" "20 21" "30 40" "33 34" "50 51" \
	 "60 90" "70 71" "88 89" "95 100" "99 100" "40 60"; do
	set -- $w
	from=$((span_ns * $1 / 100)) to=$((span_ns * $2 / 100))
	"$COMMQ" --db "$CLEAN" -q -csv -noheader top --by cpu --from "+${from}ns" --to "+${to}ns" \
		>"$T/bycpu.csv"
	want=$(awk -F, '{ u += $4; s += $2 + $3 + $4 }
		END { if (s <= 0) print "none"
		      else if (u * 100 > s * 1.0001) print "warn"
		      else if (u * 100 < s * 0.9999) print "none"
		      else print "edge" }' "$T/bycpu.csv")
	"$COMMQ" --db "$CLEAN" top --from "+${from}ns" --to "+${to}ns" \
		>/dev/null 2>"$T/w.err"
	got=none
	grep -q "of the CPUs' time in the window is unknown" "$T/w.err" && got=warn
	[ "$want" = edge ] && continue
	judged=$((judged + 1))
	[ "$got" = warn ] && fired=$((fired + 1))
	expect_eq "unknown-time warning for $1%..$2% of the recording (top --by cpu)" \
		"$want" "$got"
	if [ "$got" = warn ]; then
		listed=$(sed -n 's/.*is unknown (CPU \([^)]*\)).*/\1/p' "$T/w.err" |
			sed 's/: [0-9.]*%//g; s/ //g')
		cpus=$(awk -F, '($2 + $3 + $4) > 0 && $4 * 100 > ($2 + $3 + $4) {
			printf "%s%s", n++ ? "," : "", $1 }' "$T/bycpu.csv")
		expect_eq "unknown-time warning for $1%..$2%: the CPUs" "$cpus" "$listed"
	fi
done
check_true "windows judged: some warn, some do not" "0 < warned < judged" \
	"$fired of $judged warned" test "$fired" -gt 0 -a "$fired" -lt "$judged"

# a database without lost_events: the lookup fails, and nothing is said
cp "$DROPS" "$T/old.db"
ref "$T/old.db" "drop table lost_events"
silent "no lost_events table" --db "$T/old.db" "select count(*) from sched_switch"
expect_eq "no lost_events table: status" 0 "$rc"
expect_eq "no lost_events table: stderr" "" "$(cat "$T/loud.err")"

# at the prompt (a terminal, typed a line at a time: pty-type.py): after
# each statement, and after its rows
export HOME=$T/home
mkdir -p "$HOME"
printf 'select count(*) from sched_switch;\nselect count(*) from stats;\nselect count(*) from sched;\n.quit\n' \
	>"$T/typed"
/usr/bin/python3 "$(dirname "$0")/../client/pty-type.py" 20 "$T/typed" "$COMMQ" --db "$DROPS" -list \
	>"$T/screen" 2>&1 || true
tr -d '\r' <"$T/screen" >"$T/prompt"
expect_eq "prompt: warnings" 2 "$(grep -c 'warning: events were lost' "$T/prompt")"
expect_eq "prompt: the warning follows the rows" \
	"$(ref "$DROPS" "select count(*) from sched_switch")" \
	"$(grep -B1 -m1 'warning: events were lost' "$T/prompt" | head -n 1)"

# over the socket: the same, and the lookup is one more query on the
# same connection
start_fake_server "$DROPS"
run_checks socket --socket "$SOCK"
: >"$T/server.log"
"$COMMQ" --socket "$SOCK" "select count(*) from sched_switch" >/dev/null 2>&1
expect_eq "socket: one connection" 1 "$(grep -c '^connection' "$T/server.log")"
expect_eq "socket: the query and the lookup" 2 "$(grep -c '^query' "$T/server.log")"
: >"$T/server.log"
"$COMMQ" --socket "$SOCK" -q "select count(*) from sched_switch" >/dev/null 2>&1
expect_eq "socket -q: no lookup" 1 "$(grep -c '^query' "$T/server.log")"
: >"$T/server.log"
"$COMMQ" --socket "$SOCK" "select count(*) from lost_events" >/dev/null 2>&1
expect_eq "socket metadata: no lookup" 1 "$(grep -c '^query' "$T/server.log")"

# a report looks for its window's warnings on a second connection while
# it runs, and prints them after its rows; where the server refuses that
# connection (a user's share of them taken), it looks again on its own
# connection after the report: the same lines either way
report_warnings() {
	: >"$T/server.log"
	rc=0
	"$COMMQ" --socket "$SOCK" top >"$T/r.out" 2>"$T/r.err" </dev/null || rc=$?
	expect_eq "$1: exit status" 0 "$rc"
	expect_eq "$1: the report's rows" "$(ref "$DROPS" "select count(*) from (select 1 from sched group by comm)")" \
		"$(($(wc -l <"$T/r.out") - 2))"
	grep -E "warning: (events were lost|[0-9.]+% of the CPUs' time)" "$T/r.err" >"$T/r.warn" || true
	expect_eq "$1: the warning" 1 "$(grep -c 'warning: events were lost on CPU 0,1' "$T/r.warn")"
	expect_eq "$1: connections" "$2" "$(grep -c '^connection' "$T/server.log")"
}
# latency: two statements, the second beside the first, and the look
# beside both (three connections)
latency_warnings() {
	: >"$T/server.log"
	rc=0
	"$COMMQ" --socket "$SOCK" latency >"$T/l.out" 2>"$T/l.err" </dev/null || rc=$?
	expect_eq "$1: exit status" 0 "$rc"
	grep -E "warning: (events were lost|[0-9.]+% of the CPUs' time)" "$T/l.err" >"$T/l.warn" || true
	expect_eq "$1: the warning" 1 "$(grep -c 'warning: events were lost on CPU 0,1' "$T/l.warn")"
	expect_eq "$1: connections" "$2" "$(grep -c '^connection' "$T/server.log")"
}
report_warnings "socket report" 2
cp "$T/r.warn" "$T/r.warn.beside"
latency_warnings "socket latency" 3
cp "$T/l.warn" "$T/l.warn.beside"
"$COMMQ" --socket "$SOCK" latency >"$T/l.both" 2>&1 </dev/null || true
expect_eq "socket latency: the warning after the rows" 1 \
	"$(tail -n 1 "$T/l.both" | grep -c 'warning: ')"
stop_fake_server
rm -f "$SOCK"
export FAKE_MAX_CONNS=1
start_fake_server "$DROPS"
unset FAKE_MAX_CONNS
report_warnings "socket report, second connection refused" 2
expect_eq "socket report, second connection refused: it was" 1 \
	"$(grep -c '^over FAKE_MAX_CONNS' "$T/server.log")"
expect_same "socket report: the same warnings when refused" "$T/r.warn.beside" "$T/r.warn"
latency_warnings "socket latency, extra connections refused" 3
expect_same "socket latency: the same warnings when refused" "$T/l.warn.beside" "$T/l.warn"
# the report's rows come first, then the warnings, on one terminal too
"$COMMQ" --socket "$SOCK" top >"$T/r.both" 2>&1 </dev/null || true
expect_eq "socket report: the warning after the rows" 1 \
	"$(tail -n 1 "$T/r.both" | grep -c 'warning: ')"

finish
