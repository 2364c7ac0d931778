#!/usr/bin/env bash
# live-retention-kill.sh - a SIGKILL in the middle of a retention cut
# loses nothing retention did not mean to cut, and the next start finishes
# the cut (issue "always-on at scale", point 5):
#
#  1. a capture under load with no limit (a backlog of some 50,000
#     switches or more), stopped with SIGTERM; a copy of it is kept;
#  2. the same database restarted with --max-db-mb 4: retention must cut
#     most of it, chunk by chunk (a transaction each). commd runs under
#     gdb, which kills it (SIGKILL) when its second chunk begins, the
#     first committed, before the cut ends (retention_cutoff_ts not
#     written yet: checked, so the kill really fell inside the cut). Then: integrity_check ok; the
#     oldest rows went first (each table, cut to its own point, keeps
#     every row from its oldest kept one on: the same count as the copy);
#     The killed cut's target is in stats (retention_target_ts): its first
#     chunk may already have cut a sparse table (a few hundred forks) up to
#     it;
#  3. restarted once more, with no limit at all (--max-db-mb 0), until
#     the cut is finished (retention_cutoff_ts
#     written), SIGTERM: exit 0, integrity_check ok, the cutoff is the
#     killed cut's target, every row of the backlog at or after it is
#     kept, none before it; every kept row has its comm_history row; a
#     window query through a view still searches the key (explain query
#     plan, no timing). (A start that computed a new target instead would
#     write a cutoff below rows already cut, or none at all.)
. "$(dirname "$0")/lib.sh"
need_live
need_perf

chmod 0755 "$TMP"	# the query server runs unprivileged
in=$(inst rk)
db=$TMP/k.db
copy=$TMP/k-before.db
tables="ev_sched_switch ev_sched_waking ev_sched_wakeup ev_sched_wakeup_new ev_sched_migrate_task
	ev_sched_process_fork ev_sched_process_exit ev_sched_process_free dv_sched dv_wakeup_latency"

# rows_from DB TS UPTO: rows of every table above with ts in [TS, UPTO].
rows_from() {
	local t sql=""
	for t in $tables; do
		sql+="(SELECT count(*) FROM $t WHERE ts >= $2 AND ts <= $3) + "
	done
	q "$1" "SELECT ${sql}0"
}
# kept_rows DB: per table, "table rows" of the rows in [its own oldest kept
# row, the backlog's last]: each table is cut oldest first, to its own point.
kept_rows() {
	local t lo
	for t in $tables; do
		lo=$(q "$db" "select min(ts) from $t")
		# a table the cut emptied (all its rows were before the cutoff,
		# as a sparse table's can be) keeps nothing of the copy's
		printf '%s %s\n' "$t" "$(q "$1" "select count(*) from $t where ts >= ${lo:-9223372036854775807} and ts <= $max0")"
	done
}

# --- 1. the backlog ---------------------------------------------------------
start_ready "backlog" "$TMP/a.err" "$db" "$in" --commit-ms 200
# Load until the backlog holds 60,000 switches (6 s on a quiet 2-vCPU VM,
# three times that when the host is busy), at most 90 s.
start_load 90
for ((i = 0; i < 180; i++)); do
	sleep 0.5
	n=$(q "$db" "select count(*) from ev_sched_switch" 2> /dev/null || echo 0)
	[ "${n:-0}" -ge 60000 ] && break
done
stop_load
stop_commd "$COMMD_PID" TERM
check_eq "backlog: exit status after SIGTERM" 0 "$STOP_RC"
cp "$db" "$copy"
n0=$(q "$db" "select count(*) from ev_sched_switch")
min0=$(q "$db" "select min(ts) from ev_sched_switch")
max0=$(max_event_ts "$db")
log "backlog: $n0 sched_switch rows, $(( $(command stat -c %s "$db") >> 20 )) MiB"
check_true "backlog of at least 50000 switches" ">= 50000" "$n0" test "$n0" -ge 50000

