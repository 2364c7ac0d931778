#!/usr/bin/env bash
# live-start-names.sh - the names commd takes from /proc at its start,
# while tasks rename themselves as fast as they can:
#
#   four processes of two threads each rename themselves in a loop,
#   "rPtT-N" with N counting up, and commd starts while they do (three
#   captures of a second). /proc is read after tracing starts, so a name
#   read there may be one the task took after its first events (the
#   rename traced after them): the first event that shows the task's own
#   name names the snapshot's row, back to the capture's start. Checked:
#
#   - each renaming thread's first row (from the capture's start) has no
#     later name than the oldcomm of its first task_rename (a snapshot row
#     with a name the task took after its first events had a later one);
#   - every task_rename of a renaming thread names it by its oldcomm;
#   - the renaming threads were named at the start (rows from the capture's
#     start), so the check saw the snapshot at work;
#   - a zombie at the start (exited, not yet reaped), reaped in the first
#     capture and its pid taken by a new fork (ns_last_pid): two
#     lifetimes, the new task's named only by its own names (taken for the
#     snapshot's task, it was "zombie-old > ... > new-kid").
#
# Needs root and tracefs (FAILS without them) and python3.
. "$(dirname "$0")/lib.sh"

need_live
command -v python3 > /dev/null || abort "python3" "installed (scripts/setup)" "missing"

cat > "$TMP/renamer.py" << 'EOF'
import ctypes, sys, threading, time
libc = ctypes.CDLL(None, use_errno=True)
p, secs = int(sys.argv[1]), float(sys.argv[2])
end = time.monotonic() + secs
def run(t):
    i = 0
    while time.monotonic() < end:
        for _ in range(20):
            i += 1
            libc.prctl(15, ("r%dt%d-%d" % (p, t, i)).encode(), 0, 0, 0)
        time.sleep(0.001)
ts = [threading.Thread(target=run, args=(t,)) for t in (1, 2)]
for x in ts: x.start()
for x in ts: x.join()
EOF

cat > "$TMP/zombie.py" << 'EOF'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
z = os.fork()
if z == 0:
    libc.prctl(15, b"zombie-old", 0, 0, 0)
    os._exit(0)
print(z, flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
os.waitpid(z, 0)
with open("/proc/sys/kernel/ns_last_pid", "w") as f:
    f.write(str(z - 1))
c = os.fork()
if c == 0:
    libc.prctl(15, b"new-kid", 0, 0, 0)
    time.sleep(0.01)
    os._exit(0)
os.waitpid(c, 0)
print(c, flush=True)
EOF

for n in 1 2 3; do
	in=$(inst "$n")
	db=$TMP/start-$n.db
	for p in 1 2 3 4; do
		python3 "$TMP/renamer.py" "$p" 4 &
		HELPER_PIDS+=("$!")
	done
	if [ "$n" = 1 ]; then
		python3 "$TMP/zombie.py" "$TMP/reap" > "$TMP/zombie.out" &
		HELPER_PIDS+=("$!")
	fi
	sleep 0.5
	start_ready "capture $n" "$TMP/commd-$n.err" "$db" "$in"
	sleep 0.5
	[ "$n" = 1 ] && touch "$TMP/reap"
	sleep 0.5
	stop_commd "$COMMD_PID" INT
	check_eq "capture $n: exit status after SIGINT" 0 "$STOP_RC"
	for p in "${HELPER_PIDS[@]}"; do kill "$p" 2> /dev/null || true; done
	wait "${HELPER_PIDS[@]}" 2> /dev/null || true
	HELPER_PIDS=()

	# each renaming thread's first row against its first rename's oldcomm
	q "$db" "SELECT f.pid, f.comm, r.oldcomm FROM
		   (SELECT pid, comm, row_number() OVER (PARTITION BY pid ORDER BY start_ts) AS k
		    FROM comm_history WHERE comm GLOB 'r[1-4]t[12]-[0-9]*') f
		 JOIN (SELECT target_pid, oldcomm,
			      row_number() OVER (PARTITION BY target_pid ORDER BY ts) AS k
		       FROM task_rename WHERE oldcomm GLOB 'r[1-4]t[12]-[0-9]*') r
		   ON r.target_pid = f.pid AND r.k = 1
		 WHERE f.k = 1" |
		awk -F'|' '{ split($2, a, "-"); split($3, b, "-"); n++
			if (a[2] + 0 > b[2] + 0) { bad++; if (bad <= 3) ex = ex " " $1 ":" $2 ">" $3 } }
			END { print n + 0 " threads, " bad + 0 " later" ex }' > "$TMP/first"
	check_eq "capture $n: renaming threads' first rows, none with a name set after their first rename" \
		"8 threads, 0 later" "$(cat "$TMP/first")"
	check_eq "capture $n: renames of a renaming thread not named by their oldcomm" 0 \
		"$(q "$db" "SELECT count(*) FROM task_rename WHERE oldcomm GLOB 'r[1-4]t[12]-[0-9]*'
			    AND pid = target_pid AND comm IS NOT oldcomm")"
	got=$(q "$db" "SELECT count(DISTINCT h.pid) FROM comm_history h, capture c
		       WHERE h.comm GLOB 'r[1-4]t[12]-[0-9]*' AND h.start_ts <= c.start_ts")
	check_true "capture $n: renaming threads named from the capture's start" "8" "$got" \
		test "$got" = 8
	[ "$n" = 1 ] || continue
	z=$(sed -n 1p "$TMP/zombie.out") c=$(sed -n 2p "$TMP/zombie.out")
	check_eq "the zombie's pid taken by the new fork (ns_last_pid)" "$z" "$c"
	check_eq "the zombie's pid: its lifetimes and their names" \
		"zombie-old proc;python3 task_newtask,new-kid task_rename" \
		"$(q "$db" "SELECT group_concat(names, ';') FROM (SELECT group_concat(comm || ' ' || source, ',')
			      AS names FROM (SELECT * FROM comm_history WHERE pid = ${z:-0}
			      ORDER BY start_ts) GROUP BY life ORDER BY min(start_ts))")"
done
finish
