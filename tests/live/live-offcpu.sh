#!/usr/bin/env bash
# live-offcpu.sh - commd --stacks, the offcpu view and commq offcpu, live:
# tasks that sleep in known kernel paths while commd captures with the
# instance's own trigger (`stacktrace if prev_state & 3` on its
# sched_switch: nothing global):
#
#   - `sleep 0.3`: its 300 ms asleep (S) in a stack through do_nanosleep;
#   - `cat` reading a pipe whose writer sleeps 0.3 s first: ~300 ms
#     asleep in a stack through pipe_read (anon_pipe_read on newer
#     kernels), woken by the shell that wrote;
#   - `dd oflag=dsync`: blocked (D) in stacks through the file system's
#     sync (a *sync* frame);
#   - the trigger is there while commd runs and gone with its instance,
#     and the global ring buffer gets nothing (its entries unchanged);
#     stacks are stored once each; --folded prints "comm;frames µs"
#     lines whose µs add up to the table's ms; -o FILE.svg is a valid SVG
#     (xmllint) with a box per frame.
. "$(dirname "$0")/lib.sh"
need_live
command -v xmllint > /dev/null || abort "xmllint (Debian package libxml2-utils)" "in PATH" "missing"

chmod 0755 "$TMP"
in=$(inst off)
# the events in the global ring buffer: the trigger must write the stacks
# into the instance's own (kernels whose stacktrace trigger wrote into the
# global buffer would show here)
global_entries() { awk '$1 == "entries:" { s += $2 } END { print s + 0 }' "$T"/per_cpu/cpu*/stats; }
g0=$(global_entries)
db=$TMP/off.db
start_ready "capture --stacks" "$TMP/commd.err" "$db" "$in" --stacks --commit-ms 200
check_match "the instance's sched_switch trigger" "stacktrace.*if prev_state & 3" \
	"$(cat "$T/instances/$in/events/sched/sched_switch/trigger" 2> /dev/null)"
check_eq "no trigger on the global sched_switch" "" \
	"$(grep -v '^#' "$T/events/sched/sched_switch/trigger" 2> /dev/null || true)"

sleeper=$(sleeper_copy offsleep)
"$sleeper" 0.3 &
sp=$!
HELPER_PIDS+=("$sp")
wait "$sp"
cp /bin/cat "$TMP/offcat"
# The pipeline on CPU 0: woken onto an idle CPU 1, cat's switch-in would
# not be recorded on this VM (the switch out of swapper/1 never is), its
# start would be inferred and its waking void (no waker to check). Pinned
# as a whole, so cat is exec'd as soon as before (not behind taskset).
taskset -c 0 bash -c '( sleep 0.3; echo x ) | exec "$0" > /dev/null' "$TMP/offcat" &
cp_=$!
HELPER_PIDS+=("$cp_")
wait "$cp_"
cp /bin/dd "$TMP/offdd"
"$TMP/offdd" if=/dev/zero of="$TMP/f" bs=4k count=40 oflag=dsync 2> /dev/null
sleep 0.5
stop_commd "$COMMD_PID" TERM
check_eq "exit status after SIGTERM" 0 "$STOP_RC"
check_eq "the instance (and its trigger) gone" absent "$(instance_state "$in")"
check_eq "nothing written into the global ring buffer (entries before, after)" "$g0" "$(global_entries)"

check_true "stacks stored once each" "distinct frames" "$(q "$db" "SELECT count(*) - count(DISTINCT frames) FROM stacks") duplicates" \
	test "$(q "$db" "SELECT count(*) - count(DISTINCT frames) FROM stacks")" -eq 0
check_true "kernel_stacks counted in stats" "> 0" "$(stat "$db" kernel_stacks)" test "$(stat "$db" kernel_stacks)" -gt 0

# sleep 0.3: asleep ~300 ms in do_nanosleep
# (dur runs to its next slice; the last `runnable` ns of it, after its
# wakeup, it waited to run: the sleep itself is the rest)
row=$(q "$db" "SELECT sum(dur - coalesce(runnable, 0)), group_concat(DISTINCT state) FROM offcpu WHERE pid = $sp AND frames LIKE '%do_nanosleep%'")
log "offsleep: $row"
check_true "sleep 0.3: asleep (S) 300 ms (to its wakeup, + 30) through do_nanosleep" "300000000..330000000 ns, S" "$row" \
	awk -v r="$row" 'BEGIN { split(r, f, "|"); exit !(f[1] >= 299000000 && f[1] <= 330000000 && f[2] == "S") }'

# cat: asleep ~300 ms in pipe_read, woken by the writer (a bash)
row=$(q "$db" "SELECT max(dur - coalesce(runnable, 0)), waker_comm FROM offcpu WHERE comm = 'offcat' AND frames LIKE '%pipe_read%'")
log "offcat: $row"
check_true "cat of a pipe: asleep ~300 ms (to its wakeup) in a stack through pipe_read" "250000000..400000000 ns" "${row%%|*}" \
	test "${row%%|*}" -ge 250000000 -a "${row%%|*}" -le 400000000
check_match "... woken by the shell that wrote to the pipe" "bash|sh" "${row#*|}"

# dd oflag=dsync: blocked (D) in the file system's sync
n=$(q "$db" "SELECT count(*) FROM offcpu WHERE comm = 'offdd' AND state = 'D' AND frames LIKE '%sync%'")
check_true "dd oflag=dsync: blocked (D) in stacks through a *sync* frame" "> 0 intervals" "$n" test "$n" -gt 0

# commq offcpu: the table, --folded, -o FILE.svg
"$COMMQ" --db "$db" -q -csv -noheader offcpu --pid "$sp" > "$TMP/table" 2>&1 ||
	fail "commq offcpu --pid" "exit 0" "$(cat "$TMP/table")"
check_match "commq offcpu --pid: its longest row is the nanosleep" "do_nanosleep" "$(head -n 1 "$TMP/table")"
"$COMMQ" --db "$db" -q offcpu --comm offcat --folded > "$TMP/folded" 2>&1 ||
	fail "commq offcpu --folded" "exit 0" "$(cat "$TMP/folded")"
check_match "--folded: 'comm;frames µs' lines" "^offcat;.*pipe_read.* [0-9]+$" "$(grep pipe_read "$TMP/folded")"
"$COMMQ" --db "$db" -q -csv -noheader offcpu --comm offcat > "$TMP/cat.table"
check_eq "--folded µs add up to the table's ms (to 1 ms a row)" \
	"$(awk -F, '{ s += $1 } END { printf "%.0f", s }' "$TMP/cat.table")" \
	"$(awk '{ s += $NF } END { printf "%.0f", s / 1000 }' "$TMP/folded")"
"$COMMQ" --db "$db" -q offcpu -o "$TMP/off.svg" 2> "$TMP/svg.err" || fail "commq offcpu -o" "exit 0" "$(cat "$TMP/svg.err")"
check_eq "-o FILE.svg: valid XML (xmllint)" ok "$(xmllint --noout "$TMP/off.svg" 2>&1 && echo ok)"
check_true "-o FILE.svg: a box for do_nanosleep" "found" "$(grep -c 'do_nanosleep' "$TMP/off.svg") matches" \
	grep -q '<title>do_nanosleep' "$TMP/off.svg"
finish
