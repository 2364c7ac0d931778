#!/usr/bin/env bash
# derived-runqueue.sh - the runqueue_wait and runqueue views (issue 19
# point 2) on every fixture, against a state machine of their own in awk:
#
#   each task is asleep, running or waiting on a CPU's queue; the sched
#   slices (ends with their state, starts), and sched_wakeup,
#   sched_wakeup_new and sched_migrate_task as trace-cmd report prints
#   them (not commd's decoding) move it between those. A wakeup queues a
#   task that slept (or was not seen yet), a slice left in R or R+
#   queues it where it ran (but for an R that a wakeup follows, next or
#   after a migration: a sleep 5.8-5.17 showed as R), a migration of a waiting task ends its wait
#   on orig_cpu and begins one on dest_cpu, its next slice ends the wait;
#   a slice end while waiting (a switch-in nobody saw) leaves the wait's
#   end unknown, as does a loss's gap (from the CPU's last record before
#   it to its stamp, any CPU) that overlaps the wait; a wait that no
#   event of the task follows is still open at the end, unless a loss
#   (any CPU) was stamped after it began or its CPU switched no task.
#
# Checks: the rows are the same (ts, dur, cpu, pid, reason, ended: to the
# ns); runqueue's nr is never negative, per CPU its time integral equals
# the sum of the CPU's known waits and its open waits up to the capture's
# end, and its steps reach that end.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

