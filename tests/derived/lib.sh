# shellcheck shell=bash
# lib.sh - helpers for the derived-table tests (source it, don't run it).
#
# The derived tables `sched` and `wakeup_latency` (schema/002-derived.sql,
# daemon/derive.c) are checked against reference.awk, an independent
# computation over `trace-cmd report -t` text, and against invariants
# queried with the sqlite3 shell. Every check records a failure with fail()
# (expected vs got) and returns, so one run reports every mismatch; call
# finish() last.
#
# Environment (COMMD_TEST_ENV in tests/CMakeLists.txt): COMMD, TESTDATA,
# SRCDIR. Needs trace-cmd and the sqlite3 shell (missing = failure).

: "${COMMD:?COMMD not set (run through ctest, or export COMMD=build/commd)}"
: "${TESTDATA:?TESTDATA not set}"
: "${SRCDIR:?SRCDIR not set}"

DERIVED_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REFERENCE_AWK=$DERIVED_DIR/reference.awk
MAX_SHOWN=15		# mismatching rows printed per failed comparison

# TEST_NAME, the checks (log, fail, check_eq, abort, finish), FAILURES,
# CHECKS, the scratch directory $TMP and the EXIT trap that runs
# CLEANUP_HOOKS (callers may add to it) and removes $TMP.
# shellcheck source=../lib/check.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
TMPDIR_TEST=$TMP
# fixtures, import_ok
# shellcheck source=../lib/import.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/import.sh"
trap 'exit 130' INT TERM

command -v trace-cmd > /dev/null || abort "trace-cmd in PATH" "found" "missing"
command -v sqlite3 > /dev/null || abort "sqlite3 shell in PATH" "found" "missing"

# q DB SQL: read-only query, tab separated, no header.
q() {
	sqlite3 -readonly -batch -noheader -separator $'\t' "$1" "$2"
}



# reference DAT PREFIX LABEL: runs reference.awk over `trace-cmd report -t`.
# Writes PREFIX.slices (cpu pid comm ts dur lost), PREFIX.wakeups (ts pid
# comm cpu latency waker_pid), PREFIX.lat (latencies, sorted) and sets
# REF_LAST_TS REF_SWITCHES REF_BREAKS REF_DROPS REF_UNPARSED.
reference() {
	local dat=$1 p=$2 label=$3 rc=0 tag
	LC_ALL=C trace-cmd report -t -i "$dat" > "$p.report" 2> "$p.report.err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$label: trace-cmd report -t" "exit 0" \
			"exit $rc: $(head -c 1000 "$p.report.err")"
		return 1
	fi
	LC_ALL=C awk -f "$REFERENCE_AWK" "$p.report" "$p.report" > "$p.ref"
	LC_ALL=C awk -F'\t' -v OFS='\t' '$1 == "S" { print $2, $3, $4, $5, $6, $7 }' \
		"$p.ref" | LC_ALL=C sort > "$p.slices"
	LC_ALL=C awk -F'\t' -v OFS='\t' '$1 == "W" { print $2, $3, $4, $5, $6, $7 }' \
		"$p.ref" | LC_ALL=C sort > "$p.wakeups"
	cut -f5 "$p.wakeups" | LC_ALL=C sort -n > "$p.lat"
	# shellcheck disable=SC2034
	IFS=$'\t' read -r tag REF_LAST_TS REF_SWITCHES REF_BREAKS REF_DROPS REF_UNPARSED \
		< <(grep '^E' "$p.ref")
	check_eq "$label: trace-cmd report sched_switch/waking/wakeup lines reference.awk could not parse" \
		0 "$REF_UNPARSED" || true
	CHECKS=$((CHECKS + 1))
	[ "$REF_SWITCHES" -gt 0 ] ||
		fail "$label: sched_switch lines in trace-cmd report" "> 0" "$REF_SWITCHES"
	return 0
}

