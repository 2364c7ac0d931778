#!/usr/bin/env bash
# live-names.sh - record tests/naming/namer with trace-cmd, import it with
# commd, and check that commd names every pid as the kernel did:
#
#  (a) every action namer logged (rename, thread name, fork, exec, ...) is in
#      comm_history: the row of that tid at the logged CLOCK_MONOTONIC time
#      (trace clock: -C mono) has the logged name, and each task lifetime's
#      sequence of names (by start_ts, consecutive duplicates collapsed)
#      equals the logged one;
#  (b) the reused pid has two lifetimes with different names, and after the
#      reuse nothing gives that pid a name of its first lifetime;
#  (c) every event's commd name equals the name the kernel wrote in the
#      event's own fields at that moment (sched_switch prev/next,
#      wakeup/waking/wakeup_new/stat_runtime/migrate targets, fork parent and
#      child, exit, newtask): zero differences;
#  (d) informational: how many sched_switch lines of `trace-cmd report` name
#      prev_pid wrongly in their leading comm, on the same file.
#
# Needs root and tracefs: it FAILS (does not skip) without them. It records
# into a private instance (never the global buffer), always removes the
# instance and puts back the global tracing_on, and checks that the global
# set_event is as it was (empty).
#
# Environment: COMMD (commd binary), NAMER (tests/naming/namer binary).
# NAMING_KEEP=1 keeps the temporary directory (t.dat, t.db, actions.log).
set -euo pipefail

: "${COMMD:?COMMD not set (run through ctest, or export COMMD=build/commd)}"
: "${NAMER:?NAMER not set (the namer binary from tests/naming/namer.c)}"

T=/sys/kernel/tracing
INST=commd-naming-$$
RECORD_TIMEOUT=300
# TEST_NAME (live-names), the checks (log, fail, check_eq, abort, finish),
# FAILURES, CHECKS, the directory $TMP and the EXIT trap that runs
# CLEANUP_HOOKS and removes $TMP (NAMING_KEEP=1 keeps it).
# shellcheck source=../lib/check.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
# shellcheck disable=SC2034 # read by check.sh's EXIT trap
CHECK_KEEP=${NAMING_KEEP:-0}

# --- tracefs state and cleanup ------------------------------------------------
TRACING_ON_BEFORE=
CLEANED=0
cleanup_tracefs() {
	[ "$CLEANED" = 1 ] && return 0
	CLEANED=1
	local i ok=0
	# trace-cmd -B leaves the instance behind; rmdir may see EBUSY for a
	# moment if a reader still has a file of it open.
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ -d "$T/instances/$INST" ] || break
		rmdir "$T/instances/$INST" 2> /dev/null && break
		sleep 0.5
	done
	[ -d "$T/instances/$INST" ] && { ok=1; CLEANED=0; }
	# The global tracing_on is never written (trace-cmd record -B leaves
	# it); a change is a failure, not something to put back.
	if [ -n "$TRACING_ON_BEFORE" ] &&
	   [ "$(cat "$T/tracing_on" 2> /dev/null)" != "$TRACING_ON_BEFORE" ]; then
		ok=1
	fi
	return $ok
}
naming_cleanup() {
	cleanup_tracefs || echo "$TEST_NAME: cleanup: could not remove $T/instances/$INST, or the global tracing_on changed" >&2
}
CLEANUP_HOOKS+=(naming_cleanup)
trap 'exit 130' INT TERM

check_eq "running as root (uid)" 0 "$(id -u)" || finish
command -v trace-cmd > /dev/null || abort "trace-cmd in PATH" "found" "missing"
command -v sqlite3 > /dev/null || abort "sqlite3 in PATH" "found" "missing"
[ -x "$NAMER" ] || abort "NAMER executable" "$NAMER" "missing"
[ -x "$COMMD" ] || abort "COMMD executable" "$COMMD" "missing"

if [ ! -e "$T/tracing_on" ]; then
	mkdir -p "$T" 2> /dev/null || true
	mount -t tracefs nodev "$T" 2> "$TMP/mount.err" || true
