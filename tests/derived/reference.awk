# reference.awk - the derived tables computed independently of commd, from
# the text of `trace-cmd report -t` (run with LC_ALL=C; plain POSIX awk, so
# mawk works: no regex intervals, no gawk extensions).
#
# Definitions (schema/002-derived.sql, commd-tables(5)):
#   slice:   per CPU, from one sched_switch to the next on that CPU. The
#            first event line on a CPU starts its chain: a slice of the
#            line's pid starts there as at an inferred switch (below), its
#            gap from the trace's first event line (or the CPU's last
#            DROPPED line) on. A slice closed by a
#            switch whose prev_pid is the task that was switched in belongs
#            to prev_pid and keeps the name it has (its opening next_comm,
#            or the last name it was split at): a prev_comm first seen at
#            that switch begins there, after the slice. A slice still
#            open at the end closes at the trace's last event (any CPU),
#            named by its opening next_comm. A `CPU:N [.. EVENTS DROPPED]`
#            line flags the open slice of N; when the CPU's next line is
#            another pid's, the slice ends at its last line before the
#            DROPPED line (an inferred switch, below) and the slice begun
#            at that next line is flagged too.
#   inferred switch: once a CPU's chain has begun, every event line on it
#            comes from the task running there (the pid in "comm-pid").
#            A line from another pid means a switch nobody recorded: the
#            open slice ends at the CPU's previous event line (or at a
#            later sched_stat_runtime another CPU printed for its task
#            while it ran here: it still ran then; such a line counts
#            for the one CPU the task's open slice began on last, the
#            lowest on a tie, not the CPU it was printed on), a slice of
#            the line's pid starts at this line (named by the last comm
#            any event gave that pid), the time between in no slice. The
#            new task's first sched_stat_runtime line of its own on that
#            CPU (pid= its pid) moves its start back to ts - runtime (not
#            before the gap's start, nor before the last
#            sched_stat_runtime another CPU printed for it), and the old slice's end with it when
#            the old slice is idle's (pid 0; a task's ends at its line).
#            Its pending wakeup is dropped (its switch-in is not known).
#            Not a line of a switch's tail: after a sched_switch, lines of
#            its prev_pid on that CPU (not sched_* or task_* lines:
#            none fires inside a context switch) before any other pid's line, a
#            wakeup (not waking) of prev_pid or its switch-in on any CPU, or a
#            DROPPED line of the CPU (the context switch after the
#            tracepoint: tlb_flush, x86_fpu); after a switch out of idle
#            (pid 0) only its tlb_flush lines with reason "flush on task
#            switch (0)" (switch_mm's): its idle loop's other lines mean a
#            switch back to idle that was not recorded.
#   restart: a sched_stat_runtime line of the running task's own (pid= its
#            pid, from it) on its CPU, once its slice's start is final,
#            whose ts - runtime (its clock's start) lies past lo, the later
#            of the CPU's line before it, the slice's start and the last
#            sched_stat_runtime another CPU printed for the task while it
#            ran here, by at least 100000 ns and by more than half of ts -
#            lo: the slice ends at lo (an inferred end), the time up to ts
#            - runtime is in no slice, and a slice of the task starts
#            there (a final start). Held until the CPU's next line: if
#            the only line of the task since is its sched_switch out, it
#            was that switch's own update and nothing restarts; any other
#            line (another pid's first), a DROPPED line of the CPU, a
#            rename of the task or the end makes it happen.
#   rename:  task_rename pid=P: a slice of P open on a CPU splits at ts + 1
#            (the new name is valid from the next ns): the part before
#            under the name it had, the rest under newcomm. A slice begun
#            by an inferred switch whose start no sched_stat_runtime line
#            has placed yet: that line moves the part before's start (the
#            first such rename only; a second finds it final).
#   new name: a line that gives a pid a name other than the one an
#            earlier line gave it (a switch's prev_comm or next_comm, a
#            sched_stat_runtime's comm, of its own task or printed by
#            another CPU, a waking's or wakeup's comm) begins that name
#            at its ts, but for the old name again within 10 ms of a
#            task_rename and before a line showed the new one (the
#            rename moved, commd's resolve.c).
#            At the next line of that pid on the CPU it runs on, a slice
#            whose part began before that ts splits there, as at a rename,
#            and at every name begun between (other CPUs' lines showed
#            them); at a switch-out only at names begun before the
#            switch. The sched_stat_runtime line that places an inferred
#            start is such a next line after the placing: a name it
#            showed first splits the slice at its ts.
#   wakeup:  the first sched_waking / sched_wakeup / sched_wakeup_new of a
#            pid (> 0) since it last switched in or out starts a wakeup; a
#            later one but the waking's own sched_wakeup starts it again
#            (the pid ran and slept unseen: its gap is forgotten); the
#            sched_switch with next_pid = pid ends it (latency = switch ts -
#            waking ts, cpu = the switch's CPU); a switch-out of the pid
#            first cancels it, and so does a sched_stat_runtime of the pid
#            another CPU printed while no CPU has it open (it runs where no
#            switch in was recorded); a DROPPED line (any CPU) cancels
#            every pending wakeup. Given the report twice (the first
#            pass finds the CPUs lines name), a wakeup or wakeup_new whose
#            CPU no line names (a cpumask left it out), or a
#            sched_migrate_task there, cancels the pid's pending wakeup and
#            gap: it runs there unseen; and a waking whose target_cpu (where
#            the task last ran) no line names, or any waking when the
#            report's cpus=N names CPUs no line names, with no wakeup
#            seen before the switch in, gives no latency and ends no gap
#            (its sched_wakeup fired where it was queued, a CPU not
#            traced, and it came later).
# Timestamps are kept as (seconds, nanoseconds) so that no ns value needs
# more than a double's 53 bits.
#
#   gap:     per pid (> 0), from a sched_switch that switches it out to the
#            next that switches it in: its time off the CPUs, named by the
#            prev_state letters of the switch-out. Only after a switch-out
#            that ends a known slice (not the CPU's first switch, not in a
#            broken chain, no drop inside), not after X or Z (dead); a DROPPED line (any
#            CPU) forgets the pending ones. The pid's birth (task_newtask,
#            sched_process_fork child) begins one, state N (new), ended by
#            its first switch in if its sched_wakeup_new came before.
# Output, tab separated:
#   S cpu pid comm ts dur lost             one per slice
#   W ts pid comm cpu latency waker_pid    one per wakeup_latency row
#   G pid ts dur state                     one per gap (thread_state; state
#                                          the switch-out's letters, A for an R
#                                          a waking or wakeup followed: asleep)
#   E last_ts switches nulls drop_lines unparsed
#            (nulls: slices ended by an inferred switch or a rename split,
#            whose end_state is NULL besides one open slice per CPU)
BEGIN { OFS = "\t"; unparsed = 0; nsw = 0; breaks = 0; nulls = 0; drops = 0; have_last = 0; twopass = ARGC > 2 }

