#!/usr/bin/env bash
# import-trigger.sh - records commd cannot decode are counted and said, not
# dropped in silence. In cases/trigger-format.dat an event trigger on
# sched_switch enabled sched_process_exit, whose format trace-cmd did not
# save (`trace-cmd report` prints those records as [UNKNOWN EVENT]):
#
#  - the import succeeds and stores every sched_switch trace-cmd prints;
#  - stats' undecodable_records equals trace-cmd's [UNKNOWN EVENT] lines;
#  - the import warns once, with that count.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dat=$TESTDATA/cases/trigger-format.dat
db=$TMPDIR_TEST/trigger.db
report=$(trace-cmd report -t -i "$dat" 2> /dev/null)
unknown=$(grep -c 'UNKNOWN EVENT' <<< "$report" || true)
switches=$(grep -c ' sched_switch: ' <<< "$report" || true)
check_eq "trace-cmd report: [UNKNOWN EVENT] lines (the fixture has some)" yes \
	"$([ "$unknown" -gt 0 ] && echo yes || echo "no ($unknown)")" || true
if import_ok "$dat" "$db"; then
	check_eq "sched_switch rows against trace-cmd report's lines" "$switches" \
		"$(q "$db" "select count(*) from ev_sched_switch")" || true
	check_eq "stats undecodable_records against [UNKNOWN EVENT] lines" "$unknown" \
		"$(q "$db" "select value from stats where name = 'undecodable_records' and cpu is null")" || true
	check_eq "the import's warning" \
		"1 line with '$unknown records not stored'" \
		"$(grep -c "$unknown records not stored" "$TMPDIR_TEST/import.err") line with '$unknown records not stored'" || true
fi
finish