fi
if ! { [ -w "$T/tracing_on" ] && [ -e "$T/set_event" ] && [ -d "$T/instances" ] &&
       grep -qw mono "$T/trace_clock"; }; then
	abort "tracefs usable at $T" "tracing_on, set_event, instances/, trace_clock mono" \
		"not usable (mount: $(cat "$TMP/mount.err" 2> /dev/null))"
fi
[ -e "$T/instances/$INST" ] && abort "instance $INST free" "absent" "exists already"
TRACING_ON_BEFORE=$(cat "$T/tracing_on")
SET_EVENT_BEFORE=$(cat "$T/set_event")
[ -n "$SET_EVENT_BEFORE" ] &&
	log "note: global set_event is not empty before the test: $(echo "$SET_EVENT_BEFORE" | head -3 | tr '\n' ' ')"

# --- record --------------------------------------------------------------------
dat=$TMP/t.dat
actions=$TMP/actions.log
rc=0
(cd "$TMP" && timeout "$RECORD_TIMEOUT" trace-cmd record -d --no-filter -C mono \
	-B "$INST" -e sched -e task -o "$dat" "$NAMER" "$actions") \
	> "$TMP/record.out" 2> "$TMP/record.err" || rc=$?
# trace-cmd exits 1 from EPERM on the instance's set_ftrace_filter while it
# cleans up, after the file is complete: judge by the file.
CHECKS=$((CHECKS + 1))
if ! { [ "$rc" = 0 ] || [ "$rc" = 1 ]; } || [ ! -s "$dat" ]; then
	fail "trace-cmd record -B $INST" "exit 0 or 1 and a non-empty $dat" \
		"exit $rc, file $([ -s "$dat" ] && echo present || echo missing), stderr: $(tail -c 2000 "$TMP/record.err")"
fi
cleanup_tracefs || fail "cleanup after trace-cmd" "instance removed, tracing_on $TRACING_ON_BEFORE" \
	"instance $([ -d "$T/instances/$INST" ] && echo left || echo gone), tracing_on $(cat "$T/tracing_on")"
check_eq "instance $INST removed from $T/instances" "" "$(ls "$T/instances" | grep -x "$INST" || true)" || true
check_eq "global tracing_on after the test" "$TRACING_ON_BEFORE" "$(cat "$T/tracing_on")" || true
check_eq "global set_event after the test" "$SET_EVENT_BEFORE" "$(cat "$T/set_event")" || true
[ -s "$dat" ] || finish
[ -s "$actions" ] || abort "namer's action log" "non-empty $actions" "empty or missing"
check_eq "namer's action log has no reuse-failed line (pid reuse happened)" "" \
	"$(grep ' reuse-failed ' "$actions" || true)" || true
log "recorded $(stat -c %s "$dat") bytes, $(wc -l < "$actions") actions"

# --- import ----------------------------------------------------------------------
db=$TMP/t.db
rc=0
"$COMMD" import "$dat" -o "$db" --force --no-progress 2> "$TMP/import.err" || rc=$?
CHECKS=$((CHECKS + 1))
if [ "$rc" != 0 ] || [ ! -s "$db" ]; then
	abort "commd import t.dat" "exit 0 and $db" "exit $rc, stderr: $(head -c 2000 "$TMP/import.err")"
fi

# A scratch copy to add the action log and indexes to; t.db stays as made.
W=$TMP/work.db
cp "$db" "$W"
q() { sqlite3 -batch -noheader "$W" "$1"; }

# log(seq, t, action, pid, tid, name, life): life numbers the lifetimes of a
# tid (a new one at start/clone/fork); NULL for lines about another task.
{
	echo "BEGIN;"
	echo "CREATE TABLE log (seq INTEGER PRIMARY KEY, t INTEGER, action TEXT, pid INTEGER, tid INTEGER, name TEXT, life INTEGER);"
	awk '{
		a = $2; tid = $4; life = "NULL"
		if (a == "start" || a == "clone" || a == "fork") lives[tid]++
		if (a != "reuse" && a != "reuse-failed") life = lives[tid] + 0
		name = $5; gsub(/\047/, "\047\047", name)
		printf "INSERT INTO log VALUES (%d, %s, \047%s\047, %s, %s, \047%s\047, %s);\n", NR, $1, a, $3, tid, name, life
	}' "$actions"
	echo "CREATE TABLE h AS SELECT id, pid, comm, start_ts, coalesce(end_ts, 9223372036854775807) AS end_ts, source FROM comm_history;"
	echo "CREATE INDEX h_pid ON h(pid, start_ts);"
	echo "COMMIT;"
} > "$TMP/load.sql"
sqlite3 -batch "$W" < "$TMP/load.sql" || abort "loading the action log into sqlite" "ok" "error"

