#!/usr/bin/env bash
# import-no-derived.sh - `commd import --no-derived` leaves the derived
# tables (sched, wakeup_latency) and the switches' latencies empty, and
# nothing else: the names are told partly by the derivations (who runs
# where tells a thread's exec; a slice's end dates a dead task's last
# run), so every fixture's comm_history, its process and thread views and
# every event view must be the same as the default import's, row for row.
# (Before the derivations ran under --no-derived, 9 of the fixtures gave
# other comm_history rows: a thread's exec ended its tid 0.87 ms late and
# called the swap a task_rename.)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The columns the option leaves empty by design.
derived_cols="'latency', 'wake_latency', 'slice_dur', 'slice_state'"

for dat in "$TESTDATA"/*.dat "$TESTDATA"/cases/*.dat; do
	f=$(basename "$dat" .dat)
	opt=()
	# files with more than one buffer import one at a time
	case $f in instance-names|two-buffers) opt=(--buffer all) ;; esac
	import_ok "$dat" "$TMPDIR_TEST/$f.db" "${opt[@]}" || continue
	import_ok "$dat" "$TMPDIR_TEST/$f-nd.db" "${opt[@]}" --no-derived || continue
	a=$TMPDIR_TEST/$f.db
	b=$TMPDIR_TEST/$f-nd.db
	check_eq "$f --no-derived: sched and wakeup_latency rows" "0|0" \
		"$(q "$b" "select (select count(*) from sched), (select count(*) from wakeup_latency)")" || true
	for v in comm_history cgroup_history process thread process_comm events "${VIEWS[@]}"; do
		cols=$(q "$a" "select group_concat(name, ', ') from pragma_table_info('$v')
			where name not in ($derived_cols)")
		sql="select $cols from $v order by $cols"
		check_eq "$f: $v with --no-derived as without (rows, a digest)" \
			"$(q "$a" "$sql" | wc -l) $(q "$a" "$sql" | md5sum)" \
			"$(q "$b" "$sql" | wc -l) $(q "$b" "$sql" | md5sum)" || true
	done
done
finish
