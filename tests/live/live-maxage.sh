#!/usr/bin/env bash
# live-maxage.sh - retention by age, and SIGHUP. commd runs from a config
# file (max-age = 5s, commit-ms = 200) while `perf bench sched messaging`
# runs in a loop for LOAD_S (20) seconds:
#
#  - afterwards the sched_switch rows span at most max-age + SLACK_S (4 s:
#    commits and chunked deletes run behind the newest event) though the
#    capture spans more than LOAD_S, and at least max-age - 1 s (nothing
#    newer than max-age is cut); the derived sched slices too;
#  - SIGHUP with a new file: max-age, max-db-mb, commit-ms and log-level
#    change (each logged), changed events and buffer-kb are logged as
#    needing a restart and the capture goes on as it was (the command
#    line's db, instance and socket win over the file: not reported);
#  - SIGHUP with a bad file logs the file:line error, keeps the settings,
#    and commd goes on; with a FIFO in the file's place it says so at once
#    (no hang) and SIGTERM still stops it;
#  - the stop line has the events stored, lost and the duration; exit 0;
#    integrity ok.
. "$(dirname "$0")/lib.sh"
need_live
need_perf

MAX_AGE_S=5
SLACK_S=4
LOAD_S=${LOAD_S:-20}
# start_load / stop_load: lib.sh (the load loop, killed first at exit).
# The query server runs as an unprivileged user: it must reach the database.
chmod 0755 "$TMP"

# wait_log PATTERN [SECONDS]: 0 once the commd log has a line matching.
wait_log() {
	local i
	for ((i = 0; i < ${2:-30} * 10; i++)); do
		grep -q -- "$1" "$err" && return 0
		sleep 0.1
	done
	return 1
}
# logged WHAT PATTERN: check that commd logged a line matching PATTERN.
logged() {
	local ok=no
	wait_log "$2" && ok=yes
	check_eq "$1" yes "$ok"
	[ "$ok" = yes ] || sed 's/^/    commd: /' "$err" | tail -20 >&2
}

in=$(inst age)
db=$TMP/a.db
sock=$TMP/$in.sock
err=$TMP/commd.err
conf=$TMP/commd.conf
cat > "$conf" << EOF
# live-maxage
commit-ms = 200
max-age = ${MAX_AGE_S}s
max-db-mb = 0
EOF
start_ready "max-age" "$err" "$db" "$in" --config "$conf"
logged "the start says what is kept" "keeping data of any size, the last ${MAX_AGE_S}s"

# A loss at the capture's start (as a ring buffer's would be stored):
# once the cut passes it, it goes (lost_events before the cutoff: what
# it left unknown is gone, and answers warned of it before).
sqlite3 -cmd ".timeout 10000" "$db" "INSERT INTO lost_events (cpu, ts, count, from_ts)
	SELECT 0, start_ts + 1, 7, start_ts FROM capture" ||
	abort "a loss stored at the capture's start" "sqlite3 exit 0" "failed"

# A process that starts a thread, then renames its leader (prctl), and
# lives on through the load: its history rows from before the rename
# are older than max-age when the load ends.
python3 -c 'import ctypes, threading, time, sys
threading.Thread(target=time.sleep, args=(float(sys.argv[1]),), daemon=True).start()
time.sleep(0.2)
ctypes.CDLL(None).prctl(15, b"age-renamed", 0, 0, 0)
time.sleep(float(sys.argv[1]))' "$((LOAD_S + 4))" &
renamer=$!
HELPER_PIDS+=("$renamer")
t0=$(date +%s)
start_load "$LOAD_S"
# The load for LOAD_S seconds, asking now and then (queries must answer).
answered=0 asked=0
while [ $(($(date +%s) - t0)) -lt "$LOAD_S" ]; do
	sleep 2
	asked=$((asked + 1))
	got=$(timeout 60 "$COMMQ" --socket "$sock" -q --timeout 30 -list -noheader "select 1" 2>&1) || true
	[ "$got" = 1 ] && answered=$((answered + 1))
done
stop_load
check_eq "queries answered during the load" "$asked of $asked" "$answered of $asked"
sleep 2		# a few commits after the load: the trim catches up

span() {	# TABLE: max(ts) - min(ts) in ms, through the socket
	timeout 60 "$COMMQ" --socket "$sock" -q --timeout 30 -list -noheader \
		"select (max(ts) - min(ts)) / 1000000 from $1" 2>&1
}
s=$(span ev_sched_switch)
log "sched_switch spans $s ms after $LOAD_S s of load (max-age ${MAX_AGE_S}s)"
check_true "sched_switch spans <= max-age + ${SLACK_S}s" "<= $(((MAX_AGE_S + SLACK_S) * 1000)) ms" \
	"$s ms" test "$s" -le $(((MAX_AGE_S + SLACK_S) * 1000))
