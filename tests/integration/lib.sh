# lib.sh - shared helpers for the integration tests (source it, don't run it).
#
# Environment (from COMMD_TEST_ENV in tests/CMakeLists.txt):
#   COMMD, COMMQ  the built binaries
#   TESTDATA      tests/data
#   SRCDIR        the source tree
# Every helper that checks something records a failure with fail() and
# returns normally, so one run reports every mismatch; call finish() last.

: "${COMMD:?COMMD not set (run through ctest, or export COMMD=build/commd)}"
: "${TESTDATA:?TESTDATA not set}"
: "${SRCDIR:?SRCDIR not set}"

INTEG_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TRACECMD_COUNTS=$INTEG_DIR/tracecmd-counts.sh

# Events that have their own view (commd-tables(5));
# every other event is a row of `events` with name = the event name.
VIEWS=(sched_switch sched_wakeup sched_wakeup_new sched_waking
	sched_process_fork sched_process_exec sched_process_exit
	sched_process_free sched_migrate_task sched_stat_runtime
	task_rename task_newtask)

# TEST_NAME, the checks (log, fail, check_eq, abort, finish), FAILURES,
# CHECKS, the scratch directory $TMP and the EXIT trap that runs
# CLEANUP_HOOKS (callers may add to it) and removes $TMP.
# shellcheck source=../lib/check.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
TMPDIR_TEST=$TMP
# fixtures, import_ok
# shellcheck source=../lib/import.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/import.sh"
trap 'exit 130' INT TERM

# q DB SQL: one query through the sqlite3 shell (read-only), '|' separated.
q() {
	sqlite3 -readonly -batch -noheader "$1" "$2"
}



is_view() {
	local v
	for v in "${VIEWS[@]}"; do [ "$v" = "$1" ] && return 0; done
	return 1
}

# rows_for_event DB NAME: row count of the event's view, or of events rows.
rows_for_event() {
	if is_view "$2"; then
		q "$1" "select count(*) from $2"
	else
		q "$1" "select count(*) from events where name = '$2'"
	fi
}

# total_event_rows DB: rows of every event view plus `events`.
total_event_rows() {
	local v sql=""
	for v in "${VIEWS[@]}"; do
		sql+="(select count(*) from $v) + "
	done
	q "$1" "select $sql(select count(*) from events)"
}

# check_counts DAT DB [LABEL [BUFFER]]: the import-counts contract (test 1),
# used by import-counts.sh and import-live-record.sh; with BUFFER, against
# that instance's lines of trace-cmd report only. Sets, for the caller,
# DROPPED_LINES_SEEN and TOTAL_RECORDS_SEEN (trace-cmd's numbers).
check_counts() {
	local dat=$1 db=$2 label=${3:-$(basename "$1")} buffer=${4:-}
	local ref=$TMPDIR_TEST/ref.counts name n got
	local -A ref_n=()
	if ! "$TRACECMD_COUNTS" "$dat" ${buffer:+"$buffer"} > "$ref" 2> "$TMPDIR_TEST/ref.err"; then
		abort "$label: tracecmd-counts.sh" "exit 0" \
			"failure: $(head -c 2000 "$TMPDIR_TEST/ref.err")"
	fi
	while read -r name n; do
		case $name in
		DROPPED_LINES|DROPPED_EVENTS|DROPPED_UNKNOWN|TOTAL_RECORDS|UNPARSED_LINES)
			ref_n[$name]=$n ;;
		*)
			got=$(rows_for_event "$db" "$name")
			if is_view "$name"; then
				check_eq "$label: select count(*) from $name" "$n" "$got" || true
			else
				check_eq "$label: select count(*) from events where name='$name'" \
					"$n" "$got" || true
			fi ;;
		esac
	done < "$ref"
	check_eq "$label: trace-cmd report lines tracecmd-counts.sh could not parse" \
		0 "${ref_n[UNPARSED_LINES]}" || true

	got=$(total_event_rows "$db")
	check_eq "$label: rows over all event views + events (TOTAL_RECORDS)" \
		"${ref_n[TOTAL_RECORDS]}" "$got" || true

	got=$(q "$db" "select count(*) from lost_events")
	check_eq "$label: select count(*) from lost_events (DROPPED_LINES)" \
		"${ref_n[DROPPED_LINES]}" "$got" || true
	got=$(q "$db" "select coalesce(sum(count), 0) from lost_events")
	check_eq "$label: select sum(count) from lost_events (DROPPED_EVENTS)" \
		"${ref_n[DROPPED_EVENTS]}" "$got" || true
	got=$(q "$db" "select count(*) from lost_events where count is null")
	check_eq "$label: lost_events rows with count NULL (DROPPED_UNKNOWN)" \
		"${ref_n[DROPPED_UNKNOWN]}" "$got" || true
	got=$(q "$db" "select count(*) from lost_events where cpu is null or ts is null
		or typeof(cpu) <> 'integer' or typeof(ts) <> 'integer'")
	check_eq "$label: lost_events rows without an integer cpu and ts" 0 "$got" || true
	got=$(q "$db" "select count(*) from lost_events l where l.ts < (select start_ts from capture limit 1) or l.ts > (select end_ts from capture limit 1)")
	check_eq "$label: lost_events rows with ts outside capture start_ts..end_ts" 0 "$got" || true
	check_drop_windows "$dat" "$db" "$label" "$buffer"
	# shellcheck disable=SC2034
	DROPPED_LINES_SEEN=${ref_n[DROPPED_LINES]}
	# shellcheck disable=SC2034
	TOTAL_RECORDS_SEEN=${ref_n[TOTAL_RECORDS]}
}