# at(PID, TS) as SQL: the comm_history row of PID valid at TS (the newest
# when TS is the boundary of two).
at_row() { echo "(SELECT $3 FROM h WHERE h.pid = $1 AND h.start_ts <= $2 AND $2 <= h.end_ts ORDER BY h.start_ts DESC, h.id DESC LIMIT 1)"; }

# --- clock: the log's CLOCK_MONOTONIC is the trace clock (-C mono) -------------------
# Each rename's task_rename event must precede the logged time by < 5 ms.
read -r n_ren n_found lag_min lag_max <<< "$(q "
	WITH r AS (SELECT l.t - (SELECT max(e.ts) FROM task_rename e
			WHERE e.target_pid = l.tid AND e.newcomm = l.name
			AND e.ts <= l.t AND e.ts >= l.t - 5000000) AS lag
		FROM log l WHERE l.action IN ('rename', 'thread'))
	SELECT count(*), count(lag), coalesce(min(lag), -1), coalesce(max(lag), -1) FROM r" | tr '|' ' ')"
if ! check_eq "clock: renames with a task_rename event 0..5 ms before the logged CLOCK_MONOTONIC time" \
	"$n_ren" "$n_found"; then
	q "SELECT l.seq, l.t, l.tid, l.name, (SELECT group_concat(e.ts || ':' || e.newcomm, ' ') FROM task_rename e WHERE e.target_pid = l.tid)
		FROM log l WHERE l.action IN ('rename', 'thread') AND NOT EXISTS (SELECT 1 FROM task_rename e
			WHERE e.target_pid = l.tid AND e.newcomm = l.name AND e.ts <= l.t AND e.ts >= l.t - 5000000) LIMIT 5" |
		sed 's/^/    unmatched (seq|t|tid|name|task_rename events of tid): /' >&2
fi
log "clock: $n_found of $n_ren renames matched; log time - task_rename ts: min $((lag_min / 1000)) us, max $((lag_max / 1000)) us (same clock)"