while read -r dat; do
	name=$(basename "$dat" .dat)
	db=$TMPDIR_TEST/$name.db
	p=$TMPDIR_TEST/$name
	import_ok "$dat" "$db" || continue
	LC_ALL=C trace-cmd report -t -i "$dat" > "$p.report" 2> /dev/null ||
		{ fail "$name.dat: trace-cmd report -t" "exit 0" "failed"; continue; }
	# Events: pid, ts, order, kind, cpu (kind 0 slept, 1 preempted,
	# 2 migrated, 3 woken, 4 ran; order within a ts as the view's: a
	# slice of no length ends after it begins).
	{
		q "$db" "SELECT pid, ts + dur, CASE WHEN dur = 0 THEN 4 ELSE 0 END,
				CASE WHEN end_state = 0 THEN 5
				WHEN end_state & 255 = 0 THEN 1 ELSE 0 END, cpu
			 FROM sched WHERE pid > 0"
		q "$db" "SELECT pid, ts, 3, 4, cpu FROM sched WHERE pid > 0"
		LC_ALL=C awk -v OFS='\t' '
			function ns(t,  a) { split(t, a, "."); return a[1] * 1000000000 + substr(a[2] "000000000", 1, 9) }
			/ sched_wakeup(_new)?: / {
				if (!match($0, /[0-9]+ \[[0-9]+\] CPU:[0-9]+$/)) next
				s = substr($0, RSTART); split(s, f, /[ \[\]:]+/)
				# the time is the field before the event name (a comm may
				# hold anything, "x [001] 1.5: y" too)
				for (i = 2; i <= NF; i++) if ($i ~ /^sched_wakeup(_new)?:$/) t = $(i - 1)
				sub(/:$/, "", t)
				if (f[1] > 0) printf "%d\t%.0f\t2\t3\t%d\n", f[1], ns(t), f[4]
			}
			/ sched_migrate_task: / {
				for (i = 2; i <= NF; i++) {
					if ($i == "sched_migrate_task:") { t = $(i - 1); sub(/:$/, "", t) }
					if ($i ~ /^pid=/) pid = substr($i, 5)
					if ($i ~ /^dest_cpu=/) d = substr($i, 10)
				}
				if (pid > 0) printf "%d\t%.0f\t1\t2\t%d\n", pid, ns(t), d
			}' "$p.report"
	} | LC_ALL=C sort -t$'\t' -k1,1n -k2,2n -k3,3n > "$p.events"
	q "$db" "SELECT coalesce(from_ts, ts - 1), ts FROM lost_events" > "$p.gaps"
	q "$db" "SELECT cpu, max(ts) FROM ev_sched_switch GROUP BY cpu" > "$p.lastsw"
	LC_ALL=C awk -F'\t' -v OFS='\t' -v lastcut="$(q "$db" "SELECT coalesce(max(ts), 0) FROM lost_events")" \
		-v gaps="$p.gaps" -v lastsw="$p.lastsw" '
		BEGIN {
			while ((getline g < gaps) > 0) { split(g, f, "\t"); GL[++ng] = f[1]; GH[ng] = f[2] }
			while ((getline g < lastsw) > 0) { split(g, f, "\t"); LS[f[1]] = f[2] }
		}
		function emit(end, how,  i) {
			if (how == "ran" || how == "migrated")
				for (i = 1; i <= ng; i++)
					if (GH[i] > since && GL[i] < end) how = ""	# it may have run in a gap
			printf "%.0f\t%s\t%d\t%d\t%s\t%s\n", since, (how == "" || how == "open" ? "" : sprintf("%.0f", end - since)), qcpu, pid, why, how
		}
		function flush() { if (st == "queued") emit(0, "") }	# no end seen
		# the task'"'"'s last event: still waiting at the end
		function flush_last() {
			if (st == "queued")
				emit(0, since >= lastcut && LS[qcpu] != "" ? "open" : "")
		}
		{ P[NR] = $1; T[NR] = $2; K[NR] = $4; C[NR] = $5 }
		# a slice left in plain R (5) that a wakeup follows (next, or
		# after a migration) was a sleep: 5.8-5.17 read the state after
		# a waker set TASK_WAKING; a task still runnable is never woken
		function woken_next(i) {
			if (P[i + 1] != P[i]) return 0
			if (K[i + 1] == 3) return 1
			return K[i + 1] == 2 && P[i + 2] == P[i] && K[i + 2] == 3
		}
		END { for (i = 1; i <= NR; i++) step(i); flush_last() }
		function step(i) {
			if (P[i] != pid) { flush_last(); pid = P[i]; st = "new" }
			t = T[i]; k = K[i]; c = C[i]
			if (k == 5) k = woken_next(i) ? 0 : 1
			if (k == 0 || k == 1) {		# a slice ends
				flush()
				if (k == 1) { st = "queued"; since = t; qcpu = c; why = "preempted" }
				else st = "asleep"
			} else if (k == 2) {		# migrated
				if (st == "queued") { emit(t, "migrated"); since = t; qcpu = c; why = "migrated" }
			} else if (k == 3) {		# woken
				if (st == "asleep" || st == "new") { st = "queued"; since = t; qcpu = c; why = "woken" }
			} else {			# a slice begins
				if (st == "queued") emit(t, "ran")
				st = "running"
			}
		}' "$p.events" > "$p.tmp"
	LC_ALL=C sort "$p.tmp" > "$p.want"
	q "$db" "SELECT ts, coalesce(dur, ''), cpu, pid, reason, coalesce(ended, '') FROM runqueue_wait" |
		LC_ALL=C sort > "$p.got"
	check_true "$name.dat: waits found" "> 0" "$(wc -l < "$p.got")" test "$(wc -l < "$p.got")" -gt 0
	compare_sets "$name.dat: runqueue_wait against the awk state machine" "$p.want" "$p.got"
	# the same waits on a clock 2e18 ns later (a tai clock, a trace.dat's
	# own): nothing in the views may overflow
	cp "$db" "$p.late.db"
	for t in ev_sched_switch dv_sched ev_sched_wakeup ev_sched_wakeup_new ev_sched_waking \
		 ev_sched_migrate_task; do
		sqlite3 "$p.late.db" "UPDATE $t SET ts = ts + 2000000000000000000"
	done
	sqlite3 "$p.late.db" "UPDATE lost_events SET ts = ts + 2000000000000000000,
		from_ts = from_ts + 2000000000000000000"
	check_eq "$name.dat: runqueue_wait on a clock 2e18 ns later (count, waits, ns)" \
		"$(q "$db" "SELECT count(*), count(dur), coalesce(sum(dur), 0) FROM runqueue_wait")" \
		"$(q "$p.late.db" "SELECT count(*), count(dur), coalesce(sum(dur), 0) FROM runqueue_wait")" || true
	check_eq "$name.dat: runqueue rows with a negative nr" 0 \
		"$(q "$db" "SELECT count(*) FROM runqueue WHERE nr < 0")" || true
	# (each wait up to its CPU's first switch to idle in it: nothing is
	# queued on an idle CPU, and when the task came back is not known)
	check_eq "$name.dat: per CPU, runqueue's integral = the sum of its known waits and open waits to the end, each up to a switch to idle" \
		"$(q "$db" "WITH w AS (SELECT ts, coalesce(dur, (SELECT end_ts FROM capture) - ts) AS dur, cpu
				    FROM runqueue_wait WHERE dur IS NOT NULL OR ended = 'open')
			    SELECT cpu, sum(coalesce((SELECT min(s.ts) FROM sched s WHERE s.pid = 0
				    AND s.cpu = w.cpu AND s.ts >= w.ts AND s.ts < w.ts + w.dur
				    AND s.start_err IS NULL), w.ts + w.dur) - w.ts)
			    FROM w GROUP BY cpu ORDER BY cpu")" \
		"$(q "$db" "SELECT cpu, sum(nr * dur) FROM runqueue GROUP BY cpu ORDER BY cpu")" || true
	log "$name.dat: waits cut at a switch to idle: $(q "$db" "SELECT count(*) FROM runqueue_wait w
		WHERE w.dur IS NOT NULL AND EXISTS (SELECT 1 FROM sched s WHERE s.pid = 0 AND s.cpu = w.cpu
		AND s.ts >= w.ts AND s.ts < w.ts + w.dur AND s.start_err IS NULL)")"
	check_eq "$name.dat: runqueue's CPUs whose steps end before or after the capture's end" 0 \
		"$(q "$db" "SELECT count(*) FROM (SELECT max(coalesce(ts + dur, ts)) AS e FROM runqueue GROUP BY cpu)
			    WHERE e <> (SELECT end_ts FROM capture)")" || true
	[ "$name" = sched-pipe ] || continue
	# A recording that left a CPU out (trace-cmd record -M): a task woken
	# on CPU 0 that the trace never shows again but dying (it ran where
	# nothing was traced), and one migrated to a CPU that switched no task
	# (its queue is not seen): neither wait is open at the end; one woken
	# on CPU 0 and not seen again is
	cp "$db" "$p.m.db"
	end=$(q "$p.m.db" "SELECT max(ts) FROM ev_sched_switch")
	hid=$(q "$p.m.db" "SELECT min(id) FROM comm_history WHERE id > 0")
	sqlite3 "$p.m.db" "INSERT INTO ev_sched_wakeup (ts, cpu, n, hid, target_pid, target_cpu)
			   VALUES ($end - 300000, 0, 9, $hid, 99991, 0), ($end - 300000, 0, 10, $hid, 99993, 0),
				  ($end - 300000, 0, 11, $hid, 99992, 0);
		INSERT INTO ev_sched_process_free (ts, cpu, n, hid, target_pid)
			   VALUES ($end - 200000, 0, 9, $hid, 99991);
		INSERT INTO ev_sched_migrate_task (ts, cpu, n, hid, target_pid, orig_cpu, dest_cpu)
			   VALUES ($end - 250000, 0, 11, $hid, 99992, 0, 7)"
	check_eq "$name.dat, CPU 7 left out: waits of a task that died unseen, of one on a queue never seen, of one still queued" \
		"99991 woken -;99992 woken migrated;99992 migrated -;99993 woken open" \
		"$(q "$p.m.db" "SELECT group_concat(pid || ' ' || reason || ' ' || coalesce(ended, '-'), ';')
			    FROM (SELECT * FROM runqueue_wait WHERE pid > 99990 ORDER BY pid, ts)")" || true
	# A throttled task (its cgroup out of CPU bandwidth) leaves the queue
	# still runnable, and its CPU may run idle: a switch to idle made up
	# in the middle of the longest wait, for a quarter of it. The wait is
	# the same; the queue is shorter by one from there, its integral by
	# the wait's second half.
	cp "$db" "$p.t.db"
	read -r wts wdur wcpu < <(q "$p.t.db" "SELECT ts, dur, cpu FROM runqueue_wait
		WHERE dur IS NOT NULL ORDER BY dur DESC LIMIT 1" | tr '|' ' ')
	idle=$(q "$p.t.db" "SELECT next_hid FROM ev_sched_switch WHERE next_pid = 0 AND cpu = $wcpu LIMIT 1")
	before=$(q "$p.t.db" "SELECT sum(nr * dur) FROM runqueue WHERE cpu = $wcpu")
	at=$((wts + wdur / 2)) quarter=$((wdur / 4))
	sqlite3 "$p.t.db" "INSERT INTO ev_sched_switch (ts, cpu, n, next_pid, hid, next_hid, slice_dur)
			   VALUES ($at, $wcpu, 99, 0, $idle, $idle, $quarter)"
	check_eq "$name.dat, a switch to idle inside the longest wait: the waits" \
		"$(q "$db" "SELECT count(*), sum(dur) FROM runqueue_wait WHERE pid > 0")" \
		"$(q "$p.t.db" "SELECT count(*), sum(dur) FROM runqueue_wait WHERE pid > 0")" || true
	check_eq "$name.dat, a switch to idle inside the longest wait ($wdur ns): the queue's integral, less the wait's rest" \
		"$((before - (wts + wdur - at)))" "$(q "$p.t.db" "SELECT sum(nr * dur) FROM runqueue WHERE cpu = $wcpu")" || true
	check_eq "$name.dat, a switch to idle inside the longest wait: the queue one shorter while idle" \
		"$(q "$p.t.db" "SELECT nr FROM runqueue WHERE cpu = $wcpu AND ts < $at ORDER BY ts DESC LIMIT 1")" \
		"$(($(q "$p.t.db" "SELECT nr FROM runqueue WHERE cpu = $wcpu AND ts <= $at ORDER BY ts DESC LIMIT 1") + 1))" || true
done < <(fixtures
	# and a recording as 5.8-5.17 would have made it (sleeps shown as R)
	python3 "$TESTDATA/as-old-kernel.py" "$TESTDATA/sched-v6.dat" \
		"$TMPDIR_TEST/sched-v6-5.15.dat" 5.15 > /dev/null &&
		echo "$TMPDIR_TEST/sched-v6-5.15.dat")
finish