check_true "sched_switch spans >= max-age - 1s (nothing newer is cut)" \
	">= $(((MAX_AGE_S - 1) * 1000)) ms" "$s ms" test "$s" -ge $(((MAX_AGE_S - 1) * 1000))
check_eq "losses before the retention cutoff (one stored at the start)" "0 1" \
	"$(timeout 60 "$COMMQ" --socket "$sock" -q --timeout 30 -list -noheader -separator ' ' \
		"select count(*), (select count(*) from stats where name = 'retention_cutoff_ts')
		 from lost_events where ts < (select max(value) from stats where name = 'retention_cutoff_ts')
		    or count = 7" 2>&1)"
s=$(span sched)
check_true "sched slices span <= max-age + ${SLACK_S}s" "<= $(((MAX_AGE_S + SLACK_S) * 1000)) ms" \
	"$s ms" test "$s" -le $(((MAX_AGE_S + SLACK_S) * 1000))
# The renamer's leader, renamed after its thread began, still counts it
# (its lifetime's first row is kept while the lifetime goes on: cut, the
# process began at the rename, after its thread, and had none)
got=$(q "$db" "select threads || ' ' || (start_ts < (select min(h.start_ts) from comm_history h
	where h.pid = $renamer and h.comm = 'age-renamed')) from process where tgid = $renamer")
check_eq "a process renamed after its thread began, its names cut by age: threads, began before the rename" \
	"2 1" "$got"
log "the renamer's names after the cuts: $(q "$db" "select names from process where tgid = $renamer")"
kill "$renamer" 2> /dev/null || true
first=$(q "$db" "select min(start_ts) from capture")
last=$(q "$db" "select max(ts) from ev_sched_switch")
check_true "the capture itself spans more than the load" "> $LOAD_S s" \
	"$(((last - first) / 1000000)) ms" test $(((last - first) / 1000000)) -gt $((LOAD_S * 1000))

# --- SIGHUP: a new file ---------------------------------------------------
cat > "$conf" << EOF
commit-ms = 300
max-age = 2h
max_db_mb = 100
log-level = debug
events = sched:sched_switch
buffer-kb = 64
EOF
kill -HUP "$COMMD_PID"
logged "SIGHUP: commit-ms change logged" "reload: commit-ms 200 -> 300"
logged "SIGHUP: max-age change logged" "reload: max-age ${MAX_AGE_S}s -> 2h"
logged "SIGHUP: max-db-mb change logged" "reload: max-db-mb 0 -> 100"
logged "SIGHUP: log-level change logged" "reload: log-level info -> debug"
logged "SIGHUP: events need a restart" "events changed from 'sched:sched_switch,[^']*' to 'sched:sched_switch': takes effect at the next restart"
logged "SIGHUP: buffer-kb needs a restart" "buffer-kb changed from '[^']*' to '64': takes effect at the next restart"
check_eq "the instance still captures" present "$(instance_state "$in")"
check_eq "the events enabled are unchanged" 1 "$(cat "$T/instances/$in/events/sched/sched_waking/enable")"

# --- SIGHUP: a bad file -----------------------------------------------------
printf 'commit-ms = 250\nmax-age = 5 minutes\n' > "$conf"
kill -HUP "$COMMD_PID"
logged "SIGHUP with a bad file: the error names file:line and what is accepted" \
	"$conf:2: max-age: expected 0 (keep everything) or N\[s|m|h|d\].*got '5 minutes'; keeping the current settings"
sleep 1
check_eq "commd goes on after a bad file" yes "$(_alive "$COMMD_PID" && echo yes || echo no)"
check_eq "a bad file changes nothing (no commit-ms 250)" 0 "$(grep -c 'commit-ms 300 -> 250' "$err" || true)"
got=$(timeout 60 "$COMMQ" --socket "$sock" -q -list -noheader "select 42" 2>&1) || true
check_eq "queries answered after the reloads" 42 "$got"

# --- SIGHUP: a FIFO where the file was (it hung the loop once) -------------
rm -f "$conf"
mkfifo "$conf"
kill -HUP "$COMMD_PID"
logged "SIGHUP with a FIFO for a file: refused, the settings kept" "$conf: not a regular file"
sleep 1.5
check_eq "commd goes on after a FIFO (commits continue)" yes "$(_alive "$COMMD_PID" && echo yes || echo no)"
got=$(timeout 60 "$COMMQ" --socket "$sock" -q -list -noheader "select 43" 2>&1) || true
check_eq "queries answered after the FIFO" 43 "$got"

stop_commd "$COMMD_PID" TERM
check_eq "exit status after SIGTERM" 0 "$STOP_RC"
check_integrity "after max-age" "$db"
check_true "the stop line says events stored, lost and the duration" \
	"commd: stopped after N.N s: stored N events, N lost" "$(grep 'stopped after' "$err")" \
	grep -Eq '^commd: stopped after [0-9]+\.[0-9] s: stored [0-9]+ events, [0-9]+ lost$' "$err"
finish
