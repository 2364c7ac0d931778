#!/usr/bin/env bash
# live-retention.sh - the disk stays bounded under load: commd runs with
# --max-db-mb 4 while `perf bench sched messaging` runs in a loop for
# LOAD_S seconds. Sampled every second (no timing assertions; the checks
# are about sizes and order):
#
#  - the database file stays within DB_BOUND_MB (4 x max-db-mb: the data
#    is cut back to 90% of the limit after each commit, the file keeps
#    the pages of the largest moment) and the WAL within WAL_BOUND_MB
#    (truncated past 4 MiB, journal_size_limit 16 MiB);
#  - events keep arriving (the newest ts of ev_sched_switch grows
#    between the first and the second half) and queries keep answering
#    (commq over the socket, every sample);
#  - retention really cut (the oldest kept sched_switch is past the oldest
#    of the first sample) and the oldest kept ts moves forward where a cut
#    went past it in the second half (retention_cutoff_ts);
#  - every kept event still has its comm_history row (hid), and so do the
#    derived rows (sched, wakeup_latency and its waker);
#  - exit 0 on SIGTERM, PRAGMA integrity_check ok; warnings about losses
#    (if any) at most one per 10 s;
#  - the longest wake latency, which bounds the history kept for wakers,
#    is in stats and survives a restart (below).
. "$(dirname "$0")/lib.sh"
need_live
need_perf

MAX_MB=4
DB_BOUND_MB=$((4 * MAX_MB))
WAL_BOUND_MB=16
LOAD_S=${LOAD_S:-20}
# start_load / stop_load: lib.sh (the load loop, killed first at exit).
# The query server runs as an unprivileged user: it must reach the database.
chmod 0755 "$TMP"

size_of() { command stat -c %s "$1" 2> /dev/null || echo 0; }	# lib.sh has its own stat()

in=$(inst ret)
db=$TMP/r.db
sock=$TMP/$in.sock
start_ready "retention" "$TMP/commd.err" "$db" "$in" --max-db-mb "$MAX_MB" --commit-ms 200

start_load "$LOAD_S"

max_db=0 max_wal=0 answered=0 refused=0 samples=0
maxts=() mints=()
for ((i = 0; i < LOAD_S; i++)); do
	sleep 1
	samples=$((samples + 1))
	d=$(size_of "$db") w=$(size_of "$db-wal")
	[ "$d" -gt "$max_db" ] && max_db=$d
	[ "$w" -gt "$max_wal" ] && max_wal=$w
	if got=$(timeout 60 "$COMMQ" --socket "$sock" -q --timeout 30 -list -noheader \
		"select max(ts), min(ts) from ev_sched_switch" 2>&1) &&
	   [[ $got =~ ^[0-9]+\|[0-9]+$ ]]; then
		answered=$((answered + 1))
		IFS='|' read -r mx mn <<< "$got"
		maxts+=("$mx")
		mints+=("$mn")
		log "t=${i}s db $((d / 1024)) KiB wal $((w / 1024)) KiB; sched_switch ts $mn..$mx"
	else
		refused=$((refused + 1))
		log "t=${i}s db $((d / 1024)) KiB wal $((w / 1024)) KiB; query failed: $got"
	fi
done
stop_load

check_eq "commd still running after the load" yes "$(_alive "$COMMD_PID" && echo yes || echo no)"
check_eq "queries answered over the socket during the load" "$samples of $samples" "$answered of $samples"
check_true "database file within $DB_BOUND_MB MiB (max-db-mb $MAX_MB)" "<= $((DB_BOUND_MB << 20)) bytes" \
	"$max_db bytes at most" test "$max_db" -le $((DB_BOUND_MB << 20))
check_true "WAL within $WAL_BOUND_MB MiB" "<= $((WAL_BOUND_MB << 20)) bytes" \
	"$max_wal bytes at most" test "$max_wal" -le $((WAL_BOUND_MB << 20))
n=${#maxts[@]}
if [ "$n" -ge 4 ]; then
	half=$((n / 2))
	check_true "events keep arriving: the newest ts grows over the second half" \
		"${maxts[$((n - 1))]} > ${maxts[$half]}" "${maxts[$half]} -> ${maxts[$((n - 1))]}" \
		test "${maxts[$((n - 1))]}" -gt "${maxts[$half]}"
	# Rows were cut in the second half when the last cutoff (stats
	# retention_cutoff_ts, written once a cut has deleted every row before
	# it) lies past the oldest row kept at its start: then the oldest kept
	# now is later. Both read in one snapshot. A load that slows down
	# (perf bench runs the slower the busier the machine) may store too
	# little to need a cut in the second half.
	got=$("$COMMQ" --socket "$sock" -q -list -noheader "select coalesce((select value
		from stats where name = 'retention_cutoff_ts' and capture is null), 0),
		(select min(ts) from ev_sched_switch)")
	IFS='|' read -r cutoff mn_now <<< "$got"
	if ! [[ $got =~ ^[0-9]+\|[0-9]+$ ]]; then
		fail "the last cutoff and the oldest kept ts" "two numbers" "$got"
	elif [ "$cutoff" -gt "${mints[$half]}" ]; then
		check_true "the oldest kept ts moves forward (cut past it in the second half)" \
			"> ${mints[$half]}" "$mn_now" test "$mn_now" -gt "${mints[$half]}"
	else
		log "second half: the last cutoff $cutoff is not past ${mints[$half]}, the oldest" \
			"kept at its start: the load stored too little to need a cut there"
	fi
else
	fail "samples answered" ">= 4" "$n"
fi

