#!/bin/bash
# commq history PID: every comm_history row of the pid in time order, with
# its duration and source, numbered by lifetime (a fork starts one, and so
# does a row that does not continue the one before); names that are
# hostile to parsers print intact; an unknown pid exits 1; the socket
# answers the same as --db.
set -euo pipefail
# shellcheck source=tests/reports/lib.sh
source "$(dirname "$0")/lib.sh"
import sched-rename
DB=$T/sched-rename.db
TAB=$'\t'

# The renamed shell of sched-rename.dat (tests/data/README.md).
pid=$(ref "$DB" "select pid from comm_history where comm = 'x [001] 1.5: y'
	order by start_ts limit 1")
[[ -n $pid ]] || fail "sched-rename.dat: no 'x [001] 1.5: y' in comm_history"

# check_history NAME DB PID LIFETIMES — commq's rows are the pid's
# comm_history rows (awk computes the durations), with LIFETIMES (one
# number per row, space-separated) in the first column.
check_history() {
	local name=$1 db=$2 pid=$3 lifetimes=$4
	ref -separator "$TAB" "$db" "select pid, tgid, comm, start_ts, end_ts, source, parent
		from comm_history where pid = $pid order by start_ts, id" |
		awk -F'\t' -v OFS='\t' -v l="$lifetimes" '
		BEGIN { split(l, life, " ") }
		{ d = $5 == "" ? "" : sprintf("%.3f", ($5 - $4) / 1e6)
		  print life[NR], $1, $2, $3, $4, $5, d, $6, $7 }' >"$T/expected"
	commq_ok "$name" --db "$db" -list -separator "$TAB" history "$pid"
	# dur_ms as printed by SQLite's round(): compare within 1 µs
	awk -F'\t' -v OFS='\t' '{ $7 = $7 == "" ? "" : sprintf("%.0f", $7 * 1000); print }' \
		"$T/expected" >"$T/e"
	# (start_wall, the 10th column, is checked below)
	cut -f1-9 "$T/got" | awk -F'\t' -v OFS='\t' \
		'{ $7 = $7 == "" ? "" : sprintf("%.0f", $7 * 1000); print }' >"$T/g"
	expect_same "$name" "$T/e" "$T/g"
}

rows=$(ref "$DB" "select count(*) from comm_history where pid = $pid")
((rows >= 8)) || fail "history: expected the shell's 8 or more names, got $rows"
check_history history_renames "$DB" "$pid" "$(yes 1 | head -n "$rows" | tr '\n' ' ')"
# every name, hostile ones included, in order
commq_ok history_names --db "$DB" -csv history "$pid"
expect_eq history_names \
	'trace-cmd sh "name one" two:2 br]ack[et last sh after-exec "x [001] 1.5: y"' \
	"$(cut -d, -f4 "$T/got" | tr '\n' ' ' | sed 's/ $//')"
commq_ok history_header --db "$DB" history "$pid"
expect_eq history_header "lifetime pid tgid comm start_ts end_ts dur_ms source parent start_wall" \
	"$(head -n 1 "$T/got" | tr -s ' ' | sed 's/ $//')"

# A pid used again: a fork by pid 4000, then an exec'd name in the same
# lifetime (comm_history.life, as commd writes it: the id of the
# lifetime's first row); and a row that starts after a gap.  Lifetimes 1
# (the original rows), 2, 2, 3.
cp "$DB" "$T/reuse.db"
last=$(ref "$DB" "select max(end_ts) from comm_history where pid = $pid")
ref "$T/reuse.db" "insert into comm_history (id, pid, tgid, comm, start_ts, end_ts, source, life, parent)
	values (900001, $pid, $pid, 'reborn', $((last + 1000)), $((last + 5000)), 'task_newtask', 900001, 4000),
	       (900002, $pid, $pid, 'execd', $((last + 5000)), $((last + 9000)), 'sched_process_exec', 900001, 4000),
	       (900003, $pid, $pid, 'gap', $((last + 20000)), NULL, 'sched_waking', 900003, NULL)"
check_history history_lifetimes "$T/reuse.db" "$pid" \
	"$(yes 1 | head -n "$rows" | tr '\n' ' ') 2 2 3"
commq_ok history_open_row --db "$T/reuse.db" -csv history "$pid"
expect_eq history_open_row "3,$pid,$pid,gap,$((last + 20000)),,,sched_waking,," \
	"$(tail -n 1 "$T/got")"
expect_eq history_parent "4000,4000" \
	"$(grep -E ',(reborn|execd),' "$T/got" | cut -d, -f9 | paste -sd,)"

# start_wall: the time of day of each row's start, from the capture's clock
# reading (clock_map), as wall(ts) gives it; none without a reading.
cap=$(ref "$T/reuse.db" "select max(id) from capture")
ref "$T/reuse.db" "update capture set start_ts = 0, end_ts = NULL where id = $cap;
	insert into clock_map values ($cap, $last, 1796146746351803329 - 5000, 1000)"
t=$((last + 1000))
sec=$(( (t + 1796146746351803329 - 5000 - last) / 1000000000 ))
ns=$(( (t + 1796146746351803329 - 5000 - last) % 1000000000 ))
want="$(date -u -d "@$sec" +%Y-%m-%dT%H:%M:%S).$(printf %09d "$ns")Z"
commq_ok history_wall --db "$T/reuse.db" -csv history "$pid"
expect_eq history_start_wall "$want" "$(grep ',reborn,' "$T/got" | cut -d, -f10)"
commq_ok wall_function --db "$T/reuse.db" -list "select wall($t), quote(wall(-5))"
expect_eq "wall(ts) = start_wall; NULL outside every capture" "$want|NULL" "$(cat "$T/got")"

# comm_at(pid, ts): the name in the lifetime holding ts, NULL outside every
# lifetime: before a birth, after an exit, between two lifetimes; a task
# alive before its first row (not a birth) has that row's name before it
ref "$T/reuse.db" "insert into comm_history (pid, tgid, comm, start_ts, end_ts, source)
	values (777001, 777001, 'born', 1000, 2000, 'sched_process_fork'),
	       (777001, 777001, 'renamed', 2000, 3000, 'task_rename'),
	       (777001, 777001, 'again', 5000, NULL, 'task_newtask'),
	       (777002, 777002, 'seen', 1000, 1500, 'sched_switch')"
commq_ok comm_at_lifetimes --db "$T/reuse.db" -list "select
	quote(comm_at(777001, 999)), quote(comm_at(777001, 1000)), quote(comm_at(777001, 1999)),
	quote(comm_at(777001, 2000)), quote(comm_at(777001, 3000)), quote(comm_at(777001, 3001)),
	quote(comm_at(777001, 4999)), quote(comm_at(777001, 5000)), quote(comm_at(777001, 9999999)),
	quote(comm_at(777002, 10)), quote(comm_at(777002, 1600)), quote(comm_at(777003, 10))"
expect_eq comm_at_lifetimes \
	"NULL|'born'|'born'|'renamed'|'renamed'|NULL|NULL|'again'|'again'|'seen'|NULL|NULL" \
	"$(cat "$T/got")"
# process_comm: the leader's name; after the leader's exit its last one
ref "$T/reuse.db" "insert into comm_history (pid, tgid, comm, start_ts, end_ts, source)
	values (777010, 777010, 'leader', 100, 200, 'sched_process_fork'),
	       (777011, 777010, 'worker', 150, 900, 'task_newtask')"
commq_ok process_comm_after_leader --db "$T/reuse.db" -list "select
	quote(process_comm(777011, 160)), quote(process_comm(777011, 500)),
	quote(process_comm(777011, 1000))"
expect_eq process_comm_after_leader "'leader'|'leader'|NULL" "$(cat "$T/got")"

# state_name(state): the letters of the capture's own sched_switch format
# (capture.states, from the file's print format), else recent kernels'
import sched-v7
commq_ok state_letters_stored --db "$T/sched-v7.db" -list "select states from capture"
expect_eq state_letters_stored "1:S,2:D,4:T,8:t,16:X,32:Z,64:P,128:I,0:R,+256" "$(cat "$T/got")"
commq_ok state_name --db "$T/sched-v7.db" -list "select state_name(0), state_name(256),
	state_name(1), state_name(2), state_name(128), state_name(16), state_name(32),
	state_name(3), state_name(257), quote(state_name(NULL))"
expect_eq state_name "R|R+|S|D|I|X|Z|S|D|S+|NULL" "$(cat "$T/got")"
cp "$T/sched-v7.db" "$T/letters.db"
ref "$T/letters.db" "update capture set states = '1:Q,0:W,+2'"
commq_ok state_name_from_capture --db "$T/letters.db" -list "select state_name(0), state_name(1), state_name(3)"
expect_eq state_name_from_capture "W|Q|Q+" "$(cat "$T/got")"
ref "$T/letters.db" "update capture set states = NULL"
commq_ok state_name_default --db "$T/letters.db" -list "select state_name(1), state_name(256)"
expect_eq state_name_default "S|R+" "$(cat "$T/got")"

# an unknown pid: nothing printed, exit 1, and why
expect_failure history_unknown 1 "pid 99999999: no comm_history rows" \
	--db "$DB" history 99999999
expect_eq "history_unknown prints nothing" "" "$(cat "$T/out")"
expect_failure history_not_a_pid 2 "not a pid: 12x" --db "$DB" history 12x
expect_failure history_needs_pid 2 "needs a PID" --db "$DB" history
expect_failure history_one_pid 2 "unexpected argument: 2" --db "$DB" history 1 2

# the socket answers as the file does
start_fake_server "$T/reuse.db"
commq_ok history_file --db "$T/reuse.db" -json history "$pid"
cp "$T/got" "$T/file"
commq_ok history_socket --socket "$SOCK" -json history "$pid"
expect_same history_socket_same_as_file "$T/file" "$T/got"
expect_failure history_socket_unknown 1 "no comm_history rows" \
	--socket "$SOCK" history 99999999

finish
