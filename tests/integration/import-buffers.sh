#!/usr/bin/env bash
# import-buffers.sh - a trace.dat with several buffers (trace-cmd record
# -B A ... -B B ...) is not merged behind the user's back: with more than
# one buffer holding records, commd import refuses with one line naming
# them and the two ways on; --buffer NAME imports exactly that buffer's
# records (trace-cmd report's lines of that instance), --buffer all merges
# them (every line), a missing name is refused with the names there are.
# A file with one buffer holding records (the top one, or one instance
# only) imports without the option. capture.buffer and the
# buffer_records:NAME stats say what was read. Instances called top or
# all are instances/top and instances/all.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

two=$TESTDATA/cases/two-buffers.dat	# rb_a and rb_b (tests/data/README.md)
inst=$TESTDATA/cases/exec-fd.dat	# one instance, rb_fx
top=$TESTDATA/sched-v7.dat		# the top buffer only
for f in "$two" "$inst" "$top"; do
	[ -f "$f" ] || abort "fixture $f" "present" "missing"
done

# refused LABEL PATTERN ARGS...: exit 1, one stderr line matching the
# extended regex PATTERN, and no output left behind.
refused() {
	local label=$1 pattern=$2 rc=0 out=$TMPDIR_TEST/refused.db
	shift 2
	"$COMMD" import "$two" -o "$out" --no-progress "$@" 2> "$TMPDIR_TEST/err" || rc=$?
	check_eq "$label: exit status" 1 "$rc" || true
	check_eq "$label: stderr lines" 1 "$(grep -c '' "$TMPDIR_TEST/err" || true)" || true
	check_match "$label: the message" "$pattern" "$(cat "$TMPDIR_TEST/err")" || true
	check_eq "$label: no output file" no "$([ -e "$out" ] && echo yes || echo no)" || true
}

refused "two buffers with records, no --buffer" \
	"two-buffers.dat: 2 buffers have records \((rb_a, rb_b|rb_b, rb_a)\): import one with --buffer NAME, or merge them with --buffer all$"
refused "--buffer nosuch" \
	"two-buffers.dat: no buffer 'nosuch' in the file \(it has: top, (rb_a, rb_b|rb_b, rb_a)\)$" \
	--buffer nosuch

# report_records DAT BUFFER: trace-cmd report's records of that instance.
report_records() {
	"$TRACECMD_COUNTS" "$1" "$2" | awk '$1 == "TOTAL_RECORDS" { print $2 }'
}

for b in rb_a rb_b; do
	db=$TMPDIR_TEST/$b.db
	import_ok "$two" "$db" --buffer "$b" || continue
	check_counts "$two" "$db" "two-buffers.dat --buffer $b" "$b"
	check_eq "--buffer $b: capture.buffer" "$b" "$(q "$db" "select buffer from capture")" || true
	check_eq "--buffer $b: stats buffer_records:* (name|value)" \
		"buffer_records:$b|$(report_records "$two" "$b")" \
		"$(q "$db" "select name, value from stats where name like 'buffer_records:%'")" || true
	# One buffer's switches make one chain per CPU: no slice is cut short
	# by another buffer's copy of the same switch (none is lost: nothing
	# was dropped).
	check_eq "--buffer $b: sched slices flagged lost" 0 \
		"$(q "$db" "select count(*) from sched where lost <> 0")" || true
done

db=$TMPDIR_TEST/all.db
if import_ok "$two" "$db" --buffer all; then
	check_counts "$two" "$db" "two-buffers.dat --buffer all"
	check_match "--buffer all: capture.buffer (the buffers with records)" \
		'^(rb_a,rb_b|rb_b,rb_a)$' "$(q "$db" "select buffer from capture")" || true
	for b in rb_a rb_b; do
		check_eq "--buffer all: stats buffer_records:$b" "$(report_records "$two" "$b")" \
			"$(q "$db" "select value from stats where name = 'buffer_records:$b'")" || true
	done
fi

# A buffer without records (the top one, in a file recorded with -B only)
# imports as asked: no rows, and a warning saying so.
db=$TMPDIR_TEST/top.db
if import_ok "$two" "$db" --buffer top; then
	check_eq "--buffer top: event rows" 0 "$(total_event_rows "$db")" || true
	check_eq "--buffer top: stderr" "no events in buffer top" \
		"$(sed 's/^commd: .*two-buffers.dat: //' "$TMPDIR_TEST/import.err")" || true
	check_eq "--buffer top: capture.buffer, stats buffer_records:top" "top|0" \
		"$(q "$db" "select buffer, (select value from stats where name = 'buffer_records:top') from capture")" || true
fi

# Instances called top and all (trace-cmd record -B top ... -B all ...):
# those names are the top buffer's and the merge's, so commd calls them
# instances/top and instances/all, and --buffer takes those names (any
# instance's as instances/NAME); --buffer top is still the top buffer.
names=$TESTDATA/cases/instance-names.dat
rc=0
"$COMMD" import "$names" -o "$TMPDIR_TEST/names.db" --no-progress 2> "$TMPDIR_TEST/err" || rc=$?
check_eq "instance-names.dat, no --buffer: exit status" 1 "$rc" || true
check_match "instance-names.dat, no --buffer: the message" \
	"instance-names.dat: 2 buffers have records \((instances/all, instances/top|instances/top, instances/all)\): import one with --buffer NAME, or merge them with --buffer all$" \
	"$(cat "$TMPDIR_TEST/err")" || true
for b in top all; do
	db=$TMPDIR_TEST/names-$b.db
	import_ok "$names" "$db" --buffer "instances/$b" || continue
	check_counts "$names" "$db" "instance-names.dat --buffer instances/$b" "$b"
	check_eq "--buffer instances/$b: capture.buffer, stats buffer_records:instances/$b" \
		"instances/$b|$(report_records "$names" "$b")" \
		"$(q "$db" "select buffer, (select value from stats where name = 'buffer_records:instances/$b') from capture")" || true
done
rc=0
"$COMMD" import "$names" -o "$TMPDIR_TEST/names-rb.db" --no-progress --buffer instances/rb_none \
	2> "$TMPDIR_TEST/err" || rc=$?
check_eq "--buffer instances/rb_none: exit status" 1 "$rc" || true
check_match "--buffer instances/rb_none: the message" \
	"no buffer 'instances/rb_none' in the file \(it has: top, instances/(top, instances/all|all, instances/top)\)$" \
	"$(cat "$TMPDIR_TEST/err")" || true
db=$TMPDIR_TEST/names-top.db
if import_ok "$names" "$db" --buffer top; then
	check_eq "instance-names.dat --buffer top (the top buffer): event rows" 0 "$(total_event_rows "$db")" || true
fi
db=$TMPDIR_TEST/names-merge.db
if import_ok "$names" "$db" --buffer all; then
	check_counts "$names" "$db" "instance-names.dat --buffer all"
fi

# One buffer with records: imported without --buffer, as before.
for spec in "$inst rb_fx" "$top top"; do
	read -r f b <<< "$spec"
	db=$TMPDIR_TEST/one-$b.db
	import_ok "$f" "$db" || continue
	check_counts "$f" "$db" "$(basename "$f") (one buffer: $b)"
	check_eq "$(basename "$f"): capture.buffer" "$b" "$(q "$db" "select buffer from capture")" || true
done
finish