# report_drops DAT [BUFFER]: from `trace-cmd report -t` (the lines of the
# instance BUFFER only, when given), one line per DROPPED line:
#   CPU COUNT|NULL LO HI
# LO/HI: ts (ns) of the last record before and the first record after the
# loss on that CPU (0 / none when there is none), the window the loss is in.
report_drops() {
	LC_ALL=C trace-cmd report -t -i "$1" 2>/dev/null |
	LC_ALL=C awk -v p="${2:-}: " 'p == ": " || index($0, p) == 1' | LC_ALL=C awk '
	function ns(t,   a, f) {
		split(t, a, "."); f = a[2]
		while (length(f) < 9) f = f "0"
		return a[1] f
	}
	/CPU:[0-9]+ \[([0-9]+ )?EVENTS DROPPED\]$/ {
		s = $0; sub(/.*CPU:/, "", s); c = s + 0
		n = "NULL"
		if (s ~ /\[[0-9]+ /) { sub(/^[0-9]+ \[/, "", s); n = s + 0 }
		if (c in pend_n) n = pend_n[c] SUBSEP n
		pend_n[c] = n
		pend_lo[c] = (c in last) ? last[c] : 0
		next
	}
	match($0, /-[0-9]+ +\[[0-9][0-9][0-9]+\] +[0-9]+\.[0-9]+: /) {
		m = substr($0, RSTART, RLENGTH)
		sub(/^-[0-9]+ +\[/, "", m); c = m + 0
		sub(/^[0-9]+\] +/, "", m); sub(/: $/, "", m)
		t = ns(m)
		if (c in pend_n) {
			k = split(pend_n[c], arr, SUBSEP)
			for (i = 1; i <= k; i++) print c, arr[i], pend_lo[c], t
			delete pend_n[c]
		}
		last[c] = t
	}
	END { for (c in pend_n) { k = split(pend_n[c], arr, SUBSEP)
		for (i = 1; i <= k; i++) print c, arr[i], pend_lo[c], "none" } }'
}

# check_drop_windows DAT DB LABEL [BUFFER]: every lost_events row matches a
# DROPPED line of trace-cmd report (of BUFFER's lines, when given): same
# cpu, same count, ts inside the window.
check_drop_windows() {
	local dat=$1 db=$2 label=$3 buffer=${4:-}
	local wantf=$TMPDIR_TEST/drops.want gotf=$TMPDIR_TEST/drops.got
	report_drops "$dat" "$buffer" | sort -k1,1n -k4,4n -s > "$wantf"
	q "$db" "select cpu, coalesce(count, 'NULL'), ts from lost_events
		order by cpu, ts" | tr '|' ' ' > "$gotf"
	local nw ng
	nw=$(wc -l < "$wantf"); ng=$(wc -l < "$gotf")
	check_eq "$label: lost_events rows vs trace-cmd DROPPED lines" "$nw" "$ng" || return 0
	local wc wn lo hi gc gn gt i=0
	exec 7< "$gotf"
	while read -r wc wn lo hi; do
		read -r gc gn gt <&7
		i=$((i + 1))
		CHECKS=$((CHECKS + 1))
		if [ "$wc" != "$gc" ] || [ "$wn" != "$gn" ] || [ "$gt" -lt "$lo" ] ||
		   { [ "$hi" != none ] && [ "$gt" -gt "$hi" ]; }; then
			fail "$label: lost_events row $i (by cpu, ts)" \
				"cpu=$wc count=$wn ts in [$lo, $hi]" \
				"cpu=$gc count=$gn ts=$gt"
		fi
	done < "$wantf"
	exec 7<&-
}