stop_commd "$COMMD_PID" TERM
check_eq "exit status after SIGTERM" 0 "$STOP_RC"
check_integrity "after retention" "$db"
mints_end=$(q "$db" "select min(ts) from ev_sched_switch")
check_true "retention cut the oldest events (the oldest kept switch is past the first sample's oldest)" \
	"> ${mints[0]:-0}" "$mints_end" test "${mints_end:-0}" -gt "${mints[0]:-0}"
check_true "... and the kept switches are fewer than those stored" \
	"< $(stat "$db" events:sched:sched_switch)" "$(q "$db" "select count(*) from ev_sched_switch")" \
	test "$(q "$db" "select count(*) from ev_sched_switch")" -lt "$(stat "$db" events:sched:sched_switch)"
cut=$(q "$db" "select count(*) from stats where name = 'retention_cutoff_ts'")
check_eq "retention_cutoff_ts in stats (one row, the last cutoff)" 1 "$cut"
orphans=0
for t in ev_sched_switch ev_sched_wakeup ev_sched_waking ev_sched_wakeup_new \
	 ev_sched_migrate_task ev_sched_process_fork ev_sched_process_exit \
	 ev_sched_process_free dv_sched dv_wakeup_latency; do
	o=$(q "$db" "select count(*) from $t e left join comm_history h on h.id = e.hid where h.id is null")
	check_eq "$t: every kept row has its comm_history row" 0 "$o"
	orphans=$((orphans + o))
done
o=$(q "$db" "select count(*) from dv_wakeup_latency e left join comm_history h on h.id = e.waker_hid where e.waker_hid is not null and h.id is null")
check_eq "dv_wakeup_latency: every kept waker has its comm_history row" 0 "$o"
o=$(q "$db" "select count(*) from ev_sched_switch e left join comm_history h on h.id = e.next_hid where e.next_hid is not null and h.id is null")
check_eq "sched_switch's slices: every kept next_hid has its comm_history row" 0 "$o"
for t in ev_sched_waking ev_sched_wakeup ev_sched_wakeup_new; do
	o=$(q "$db" "select count(*) from $t e left join comm_history h on h.id = e.run_hid where e.run_hid is not null and h.id is null")
	check_eq "$t's wakeups: every kept run_hid has its comm_history row" 0 "$o"
done
# Losses under this load are likely (not certain): their warnings are
# rate-limited to one per 10 s, so at most run/10 + 1 lines.
run_s=$(sed -n 's/^commd: stopped after \([0-9]*\)\..*/\1/p' "$TMP/commd.err")
warns=$(grep -c 'ring buffer full' "$TMP/commd.err" || true)
check_true "loss warnings rate-limited (at most one per 10 s of ${run_s:-?} s)" \
	"<= $(( ${run_s:-0} / 10 + 1 ))" "$warns" test "$warns" -le $(( ${run_s:-0} / 10 + 1 ))
log "database at most $((max_db / 1024)) KiB, WAL at most $((max_wal / 1024)) KiB;" \
	"kept $(q "$db" "select count(*) from ev_sched_switch") of $(stat "$db" events:sched:sched_switch) sched_switch rows," \
	"$(q "$db" "select count(*) from comm_history") comm_history rows; $(grep -E 'stopped after' "$TMP/commd.err")"

# The bound retention keeps history by (the longest wake latency stored on
# a switch: a kept switch names its waker as of the waking) survives a
# restart: it is in stats. Set it to a day, continue the database under
# load until retention has cut past every row of the first run: no
# history row of the first run may go (a day back from any kept switch
# reaches them all), which the bound of the second run's own wakeups
# alone (what a restart used to start from) would not keep.
mw=$(q "$db" "select value from stats where name = 'max_wake_latency' and capture is null")
kept_mw=$(q "$db" "select coalesce(max(latency), 0) from wakeup_latency")
check_true "max_wake_latency in stats (>= the longest kept, $kept_mw ns)" ">= $kept_mw" "${mw:-none}" \
	test "${mw:-0}" -gt 0 -a "${mw:-0}" -ge "$kept_mw"
day=86400000000000
t0=$(q "$db" "select max(ts) from ev_sched_switch")
sqlite3 "$db" "update stats set value = $day where name = 'max_wake_latency' and capture is null"
old_hist=$(q "$db" "select count(*) from comm_history where end_ts < $t0")
start_ready "retention, continued" "$TMP/commd2.err" "$db" "$in" --max-db-mb "$MAX_MB" --commit-ms 200
start_load "${LOAD2_S:-12}"
for ((i = 0; i < 60; i++)); do
	sleep 1
	c=$(timeout 60 "$COMMQ" --socket "$sock" -q --timeout 30 -list -noheader \
		"select coalesce(max(value), 0) from stats where name = 'retention_cutoff_ts'" 2>/dev/null || echo 0)
	[ "${c:-0}" -gt $((t0 + 1000000000)) ] && break
done
stop_load
stop_commd "$COMMD_PID" TERM
check_eq "exit status after SIGTERM (continued)" 0 "$STOP_RC"
cut2=$(q "$db" "select value from stats where name = 'retention_cutoff_ts'")
check_true "the continued capture cut past the first run's events" "> $t0 + 1 s" "$cut2" \
	test "${cut2:-0}" -gt $((t0 + 1000000000))
check_eq "max_wake_latency kept across the restart" "$day" \
	"$(q "$db" "select value from stats where name = 'max_wake_latency' and capture is null")"
check_eq "the first run's history rows kept (ending before its last switch)" "$old_hist" \
	"$(q "$db" "select count(*) from comm_history where end_ts < $t0")"
check_integrity "after the continued retention" "$db"
finish
