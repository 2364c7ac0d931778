#!/usr/bin/env bash
# import-names.sh - every event row carries the name its pid had at the
# event's time (docs/architecture.md section 4), checked against the kernel's own comm
# fields, on every fixture; on sched-rename.dat also the renaming process's
# comm_history. Prints, for information, how often `trace-cmd report`'s
# leading comm (one saved_cmdlines snapshot) disagrees with the kernel.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# SQL: the comm_history name of pid expression $1 at ts expression $2 (the
# latest interval containing ts; intervals are [start_ts, end_ts]).
hist_at() {
	printf "(select h.comm from comm_history h where h.pid = %s and h.start_ts <= %s and (h.end_ts is null or %s <= h.end_ts) order by h.start_ts desc, h.id desc limit 1)" "$1" "$2" "$2"
}

# check_zero LABEL DB COUNT_SQL EXAMPLES_SQL
check_zero() {
	local got
	got=$(q "$2" "$3")
	if ! check_eq "$1" 0 "$got"; then
		echo "    first rows: $(q "$2" "$4 limit 5" | tr '\n' ';')" >&2
	fi
}

# Informational: trace-cmd report lines whose leading comm differs from the
# kernel's own comm field for that same pid (sched_switch prev_comm, or a
# "comm=X pid=P" payload with P = the leading pid).
report_comm_disagreements() {
	LC_ALL=C trace-cmd report -t -i "$1" 2>/dev/null | LC_ALL=C awk '
	match($0, /-[0-9]+ +\[[0-9][0-9][0-9]+\] +[0-9]+\.[0-9]+: [^: ]+: +/) {
		lead = substr($0, 1, RSTART - 1); sub(/^ +/, "", lead)
		m = substr($0, RSTART, RLENGTH); rest = substr($0, RSTART + RLENGTH)
		pid = m; sub(/^-/, "", pid); pid += 0
		ev = m; sub(/^.*[0-9]: /, "", ev); sub(/: +$/, "", ev)
		own = ""; have = 0
		if (ev == "sched_switch" && match(rest, /:[0-9]+ \[[0-9]+\] [^ ]+ ==> /)) {
			p = substr(rest, RSTART + 1); p += 0
			if (p == pid) { own = substr(rest, 1, RSTART - 1); have = 1 }
			n_sw++
			if (have && own != lead) d_sw++
		} else if (match(rest, /^comm=.* pid=[0-9]+( |$)/)) {
			s = substr(rest, 1, RLENGTH)
			p = s; sub(/.* pid=/, "", p); p += 0
			if (p == pid) {
				own = s; sub(/^comm=/, "", own); sub(/ pid=[0-9]+ ?$/, "", own)
				n_cp++
				if (own != lead) d_cp++
			}
		}
		if (have || (p == pid && own != "")) {
			if (own != lead) {
				if (lead == "<idle>") d_idle++
				else if (lead == "<...>") d_unk++
				else d_other++
			}
		}
	}
	END {
		printf "%d of %d sched_switch lines lead with a comm != prev_comm; ", d_sw, n_sw
		printf "%d of %d \"comm=X pid=<own pid>\" lines differ; ", d_cp, n_cp
		printf "of those: %d <idle>, %d <...>, %d another name\n", d_idle, d_unk, d_other
	}'
}

