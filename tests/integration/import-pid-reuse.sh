#!/usr/bin/env bash
# import-pid-reuse.sh - a pid whose task died (its switch-out in state Z
# or X) is given to a new task, recorded with no fork event: with
# wakeups (cases/pid-reuse.dat, the names trace's set) the new task's
# sched_wakeup_new is its birth; with switches alone
# (cases/pid-reuse-switch.dat) its switch-in is its first sighting (a
# task switched out dead never runs again). Each task gets a lifetime of
# its own in comm_history, the new one beginning there, even when both
# carry the same name (a bash subshell after a bash subshell): it does
# not continue the dead task's row, and no slice of the new task falls
# where no name holds. And a late free of a pid's earlier task does not
# end the lifetime of the task holding it now (cases/late-free.dat).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

for f in pid-reuse pid-reuse-switch; do
	dat=$TESTDATA/cases/$f.dat
	db=$TMPDIR_TEST/$f.db
	import_ok "$dat" "$db" || continue

	# The first sched_wakeup_new or switch-in of a pid after a dead
	# switch-out of it, as trace-cmd report -t shows them: "pid ts
	# source parent" (parent: the waker; none for a switch-in).
	reuses=$(LC_ALL=C trace-cmd report -t -i "$dat" 2> /dev/null | LC_ALL=C awk '
		match($0, / [0-9]+\.[0-9]+: /) {
			t = substr($0, RSTART + 1, RLENGTH - 3); sub(/\./, "", t)
			w = $0; sub(/^[^-]*-/, "", w); sub(/ .*/, "", w)
			if ($0 ~ / sched_switch: /) {
				n = $0; sub(/ \[[0-9]+\]$/, "", n); sub(/.*:/, "", n)
				if (n in dead) { print n, t, "sched_switch", ""; delete dead[n] }
				if (match($0, /:[0-9]+ \[[0-9]+\] [XZ] ==> /)) {
					p = substr($0, RSTART + 1); sub(/ .*/, "", p); dead[p] = 1
				}
			} else if ($0 ~ / sched_wakeup_new: / && match($0, /:[0-9]+ \[[0-9]+\] CPU:/)) {
				p = substr($0, RSTART + 1); sub(/ .*/, "", p)
				if (p in dead) { print p, t, "sched_wakeup_new", w; delete dead[p] }
			}
		}')
	n=$(printf '%s\n' "$reuses" | grep -c . || true)
	check_true "$f.dat: pids reused after a dead switch-out, with no fork event" ">= 3" "$n" \
		[ "$n" -ge 3 ]
	check_eq "$f.dat: fork, task or exit events in the fixture" 0 \
		"$(q "$db" "select (select count(*) from sched_process_fork) + (select count(*) from ev_task_newtask)
			+ (select count(*) from sched_process_exit)")" || true
	while read -r pid ts src parent; do
		[ -n "$pid" ] || continue
		check_eq "$f.dat: pid $pid reused at $ts: a lifetime of its own begins at its $src" \
			"$ts|$src|${parent:-}" \
			"$(q "$db" "select start_ts || '|' || source || '|' || coalesce(parent, '') from comm_history
				where pid = $pid and start_ts = $ts and life = id")" || true
		check_eq "$f.dat: pid $pid: no row of the dead task open past the reuse" 0 \
			"$(q "$db" "select count(*) from comm_history where pid = $pid and start_ts < $ts and end_ts > $ts")" || true
	done <<< "$reuses"
	check_eq "$f.dat: sched rows (pid > 0) whose comm is not comm_at(pid, ts) and comm_at(pid, ts + dur - 1)" 0 \
		"$("$COMMQ" --db "$db" -q -list "select count(*) from sched where pid > 0
			and (comm_at(pid, ts) is not comm or (dur > 0 and comm_at(pid, ts + dur - 1) is not comm))")" || true
done

# cases/late-free.dat: a task's sched_process_free (an RCU callback) came
# while the task that took its pid since was between its exit and its
# last switch-out, 10 times: it ended that task's lifetime there, and its
# last events began a lifetime of no tgid and no parent (comm_at NULL at
# its sched_stat_runtime, whose comm field names it: 7 events, 7 lifetimes
# cut short). The free is not the task's own while it runs on a CPU, or
# when it names another task.
dat=$TESTDATA/cases/late-free.dat
db=$TMPDIR_TEST/late-free.db
if import_ok "$dat" "$db"; then
	windows="(SELECT x.ts AS e, x.pid AS p,
		(SELECT min(s.ts) FROM sched_switch s WHERE s.prev_pid = x.pid AND s.ts > x.ts
		 AND s.prev_state IN (16, 32)) AS d FROM sched_process_exit x)"
	n=$(q "$db" "SELECT count(*) FROM $windows WHERE d IS NOT NULL AND EXISTS
		(SELECT 1 FROM sched_process_free f WHERE f.pid = p AND f.ts > e AND f.ts < d)")
	check_true "late-free.dat: frees of a pid between the exit and the last switch-out of the task holding it" \
		">= 3" "$n" [ "$n" -ge 3 ]
	check_eq "late-free.dat: lifetimes ended before their task's last switch-out (state X or Z)" 0 \
		"$(q "$db" "SELECT count(*) FROM $windows WHERE d IS NOT NULL AND
			(SELECT h.end_ts FROM comm_history h WHERE h.pid = p AND h.start_ts <= e
			 ORDER BY h.start_ts DESC LIMIT 1) < d")" || true
	check_eq "late-free.dat: sched_stat_runtime events whose comm_at(pid, ts) is not their comm field" 0 \
		"$("$COMMQ" --db "$db" -q -list "SELECT count(*) FROM sched_stat_runtime
			WHERE comm_at(target_pid, ts) IS NOT target_comm")" || true
fi
finish
