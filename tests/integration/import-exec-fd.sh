#!/usr/bin/env bash
# import-exec-fd.sh - without task_rename in a trace, commd names an
# exec'd task after its file, as the kernel does - but not after
# "/dev/fd/N", the path the kernel makes up for an exec from a file
# descriptor (fexecve): it then names the task after the file (this
# kernel) or "N" (before 6.14), and the filename cannot say which. The
# next event carrying the task's comm names it, from the exec on. A real path ending in a
# number, execv("/proc/self/fd/N"), does name the task "N", and still
# does in comm_history from the exec on. The names are checked against
# the comm the kernel reports in the task's next sched_switch
# (trace-cmd report -t).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dat=$TESTDATA/cases/exec-fd.dat
db=$TMPDIR_TEST/exec.db
import_ok "$dat" "$db" || finish
check_eq "no task_rename in the fixture (exec names come from filenames)" 0 \
	"$(q "$db" "select count(*) from task_rename")" || true

report=$TMPDIR_TEST/report
LC_ALL=C trace-cmd report -t -i "$dat" > "$report" 2> /dev/null

# kernel_name PID TS: prev_comm of PID's first switch-out after TS (ns),
# as trace-cmd report prints it ("prev_comm:PID [prio] S ==> ...").
kernel_name() {
	LC_ALL=C awk -v pid="$1" -v after="$2" '
	match($0, / [0-9]+\.[0-9]+: sched_switch: +/) {
		t = substr($0, RSTART + 1); sub(/:.*/, "", t)
		split(t, a, "."); t = a[1] a[2]
		rest = substr($0, RSTART + RLENGTH)
		if (t + 0 <= after + 0 || !match(rest, ":" pid " \\[")) next
		print substr(rest, 1, RSTART - 1); exit
	}' "$report"
}

for spec in "/dev/fd/3 sleep" "/proc/self/fd/3 3"; do
	read -r file want <<< "$spec"
	row=$(q "$db" "select target_pid, ts from sched_process_exec where filename = '$file'")
	if [ -z "$row" ]; then
		fail "$file: a sched_process_exec row" "one" "none"
		continue
	fi
	IFS='|' read -r pid ts <<< "$row"
	kname=$(kernel_name "$pid" "$ts")
	check_eq "$file (pid $pid): the kernel's name at its next switch (trace-cmd report)" \
		"$want" "$kname" || true
	check_eq "$file (pid $pid): comm_history names from the exec that are not the kernel's" "" \
		"$(q "$db" "select comm from comm_history where pid = $pid and source = 'sched_process_exec' and comm <> '$kname'")" || true
	at="(select min(ts) from sched_switch where prev_pid = $pid and ts > $ts)"
	check_eq "$file (pid $pid): comm_history at its next switch" "$kname" \
		"$(q "$db" "select comm from comm_history where pid = $pid and start_ts <= $at and (end_ts is null or $at <= end_ts) order by start_ts desc, id desc limit 1")" || true
	check_eq "$file (pid $pid): sched_switch rows of it after the exec whose comm is not prev_comm" 0 \
		"$(q "$db" "select count(*) from sched_switch where prev_pid = $pid and ts > $ts and comm is not prev_comm")" || true
done
# The kernel renamed the task at the exec from /dev/fd/N as well: the
# name the next switch shows is its name from the exec on (a row of no
# name until then, named when the name shows; the build before kept
# python3 up to that switch).
row=$(q "$db" "select target_pid, ts from sched_process_exec where filename = '/dev/fd/3'")
IFS='|' read -r pid ts <<< "${row:-0|0}"
check_eq "/dev/fd/3 (pid $pid): comm_history's rows from the exec on (name, start)" \
	"sleep|$ts" \
	"$(q "$db" "select group_concat(coalesce(comm, 'NULL') || '|' || start_ts, ' ') from comm_history where pid = $pid and (end_ts is null or end_ts > $ts)")" || true
check_eq "/dev/fd/3 (pid $pid): the slice running at the exec splits there, the part after named sleep" \
	"sleep" "$(q "$db" "select comm from sched where pid = $pid and ts = $ts")" || true
# /proc/self/fd/N names the task N at the exec itself.
pid=$(q "$db" "select target_pid from sched_process_exec where filename = '/proc/self/fd/3'")
check_eq "/proc/self/fd/3 (pid $pid): its comm_history row from the exec" "3" \
	"$(q "$db" "select h.comm from comm_history h join sched_process_exec e on e.target_pid = h.pid and h.start_ts = e.ts where e.filename = '/proc/self/fd/3' and h.source = 'sched_process_exec'")" || true
finish
