# reference.awk - the derived tables computed independently of commd, from
# the text of `trace-cmd report -t` (run with LC_ALL=C; plain POSIX awk, so
# mawk works: no regex intervals, no gawk extensions).
#
# Definitions (schema/002-derived.sql, DESIGN.md section 4):
#   slice:   per CPU, from one sched_switch to the next on that CPU. The
#            first switch seen on a CPU starts its chain (the task it
#            switches out has no known start: no slice). A slice closed by a
#            switch whose prev_pid is the task that was switched in belongs
#            to prev_pid/prev_comm of that closing switch. When prev_pid is
#            someone else the chain broke (a switch-in was never recorded):
#            the slice belongs to the task switched in (its next_comm) and
#            is flagged lost. A slice still open at the end closes at the
#            trace's last event (any CPU), named by its opening next_comm.
#            A `CPU:N [.. EVENTS DROPPED]` line flags the open slice of N.
#   wakeup:  the first sched_waking / sched_wakeup / sched_wakeup_new of a
#            pid (> 0) since it last switched in or out starts a wakeup; the
#            sched_switch with next_pid = pid ends it (latency = switch ts -
#            waking ts, cpu = the switch's CPU); a switch-out of the pid
#            first cancels it; a DROPPED line (any CPU) cancels every pending
#            wakeup.
# Timestamps are kept as (seconds, nanoseconds) so that no ns value needs
# more than a double's 53 bits.
#
#   gap:     per pid (> 0), from a sched_switch that switches it out to the
#            next that switches it in: its time off the CPUs, named by the
#            prev_state letters of the switch-out. Only after a switch-out
#            that ends a known slice (not the CPU's first switch, not in a
#            broken chain, no drop inside), not after X or Z (dead); a DROPPED line (any
#            CPU) or the pid's birth (task_newtask, sched_process_fork
#            child) forgets the pending ones.
# Output, tab separated:
#   S cpu pid comm ts dur lost             one per slice
#   W ts pid comm cpu latency waker_pid    one per wakeup_latency row
#   G pid ts dur state                     one per gap (thread_state)
#   E last_ts switches chain_breaks drop_lines unparsed
BEGIN { OFS = "\t"; unparsed = 0; nsw = 0; breaks = 0; drops = 0; have_last = 0 }

function nsabs(s, f) { return s == 0 ? f + 0 : s f }
function dur(s1, f1, s2, f2) { return (s2 - s1) * 1000000000 + (f2 - f1) }

/CPU:[0-9]+ \[([0-9]+ )?EVENTS DROPPED\]$/ {
	x = $0; sub(/.*CPU:/, "", x); c = x + 0
	if (c in open) olost[c] = 1
	for (p in pend_s) { delete pend_s[p]; delete pend_f[p]; delete pend_w[p] }
	for (p in out_s) { delete out_s[p]; delete out_f[p]; delete out_st[p] }
	drops++
	next
}

# "<comm>-<pid> [<cpu>] <sec>.<9 digits>: <event>: <fields>", possibly with
# an instance name in front; comm may hold anything, so the anchor is the
# first "-pid [cpu] ts: name: " with a 9-digit fraction.
{
	if (!match($0, /-[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]: [A-Za-z0-9_]+: /))
		next
	hdr = substr($0, RSTART + 1, RLENGTH - 1)
	rest = substr($0, RSTART + RLENGTH)
	split(hdr, h, /[][ :]+/)	# pid, cpu, ts, event
	cpid = h[1] + 0; c = h[2] + 0; ev = h[4]
	split(h[3], t, "."); ts_s = t[1] + 0; ts_f = t[2]
	last_s = ts_s; last_f = ts_f; have_last = 1
	# the event name is padded to 20 columns, then ": "
	for (i = length(ev); i < 20 && substr(rest, 1, 1) == " "; i++)
		rest = substr(rest, 2)
	sub(/ +$/, "", rest)
	if (ev == "sched_switch")
		do_switch()
	else if (ev == "sched_waking")
		do_waking(" pid=", " pid=[0-9]+ prio=[-0-9]+ target_cpu=[0-9]+$")
	else if (ev == "sched_wakeup" || ev == "sched_wakeup_new")
		do_waking(":", ":[0-9]+ \\[[-0-9]+\\]( success=[0-9]+)? CPU:[0-9]+$")
	if (ev == "task_newtask" && match(rest, /^pid=[0-9]+ /))
		born(substr(rest, 5) + 0)
	else if (ev == "sched_process_fork" && match(rest, / child_pid=[0-9]+$/))
		born(substr(rest, RSTART + 11) + 0)
}