# --- 2. SIGKILL inside the cut ------------------------------------------------
# The cut deletes the oldest rows of a time-keyed table a B-tree range at
# a time: the whole of it takes milliseconds, less than a reader takes to
# see its first chunk. So commd runs under gdb, stopped at the start of
# its second chunk (the first committed) and killed there (ptrace's
# kill: SIGKILL).
command -v gdb > /dev/null || abort "gdb in PATH (scripts/setup installs it)" "found" "missing"
rc=0
timeout 120 gdb -q -nx -batch -ex 'set pagination off' -ex 'set confirm off' \
	-ex 'handle SIGPIPE SIGUSR1 SIGUSR2 nostop noprint pass' \
	-ex 'break trim_chunk' -ex 'run' -ex 'continue' -ex 'info breakpoints' -ex 'kill' \
	--args "$COMMD" --foreground --db "$db" --instance "$in" --socket "$TMP/$in.sock" \
	--max-db-mb 4 --commit-ms 200 > "$TMP/gdb.out" 2>&1 < /dev/null || rc=$?
hits=$(awk '/breakpoint already hit/ { print $4 }' "$TMP/gdb.out")
check_eq "gdb stopped commd at its second retention chunk and killed it (exit 0)" "2 0" "${hits:-none} $rc" ||
	log "gdb: $(tail -c 1500 "$TMP/gdb.out")"
check_true "commd (under gdb) is gone" "no process" "$(pgrep -f -- "--instance $in" || true)" \
	test -z "$(pgrep -f -- "--instance $in" || true)"
cut_seen=$(q "$db" "select m from (select min(ts) as m from ev_sched_switch) where m > $min0")
check_true "retention began cutting (the first chunk committed)" "the oldest switch moves past $min0" \
	"${cut_seen:-never}" test -n "$cut_seen"

check_integrity "after a SIGKILL inside the cut" "$db"
check_eq "the kill fell inside the cut: no retention_cutoff_ts written yet" "" \
	"$(q "$db" "select value from stats where name = 'retention_cutoff_ts'")"
target=$(q "$db" "select value from stats where name = 'retention_target_ts' and capture is null")
check_true "the unfinished cut's target is in stats (retention_target_ts)" "> $min0" \
	"${target:-none}" test "${target:-0}" -gt "$min0"
left=$(q "$db" "select count(*) from ev_sched_switch where ts <= $max0")
check_true "... and most of the backlog still there (the cut was far from done)" "> $((n0 / 4)) of $n0" \
	"$left" test "$left" -gt $((n0 / 4))
oldest=$(q "$db" "select min(ts) from ev_sched_switch")
check_eq "the oldest rows went first: every table keeps all its rows from its oldest kept one on" \
	"$(kept_rows "$copy")" "$(kept_rows "$db")"

# --- 3. the next start finishes the cut ---------------------------------------
start_ready "second restart, no limit (--max-db-mb 0)" "$TMP/c.err" "$db" "$in" --max-db-mb 0 --commit-ms 200
cutoff=
for ((i = 0; i < 600; i++)); do
	cutoff=$(q "$db" "select value from stats where name = 'retention_cutoff_ts'" 2> /dev/null || true)
	[ -n "$cutoff" ] && break
	sleep 0.1
done
stop_commd "$COMMD_PID" TERM
check_eq "exit status after SIGTERM (the cut finished)" 0 "$STOP_RC"
check_true "the cut finished within 60 s (retention_cutoff_ts written)" "a value" "${cutoff:-none}" \
	test -n "$cutoff"
check_eq "... at the killed cut's target" "${target:-none}" "${cutoff:-none}"
check_eq "no unfinished cut left (retention_target_ts gone)" "" \
	"$(q "$db" "select value from stats where name = 'retention_target_ts'")"
check_integrity "after the finished cut" "$db"
if [ -n "$cutoff" ]; then
	check_true "the cutoff is past the kill's point" "> $oldest" "$cutoff" test "$cutoff" -gt "$oldest"
	check_eq "every backlog row at or after the cutoff is kept" \
		"$(rows_from "$copy" "$cutoff" "$max0")" "$(rows_from "$db" "$cutoff" "$max0")"
	for t in $tables; do
		check_eq "$t: nothing kept before the cutoff" 0 \
			"$(q "$db" "select count(*) from $t where ts < $cutoff")"
	done
fi
for t in $tables; do
	check_eq "$t: every kept row has its comm_history row" 0 \
		"$(q "$db" "select count(*) from $t e left join comm_history h on h.id = e.hid where h.id is null")"
done
plan=$(q "$db" "explain query plan select count(*), sum(dur) from sched where ts between $max0 - 1000000000 and $max0")
check_match "a window on sched after the cuts still searches the key" "USING PRIMARY KEY" "$plan"
finish