# --- (a) every logged action, at its time ---------------------------------------------
# Lines logged right after the action: the row at t has the name.
n=$(q "SELECT count(*) FROM log WHERE action IN ('start','rename','clone','thread','fork','execd','end')")
bad=$(q "SELECT l.seq, l.action, l.tid, l.t, l.name,
		coalesce($(at_row l.tid l.t "comm"), 'NULL'),
		coalesce($(at_row l.tid l.t "id || ' [' || start_ts || ',' || end_ts || '] ' || source"), 'no row')
	FROM log l WHERE l.action IN ('start','rename','clone','thread','fork','execd','end')
	AND $(at_row l.tid l.t "comm") IS NOT l.name ORDER BY l.seq")
CHECKS=$((CHECKS + 1))
if [ -n "$bad" ]; then
	while IFS='|' read -r seq act tid t name got row; do
		fail "(a) action #$seq $act: comm_history row of pid $tid at ts $t" "comm '$name'" "'$got' (row $row)"
		# The kernel emits task_rename before it copies the name; an IRQ
		# in between (e.g. the ring buffer's irq_work waking trace-cmd)
		# records events that still carry the old name after the
		# task_rename. Show the rows and those events.
		r=$(q "SELECT max(ts) FROM task_rename WHERE target_pid = $tid AND newcomm = '$name' AND ts <= $t")
		if [ -n "$r" ]; then
			stale=$(q "SELECT ev || ' ts ' || ts || ' comm ' || target_comm FROM (
				SELECT 'sched_stat_runtime' AS ev, ts, target_comm FROM sched_stat_runtime WHERE target_pid = $tid
				UNION ALL SELECT 'sched_waking', ts, target_comm FROM sched_waking WHERE target_pid = $tid
				UNION ALL SELECT 'sched_wakeup', ts, target_comm FROM sched_wakeup WHERE target_pid = $tid
				UNION ALL SELECT 'sched_migrate_task', ts, target_comm FROM sched_migrate_task WHERE target_pid = $tid
				UNION ALL SELECT 'sched_switch', ts, prev_comm FROM sched_switch WHERE prev_pid = $tid)
				WHERE ts > $r AND ts <= $t AND target_comm IS NOT '$name' ORDER BY ts" | tr '\n' ';')
			printf '    task_rename to %s at ts %s; events after it naming pid %s otherwise: %s\n' \
				"$name" "$r" "$tid" "${stale:-none}" >&2
			q "SELECT id, comm, start_ts, end_ts, source FROM h WHERE pid = $tid AND end_ts >= $r - 1 AND start_ts <= $t + 20000000 ORDER BY start_ts, id" |
				sed 's/^/    comm_history row: /' >&2
		fi
	done <<< "$bad"
fi
log "(a) $n logged actions checked at their time, $(printf '%s' "$bad" | grep -c . || true) wrong"

# exec lines are logged just before execve: a row with the new name must
# start within 50 ms after.
bad=$(q "SELECT l.seq, l.tid, l.t, l.name,
		(SELECT group_concat(comm || '@' || start_ts, ' ') FROM h WHERE h.pid = l.tid AND h.start_ts >= l.t - 50000000)
	FROM log l WHERE l.action = 'exec' AND NOT EXISTS (SELECT 1 FROM h
		WHERE h.pid = l.tid AND h.comm = l.name AND h.start_ts >= l.t AND h.start_ts <= l.t + 50000000)")
check_eq "(a) exec actions: a comm_history row with the new comm starting 0..50 ms after" "" "$bad" || true

# Each lifetime's name sequence: from the row valid at its first logged line
# to the lifetime's end (its sched_process_exit, or the next lifetime of the
# same tid, or the end of the trace).
q "CREATE TABLE lives AS
	SELECT tid, life, min(t) AS t0 FROM log WHERE life IS NOT NULL GROUP BY tid, life;
   ALTER TABLE lives ADD COLUMN t1 INTEGER;
   UPDATE lives SET t1 = coalesce((SELECT min(l2.t0) FROM lives l2 WHERE l2.tid = lives.tid AND l2.t0 > lives.t0), 9223372036854775807);
   ALTER TABLE lives ADD COLUMN tend INTEGER;
   UPDATE lives SET tend = min(t1, coalesce((SELECT min(ts) FROM sched_process_exit e WHERE e.target_pid = lives.tid AND e.ts >= lives.t0), 9223372036854775807));"
n_lives=0
while IFS='|' read -r tid life t0 tend; do
	n_lives=$((n_lives + 1))
	# an exec line carries the name after the exec, in its place
	want=$(q "SELECT name FROM log WHERE tid = $tid AND life = $life ORDER BY seq" | uniq | tr '\n' ' ')
	s0=$(q "SELECT coalesce($(at_row "$tid" "$t0" start_ts), $t0)")
	got=$(q "SELECT coalesce(comm, 'NULL') FROM h WHERE pid = $tid AND start_ts >= $s0 AND start_ts <= $tend ORDER BY start_ts, id" | uniq | tr '\n' ' ')
	check_eq "(a) names of pid $tid, lifetime $life (from ts $s0 to $tend), comm_history by start_ts" "$want" "$got" || true
done <<< "$(q "SELECT tid, life, t0, tend FROM lives ORDER BY t0")"
log "(a) $n_lives task lifetimes' name sequences checked"

# --- (b) pid reuse --------------------------------------------------------------------
reuse=$(q "SELECT pid, t FROM log WHERE action = 'reuse' ORDER BY seq LIMIT 1")
CHECKS=$((CHECKS + 1))
if [ -z "$reuse" ]; then
	fail "(b) namer reused a pid" "a 'reuse' line in the action log" "none ($(grep -c reuse "$actions") reuse lines)"
else
	IFS='|' read -r rpid _ <<< "$reuse"
	# the two lifetimes: the last two of that pid in the log (the second
	# child may log before or after the parent's reuse line)
	l2=$(q "SELECT max(life) FROM lives WHERE tid = $rpid")
	[ "${l2:-0}" -ge 2 ] || abort "(b) lifetimes of pid $rpid in namer's log" "2 (fork lines)" "${l2:-0}"
	l1=$((l2 - 1))
	l1t0=$(q "SELECT t0 FROM lives WHERE tid = $rpid AND life = $l1")
	# the second lifetime begins at its task_newtask / sched_process_fork
	b=$(q "SELECT min(ts) FROM (SELECT ts FROM task_newtask WHERE target_pid = $rpid
		UNION ALL SELECT ts FROM sched_process_fork WHERE child_pid = $rpid) WHERE ts > $l1t0")
	names1=$(q "SELECT DISTINCT name FROM log WHERE tid = $rpid AND life = $l1" | sort | tr '\n' ' ')
	names2=$(q "SELECT DISTINCT name FROM log WHERE tid = $rpid AND life = $l2" | sort | tr '\n' ' ')
	log "(b) pid $rpid reused: lifetime 1 names { $names1}, lifetime 2 names { $names2}, lifetime 2 born at ts ${b:-?}"
	check_eq "(b) the two lifetimes of pid $rpid have disjoint names (namer's log)" "" \
		"$(comm -12 <(tr ' ' '\n' <<< "$names1" | grep . | sort) <(tr ' ' '\n' <<< "$names2" | grep . | sort) | tr '\n' ' ')" || true
	if [ -z "$b" ]; then
		fail "(b) fork of the second lifetime of pid $rpid" "task_newtask/sched_process_fork after ts $l1t0" "none"
	else
		s1=$(q "SELECT coalesce($(at_row "$rpid" "$l1t0" start_ts), $l1t0)")
		check_eq "(b) comm_history rows of pid $rpid straddling the reuse at ts $b (start < $b < end)" "" \
			"$(q "SELECT id, comm, start_ts, end_ts, source FROM h WHERE pid = $rpid AND start_ts >= $s1 AND start_ts < $b AND end_ts > $b")" || true
		inlist=$(q "SELECT group_concat(quote(name), ',') FROM (SELECT DISTINCT name FROM log WHERE tid = $rpid AND life = $l1)")
		check_eq "(b) comm_history rows of pid $rpid from its reuse at ts $b on, named like lifetime 1 ($names1)" "" \
			"$(q "SELECT 'row ' || id || ' comm=' || comm || ' [' || start_ts || ',' || end_ts || '] source=' || source FROM h
				WHERE pid = $rpid AND start_ts >= $b AND comm IN ($inlist) ORDER BY start_ts" | tr '\n' ';')" || true
		got=$(q "SELECT count(*) FROM (
			SELECT ts, comm FROM sched_switch WHERE pid = $rpid UNION ALL SELECT ts, comm FROM sched_stat_runtime WHERE pid = $rpid
			UNION ALL SELECT ts, comm FROM task_rename WHERE pid = $rpid UNION ALL SELECT ts, comm FROM sched_process_exit WHERE pid = $rpid
			UNION ALL SELECT ts, comm FROM sched_waking WHERE pid = $rpid UNION ALL SELECT ts, comm FROM sched_wakeup WHERE pid = $rpid
			UNION ALL SELECT ts, comm FROM events WHERE pid = $rpid)
			WHERE ts >= $b AND comm IN ($inlist)")
		check_eq "(b) events fired by pid $rpid from ts $b on whose comm is a lifetime-1 name" 0 "$got" || true
		first_last=$(q "SELECT name FROM log WHERE tid = $rpid AND life = $l1 ORDER BY seq DESC LIMIT 1")
		second_last=$(q "SELECT name FROM log WHERE tid = $rpid AND life = $l2 ORDER BY seq DESC LIMIT 1")
		check_eq "(b) comm_history has both lifetimes' last names for pid $rpid" "2" \
			"$(q "SELECT (EXISTS (SELECT 1 FROM h WHERE pid = $rpid AND comm = '$first_last' AND start_ts < $b))
				+ (EXISTS (SELECT 1 FROM h WHERE pid = $rpid AND comm = '$second_last' AND start_ts >= $b))")" || true
		# where the first lifetime's sched_process_free (an RCU callback,
		# named after the first task) landed
		exit2=$(q "SELECT min(ts) FROM sched_process_exit WHERE target_pid = $rpid AND ts >= $b")
		frees=$(q "SELECT ts || ' (target_comm ' || target_comm || ', fired in pid ' || pid || ')' FROM sched_process_free WHERE target_pid = $rpid AND ts >= $l1t0 ORDER BY ts" | tr '\n' ' ')
		log "(b) sched_process_free of pid $rpid: ${frees:-none in the trace}; lifetime 2 lives ${b}..${exit2:-?}"
	fi
fi

# --- (c) commd's names vs the events' own fields ------------------------------------
# "the row at ts" for another task: $(at_row PID TS comm). pid 0 is one
# idle task per CPU (swapper/N): its own events are checked by comm =
# prev_comm; as another event's target it is left out.
declare -a C_NAMES C_SQL
add_c() { C_NAMES+=("$1"); C_SQL+=("$2"); }
add_c "sched_switch comm vs prev_comm" \
	"SELECT ts, pid, comm, prev_pid, prev_comm FROM sched_switch WHERE comm IS NOT prev_comm OR pid IS NOT prev_pid"
add_c "sched_switch next_comm vs comm_history of next_pid" \
	"SELECT ts, next_pid, next_comm, $(at_row next_pid ts comm) AS c FROM sched_switch WHERE next_pid <> 0 AND c IS NOT next_comm"
for v in sched_wakeup sched_waking sched_wakeup_new sched_stat_runtime sched_migrate_task sched_process_exit; do
	add_c "$v target_comm vs comm_history of target_pid" \
		"SELECT ts, target_pid, target_comm, $(at_row target_pid ts comm) AS c FROM $v WHERE target_pid <> 0 AND c IS NOT target_comm"
done
add_c "task_newtask target_comm vs comm_history of target_pid" \
	"SELECT ts, target_pid, target_comm, $(at_row target_pid ts comm) AS c FROM task_newtask WHERE target_pid <> 0 AND c IS NOT target_comm"
add_c "sched_process_fork comm vs parent_comm" \
	"SELECT ts, pid, comm, parent_pid, parent_comm FROM sched_process_fork WHERE comm IS NOT parent_comm OR pid IS NOT parent_pid"
add_c "sched_process_fork child_comm vs comm_history of child_pid" \
	"SELECT ts, child_pid, child_comm, $(at_row child_pid ts comm) AS c FROM sched_process_fork WHERE child_pid <> 0 AND c IS NOT child_comm"
total_diff=0
total_rows=0
for i in "${!C_NAMES[@]}"; do
	sql=${C_SQL[$i]}
	from=${sql##* FROM }; from=${from%% *}
	rows=$(q "SELECT count(*) FROM $from")
	diffs=$(q "SELECT count(*) FROM ($sql)")
	total_diff=$((total_diff + diffs)); total_rows=$((total_rows + rows))
	if ! check_eq "(c) ${C_NAMES[$i]}: differing rows (of $rows)" 0 "$diffs"; then
		q "$sql ORDER BY ts LIMIT 5" | sed 's/^/    e.g. (ts|pid|commd|kernel pid|kernel comm): /' >&2
	fi
done
# sched_process_free names the freed task, which may be an earlier lifetime
# of a reused pid: informational only.
free_diff=$(q "SELECT count(*) FROM sched_process_free WHERE $(at_row target_pid ts comm) IS NOT target_comm")
log "(c) commd vs the kernel's own fields: $total_diff differences over $total_rows event rows (sched_process_free, not checked: $free_diff of $(q 'SELECT count(*) FROM sched_process_free') name an older lifetime or differ)"

# --- (e) CPU time per (pid, comm) of namer's tasks: slices split at renames -------
# tests/derived/reference.awk computes the slices from trace-cmd report on
# its own, splitting a slice at every task_rename of its running task.
tids=$(q "SELECT group_concat(DISTINCT tid) FROM log")
if LC_ALL=C trace-cmd report -t -i "$dat" > "$TMP/report-e.txt" 2> "$TMP/report-e.err"; then
	LC_ALL=C awk -f "$SRCDIR/tests/derived/reference.awk" "$TMP/report-e.txt" |
		LC_ALL=C awk -F'\t' -v tids=",$tids," '$1 == "S" && index(tids, "," $3 ",") { t[$3 "|" $4] += $6 }
			END { for (k in t) print k "|" t[k] }' | LC_ALL=C sort > "$TMP/cpu.ref"
	q "SELECT pid || '|' || comm || '|' || sum(dur) FROM sched WHERE pid IN ($tids) GROUP BY pid, comm" |
		LC_ALL=C sort > "$TMP/cpu.commd"
	if ! check_eq "(e) CPU time per (pid, comm) of namer's tasks: commd vs reference.awk (lines differing)" \
		0 "$(LC_ALL=C comm -3 "$TMP/cpu.ref" "$TMP/cpu.commd" | wc -l)"; then
		LC_ALL=C comm -3 "$TMP/cpu.ref" "$TMP/cpu.commd" | head -10 | sed 's/^/    /' >&2
	fi
	for n in spin-1 spin-2 spin-3 spin-4; do
		check_true "(e) CPU time of $n (a name held only inside one running slice)" "> 0 ns" \
			"$(q "SELECT coalesce(sum(dur), 0) FROM sched WHERE comm = '$n'") ns" \
			[ "$(q "SELECT coalesce(sum(dur), 0) FROM sched WHERE comm = '$n'")" -gt 0 ]
	done
	split=$(q "SELECT count(*) FROM sched a JOIN sched b ON b.cpu = a.cpu AND b.pid = a.pid
		AND b.ts = a.ts + a.dur AND b.comm <> a.comm
		WHERE a.pid IN ($tids) AND a.end_state IS NULL AND a.end_err IS NULL")
	check_true "(e) slices of namer split at a rename (the part before, the part after)" ">= 3" "$split" \
		[ "$split" -ge 3 ]
else
	fail "(e) trace-cmd report -t -i t.dat" "exit 0" "$(head -c 1000 "$TMP/report-e.err")"
fi

# --- (d) trace-cmd report's leading comm, on the same file ------------------------
if LC_ALL=C trace-cmd report -t -i "$dat" > "$TMP/report.txt" 2> "$TMP/report.err"; then
	LC_ALL=C awk -v inst="$INST" -v ex="$TMP/report.wrong" '
	/ sched_switch: / {
		line = $0
		if (substr(line, 1, length(inst) + 1) == inst ":")  # the instance prefix
			line = substr(line, length(inst) + 2)
		sub(/^ +/, "", line)
		if (!match(line, /^.*-[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9]+: +sched_switch: +/)) { bad++; next }
		head = substr(line, 1, RLENGTH); rest = substr(line, RLENGTH + 1)
		match(head, /-[0-9]+ +\[/)
		lc = substr(head, 1, RSTART - 1)
		lp = substr(head, RSTART + 1); sub(/ .*/, "", lp)
		if (!match(rest, /:-?[0-9]+ \[-?[0-9]+\] [^ ]+ ==> /)) { bad++; next }
		pc = substr(rest, 1, RSTART - 1)
		m++
		if (lp == 0 && lc == "<idle>") { idle++; next }
		if (lc != pc) { wrong++; if (wrong <= 3) print line > ex }
	}
	END { print m + 0, wrong + 0, idle + 0, bad + 0 }' "$TMP/report.txt" > "$TMP/report.counts"
	read -r m wrong idle unparsed < "$TMP/report.counts"
	commd_n=$(q "SELECT count(*) FROM sched_switch")
	commd_wrong=$(q "SELECT count(*) FROM sched_switch WHERE comm IS NOT prev_comm OR pid IS NOT prev_pid")
	check_eq "(d) trace-cmd report sched_switch lines vs commd sched_switch rows" "$commd_n" "$m" || true
	check_eq "(d) trace-cmd report sched_switch lines the parser could not read" 0 "$unparsed" || true
	[ -s "$TMP/report.wrong" ] && sed 's/^/    e.g. /' "$TMP/report.wrong"
	echo "trace-cmd report: $wrong of $m sched_switch lines name prev_pid wrongly; commd: $commd_wrong ($idle lines of pid 0 print <idle> for swapper/N, not counted)"
else
	fail "(d) trace-cmd report -t -i t.dat" "exit 0" "$(head -c 1000 "$TMP/report.err")"
fi

finish