# compare_sets WHAT WANT GOT: two sorted files must be equal; prints the
# rows only in one of them (first MAX_SHOWN of each).
compare_sets() {
	local what=$1 want=$2 got=$3 nw ng only_w only_g
	nw=$(wc -l < "$want"); ng=$(wc -l < "$got")
	only_w=$(LC_ALL=C comm -23 "$want" "$got" | head -n "$MAX_SHOWN")
	only_g=$(LC_ALL=C comm -13 "$want" "$got" | head -n "$MAX_SHOWN")
	CHECKS=$((CHECKS + 1))
	if [ -n "$only_w$only_g" ]; then
		fail "$what" "$nw rows (reference.awk)" \
			"$ng rows (commd); $(LC_ALL=C comm -23 "$want" "$got" | wc -l) only in reference, $(LC_ALL=C comm -13 "$want" "$got" | wc -l) only in commd"
		if [ -n "$only_w" ]; then
			printf '    only in reference:\n%s\n' "${only_w//$'\n'/$'\n'      }" | sed '2s/^/      /' >&2
		fi
		if [ -n "$only_g" ]; then
			printf '    only in commd:\n%s\n' "${only_g//$'\n'/$'\n'      }" | sed '2s/^/      /' >&2
		fi
		return 1
	fi
	return 0
}

# compare_sums WHAT WANT GOT: files of "key<TAB>ns", sorted by key; prints
# each differing key as key: expected X got Y (got - expected).
compare_sums() {
	local what=$1 want=$2 got=$3 diffs n
	diffs=$(LC_ALL=C join -t $'\t' -a1 -a2 -e MISSING -o 0,1.2,2.2 "$want" "$got" |
		LC_ALL=C awk -F'\t' '$2 != $3 {
			d = ($2 == "MISSING" || $3 == "MISSING") ? "" : sprintf(" (%+.0f ns)", $3 - $2)
			printf "%s: expected %s got %s%s\n", $1, $2, $3, d }')
	CHECKS=$((CHECKS + 1))
	if [ -n "$diffs" ]; then
		n=$(wc -l <<< "$diffs")
		fail "$what" "$(wc -l < "$want") keys, every sum equal" "$n keys differ"
		printf '%s\n' "$diffs" | head -n "$MAX_SHOWN" | sed 's/^/      /' >&2
		return 1
	fi
	return 0
}

# sum_by KEYCOLS VALCOL < rows: "key<TAB>sum" sorted by key (exact integer
# sums: ns totals stay far below 2^53).
sum_by() {
	LC_ALL=C awk -F'\t' -v k="$1" -v v="$2" -v OFS='\t' '{
		n = split(k, ks, ","); key = $ks[1]
		for (i = 2; i <= n; i++) key = key "/" $ks[i]
		s[key] += $v }
		END { for (key in s) printf "%s\t%.0f\n", key, s[key] }' | LC_ALL=C sort -t $'\t' -k1,1
}