# "prev_comm:prev_pid [prio] STATE ==> next_comm:next_pid [prio]"
function do_switch(   i, a, b, pc, pp, nc, np, x, st) {
	i = index(rest, " ==> ")
	a = substr(rest, 1, i - 1); b = substr(rest, i + 5)
	if (!i || !match(a, /:[0-9]+ \[[-0-9]+\]( [^ ]*)?$/)) { unparsed++; return }
	pc = substr(a, 1, RSTART - 1); x = substr(a, RSTART + 1); pp = x + 0
	x = substr(a, RSTART); st = ""
	if (match(x, /\] /)) st = substr(x, RSTART + 2)
	if (!match(b, /:[0-9]+ \[[-0-9]+\]$/)) { unparsed++; return }
	nc = substr(b, 1, RSTART - 1); x = substr(b, RSTART + 1); np = x + 0
	nsw++
	# gaps: the switch-in ends np's; a switch-out in an unbroken chain
	# starts pp's
	if (np > 0 && (np in out_s)) {
		print "G", np, nsabs(out_s[np], out_f[np]), dur(out_s[np], out_f[np], ts_s, ts_f), out_st[np]
		delete out_s[np]; delete out_f[np]; delete out_st[np]
	}
	if (pp > 0 && (c in open) && opid[c] == pp && !olost[c] && st !~ /^[XZ]/) {
		out_s[pp] = ts_s; out_f[pp] = ts_f; out_st[pp] = st
	}
	if (c in open) {
		if (opid[c] == pp)
			print "S", c, pp, pc, nsabs(os[c], of[c]), dur(os[c], of[c], ts_s, ts_f), olost[c]
		else {
			breaks++
			print "S", c, opid[c], ocomm[c], nsabs(os[c], of[c]), dur(os[c], of[c], ts_s, ts_f), 1
		}
	}
	open[c] = 1; os[c] = ts_s; of[c] = ts_f; opid[c] = np; ocomm[c] = nc; olost[c] = 0
	if (pp in pend_s) { delete pend_s[pp]; delete pend_f[pp]; delete pend_w[pp] }
	if (np in pend_s) {
		print "W", nsabs(pend_s[np], pend_f[np]), np, nc, c, dur(pend_s[np], pend_f[np], ts_s, ts_f), pend_w[np]
		delete pend_s[np]; delete pend_f[np]; delete pend_w[np]
	}
}

function born(p) {
	if (p in out_s) { delete out_s[p]; delete out_f[p]; delete out_st[p] }
}

# The woken pid is the number after `key` at the start of the tail that
# matches the regex (a string: a /re/ argument would be $0 ~ /re/).
function do_waking(key, tail,   x, p) {
	if (!match(rest, tail)) { unparsed++; return }
	x = substr(rest, RSTART + length(key)); p = x + 0
	if (p > 0 && !(p in pend_s)) { pend_s[p] = ts_s; pend_f[p] = ts_f; pend_w[p] = cpid }
}

END {
	for (c in open)
		print "S", c, opid[c], ocomm[c], nsabs(os[c], of[c]), dur(os[c], of[c], last_s, last_f), olost[c]
	print "E", (have_last ? nsabs(last_s, last_f) : "none"), nsw, breaks, drops, unparsed
}
