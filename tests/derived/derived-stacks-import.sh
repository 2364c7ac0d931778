#!/usr/bin/env bash
# derived-stacks-import.sh - kernel stacks from an imported trace.dat:
# trace-cmd records a copy of sleep (`offsleep 0.2`, exec'd by a shell
# that ran first) with -T (a
# kernel_stack after every event), commd imports it. Then:
#   - offcpu has the sleeper's 200 ms asleep (S: to its wakeup; the wait
#     to run after it is offcpu.runnable) in a stack through do_nanosleep;
#   - every switch of the sleeper into sleep has the stack trace-cmd
#     report prints after it, symbolised by trace-cmd itself from the
#     file's kallsyms: the same functions (outermost first, the tracing
#     frames above __schedule left out);
#   - commq offcpu --pid gives that stack first.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
COMMQ=${COMMQ:-$(dirname "$COMMD")/commq}

dat=$TMPDIR_TEST/stk.dat
db=$TMPDIR_TEST/stk.db
cp /bin/sleep "$TMPDIR_TEST/offsleep"
# (a shell that first waits for a child, then becomes the sleeper: by
# then both CPUs have switched, so that the sleeper's slices are known
# even on a VM whose idle exits are never traced)
RECORD_ARGS="-T" record_fresh stacks "$dat" bash -c 'sleep 0.05; exec "$0" 0.2' "$TMPDIR_TEST/offsleep"
import_ok "$dat" "$db" || finish
pid=$(q "$db" "SELECT pid FROM comm_history WHERE comm = 'offsleep' LIMIT 1")
check_true "the sleeper is in the trace" "a pid" "${pid:-none}" test -n "$pid"

row=$(q "$db" "SELECT sum(dur - coalesce(runnable, 0)), group_concat(DISTINCT state) FROM offcpu WHERE pid = ${pid:-0} AND frames LIKE '%do_nanosleep%'")
check_true "offcpu: the sleeper asleep (S) 200 ms (to its wakeup, + 30) through do_nanosleep" "200000000..230000000 ns	S" "$row" \
	awk -v r="$row" 'BEGIN { split(r, f, "\t"); exit !(f[1] >= 199000000 && f[1] <= 230000000 && f[2] == "S") }'

# trace-cmd report's stacks after the sleeper's switches into sleep:
# "ts frames" (ts in ns, frames outermost first).
LC_ALL=C trace-cmd report -t -i "$dat" 2> /dev/null | LC_ALL=C awk -v pid="$pid" '
	function ns(t,  a) { split(t, a, "."); return a[1] substr(a[2] "000000000", 1, 9) }
	function flush(  s, i) {
		if (!cur) return
		s = ""
		for (i = nf; i >= 1; i--) s = s (s == "" ? "" : ";") f[i]
		print cur, s; cur = ""; nf = 0
	}
	function cpu_of(line) { match(line, /\[[0-9][0-9][0-9]\]/); return substr(line, RSTART + 1, 3) + 0 }
	# the sched_switch plugin prints "prev_comm:prev_pid [prio] STATE ==> ..."
	/ sched_switch: / && match($0, ":" pid " \\[[0-9]+\\] [SD][^ ]* ==>") {
		for (i = 2; i <= NF; i++) if ($i == "sched_switch:") { t = $(i - 1); sub(/:$/, "", t) }
		pend[cpu_of($0)] = ns(t); next
	}
	/ kernel_stack: / {
		flush()
		c = cpu_of($0)
		if (c in pend && pend[c] != "") { cur = pend[c]; skip = 1 }
		delete pend[c]; next
	}
	/^=> / && cur {
		name = $2
		if (skip && (name ~ /^trace_event_raw_event_/ || name ~ /^__traceiter_/ || name ~ /^trace_/)) next
		skip = 0; f[++nf] = name; next
	}
	{ flush(); for (c in pend) if (index($0, "[" sprintf("%03d", c) "]")) delete pend[c] }
	END { flush() }' | LC_ALL=C sort > "$TMPDIR_TEST/want"
q "$db" "SELECT k.ts, t.frames FROM switch_stack k JOIN stacks t ON t.id = k.stack
	JOIN ev_sched_switch e ON e.ts = k.ts AND e.cpu = k.cpu WHERE e.prev_pid = ${pid:-0}" |
	tr '\t' ' ' | LC_ALL=C sort > "$TMPDIR_TEST/got"
check_true "trace-cmd report shows stacks after the sleeper's switches into sleep" "> 0" \
	"$(wc -l < "$TMPDIR_TEST/want")" test "$(wc -l < "$TMPDIR_TEST/want")" -gt 0
compare_sets "the sleeper's stacks against trace-cmd report's" "$TMPDIR_TEST/want" "$TMPDIR_TEST/got"
check_match "commq offcpu --pid: the nanosleep first" "do_nanosleep" \
	"$("$COMMQ" --db "$db" -q -csv -noheader offcpu --pid "${pid:-0}" | head -n 1)"
finish