# check_cpu_time DB P LABEL (issue 7 point 1a): per-comm CPU time from
# `sched` equals reference.awk's slices summed by comm; the slices
# themselves, their tiling of each CPU and the closing ts agree too.
check_cpu_time() {
	local db=$1 p=$2 label=$3 got n_null n_open
	q "$db" "select cpu, pid, comm, ts, dur, lost from sched" | LC_ALL=C sort > "$p.db.slices"
	check_eq "$label: CPUs of the sched rows (trace-cmd report's [cpu] of the switches)" \
		"$(cut -f1 "$p.slices" | LC_ALL=C sort -un | tr '\n' ' ')" \
		"$(q "$db" "select distinct cpu from sched order by 1" | tr '\n' ' ')" || true

	sum_by 3 5 < "$p.slices" > "$p.want.comm"
	q "$db" "select comm, sum(dur) from sched group by comm" | LC_ALL=C sort -t $'\t' -k1,1 > "$p.got.comm"
	compare_sums "$label: per-comm CPU time, select comm, sum(dur) from sched group by comm" \
		"$p.want.comm" "$p.got.comm" || true

	sum_by 2,3 5 < "$p.slices" > "$p.want.pidcomm"
	q "$db" "select pid || '/' || comm, sum(dur) from sched group by pid, comm" |
		LC_ALL=C sort -t $'\t' -k1,1 > "$p.got.pidcomm"
	compare_sums "$label: per-pid/comm CPU time, select pid||'/'||comm, sum(dur) from sched group by pid, comm" \
		"$p.want.pidcomm" "$p.got.pidcomm" || true

	compare_sets "$label: slices (cpu pid comm ts dur lost) of sched vs reference.awk" \
		"$p.slices" "$p.db.slices" || true
	# sched.comm is the name at the row's ts, and over the whole row:
	# what comm_history says at its first and last ns
	got=$("$COMMQ" --db "$db" -q -list "with b as (select pid, comm, ts from sched where pid > 0
		and (comm_at(pid, ts) is not comm or (dur > 0 and comm_at(pid, ts + dur - 1) is not comm)))
		select (select count(*) from b) || ' (' || coalesce((select group_concat(pid || ' ' || comm || ' at ' || ts, ', ')
		from (select * from b limit 5)), '') || ')'")
	check_eq "$label: sched rows whose comm is not comm_at(pid, ts) and comm_at(pid, ts + dur - 1)" "0 ()" "$got" || true

	got=$(q "$db" "select end_ts from capture order by id desc limit 1")
	check_eq "$label: capture.end_ts = the last event's ts in trace-cmd report (where open slices close)" \
		"$REF_LAST_TS" "$got" || true
	got=$(q "$db" "select count(*) from sched where dur < 0 or dur is null")
	check_eq "$label: sched rows with dur < 0 or NULL" 0 "$got" || true
	# (two slices of 0 ns at one ts: the one whose end is inferred is the
	# later, the next slice taking its gap)
	got=$(q "$db" "select count(*) from (select ts, dur, end_err,
		lead(ts) over (partition by cpu order by ts, dur, end_err is not null) as nts from sched)
		where nts is not null and nts <> ts + dur and end_err is null")
	check_eq "$label: sched slices on a CPU that do not end where the next one starts (but for an inferred end)" 0 "$got" || true
	got=$(q "$db" "select count(*) from (select ts, dur, end_err,
		lead(ts) over (partition by cpu order by ts, dur, end_err is not null) as nts,
		lead(start_err) over (partition by cpu order by ts, dur, end_err is not null) as nerr from sched)
		where end_err is not null and (nts is null or nerr is not end_err or nts < ts + dur)")
	check_eq "$label: inferred ends whose next slice on the CPU does not begin with the same gap, at or after it" 0 "$got" || true
	got=$(q "$db" "select count(*) from (select cpu, max(ts + dur) as e from sched group by cpu)
		where e <> (select end_ts from capture order by id desc limit 1)")
	check_eq "$label: CPUs whose last slice does not end at capture.end_ts" 0 "$got" || true
	# end_state NULL: still open at the end (one per CPU) or a broken
	# chain (switched out by a switch that was not recorded).
	n_open=$(q "$db" "select count(distinct cpu) from sched")
	n_null=$(q "$db" "select count(*) from sched where end_state is null")
	check_eq "$label: sched rows with end_state NULL (one open slice per CPU + $REF_BREAKS inferred ends and rename splits)" \
		"$((n_open + REF_BREAKS))" "$n_null" || true
	# prio and end_state against the switches themselves: a slice's prio
	# is the next_prio of the switch that began it, its end_state the
	# prev_state of the one that ended it (a slice whose end is known).
	got=$(q "$db" "select count(*), sum(s.prio is not w.next_prio) from sched s
		join sched_switch w on w.cpu = s.cpu and w.ts = s.ts and w.next_pid = s.pid")
	check_match "$label: every slice's prio is its switch-in's next_prio (slices, mismatches)" \
		'^[1-9][0-9]*[[:space:]]0$' "$got" || true
	got=$(q "$db" "select count(*), sum(s.end_state is not w.prev_state) from sched s
		join sched_switch w on w.cpu = s.cpu and w.ts = s.ts + s.dur and w.prev_pid = s.pid
		where s.lost = 0 and s.end_state is not null")
	check_match "$label: every closed slice's end_state is its switch-out's prev_state (slices, mismatches)" \
		'^[1-9][0-9]*[[:space:]]0$' "$got" || true
}

# nearest-rank percentile index (1-based) of Q percent of N rows
rank() { echo $(( ($1 * $2 + 99) / 100 )); }

# check_latency DB P LABEL (issue 7 point 1b).
check_latency() {
	local db=$1 p=$2 label=$3 nw ng qq i want got
	nw=$(wc -l < "$p.wakeups")
	ng=$(q "$db" "select count(*) from wakeup_latency")
	check_eq "$label: select count(*) from wakeup_latency" "$nw" "$ng" || true
	CHECKS=$((CHECKS + 1))
	[ "$nw" -gt 0 ] || fail "$label: wakeups in the reference computation" "> 0" "$nw"
	for qq in 50 90 99 100; do
		if [ "$nw" -eq 0 ] || [ "$ng" -eq 0 ]; then break; fi
		i=$(rank "$qq" "$nw")
		want=$(sed -n "${i}p" "$p.lat")
		i=$(rank "$qq" "$ng")
		got=$(q "$db" "select latency from wakeup_latency order by latency limit 1 offset $((i - 1))")
		check_eq "$label: wakeup_latency p$qq (nearest rank; p100 = max), ns" "$want" "$got" || true
	done
	q "$db" "select ts, pid, comm, cpu, latency, waker_pid from wakeup_latency" |
		LC_ALL=C sort > "$p.db.wakeups"
	compare_sets "$label: wakeup_latency rows (ts pid comm cpu latency waker_pid) vs reference.awk" \
		"$p.wakeups" "$p.db.wakeups" || true

	got=$(q "$db" "select count(*) from wakeup_latency where latency < 0 or latency is null")
	check_eq "$label: wakeup_latency rows with latency < 0 or NULL" 0 "$got" || true
	got=$(q "$db" "select count(*) from wakeup_latency w where not exists (
		select 1 from sched_switch s where s.ts = w.ts + w.latency
		and s.cpu = w.cpu and s.next_pid = w.pid)")
	check_eq "$label: wakeup_latency rows without a sched_switch next_pid = pid at ts + latency on cpu" \
		0 "$got" || true
	got=$(q "$db" "select count(*) from wakeup_latency w where
		not exists (select 1 from sched_waking e where e.ts = w.ts and e.target_pid = w.pid) and
		not exists (select 1 from sched_wakeup e where e.ts = w.ts and e.target_pid = w.pid) and
		not exists (select 1 from sched_wakeup_new e where e.ts = w.ts and e.target_pid = w.pid)")
	check_eq "$label: wakeup_latency rows without a waking/wakeup/wakeup_new of pid at ts" 0 "$got" || true
	got=$(q "$db" "select count(*) from wakeup_latency w where exists (
		select 1 from sched_switch s where s.ts > w.ts and s.ts < w.ts + w.latency
		and (s.next_pid = w.pid or s.prev_pid = w.pid))")
	check_eq "$label: wakeup_latency rows whose task switched in or out between waking and ts + latency" \
		0 "$got" || true
}

# check_losses DB LABEL (issue 7 point 1c, on any file): a slice that
# spans a loss on its CPU (slice ts < loss ts <= slice end: the loss is
# reported with the first record after it) has lost = 1; a lost slice
# spans a loss or ends in a broken chain (end_state NULL); no
# wakeup_latency row spans a loss on any CPU.
# A CTE, gap(cpu, lo, hi): each loss's gap, from its CPU's record before
# it (the capture's first record when none) to the loss, where the CPU's
# records are missing.
GAPS_CTE="ev(ts, cpu) as (select ts, cpu from ev_sched_switch
	union all select ts, cpu from ev_sched_waking union all select ts, cpu from ev_sched_wakeup
	union all select ts, cpu from ev_sched_wakeup_new union all select ts, cpu from ev_sched_stat_runtime
	union all select ts, cpu from ev_sched_migrate_task union all select ts, cpu from ev_sched_process_fork
	union all select ts, cpu from ev_sched_process_exit union all select ts, cpu from ev_sched_process_free
	union all select ts, cpu from ev_sched_process_exec union all select ts, cpu from ev_task_rename
	union all select ts, cpu from ev_task_newtask union all select ts, cpu from ev_other),
gap(cpu, lo, hi) as materialized (select l.cpu, coalesce((select max(e.ts) from ev e
	where e.cpu = l.cpu and e.ts < l.ts), (select min(ts) from ev)), l.ts from lost_events l)"

check_losses() {
	local db=$1 label=$2 got
	got=$(q "$db" "select count(*) from sched s where s.lost = 0 and exists (
		select 1 from lost_events l where l.cpu = s.cpu
		and l.ts > s.ts and l.ts <= s.ts + s.dur)")
	check_eq "$label: sched rows with lost = 0 spanning a lost_events ts on their cpu" 0 "$got" || true
	if [ "$got" != 0 ]; then
		q "$db" "select s.cpu, s.ts, s.dur, s.pid, s.comm, l.ts from sched s join lost_events l
			on l.cpu = s.cpu and l.ts > s.ts and l.ts <= s.ts + s.dur where s.lost = 0
			limit $MAX_SHOWN" | sed 's/^/      cpu ts dur pid comm loss_ts: /' >&2
	fi
	# (or in the gap its inferred start lies in: begun at or after a loss)
	got=$(q "$db" "select count(*) from sched s where s.lost = 1 and s.end_state is not null
		and not exists (select 1 from lost_events l where l.cpu = s.cpu
		and l.ts > s.ts - coalesce(s.start_err + 1, 0) and l.ts <= s.ts + s.dur)")
	check_eq "$label: sched rows with lost = 1, a recorded switch-out and no loss inside" 0 "$got" || true
	# Every recorded switch ends a slice of its prev there (on a CPU with
	# no loss: a task's own events after its switch-out, a waking it
	# does or its sched_stat_runtime, are not that switch's tail but a
	# switch-in that was not recorded).
	got=$(q "$db" "select count(*) from sched_switch w where w.prev_pid > 0
		and not exists (select 1 from sched s where s.cpu = w.cpu and s.pid = w.prev_pid
				and s.ts + s.dur = w.ts)
		and not exists (select 1 from lost_events l where l.cpu = w.cpu)")
	check_eq "$label: switches (prev_pid > 0, CPU without losses) that end no slice of their prev_pid" 0 "$got" || true
	if [ "$got" != 0 ]; then
		q "$db" "select w.cpu, w.ts, w.prev_pid, w.next_pid from sched_switch w where w.prev_pid > 0
			and not exists (select 1 from sched s where s.cpu = w.cpu and s.pid = w.prev_pid
					and s.ts + s.dur = w.ts)
			and not exists (select 1 from lost_events l where l.cpu = w.cpu)
			limit $MAX_SHOWN" | sed 's/^/      cpu ts prev_pid next_pid: /' >&2
	fi
	got=$(q "$db" "select count(*) from wakeup_latency w where exists (
		select 1 from lost_events l where l.ts > w.ts and l.ts <= w.ts + w.latency)")
	check_eq "$label: wakeup_latency rows spanning a lost_events ts (any cpu)" 0 "$got" || true
	if [ "$got" != 0 ]; then
		q "$db" "select w.ts, w.latency, w.pid, w.cpu, l.cpu, l.ts from wakeup_latency w
			join lost_events l on l.ts > w.ts and l.ts <= w.ts + w.latency limit $MAX_SHOWN" |
			sed 's/^/      ts latency pid cpu loss_cpu loss_ts: /' >&2
	fi
}

# record_fresh LABEL DAT CMD...: records CMD with trace-cmd (every sched and
# task event) into a private tracefs instance, removed again (trace-cmd
# leaves it; no global tracing file is written), aborting the test when
# root, perf, tracefs or the recording is missing.
record_fresh() {
	local label=$1 dat=$2 rc=0
	shift 2
	# RECORD_ARGS: more trace-cmd record options (a buffer size);
	# RECORD_EVENTS: the events (default: -e sched -e task)
	RECORD_T=/sys/kernel/tracing
	check_eq "running as root (uid)" 0 "$(id -u)" || finish
	command -v perf > /dev/null || abort "perf in PATH" "found" "missing"
	if [ ! -w "$RECORD_T/tracing_on" ] || [ ! -d "$RECORD_T/instances" ]; then
		abort "tracefs usable at $RECORD_T" "tracing_on writable, instances/ present" "not usable"
	fi
	RECORD_INSTANCE=commd-$label-$$
	[ ! -e "$RECORD_T/instances/$RECORD_INSTANCE" ] ||
		abort "instance $RECORD_INSTANCE unused" "absent" "present"
	CLEANUP_HOOKS+=("remove_recording_instance")
	# trace-cmd exits 1 from a harmless EPERM (set_ftrace_filter) after
	# the file is written; the file is judged by what reads it.
	(cd "$TMPDIR_TEST" && timeout 300 trace-cmd record -d --no-filter \
		-B "$RECORD_INSTANCE" ${RECORD_ARGS:-} ${RECORD_EVENTS:--e sched -e task} -o "$dat" "$@") \
		> "$TMPDIR_TEST/record.out" 2> "$TMPDIR_TEST/record.err" || rc=$?
	remove_recording_instance ||
		fail "removing instance $RECORD_INSTANCE" "rmdir succeeds" "failed"
	CHECKS=$((CHECKS + 1))
	if { [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; } || [ ! -s "$dat" ]; then
		abort "trace-cmd record" "exit 0 or 1 and $dat written" \
			"exit $rc, stderr: $(tail -c 2000 "$TMPDIR_TEST/record.err")"
	fi
	check_eq "instance $RECORD_INSTANCE removed after the record" absent \
		"$([ -d "$RECORD_T/instances/$RECORD_INSTANCE" ] && echo present || echo absent)" || true
}
remove_recording_instance() {
	[ -n "${RECORD_INSTANCE:-}" ] && [ -d "$RECORD_T/instances/$RECORD_INSTANCE" ] || return 0
	rmdir "$RECORD_T/instances/$RECORD_INSTANCE"
}
