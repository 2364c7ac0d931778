#!/usr/bin/env bash
# derived-migrate.sh - a database written before schema 004 (every slice a
# dv_sched row, every wakeup latency a dv_wakeup_latency row) is migrated
# by the next commd that opens it, and reads exactly as before: `sched`
# (its columns of schema 3; start_err and end_err, from schema 6, are NULL
# there), `wakeup_latency` and `thread_state` give the same rows. A capture now
# keeps only the slices that are not ordinary in dv_sched (the rest are
# columns of the switch that began them, schema 010) and no
# dv_wakeup_latency rows (a latency is a column of the waking that began
# it; but for a wakeup fired after the woken task's switch-out by another
# task than its waker, which this file has none of). The migration passes through every schema since, 004's columns on
# the switch and 010's rebuilt tables keyed by time among them.
#
# The old database is built the way commd at schema 3 built it: from
# schema/001-003 with the sqlite3 shell, filled with an import's rows (the
# inline columns moved back into dv_*). commd then opens it for a short
# live capture (only exec events: no switch is added), which migrates it;
# the lifetimes schema 8 adds are computed for the old rows.
# Needs root and tracefs: it FAILS (does not skip) without them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

T=/sys/kernel/tracing
check_eq "running as root (uid)" 0 "$(id -u)" || finish
if [ ! -w "$T/tracing_on" ] || [ ! -d "$T/instances" ]; then
	abort "tracefs usable at $T" "tracing_on writable, instances/ present" "not usable"
fi
INSTANCE=commd-migrate-$$
pid=
stop_commd() { [ -z "$pid" ] || kill_tree "$pid"; remove_instances "$T/instances/$INSTANCE"; }
CLEANUP_HOOKS+=("stop_commd")

dat=$TESTDATA/sched-drops.dat
new=$TMPDIR_TEST/new.db
old=$TMPDIR_TEST/old.db
import_ok "$dat" "$new" || finish

