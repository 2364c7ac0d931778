#!/usr/bin/env bash
# import-thread-exec.sh - a thread other than its process's leader calls
# exec: the kernel kills the other threads, gives the exec'ing thread the
# leader's pid (sched_process_exec: pid the leader's, old_pid the
# thread's own) and renames it. The thread's tid is gone from the first
# event under the leader's pid on the CPU the thread runs (here the
# rename, before the exec): its comm_history row ends there, not at the
# end of the capture: no name holds for the tid after it. The leader's
# pid is the leader's name until its exit, then the thread's (a lifetime
# of its own, named by the thread's name: python3 here too) from that
# event, then the program's from the ns after the rename; the rename
# event itself is the thread's (comm_at is not NULL there). The task's
# run goes on across the pid change: no switch was missed, its slice
# splits where the pid changes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dat=$TESTDATA/cases/thread-exec.dat
db=$TMPDIR_TEST/thread-exec.db
import_ok "$dat" "$db" || finish

# The exec whose old_pid is not its pid, as trace-cmd report -t shows it.
read -r exec_ts leader tid <<< "$(LC_ALL=C trace-cmd report -t -i "$dat" 2> /dev/null |
	LC_ALL=C awk 'match($0, / [0-9]+\.[0-9]+: sched_process_exec: /) {
		t = substr($0, RSTART + 1); sub(/:.*/, "", t); split(t, a, ".")
		p = $0; sub(/.* pid=/, "", p); sub(/ .*/, "", p)
		o = $0; sub(/.* old_pid=/, "", o); sub(/ .*/, "", o)
		if (p != o) { print a[1] a[2], p, o; exit } }')"
check_true "the fixture has an exec by a thread other than the leader" "an exec" "${tid:-none}" \
	[ -n "${tid:-}" ]
[ -n "${tid:-}" ] || finish
rename_ts=$(q "$db" "select ts from task_rename where target_pid = $leader and newcomm = 'sleep'")
check_true "the thread's rename comes before its exec" "before $exec_ts" "$rename_ts" \
	[ "${rename_ts:-0}" -gt 0 ] && [ "${rename_ts:-0}" -lt "$exec_ts" ]
check_eq "comm_history of tid $tid (the thread that exec'd): its row ends where the leader's pid first shows (the rename)" \
	"python3|$leader|$rename_ts" \
	"$(q "$db" "select comm, tgid, end_ts from comm_history where pid = $tid")" || true
check_eq "comm_history rows of tid $tid open after the exec" 0 \
	"$(q "$db" "select count(*) from comm_history where pid = $tid and start_ts <= $exec_ts + 1000 and (end_ts is null or end_ts > $exec_ts + 1000)")" || true
check_eq "comm_history of the leader $leader: python3 to its exit, the thread's python3, then sleep from the rename" \
	"python3 python3 sleep" \
	"$(q "$db" "select group_concat(comm, ' ') from (select comm from comm_history where pid = $leader and comm <> 'trace-cmd' order by start_ts)")" || true
check_eq "the rename at the exec is named the thread's, as comm_history has it at its ts" \
	"python3 python3" \
	"$(q "$db" "select r.comm || ' ' || coalesce((select h.comm from comm_history h
		where h.pid = r.target_pid and h.start_ts <= r.ts and h.end_ts > r.ts), 'none')
		from task_rename r where r.target_pid = $leader and r.newcomm = 'sleep'")" || true
# The CPU never stops running the task: the thread's slice ends where the
# leader pid's part under the thread's name begins (the rename), which
# ends where the part under the program's name begins (the rename's ns
# after), on the same CPU, with no edge inferred and no time in no slice
# (it was a chain break: 0.6 ms unknown and a 1 ns row).
born=$(q "$db" "select min(start_ts) from comm_history where pid = $tid")
check_eq "sched rows of $leader and $tid since the thread's birth with an inferred edge or a loss" 0 \
	"$(q "$db" "select count(*) from sched where pid in ($leader, $tid) and ts >= $born and (start_err is not null or end_err is not null or lost <> 0)")" || true
check_eq "the thread's last slice, the leader pid's part under the thread's name, the program's first: end to start, same CPU" \
	"$rename_ts|1|1" \
	"$(q "$db" "select b.ts || '|' || b.dur || '|' || count(*) from sched a join sched b on b.ts = a.ts + a.dur and b.cpu = a.cpu
		join sched c on c.ts = b.ts + b.dur and c.cpu = b.cpu
		where a.pid = $tid and b.pid = $leader and b.comm = 'python3' and c.pid = $leader and c.comm = 'sleep'
		  and a.ts = (select max(ts) from sched where pid = $tid)
		  and c.ts = (select min(ts) from sched where pid = $leader and comm = 'sleep')")" || true

