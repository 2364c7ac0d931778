#!/usr/bin/env bash
# import-json.sh - the fields of events without a table of their own
# (`events.fields`, JSON) hold what the kernel wrote, as trace-cmd report
# shows it (import-json.py compares record by record): an array declared
# without a size (ftrace print's `char buf[]`, what trace_marker got) to
# the record's end, UTF-8 text as it is and only the bytes that are not
# text escaped, a stack trace (kernel_stack, declared `caller[8]`) as many
# frames as the kernel wrote, fewer or more than 8, and an object of any
# size (a 2000-byte marker of control bytes is 12 KB of JSON).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dat=$TESTDATA/cases/json-fields.dat
db=$TMPDIR_TEST/json.db
import_ok "$dat" "$db" || finish

out=$(python3 "$INTEG_DIR/import-json.py" "$dat" "$db" 2>&1) || true
check_eq "events.fields vs trace-cmd report: records that differ" 0 \
	"$(grep -c '^MISMATCH' <<< "$out" || true)" || grep '^MISMATCH' <<< "$out" | cut -c1-400 >&2
n=$(sed -n 's/^CHECKED //p' <<< "$out")
check_eq "records compared (print 5, kernel_stack 7, signal_generate 4)" 16 "$n" ||
	echo "    import-json.py said: $(head -c 1000 <<< "$out")" >&2

check_eq "events.fields rows that are not valid JSON" 0 \
	"$(q "$db" "select count(*) from events where not json_valid(fields)")" || true
# Valid UTF-8 is stored as the bytes it is, not as \u escapes.
check_eq "print rows with the UTF-8 marker as raw bytes" 1 \
	"$(q "$db" "select count(*) from events where name = 'print' and instr(fields, 'café über €') > 0")" || true
check_eq "signal_generate comm of the task renamed ünïcødé-comm (15 bytes)" "ünïcødé-com" \
	"$(q "$db" "select json_extract(fields, '\$.comm') from events where name = 'signal_generate' and json_extract(fields, '\$.sig') = 18")" || true
# signal_generate's comm and pid are the target task's (its task->comm):
# the first to show the new name names it from there (no task_rename was
# recorded); the build before kept sh.
check_eq "comm_history of the task signal_generate shows renamed (name, start)" \
	"sh|ünïcødé-com|$(q "$db" "select ts from events where name = 'signal_generate' and json_extract(fields, '\$.sig') = 18")" \
	"$(q "$db" "select group_concat(comm, '|') || '|' || max(start_ts) from (select comm, start_ts from comm_history
		where pid = (select json_extract(fields, '\$.pid') from events where name = 'signal_generate'
			     and json_extract(fields, '\$.sig') = 18) order by start_ts)")" || true
check_eq "kernel_stack rows whose caller[] length is not their size field" 0 \
	"$(q "$db" "select count(*) from events where name = 'kernel_stack' and json_array_length(fields, '\$.caller') is not json_extract(fields, '\$.size')")" || true
check_eq "the 2000 control bytes marker, whole" 2000 \
	"$(q "$db" "select max(length(json_extract(fields, '\$.buf'))) - 1 from events where name = 'print'")" || true

# Bytes that are not text: trace_marker_raw's payloads (ftrace raw_data,
# `char buf[]`, which its format prints only as (int)REC->buf[0]) are a
# JSON array of every byte, NULs included, as trace-cmd report prints them
# ("# ID BYTES..."); a marker text with a NUL inside is bytes too, where
# trace-cmd report shows it cut at the NUL.
raw=$TESTDATA/cases/raw-marker.dat
rdb=$TMPDIR_TEST/raw.db
if import_ok "$raw" "$rdb"; then
	want=$(trace-cmd report -t -i "$raw" 2> /dev/null |
		sed -n 's/.* raw_data: *# *\([0-9a-f]*\)\(.*\)$/\1\2/p' | sed 's/ *$//')
	got=$(python3 -c '
import json, sqlite3, sys
con = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for (f,) in con.execute("select fields from events where name = \"raw_data\" order by ts"):
    f = json.loads(f)
    print(" ".join(["%x" % f["id"]] + ["%02x" % b for b in f["buf"]]))
' "$rdb" 2>&1)
	check_eq "raw-marker.dat: raw_data id and bytes vs trace-cmd report" "$want" "$got" || true
	check_eq "raw-marker.dat: raw_data records" 6 "$(grep -c '' <<< "$want")" || true
	check_eq "raw-marker.dat: marker texts: whole, and with a NUL inside as bytes" \
		"\"text marker\\n\"|[0,110,117,108,32,102,105,114,115,116,10,0]|[105,110,0,115,105,100,101,10,0,0,0,0]" \
		"$(q "$rdb" "select group_concat(json_quote(json_extract(fields, '\$.buf')), '|') from (select fields from events where name = 'print' order by ts)")" || true
fi
finish