views() {	# DB OUT: the three views (sched: schema 3's columns), sorted
	q "$1" "select ts, dur, cpu, pid, comm, prio, end_state, lost from sched" |
		LC_ALL=C sort > "$2.sched"
	q "$1" "select * from wakeup_latency" | LC_ALL=C sort > "$2.wakeup"
	# (but a gap between two runs with two wakings in it: the task ran
	# unseen between them, in events a loss took. A capture since knows
	# no state there; a database written before pairs the two runs, and
	# keeps doing so after its migration. Nor a new task's wait before
	# its first run, new then runnable: schema 026 stores its birth with
	# that run, which rows written before do not have. Nor a time off the
	# CPUs across a loss's gap, from the CPU's record before it to the
	# loss: a capture since knows it as soon as the gap opens, and keeps
	# no state there; rows written before keep theirs)
	q "$1" "with t as materialized (select * from thread_state),
		run as materialized (select pid, ts, ts + dur as e from t where state = 'running'),
		$GAPS_CTE
		select t.* from t where (t.state = 'running' or not exists (select 1 from gap g
			where g.lo < t.ts + t.dur and g.hi > t.ts)) and (t.state = 'running' or (select count(*) from ev_sched_waking k
			where k.target_pid = t.pid
			and k.ts >= coalesce((select max(e) from run r where r.pid = t.pid and r.e <= t.ts), 0)
			and k.ts < coalesce((select min(r.ts) from run r where r.pid = t.pid
				and r.ts >= t.ts + t.dur), 9223372036854775807)) < 2
		and t.state <> 'new' and not (t.state = 'runnable' and exists (select 1 from t n
			where n.pid = t.pid and n.state = 'new' and n.ts + n.dur = t.ts)))" |
		LC_ALL=C sort > "$2.state"
}
views "$new" "$TMPDIR_TEST/want"
inline=$(q "$new" "select count(*) from ev_sched_switch where slice_dur is not null")
extra=$(q "$new" "select count(*) from dv_sched")
waits=$(q "$new" "select (select count(latency) from ev_sched_waking) +
	(select count(latency) from ev_sched_wakeup) + (select count(latency) from ev_sched_wakeup_new)")
check_true "an import stores ordinary slices on the switch that began them" "> 0" "$inline" test "$inline" -gt 0
check_true "... and the others (lost, open at the end) in dv_sched" "> 0" "$extra" test "$extra" -gt 0
check_true "... and wakeup latencies on the waking that began them" "> 0" "$waits" test "$waits" -gt 0
check_eq "... as many as wakeup_latency has rows" "$waits" "$(q "$new" "select count(*) from wakeup_latency")"
check_eq "... and no dv_wakeup_latency rows" 0 "$(q "$new" "select count(*) from dv_wakeup_latency")"

# The schema-3 database.
cat "$SRCDIR"/schema/00[123]-*.sql > "$TMPDIR_TEST/old.sql"
echo "PRAGMA user_version = 3;" >> "$TMPDIR_TEST/old.sql"
sqlite3 -batch "$old" < "$TMPDIR_TEST/old.sql"
{
	echo "ATTACH '$new' AS n; BEGIN;"
	for t in $(q "$old" "select name from sqlite_schema where type = 'table' and name not like 'sqlite_%'"); do
		cols=$(q "$old" "select group_concat(name, ',') from pragma_table_info('$t')")
		echo "INSERT INTO main.$t ($cols) SELECT $cols FROM n.$t;"
	done
	echo "INSERT INTO main.dv_sched SELECT ts, slice_dur, cpu, next_hid,
		next_prio, slice_state, 0
		FROM n.ev_sched_switch WHERE slice_dur IS NOT NULL;"
	for t in ev_sched_waking ev_sched_wakeup ev_sched_wakeup_new; do
		echo "INSERT INTO main.dv_wakeup_latency SELECT ts, run_cpu, run_hid,
			latency, hid FROM n.$t WHERE latency IS NOT NULL;"
	done
	echo "COMMIT;"
} | sqlite3 -batch "$old"
check_eq "the old database is at schema 3" 3 "$(q "$old" "pragma user_version")"
views "$old" "$TMPDIR_TEST/before"
# (Not thread_state: schema 6 corrected it for a loss found at a
# switch-out's own record; after the migration it reads as now, below.)
for v in sched wakeup; do
	expect_same "schema 3's $v view reads the import's rows (the old database is right)" \
		"$TMPDIR_TEST/want.$v" "$TMPDIR_TEST/before.$v"
done

# commd opens it: migration, then a short capture that adds no switch.
"$COMMD" --foreground --db "$old" --instance "$INSTANCE" --socket none \
	--events sched:sched_process_exec 2> "$TMPDIR_TEST/commd.err" &
pid=$!
for _ in $(seq 100); do
	grep -q "capturing into" "$TMPDIR_TEST/commd.err" && break
	kill -0 "$pid" 2> /dev/null || break
	sleep 0.1
done
sleep 0.5
kill -TERM "$pid" 2> /dev/null || true
rc=0
wait "$pid" || rc=$?
pid=
check_eq "commd on the old database exits 0 at SIGTERM" 0 "$rc" ||
	log "commd stderr: $(tail -c 2000 "$TMPDIR_TEST/commd.err")"
schemas=$(ls "$SRCDIR"/schema/[0-9][0-9][0-9]-*.sql | wc -l)
check_eq "migrated to the last schema" "$schemas" "$(q "$old" "pragma user_version")"
check_eq "the capture continued the database (a second capture row)" 2 \
	"$(q "$old" "select count(*) from capture")"
check_match "the live capture's clock and buffer (capture.clock|buffer)" \
	"^(mono|local)\|$INSTANCE\$" "$(q "$old" "select clock || '|' || buffer from capture where id = 2")"
views "$old" "$TMPDIR_TEST/after"
for v in sched wakeup state; do
	expect_same "after the migration, $v reads as before" \
		"$TMPDIR_TEST/want.$v" "$TMPDIR_TEST/after.$v"
done
# Schema 8: each comm_history row's lifetime (life) computed from the
# rows, the same lifetimes the import writes; the parent is not known.
n=$(q "$new" "select max(id) from comm_history")
lives="select pid, start_ts, comm, dense_rank() over (partition by pid order by life)
	from comm_history where id <= $n order by pid, start_ts, id"
q "$new" "$lives" > "$TMPDIR_TEST/lives.new"
q "$old" "$lives" > "$TMPDIR_TEST/lives.old"
expect_same "after the migration, comm_history.life gives the import's lifetimes" \
	"$TMPDIR_TEST/lives.new" "$TMPDIR_TEST/lives.old"
check_eq "... and no parent (the forks are not read again)" 0 \
	"$(q "$old" "select count(parent) from comm_history where id <= $n")"
COMMQ=${COMMQ:-$(dirname "$COMMD")/commq}
"$COMMQ" -q --db "$new" -csv top --by process > "$TMPDIR_TEST/top.new"
"$COMMQ" -q --db "$old" -csv top --by process > "$TMPDIR_TEST/top.old"
expect_same "after the migration, top --by process reads as the import's" \
	"$TMPDIR_TEST/top.new" "$TMPDIR_TEST/top.old"
# Schema 024: a switch's next_pid right after its key (a task's switches
# are found by a scan that tests it on every row).
check_eq "next_pid is ev_sched_switch's 4th column (schema 024)" 3 \
	"$(q "$old" "select cid from pragma_table_info('ev_sched_switch') where name = 'next_pid'")"
check_eq "integrity_check after the migration" ok "$(q "$old" "pragma integrity_check")"
# A new database gets at once what the schema files leave (the snapshot
# cmake/schema-snapshot.c takes of them at build time): the same objects,
# each with the same SQL, as the files applied one by one in the sqlite3
# shell, and as this migrated database.
objects="select type, name, tbl_name, sql from sqlite_master order by type, name"
{ echo "BEGIN;"; cat "$SRCDIR"/schema/[0-9][0-9][0-9]-*.sql; echo "COMMIT;"; } |
	sqlite3 -batch "$TMPDIR_TEST/files.db"
q "$TMPDIR_TEST/files.db" "$objects" > "$TMPDIR_TEST/objects.files"
q "$new" "$objects" > "$TMPDIR_TEST/objects.new"
q "$old" "$objects" > "$TMPDIR_TEST/objects.old"
check_eq "the schema files make objects" 1 "$(($(wc -l < "$TMPDIR_TEST/objects.files") > 50))"
expect_same "a new database's schema is the files' applied in order" \
	"$TMPDIR_TEST/objects.files" "$TMPDIR_TEST/objects.new"
expect_same "a migrated database's schema is a new one's" \
	"$TMPDIR_TEST/objects.new" "$TMPDIR_TEST/objects.old"
check_eq "a new database is at the last schema" "$schemas" "$(q "$new" "pragma user_version")"
finish