# Given the report twice, the first pass finds the CPUs traced: those a
# line (an event's, or a DROPPED one) names. Another CPU was left out by a
# cpumask (trace-cmd record -M): what runs there is not seen.
NR == FNR && twopass {
	if (FNR == 1 && $0 ~ /^cpus=[0-9]+$/) file_cpus = substr($0, 6) + 0
	if (index($0, ": task_rename: ")) has_rename = 1
	if (match($0, /CPU:[0-9]+ \[([0-9]+ )?EVENTS DROPPED\]$/)) {
		x = $0; sub(/.*CPU:/, "", x); traced[x + 0] = 1
		# the gap began after the CPU's line before (or at the first
		# line of all: the CPU lost its start)
		if ((x + 0) in lastln) gapat[lastln[x + 0]] = x + 0
		else gapfirst[x + 0] = 1
	} else if (match($0, /-[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]: [A-Za-z0-9_]+: /)) {
		x = substr($0, RSTART, RLENGTH); sub(/^[^[]*\[/, "", x); traced[x + 0] = 1
		lastln[x + 0] = FNR
	}
	next
}

# A CPU's loss is known from its last line before the DROPPED line (commd
# peeks at the CPU's next record): from there to that line no task's time
# off the CPUs begins and no wakeup's wait ends with a row (any task may
# have run where the records are missing); every pending one is forgotten
# where the gap opens.
function gap_open(x) {
	if (x in ingap) return
	ingap[x] = 1; gaps++
	for (p in pend_s) { delete pend_s[p]; delete pend_f[p]; delete pend_w[p] }
	for (p in out_s) { delete out_s[p]; delete out_f[p]; delete out_st[p] }
	for (p in rw) delete rw[p]
}
twopass && !gaps_begun {
	gaps_begun = 1
	for (x = 0; x < file_cpus; x++) if (!(x in traced)) some_untraced = 1
	for (x in gapfirst) gap_open(x)
}
twopass && gapnext != "" {
	gap_open(gapnext)
	gapnext = ""
}
twopass && (FNR in gapat) { gapnext = gapat[FNR] }
function untraced(cpu) { return twopass && !(cpu in traced) }

function nsabs(s, f) { return s == 0 ? f + 0 : s f }
function dur(s1, f1, s2, f2) { return (s2 - s1) * 1000000000 + (f2 - f1) }

/CPU:[0-9]+ \[([0-9]+ )?EVENTS DROPPED\]$/ {
	x = $0; sub(/.*CPU:/, "", x); c = x + 0
	if (c in ingap) { delete ingap[c]; gaps-- }
	restart(c)
	if (c in open) olost[c] = 1
	dropped[c] = 1
	tl[c] = ""
	for (p in pend_s) { delete pend_s[p]; delete pend_f[p]; delete pend_w[p] }
	for (p in out_s) { delete out_s[p]; delete out_f[p]; delete out_st[p] }
	for (p in rw) delete rw[p]
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
	if (!have_last) { first_s = ts_s; first_f = ts_f }
	last_s = ts_s; last_f = ts_f; have_last = 1
	# the event name is padded to 20 columns, then ": "
	for (i = length(ev); i < 20 && substr(rest, 1, 1) == " "; i++)
		rest = substr(rest, 2)
	sub(/ +$/, "", rest)
	pfx = substr($0, 1, RSTART - 1)
	sub(/^ +/, "", pfx)
	# commd puts a loss at the next event of its CPU: a CPU's first
	# slice is not placed before it; an open slice whose task this line
	# is not ended at its last line before the loss (the time up to this
	# line unknown), and the slice begun here is across the loss
	if (dropped[c]) {
		if (!(c in open)) { lst_s[c] = ts_s; lst_f[c] = ts_f }
		dropped[c] = 0; lossgap[c] = 1
	}
	if (rst[c] && cpid != opid[c]) restart(c)
	else if (rst[c]) rn[c]++
	seen(c, cpid, pfx)
	delete lossgap[c]
	pl_s = lst_s[c]; pl_f = lst_f[c]
	lst_s[c] = ts_s; lst_f[c] = ts_f
	# One try_to_wake_up: a waking and the wakeup of the same task on
	# the CPU, by one waker, nothing of another task between. A line
	# between that showed the waker's name from before its rename (the
	# rename moved, late_name) moves the rename after the wakeup too:
	# the name's copy cannot come inside it (interrupts are off).
	if (ev == "sched_waking" && match(rest, / pid=[0-9]+ prio=[-0-9]+ target_cpu=[0-9]+$/)) {
		wk_on[c] = 1; wk_p[c] = cpid; wk_t[c] = substr(rest, RSTART + 5) + 0; wk_late[c] = 0
	} else if (wk_on[c] && ev == "sched_wakeup" && cpid == wk_p[c] &&
		   match(rest, /:[0-9]+ \[[-0-9]+\]( success=[0-9]+)? CPU:[0-9]+$/) &&
		   substr(rest, RSTART + 1) + 0 == wk_t[c]) {
		if (wk_late[c] && (cpid in rn_s) && ((cpid, "mv") in rn_e) &&
		    dur(rn_s[cpid], rn_f[cpid], ts_s, ts_f) < 10000000)
			late_name(cpid)
		wk_on[c] = 0
	} else if (wk_on[c] && (cpid != wk_p[c] || ev == "sched_switch" || ev == "sched_wakeup"))
		wk_on[c] = 0
	if (ev !~ /^(sched_switch|sched_stat_runtime|sched_waking|sched_wakeup|sched_wakeup_new|task_rename|sched_process_exit|sched_migrate_task|sched_process_fork|task_newtask|sched_process_exec|sched_prepare_exec|sched_wait_task|sched_kthread_stop|sched_process_hang|sched_pi_setprio|sched_stat_wait|sched_stat_sleep|sched_stat_iowait|sched_stat_blocked)$/)
		check_split(c, cpid, 0)
	else if (ev !~ /^(sched_switch|sched_stat_runtime|sched_waking|sched_wakeup|sched_wakeup_new|task_rename)$/) {
		names()
		check_split(c, cpid, 0)
	}
	if (ev == "sched_switch")
		do_switch()
	else if (ev == "sched_stat_runtime")
		do_runtime()
	else if (ev == "task_rename")
		do_rename()
	else if (ev == "sched_waking")
		do_waking(" pid=", " pid=[0-9]+ prio=[-0-9]+ target_cpu=[0-9]+$")
	else if (ev == "sched_wakeup" || ev == "sched_wakeup_new")
		do_waking(":", ":[0-9]+ \\[[-0-9]+\\]( success=[0-9]+)? CPU:[0-9]+$")
	else if (ev == "sched_migrate_task" && match(rest, / pid=[0-9]+ prio=[-0-9]+ orig_cpu=[0-9]+ dest_cpu=[0-9]+$/)) {
		x = substr(rest, RSTART + 5)
		queued(x + 0, substr(rest, index(rest, " dest_cpu=") + 10) + 0)
	}
	else if (ev == "sched_process_exit" && match(rest, / pid=[0-9]+ prio=/)) {
		# (the exit of a lifetime begun under a pid gone: not gone
		# until its own last switch-out)
		x = substr(rest, RSTART + 5) + 0
		xexit[x] = 1
		if (x in gtook) delete xgone[x]
	}
	else if (ev == "sched_process_exec" && match(rest, / pid=[0-9]+ old_pid=[0-9]+$/)) {
		# the exec came: the pid lives again (its exit, later, is the
		# program's), its task the leader of its process now
		x = substr(rest, RSTART + 5); delete xexit[x + 0]; delete xgone[x + 0]; delete gtook[x + 0]
		tg[x + 0] = x + 0
	}
	if (ev == "task_newtask" && match(rest, /^pid=[0-9]+ /)) {
		x = substr(rest, 5) + 0
		born(x)
		# its process (commd's resolve_birth): CLONE_THREAD (0x10000)
		# its creator's, else its own
		i = rest; sub(/^.* clone_flags=/, "", i); sub(/ .*$/, "", i)
		i = length(i) >= 5 ? index("0123456789abcdef", tolower(substr(i, length(i) - 4, 1))) - 1 : 0
		if (i % 2 == 0) tg[x] = x
		else if (cpid in tg) tg[x] = tg[cpid]
		else delete tg[x]
		ntk[x] = 1; par[x] = cpid
	} else if (ev == "sched_process_fork" && match(rest, / child_pid=[0-9]+$/)) {
		x = substr(rest, RSTART + 11) + 0
		born(x)
		if (!(x in ntk)) { delete tg[x]; i = rest; sub(/ child_comm=.*$/, "", i); sub(/^.* pid=/, "", i); par[x] = i + 0 }
		delete ntk[x]
	}
}

# Other events whose fields name a task (commd's pipeline.c and decode.c):
# "comm=C pid=P ..." (exit, migrate_task, wait_task, kthread_stop,
# process_hang, pi_setprio, the schedstat ones), a fork's parent and child, a new task's
# "pid=P comm=C" (the child), prepare_exec's "pid=P comm=C" at its end, and
# an exec's file name (its base, 15 bytes at most; not "/dev/fd/N") when
# the trace has no task_rename to say it.
function names(   x, p, n, i) {
	if (ev == "sched_process_fork") {
		if (!match(rest, / pid=[0-9]+ child_comm=/) || !match(rest, / child_pid=[0-9]+$/)) return
		x = rest; i = index(x, " child_comm=")
		n = substr(x, 1, i - 1); p = n; sub(/ pid=[0-9]+$/, "", n); sub(/^comm=/, "", n)
		sub(/^.* pid=/, "", p); p = p + 0
		if (p > 0) setname(p, n)
		x = substr(x, i + 12); p = substr(rest, RSTART + 11) + 0
		sub(/ child_pid=[0-9]+$/, "", x)
		if (p > 0) setname(p, x)
	} else if (ev == "task_newtask") {
		if (!match(rest, /^pid=[0-9]+ comm=/) || !match(rest, / clone_flags=[0-9a-f]+ oom_score_adj=[-0-9]+$/)) return
		n = substr(rest, 1, RSTART - 1); p = substr(n, 5) + 0; sub(/^pid=[0-9]+ comm=/, "", n)
		if (p > 0) setname(p, n)
	} else if (ev == "sched_prepare_exec") {
		if (!match(rest, / pid=[0-9]+ comm=/)) return
		n = substr(rest, RSTART + 5); p = n + 0; sub(/^[0-9]+ comm=/, "", n)
		if (p > 0) setname(p, n)
	} else if (ev == "sched_process_exec") {
		if (!(twopass && !has_rename) || !match(rest, /^filename=.* pid=[0-9]+ old_pid=[0-9]+$/)) return
		x = rest; sub(/^filename=/, "", x); sub(/ pid=[0-9]+ old_pid=[0-9]+$/, "", x)
		p = rest; sub(/ old_pid=[0-9]+$/, "", p); sub(/^.* pid=/, "", p); p = p + 0
		if (x ~ /^\/dev\/fd\/[0-9]+$/) return
		sub(/^.*\//, "", x)
		x = substr(x, 1, 15)
		if (p > 0 && x != "") setname(p, x)
	} else {
		if (!match(rest, /^comm=/) || !match(rest, / pid=[0-9]+/)) return
		n = substr(rest, 6, RSTART - 6); p = substr(rest, RSTART + 5) + 0
		if (p > 0) setname(p, n)
	}
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
	if (rst[c] && opid[c] == pp && rn[c] == 1) rst[c] = 0
	restart(c)
	# the exited leader switched out under the tid a thread's exec just
	# gave it, the line's pid read before the swap and prev's after
	# (commd's pipeline: took_here as prev)
	if ((c in open) && opid[c] == cpid && pp > 0 && pp != cpid && !olost[c] &&
	    swapped(c, cpid, pp)) {
		x = cpu_but(pp, c); i = opid[c]
		took(c, pp)
		if (x != "" && !olost[x]) took(x, i)
	}
	setname(pp, pc); setname(np, nc)
	check_split(c, pp, 1)
	if (c in open)
		final_start(c)
	# woken, its sched_wakeup not seen where CPUs are left out: queued
	# on one of them, it may have run there: its gap is not known
	if (np > 0 && (np in pend_s) && pend_pair[np] && some_untraced) {
		pend_from[np] = 1
		delete out_s[np]; delete out_f[np]; delete out_st[np]
	}
	# gaps: the switch-in ends np's; a switch-out in an unbroken chain
	# starts pp's
	if (np > 0) end_gap(np, ts_s, ts_f)
	# a dead switch-out (X, Z): the task is gone (exited, seen or not)
	if (pp > 0 && st ~ /^[XZ]/) { xexit[pp] = 1; xgone[pp] = 1; delete gtook[pp] }
	# one switched in under a pid gone, no thread having taken it: a
	# task under the pid reused, its birth not traced (commd's
	# resolve_reborn)
	if (np > 0 && (np in xgone) && !(np in gtook)) reborn(np)
	if (pp > 0 && (c in open) && opid[c] == pp && !olost[c] && st !~ /^[XZ]/ && !gaps) {
		out_s[pp] = ts_s; out_f[pp] = ts_f; out_st[pp] = st
	}
	if (c in open) {
		if (opid[c] == pp)
			print "S", c, pp, ocomm[c], nsabs(os[c], of[c]), dur(os[c], of[c], ts_s, ts_f), olost[c]
		else {
			breaks++
			print "S", c, opid[c], ocomm[c], nsabs(os[c], of[c]), dur(os[c], of[c], ts_s, ts_f), 1
		}
	}
	open[c] = 1; os[c] = ts_s; of[c] = ts_f; opid[c] = np; ocomm[c] = nc; olost[c] = 0
	forget_names(np)
	delete rf_s[np]; delete rf_f[np]; delete rs_s[np]; delete rs_f[np]
	ounn[c] = 0; rck_s[c] = ""
	oinf[c] = 0
	for (x in tl) if (tl[x] == np) tl[x] = ""
	tl[c] = pp > 0 && pp != np ? pp : pp == 0 && np != 0 ? "idle" : ""
	# a waking while it ran whose sched_wakeup comes after this
	# switch-out (the wake list, or the waker waiting for it to leave
	# the CPU): its waker is the wakeup's waker, not the wakeup's pid
	delete rw[pp]
	if ((pp in pend_s) && pend_pair[pp]) rw[pp] = pend_w[pp]
	if (pp in pend_s) { delete pend_s[pp]; delete pend_f[pp]; delete pend_w[pp] }
	# woken, and no sched_wakeup seen: queued where nothing is traced
	# (where it last ran, or a CPU the wake list sent it to), it came
	# here later; its wait's end is not known
	if ((np in pend_s) && pend_pair[np] && pend_from[np]) {
		delete pend_s[np]; delete pend_f[np]; delete pend_w[np]
	}
	if (np in pend_s) {
		if (!gaps) print "W", nsabs(pend_s[np], pend_f[np]), np, nc, c, dur(pend_s[np], pend_f[np], ts_s, ts_f), pend_w[np]
		delete pend_s[np]; delete pend_f[np]; delete pend_w[np]
	}
}

# before(s1, f1, s2, f2): whether the first time is earlier
function before(s1, f1, s2, f2) { return s1 < s2 || (s1 == s2 && f1 + 0 < f2 + 0) }

# A line of pid p (comm prefix pfx) on CPU cpu: an inferred switch when
# another task has the CPU.
function seen(cpu, p, pfx,   lo_s, lo_f, x) {
	if (!(cpu in open)) {
		lo_s = first_s; lo_f = first_f
		if ((cpu in lst_s) && before(lo_s, lo_f, lst_s[cpu], lst_f[cpu])) { lo_s = lst_s[cpu]; lo_f = lst_f[cpu] }
		open[cpu] = 1; olost[cpu] = 0
		start_inferred(cpu, p, pfx, lo_s, lo_f)
		return
	}
	if (opid[cpu] == p) {
		tl[cpu] = ""
		return
	}
	# a recorded switch's tail: until another task's line (or prev's
	# waking or switch-in), prev's lines (the context switch after the
	# tracepoint) are not a switch; but no sched_* or task_* event fires
	# there: one of prev's means it runs again (switched in unrecorded)
	if (tl[cpu] != "" && tl[cpu] == p && ev !~ /^(sched_|task_)/)
		return
	if (tl[cpu] == "idle" && p == 0 && ev == "tlb_flush" && rest ~ /reason=flush on task switch \(0\)$/)
		return
	tl[cpu] = ""
	# a thread that execs and its exited leader swap pids (de_thread):
	# where one of them runs, the first line under the other's pid shows
	# it; the task running there goes on under that pid, the other, where
	# it runs, under this one's
	if (swapped(cpu, opid[cpu], p)) {
		x = cpu_but(p, cpu)
		lo_s = opid[cpu]
		took(cpu, p)
		if (x != "" && !olost[x]) took(x, lo_s)
		return
	}
	# a leader gone that shows again with no birth: a thread of its
	# took its pid, this line not showing which (the task believed to
	# run here may not: a switch in left out); its first name names it
	# (where idle was believed to run: a task under the pid reused)
	if ((p in xgone) && !(p in gtook) && (cpu in open) && !olost[cpu] && opid[cpu] >= 0) {
		if (opid[cpu] == 0) reborn(p)
		else gtook[p] = 1
		delete known[p]; delete par[p]; forget_names(p)
	}
	final_start(cpu)
	lo_s = lst_s[cpu]; lo_f = lst_f[cpu]
	if (before(lo_s, lo_f, os[cpu], of[cpu])) { lo_s = os[cpu]; lo_f = of[cpu] }
	# another CPU's later update of the old task's clock: it still ran
	if (rck_s[cpu] != "" && before(lo_s, lo_f, rck_s[cpu], rck_f[cpu])) { lo_s = rck_s[cpu]; lo_f = rck_f[cpu] }
	# the old slice, held until the new one's start is final
	held[cpu] = 1; hpid[cpu] = opid[cpu]; hcomm[cpu] = ocomm[cpu]
	hs[cpu] = os[cpu]; hf[cpu] = of[cpu]; he_s[cpu] = lo_s; he_f[cpu] = lo_f
	hlost[cpu] = olost[cpu]
	nulls++
	olost[cpu] = 0
	start_inferred(cpu, p, pfx, lo_s, lo_f)
	if (cpu in lossgap) olost[cpu] = 1
}

# Whether the task running on cpu as q has swapped pids with p: q is the
# leader, exited but not gone (no X/Z switch-out), and p a live task of
# its process (of one not known: this line shows p under q's name); or p
# is the leader and q its thread, as this line says (an exec whose
# old_pid is q, a rename by p from q's name), or p exited, q did not,
# and q's process says so (when not known: p gone, and this line shows
# p under q's name or p cloned q; or p still running elsewhere and this
# line shows p under q's name).
function swapped(cpu, q, p,   x) {
	if (q <= 0 || p <= 0 || olost[cpu])
		return 0
	if ((q in xexit) && !(q in xgone) && !(p in xexit) &&
	    ((p in tg) ? tg[p] == q : shows(p, ocomm[cpu])))
		return 1
	if (ev == "sched_process_exec" && cpid == p && rest ~ (" pid=" p " old_pid=" q "$"))
		return 1
	# the exec's rename under p, its old name the thread's: p's exit may
	# not have been seen (a CPU a cpumask left out)
	if (ev == "task_rename" && cpid == p && index(rest, "pid=" p " oldcomm=" ocomm[cpu] " newcomm=") == 1 &&
	    (!(q in tg) || tg[q] == p))
		return 1
	# (the thread that execs does not exit first: de_thread kills the
	# others)
	if (!(p in xexit) || (q in xexit))
		return 0
	if (q in tg)
		return tg[q] == p
	if (p in xgone)
		return shows(p, ocomm[cpu]) || cloned_by(q, p)
	x = cpu_but(p, cpu)
	return x != "" && !olost[x] && shows(p, ocomm[cpu])
}

# Whether p's lifetime was cloned by l, or by a task so cloned (a few
# steps up; commd's resolve.c cloned_by).
function cloned_by(p, l,   i, q) {
	q = p
	for (i = 0; i < 8; i++) {
		if (!(q in par)) return 0
		q = par[q]
		if (q == l) return 1
		if (q <= 0 || q == p) return 0
	}
	return 0
}

# Whether this line shows pid p under name n, which is not the name p
# has: a switch's prev or next, a runtime's, a rename's old name, an
# exit's.
function shows(p, n) {
	if ((p in known) && known[p] == n)
		return 0
	if (ev == "sched_switch")
		return index(rest, n ":" p " [") == 1 || index(rest, " ==> " n ":" p " [") > 0
	if (ev == "sched_stat_runtime")
		return index(rest, "comm=" n " pid=" p " runtime=") == 1
	if (ev == "task_rename")
		return index(rest, "pid=" p " oldcomm=" n " newcomm=") == 1
	if (ev == "sched_process_exit")
		return index(rest, "comm=" n " pid=" p " prio=") == 1
	return 0
}

# p's task is dead, and p another's now.
function reborn(p) {
	delete xexit[p]; delete xgone[p]; delete gtook[p]; delete par[p]
}

# The task running on cpu is pid p from this line on, under its name.
function took(cpu, p,   x) {
	x = ocomm[cpu]
	split_at(cpu, opid[cpu], x, x, ts_s, ts_f)
	opid[cpu] = p; known[p] = x; delete par[p]; gtook[p] = 1
	forget_names(p); delete rn_s[p]
}

# A slice of p (comm prefix pfx) starts on cpu at this line, its switch-in
# somewhere after lo.
function start_inferred(cpu, p, pfx, lo_s, lo_f,   x) {
	x = pfx; sub(/-[0-9]+ *$/, "", x); sub(/^.*: +/, "", x)
	os[cpu] = ts_s; of[cpu] = ts_f; opid[cpu] = p; rck_s[cpu] = ""
	# pid 0 is each CPU's own idle task, swapper/N (the report prints
	# <idle>)
	ocomm[cpu] = p == 0 ? "swapper/" cpu : (p in known) ? known[p] : x
	# a pid no line named yet: its first name names the slice (commd
	# names the lifetime's row in place)
	ounn[cpu] = p > 0 && !(p in known)
	oinf[cpu] = 1; glo_s[cpu] = lo_s; glo_f[cpu] = lo_f
	# its switch in came after its pending wakeup's enqueue (the
	# sched_wakeup, under the queue's lock): no clock start before it
	# (a wakeup that preempts freezes the queue's clock at the enqueue)
	oq_s[cpu] = ""
	if ((p in pend_s) && (p in enq_s) && before(lo_s, lo_f, enq_s[p], enq_f[p]) &&
	    !before(ts_s, ts_f, enq_s[p], enq_f[p])) { oq_s[cpu] = enq_s[p]; oq_f[cpu] = enq_f[p] }
	if (p in pend_s) { delete pend_s[p]; delete pend_f[p]; delete pend_w[p] }
	# another CPU's update of its clock in the gap while no CPU had it
	# running: it ran here from where that clock started (not before
	# the gap); an idle slice before ends there too
	if ((p in rf_s) && before(lo_s, lo_f, rf_s[p], rf_f[p])) {
		os[cpu] = rs_s[p]; of[cpu] = rs_f[p]
		if (before(os[cpu], of[cpu], lo_s, lo_f)) { os[cpu] = lo_s; of[cpu] = lo_f }
		if (oq_s[cpu] != "" && before(os[cpu], of[cpu], oq_s[cpu], oq_f[cpu])) { os[cpu] = oq_s[cpu]; of[cpu] = oq_f[cpu] }
		if (held[cpu] && hpid[cpu] == 0) { he_s[cpu] = os[cpu]; he_f[cpu] = of[cpu] }
		# named from its start, split where later names began
		if (p > 0 && (p in known)) ocomm[cpu] = name_at(p, os[cpu], of[cpu])
		check_split(cpu, p, 0)
	}
	delete rf_s[p]; delete rf_f[p]; delete rs_s[p]; delete rs_f[p]
}

# The open slice's start will not move any more: the held slice before
# it is printed, with the gap of its task that ends here.
function final_start(cpu,   p, s_s, s_f) {
	if (oinf[cpu]) {
		oinf[cpu] = 0
		p = opid[cpu]
		s_s = hd[cpu] ? ds[cpu] : os[cpu]; s_f = hd[cpu] ? df[cpu] : of[cpu]
		# (a new task's wait ends only at a switch in seen)
		if (p > 0 && (p in out_s) && out_st[p] == "N") { delete out_s[p]; delete nw[p] }
		if (p > 0) end_gap(p, s_s, s_f)
	}
	if (held[cpu]) {
		held[cpu] = 0
		print "S", cpu, hpid[cpu], hcomm[cpu], nsabs(hs[cpu], hf[cpu]), dur(hs[cpu], hf[cpu], he_s[cpu], he_f[cpu]), hlost[cpu]
	}
	if (hd[cpu]) {
		hd[cpu] = 0
		print "S", cpu, dpid[cpu], dcomm[cpu], nsabs(ds[cpu], df[cpu]), dur(ds[cpu], df[cpu], de_s[cpu], de_f[cpu]), dlost[cpu]
	}
}

# "comm=C pid=P runtime=R [ns]" (older kernels add " vruntime=V [ns]")
function do_runtime(   x, p, r, s_s, s_f, t, lo_s, lo_f, g) {
	if (!match(rest, / pid=[0-9]+ runtime=[0-9]+ \[ns\]( vruntime=[0-9]+ \[ns\])?$/)) { unparsed++; return }
	x = substr(rest, RSTART + 5); p = x + 0
	x = substr(x, index(x, "runtime=") + 8); r = x + 0
	t = substr(rest, 1, RSTART - 1); sub(/^comm=/, "", t)
	# the exited leader running here, about a thread's tid under its own
	# name: itself under the tid the thread's exec just gave it (the
	# swap comes at its next line), not the thread's name
	if (p > 0 && p != cpid && (c in open) && opid[c] == cpid && !olost[c] &&
	    (cpid in xexit) && !(cpid in xgone) && !(p in xexit) &&
	    (!(p in tg) || tg[p] == cpid) && shows(p, ocomm[c]))
		;
	else if (p > 0) setname(p, t)
	check_split(c, cpid, 0)
	# ts - r (where the clock started), kept as (s, f): r < 2^53 ns
	s_s = ts_s - int(r / 1000000000); s_f = ts_f - r % 1000000000
	if (s_f < 0) { s_f += 1000000000; s_s-- }
	s_f = sprintf("%09d", s_f)
	if (!(c in open) || opid[c] != p || cpid != p) {
		# another CPU's update of p's clock: p ran where it runs, the
		# CPU its open slice began on last (on a tie, the lowest)
		lrk_s[p] = ts_s; lrk_f[p] = ts_f
		g = cpu_but(p, c)
		if (g != "") { rck_s[g] = ts_s; rck_f[g] = ts_f }
		else if (p > 0) {
			# running where no switch in was recorded: the first
			# such line, and where its clock started (ts - r)
			if (!(p in rf_s)) {
				rf_s[p] = ts_s; rf_f[p] = ts_f
				rs_s[p] = s_s; rs_f[p] = s_f
			}
			# a pending wakeup ended there, unseen
			if (p in pend_s) { delete pend_s[p]; delete pend_f[p]; delete pend_w[p] }
		}
		return
	}
	if (!oinf[c]) {
		# a held restart this clock began before did not happen (the
		# update it came from read an rq clock that stood still)
		if (rst[c] && before(s_s, s_f, rat_s[c], rat_f[c])) rst[c] = 0
		restart(c)
		lo_s = pl_s; lo_f = pl_f
		if (before(lo_s, lo_f, os[c], of[c])) { lo_s = os[c]; lo_f = of[c] }
		if (rck_s[c] != "" && before(lo_s, lo_f, rck_s[c], rck_f[c])) { lo_s = rck_s[c]; lo_f = rck_f[c] }
		g = dur(lo_s, lo_f, s_s, s_f)
		if (g >= 100000 && g > int(dur(lo_s, lo_f, ts_s, ts_f) / 2)) {
			rst[c] = 1; rn[c] = 0
			rlo_s[c] = lo_s; rlo_f[c] = lo_f; rat_s[c] = s_s; rat_f[c] = s_f
		}
		return
	}
	if (before(s_s, s_f, glo_s[c], glo_f[c])) { s_s = glo_s[c]; s_f = glo_f[c] }
	# every update of its clock restarts it: not before the last
	if ((p in lrk_s) && before(s_s, s_f, lrk_s[p], lrk_f[p])) { s_s = lrk_s[p]; s_f = lrk_f[p] }
	# nor before its wakeup's enqueue
	if (oq_s[c] != "" && before(s_s, s_f, oq_s[c], oq_f[c])) { s_s = oq_s[c]; s_f = oq_f[c] }
	if (hd[c] && before(s_s, s_f, ds[c], df[c])) {
		ds[c] = s_s; df[c] = s_f
		if (held[c] && hpid[c] == 0) { he_s[c] = s_s; he_f[c] = s_f }
	} else if (!hd[c] && before(s_s, s_f, os[c], of[c])) {
		os[c] = s_s; of[c] = s_f
		if (held[c] && hpid[c] == 0) { he_s[c] = s_s; he_f[c] = s_f }
	}
	# named from its start (a name this line or another showed first
	# may have begun after it): the part splits where later ones began
	if (!hd[c] && p > 0 && (p in known)) ocomm[c] = name_at(p, os[c], of[c])
	final_start(c)
	check_split(c, p, 0)
}

# The held restart of cpu's task (see restart above) happens.
function restart(cpu) {
	if (!rst[cpu])
		return
	rst[cpu] = 0
	print "S", cpu, opid[cpu], ocomm[cpu], nsabs(os[cpu], of[cpu]), dur(os[cpu], of[cpu], rlo_s[cpu], rlo_f[cpu]), olost[cpu]
	nulls++
	# a remote update after the new start stays a sign of it
	if (rck_s[cpu] != "" && !before(rat_s[cpu], rat_f[cpu], rck_s[cpu], rck_f[cpu])) rck_s[cpu] = ""
	os[cpu] = rat_s[cpu]; of[cpu] = rat_f[cpu]; olost[cpu] = 0
}

# "pid=P oldcomm=O newcomm=N oom_score_adj=A"
function do_rename(   x, p, o, n, cpu, s_s, s_f) {
	if (!match(rest, /^pid=[0-9]+ oldcomm=/) || !match(rest, / oom_score_adj=[-0-9]+$/)) { unparsed++; return }
	p = substr(rest, 5) + 0
	x = substr(rest, 1, RSTART - 1)
	n = x; sub(/^.* newcomm=/, "", n)
	o = x; sub(/^pid=[0-9]+ oldcomm=/, "", o); sub(/ newcomm=.*$/, "", o)
	# the old name is the task's until the event: one no line showed
	# (renamed where nothing was traced, a thread's exec that took the
	# pid) begins at it (commd names it so)
	if ((p in known) && known[p] != o) {
		setname(p, o)
		cpu = cpu_of(p)
		if (cpu != "") check_split(cpu, p, 0)
	}
	known[p] = n
	rn_s[p] = ts_s; rn_f[p] = ts_f; rn_o[p] = o; rn_n[p] = n
	delete rn_e[p, "mv"]
	next_ns(); s_s = n1_s; s_f = n1_f
	# the part before is named oldcomm (a slice begun at the CPU's first
	# line was named by the report's prefix, which may be the pid's later
	# name); the same name splits nothing
	cpu = cpu_of(p)
	if (cpu != "") {
		restart(cpu)
		if (o != n)
			split_at(cpu, p, o, n, s_s, s_f)
	}
}

# The slice of p open on cpu splits at (s_s, s_f): the part before under
# o, the rest under n.
function split_at(cpu, p, o, n, s_s, s_f) {
	# a held restart happens first (commd's derive_rename)
	restart(cpu)
	# an inferred start not placed yet: the part before is held
	if (oinf[cpu] && !hd[cpu] && before(os[cpu], of[cpu], s_s, s_f)) {
		hd[cpu] = 1; ds[cpu] = os[cpu]; df[cpu] = of[cpu]; dpid[cpu] = p
		de_s[cpu] = s_s; de_f[cpu] = s_f; dcomm[cpu] = o; dlost[cpu] = olost[cpu]
		os[cpu] = s_s; of[cpu] = s_f; olost[cpu] = 0
		nulls++
		ocomm[cpu] = n
		return
	}
	final_start(cpu)
	if (before(os[cpu], of[cpu], s_s, s_f)) {
		print "S", cpu, p, o, nsabs(os[cpu], of[cpu]), dur(os[cpu], of[cpu], s_s, s_f), olost[cpu]
		os[cpu] = s_s; of[cpu] = s_f; olost[cpu] = 0
		nulls++
	}
	ocomm[cpu] = n
}

# A line gives pid p the name n (see "new name" above).
function setname(p, n,   x) {
	if ((p in known) && known[p] != n) {
		if ((p in rn_s) && n == rn_o[p] && known[p] == rn_n[p] &&
		    dur(rn_s[p], rn_f[p], ts_s, ts_f) < 10000000) {
			late_name(p)	# the rename moved
			return
		}
		delete rn_s[p]
		x = ++nl[p]; nl_s[p, x] = ts_s; nl_f[p, x] = ts_f; nl_n[p, x] = n
		nl_o[p, x] = known[p]
	} else if (p in known)
		delete rn_s[p]		# the new name confirmed
	else
		for (x in open)
			if (opid[x] == p && ounn[x]) { ocomm[x] = n; ounn[x] = 0 }
	known[p] = n
}

# A line after p's task_rename still shows the old name: the rename moved
# to ts + 1 (as a name begun there); p's slice is the old name's up to
# there (at a switch line, the slice ends first).
function late_name(p,   x, s_s, s_f) {
	if (wk_on[c] && wk_p[c] == p)
		wk_late[c] = 1		# inside a wakeup of p's (above)
	next_ns(); s_s = n1_s; s_f = n1_f
	if (!((p, "mv") in rn_e)) {
		x = ++nl[p]; rn_e[p, "mv"] = x
		nl_n[p, x] = rn_n[p]; nl_o[p, x] = rn_o[p]
	}
	x = rn_e[p, "mv"]
	nl_s[p, x] = s_s; nl_f[p, x] = s_f
	x = cpu_of(p)
	if (x == "")
		return
	ocomm[x] = name_at(p, os[x], of[x])
	check_split(x, p, ev == "sched_switch")
}

# The CPU p runs on (its open slice begun last; the lowest on a tie), or "".
function cpu_of(p) { return cpu_but(p, "") }

# The same but for CPU ex.
function cpu_but(p, ex,   x, g) {
	g = ""
	for (x in open)
		if (opid[x] == p && x != ex && (g == "" || before(os[g], of[g], os[x], of[x]) ||
		    (os[g] == os[x] && of[g] == of[x] && x + 0 < g + 0)))
			g = x
	return g
}

# The line's ts + 1 ns, as (n1_s, n1_f).
function next_ns() {
	n1_s = ts_s; n1_f = ts_f + 1
	if (n1_f >= 1000000000) { n1_f -= 1000000000; n1_s++ }
	n1_f = sprintf("%09d", n1_f)
}

# A line of p on cpu: p's slice there splits where each name a line
# began for it since the slice (or its part) began (at a switch-out, only
# the names begun before the switch), oldest first; a name begun where
# the part begins names it.
function check_split(cpu, p, sw,   i) {
	if (p <= 0 || !(cpu in open) || opid[cpu] != p || !(p in nl))
		return
	for (i = 1; i <= nl[p]; i++) {
		if (before(nl_s[p, i], nl_f[p, i], os[cpu], of[cpu]) || ocomm[cpu] == nl_n[p, i])
			continue
		if (!before(os[cpu], of[cpu], nl_s[p, i], nl_f[p, i])) {
			ocomm[cpu] = nl_n[p, i]
			continue
		}
		if (sw && !before(nl_s[p, i], nl_f[p, i], ts_s, ts_f))
			continue
		split_at(cpu, p, ocomm[cpu], nl_n[p, i], nl_s[p, i], nl_f[p, i])
	}
}

# The name p had at (t_s, t_f), by the names lines began for it.
function name_at(p, t_s, t_f,   i) {
	for (i = 1; i <= nl[p]; i++)
		if (before(t_s, t_f, nl_s[p, i], nl_f[p, i]))
			return nl_o[p, i]
	return known[p]
}

# The names begun for p before a switch in of it split nothing any more.
function forget_names(p,   i) {
	for (i = 1; i <= nl[p]; i++) { delete nl_s[p, i]; delete nl_f[p, i]; delete nl_n[p, i]; delete nl_o[p, i] }
	delete nl[p]
	delete rn_e[p, "mv"]
}

# p is born (task_newtask, then its sched_process_fork: the first is the
# birth): its time off the CPUs begins, state N (new, the kernel's
# TASK_NEW) until its sched_wakeup_new (nw), not known without one.
function born(p) {
	delete xexit[p]; delete xgone[p]; delete gtook[p]
	if ((p in out_s) && out_st[p] == "N" && !(p in nw)) return
	out_s[p] = ts_s; out_f[p] = ts_f; out_st[p] = "N"; delete nw[p]
	if (gaps) { delete out_s[p]; delete out_f[p]; delete out_st[p] }
}

# p's time off the CPUs, if known, ends at (s_s, s_f): a gap.
function end_gap(p, s_s, s_f) {
	if (!(p in out_s)) return
	if (out_st[p] != "N" || (p in nw))
		print "G", p, nsabs(out_s[p], out_f[p]), dur(out_s[p], out_f[p], s_s, s_f), out_st[p]
	delete out_s[p]; delete out_f[p]; delete out_st[p]; delete nw[p]
}

# The woken pid is the number after `key` at the start of the tail that
# matches the regex (a string: a /re/ argument would be $0 ~ /re/).
function do_waking(key, tail,   x, p) {
	if (!match(rest, tail)) { unparsed++; return }
	x = substr(rest, RSTART + length(key)); p = x + 0
	x = substr(rest, 1, RSTART - 1); sub(/^comm=/, "", x)
	# a new task under a pid whose task exited: the pid reused, no fork
	# traced (commd's resolve_birth from the waker)
	if (ev == "sched_wakeup_new" && p > 0 && (p in xexit)) {
		delete xexit[p]; delete xgone[p]; delete gtook[p]; par[p] = cpid
	}
	if (p > 0) setname(p, x)
	check_split(c, cpid, 0)
	# a wakeup (not a waking: it may come while p still switches out)
	if (ev != "sched_waking") for (x in tl) if (tl[x] == p) tl[x] = ""
	if (p <= 0) return
	if (ev == "sched_wakeup_new" && (p in out_s) && out_st[p] == "N") nw[p] = 1
	# a switch-out in plain R that a wakeup follows was a sleep, S or D
	# (A: asleep): 5.8-5.17 read the state after a racing waker set
	# TASK_WAKING, which they report as R; no task runnable is woken
	if ((ev == "sched_wakeup" || ev == "sched_waking") && !(p in pend_s) && (p in out_s) && out_st[p] == "R") out_st[p] = "A"
	if (p in pend_s) {
		# a waking's own sched_wakeup: the same wakeup
		if (ev == "sched_wakeup" && pend_pair[p]) {
			pend_pair[p] = 0
			enq_s[p] = ts_s; enq_f[p] = ts_f
			queued(p, substr(rest, index(rest, " CPU:") + 5) + 0)
			return
		}
		# any other: the pid ran and slept again unseen (the kernel
		# wakes only a task asleep); its time off is not known
		if (p in out_s) { delete out_s[p]; delete out_f[p]; delete out_st[p] }
	}
	pend_s[p] = ts_s; pend_f[p] = ts_f
	pend_w[p] = ev == "sched_wakeup" && (p in rw) ? rw[p] : cpid
	delete rw[p]
	pend_pair[p] = ev == "sched_waking"
	# where a wakeup put it on a run queue (not yet, for a waking)
	if (ev == "sched_waking") { delete enq_s[p]; delete enq_f[p] }
	else { enq_s[p] = ts_s; enq_f[p] = ts_f }
	# a waking's target_cpu: where the task last ran
	x = substr(rest, index(rest, " target_cpu=") + 12)
	pend_from[p] = ev == "sched_waking" && untraced(x + 0)
	if (ev != "sched_waking")
		queued(p, substr(rest, index(rest, " CPU:") + 5) + 0)
}

# p was queued on cpu (a wakeup's target, a migration's destination): on
# a CPU not traced it runs unseen: its pending wakeup and gap end there,
# when nothing says.
function queued(p, cpu) {
	if (!untraced(cpu) || p <= 0)
		return
	delete pend_s[p]; delete pend_f[p]; delete pend_w[p]
	if (p in out_s) { delete out_s[p]; delete out_f[p]; delete out_st[p] }
}

END {
	for (c in open) {
		restart(c)
		final_start(c)
		# a rename was the last line: the new name's part would begin
		# after it (ts + 1), nothing of it seen; the part before it
		# stays a rename split
		if (before(last_s, last_f, os[c], of[c])) {
			nulls--
			continue
		}
		print "S", c, opid[c], ocomm[c], nsabs(os[c], of[c]), dur(os[c], of[c], last_s, last_f), olost[c]
	}
	print "E", (have_last ? nsabs(last_s, last_f) : "none"), nsw, breaks + nulls, drops, unparsed
}