rename_seen=0
while read -r dat; do
	name=$(basename "$dat" .dat)
	L=$name.dat
	db=$TMPDIR_TEST/$name.db
	import_ok "$dat" "$db" || continue

	# sched_switch: the event's own task is prev; comm/pid are the kernel's.
	check_zero "$L: sched_switch rows with comm != prev_comm or pid != prev_pid" "$db" \
		"select count(*) from sched_switch where comm is not prev_comm or pid is not prev_pid" \
		"select ts, cpu, pid, comm, prev_pid, prev_comm from sched_switch where comm is not prev_comm or pid is not prev_pid"

	# pid 0 is the per-CPU idle task.
	for v in "${VIEWS[@]}" events; do
		check_zero "$L: $v rows with pid 0 and comm != 'swapper/'||cpu" "$db" \
			"select count(*) from $v where pid = 0 and comm is not 'swapper/' || cpu" \
			"select ts, cpu, pid, comm from $v where pid = 0 and comm is not 'swapper/' || cpu"
	done

	# The <...> counter exists, and no row is <...> when it says 0 (but a
	# task's that is really called so: prctl takes any name).
	got=$(q "$db" "select count(*) from stats where name = 'unnamed_events' and typeof(value) = 'integer'")
	check_eq "$L: select count(*) from stats where name='unnamed_events' (integer value)" 1 "$got" || true
	unnamed=$(q "$db" "select coalesce(sum(value), 0) from stats where name = 'unnamed_events'")
	sql=""
	for v in "${VIEWS[@]}" events; do
		sql+="(select count(*) from $v where comm = '<...>' and pid not in
			(select pid from comm_history where comm = '<...>')) + "
	done
	n_unk=$(q "$db" "select ${sql}0")
	if [ "$unnamed" = 0 ]; then
		check_eq "$L: rows with comm '<...>' over all views + events (stats unnamed_events = 0)" 0 "$n_unk" || true
	else
		log "$L: stats unnamed_events = $unnamed, rows with comm '<...>' = $n_unk"
	fi

	# Every row's comm is its pid's comm_history name at ts (or the first
	# known name before the first sighting).
	for v in "${VIEWS[@]}" events; do
		at=$(hist_at s.pid s.ts)
		first="(select h.comm from comm_history h where h.pid = s.pid order by h.start_ts, h.id limit 1)"
		check_zero "$L: $v rows (pid != 0) whose comm != comm_history of pid at ts" "$db" \
			"select count(*) from $v s where s.pid <> 0 and s.comm is not coalesce($at, $first)" \
			"select s.ts, s.pid, s.comm, coalesce($at, $first) from $v s where s.pid <> 0 and s.comm is not coalesce($at, $first)"
	done

	# The kernel's own comm fields agree with comm_history at the event's ts.
	for spec in "sched_switch prev_pid prev_comm" "sched_switch next_pid next_comm" \
		    "sched_waking target_pid target_comm" "sched_wakeup target_pid target_comm" \
		    "sched_wakeup_new target_pid target_comm" "sched_stat_runtime target_pid target_comm"; do
		read -r v p c <<< "$spec"
		at=$(hist_at "s.$p" s.ts)
		check_zero "$L: $v rows ($p != 0) whose $c != comm_history of $p at ts" "$db" \
			"select count(*) from $v s where s.$p <> 0 and s.$c is not $at" \
			"select s.ts, s.$p, s.$c, $at from $v s where s.$p <> 0 and s.$c is not $at"
	done

	# comm_history intervals: well formed, named, not overlapping per pid
	# (pid 0 is one idle task per CPU, so it is left out).
	check_zero "$L: comm_history rows with end_ts < start_ts" "$db" \
		"select count(*) from comm_history where end_ts < start_ts" \
		"select * from comm_history where end_ts < start_ts"
	ov="select * from (select id, pid, comm, start_ts, end_ts,
		lag(end_ts) over (partition by pid order by start_ts, id) as prev_end,
		lag(end_ts is null) over (partition by pid order by start_ts, id) as prev_open
		from comm_history where pid <> 0)
		where prev_end > start_ts or prev_open = 1"
	check_zero "$L: comm_history intervals overlapping the previous one of the same pid" "$db" \
		"select count(*) from ($ov)" "$ov"

	info=$(report_comm_disagreements "$dat")
	log "$L: trace-cmd report (informational): $info"
	# The kernel emits task_rename before it copies the new name: a task
	# renaming itself is still oldcomm at the event.
	check_zero "$L: task_rename rows of a task renaming itself whose comm is not oldcomm" "$db" \
		"select count(*) from task_rename where target_pid = pid and comm is not oldcomm" \
		"select ts, pid, comm, oldcomm from task_rename where target_pid = pid and comm is not oldcomm"
	# A sched_waking and the sched_wakeup of the same waker and task on
	# one CPU with no switch between are one try_to_wake_up, run with
	# interrupts off: the waker's name cannot change between them, not
	# even when a rename's copy of the name waits for that interrupt to
	# end (sched-late-rename.dat: 4 wakeups took the new name).
	pair="from sched_wakeup w join sched_waking k on k.cpu = w.cpu and k.pid = w.pid
		and k.target_pid = w.target_pid
		and k.ts = (select max(ts) from ev_sched_waking x where x.cpu = w.cpu and x.ts < w.ts)
		where k.comm is not w.comm
		  and not exists (select 1 from ev_sched_switch s where s.cpu = w.cpu and s.ts > k.ts and s.ts < w.ts)"
	check_zero "$L: sched_wakeup rows named otherwise than their sched_waking (one try_to_wake_up)" "$db" \
		"select count(*) $pair" "select w.ts, w.pid, w.comm, k.comm $pair"

	[ "$name" = sched-rename ] || continue
	rename_seen=1

	# The process that renames itself most.
	P=$(q "$db" "select target_pid from task_rename where target_pid = pid
		group by target_pid order by count(*) desc limit 1")
	if [ -z "$P" ]; then
		fail "$L: a pid with task_rename rows for itself" "one" "none"
		continue
	fi
	log "$L: renaming pid $P"

	# comm_history of P, in time order, is oldcomm of the first rename and
	# then each newcomm, each interval starting 1 ns after its task_rename
	# (the kernel emits the event before it copies the new name, so the
	# event itself still belongs to the old name).
	want=$(q "$db" "select * from (select oldcomm, (select min(start_ts) from comm_history where pid = $P) from task_rename where target_pid = $P order by ts limit 1)
		union all select * from (select newcomm, ts + 1 from task_rename where target_pid = $P order by ts)")
	got=$(q "$db" "select comm, start_ts from comm_history where pid = $P order by start_ts, id")
	check_eq "$L: comm_history of pid $P (comm|start_ts in time order)" \
		"$(echo "$want" | tr '\n' ';')" "$(echo "$got" | tr '\n' ';')" || true
	# and the names the fixture was recorded with (tests/data/README.md)
	want_names="name one;two:2;br]ack[et;last;after-exec;x [001] 1.5: y;"
	got_names=$(q "$db" "select comm from comm_history where pid = $P order by start_ts, id" |
		grep -Fx -e "name one" -e "two:2" -e "br]ack[et" -e "last" -e "after-exec" -e "x [001] 1.5: y" |
		tr '\n' ';' || true)
	check_eq "$L: README's renames of pid $P in comm_history, in order" "$want_names" "$got_names" || true
	ends=$(q "$db" "select count(*) from (select end_ts, lead(start_ts) over (order by start_ts, id) nxt
		from comm_history where pid = $P) where nxt is not null and end_ts is not nxt")
	check_eq "$L: comm_history rows of pid $P whose end_ts != next row's start_ts" 0 "$ends" || true

	# sched_switch of P shows several names, each the one valid at ts.
	n=$(q "$db" "select count(distinct comm) from sched_switch where pid = $P")
	check_eq "$L: several distinct comms on sched_switch rows of pid $P (>= 4)" yes \
		"$([ "$n" -ge 4 ] && echo yes || echo "no ($n)")" || true
	at=$(hist_at s.pid s.ts)
	check_zero "$L: sched_switch rows of pid $P whose comm != comm_history at ts" "$db" \
		"select count(*) from sched_switch s where s.pid = $P and s.comm is not $at" \
		"select s.ts, s.comm, $at from sched_switch s where s.pid = $P and s.comm is not $at"
	for v in sched_waking sched_wakeup; do
		n=$(q "$db" "select count(distinct target_comm) from $v where target_pid = $P")
		check_eq "$L: several distinct target_comm on $v rows for pid $P (>= 4)" yes \
			"$([ "$n" -ge 4 ] && echo yes || echo "no ($n)")" || true
	done
done < <(fixtures)
check_eq "sched-rename.dat fixture present and checked" 1 "$rename_seen" || true
finish