# The same with neither the leader's exit nor any switch traced (task
# events and sched_process_exec only): nothing says the leader is gone
# when the thread's rename comes under its pid, but the rename's oldcomm
# (the thread's name, "exec-thr [1]") does: the event and the pid from it
# are the thread's, and the exec (old_pid the thread's) makes those rows
# a lifetime of their own. It was stored under the leader's name, "leader
# nm", and the leader's lifetime ran on into the program's.
dat=$TESTDATA/cases/thread-exec-noexit.dat
db=$TMPDIR_TEST/thread-exec-noexit.db
import_ok "$dat" "$db" || finish
IFS="|" read -r leader tid <<< "$(q "$db" "select target_pid, old_pid from sched_process_exec where target_pid <> old_pid")"
check_true "the fixture has an exec by a thread other than the leader (no exit traced)" "an exec" \
	"${tid:-none}" [ -n "${tid:-}" ]
[ -n "${tid:-}" ] || finish
check_eq "task_rename rows of a task renaming itself whose comm is not oldcomm" 0 \
	"$(q "$db" "select count(*) from task_rename where target_pid = pid and comm is not oldcomm")" || true
check_eq "the rename before the exec: stored as the thread's name, as comm_history has it" \
	"exec-thr [1]|exec-thr [1]" \
	"$(q "$db" "select r.comm || '|' || (select h.comm from comm_history h where h.pid = r.target_pid
		and h.start_ts <= r.ts and h.end_ts > r.ts) from task_rename r
		where r.target_pid = $leader and r.newcomm = 'sh'")" || true
check_eq "lifetimes of pid $leader: the leader's (to leader nm), the thread's (exec-thr [1] to true)" \
	"trace-cmd python3 leader nm|exec-thr [1] sh after x true" \
	"$(q "$db" "select group_concat(c, '|') from (select group_concat(comm, ' ') as c from
		(select comm, life from comm_history where pid = $leader order by start_ts) group by life order by min(life))")" || true
# The thread's tid ended where its lifetime under the leader's pid
# began (the rename), not at the exec: one task is never two rows at once.
check_eq "comm_history of tid $tid: its last row ends where pid $leader's lifetime under its name begins" \
	"$(q "$db" "select min(start_ts) from comm_history where pid = $leader and comm = 'exec-thr [1]'")" \
	"$(q "$db" "select max(end_ts) from comm_history where pid = $tid")" || true
# A process's threads: the lifetimes of its group that began inside its
# leader's (schema 030). At a thread's exec the thread takes the leader's
# pid (the process after begins there) and the old leader, given the
# thread's pid until it is reaped, is a lifetime of no length there: a
# thread of neither. sched-thread-exec.dat has ten such execs of a
# leader, a spinner and an execer thread: 3 threads, then 1 (the build
# before counted 5 and 2 for the one whose old leader shows).
db2=$TMPDIR_TEST/sched-thread-exec.db
if import_ok "$TESTDATA/sched-thread-exec.dat" "$db2"; then
	check_eq "sched-thread-exec.dat: threads of each process before and after a thread's exec" \
		"$(for i in 1 2 3 4 5 6 7 8 9 10; do printf '3 1\n'; done)" \
		"$(q "$db2" "select group_concat(threads, ' ') from (select tgid, threads from process
			where tgid in (select target_pid from sched_process_exec where target_pid <> old_pid)
			order by tgid, start_ts) group by tgid order by tgid")" || true
	# Threads begun with their leader, as a live capture's start finds
	# them in /proc, count, still open (no end yet) or ended.
	t0=$(q "$db2" "select min(start_ts) from comm_history")
	sqlite3 "$db2" "insert into comm_history (id, pid, tgid, comm, start_ts, end_ts, source, life)
		select 990000 + n, 990000 + n, 990000, 'seeded', $t0, NULL, 'proc', 990000 + n
		from (select 0 as n union all select 1 union all select 2 union all select 3)"
	check_eq "threads begun with their leader, open: 4" 4 \
		"$(q "$db2" "select threads from process where tgid = 990000")" || true
	sqlite3 "$db2" "update comm_history set end_ts = $t0 + 1000 where id >= 990000"
	check_eq "threads begun with their leader, ended: 4" 4 \
		"$(q "$db2" "select threads from process where tgid = 990000")" || true
	check_eq "$dat: threads of process $leader before and after the exec" "3 1" \
		"$(q "$db" "select group_concat(threads, ' ') from (select threads from process where tgid = $leader order by start_ts)")" || true
	# The process after the exec keeps its parent (a thread shares its
	# leader's parent, and getppid() after the exec is the same): its
	# parent_pid was NULL, the lifetime begun by no fork.
	check_eq "sched-thread-exec.dat: processes after a thread's exec with their parent before it" \
		"$(for i in 1 2 3 4 5 6 7 8 9 10; do printf '1|1\n'; done)" \
		"$(q "$db2" "select count(distinct parent_pid) || '|' || count(distinct coalesce(parent_pid, -1))
			from process where tgid in (select target_pid from sched_process_exec where target_pid <> old_pid)
			group by tgid order by tgid")" || true
fi
finish
