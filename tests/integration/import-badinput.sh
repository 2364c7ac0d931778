#!/usr/bin/env bash
# import-badinput.sh - bad, foreign and truncated trace.dat files: commd ends
# with exit 0 and a sound database only when it can honestly import the file,
# otherwise exit 1 with one stderr line naming the file; never a signal,
# never a leftover output or temporary file. Existing output files are
# refused without --force and replaced with it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

W=$TMPDIR_TEST/work
mkdir -p "$W"
TIMEOUT=120

# run_import LABEL INPUT OUT [ARGS...]: sets RC and ERR (stderr text).
run_import() {
	local label=$1 in=$2 out=$3
	shift 3
	RC=0
	timeout "$TIMEOUT" "$COMMD" import "$in" -o "$out" "$@" \
		> "$TMPDIR_TEST/run.out" 2> "$TMPDIR_TEST/run.err" || RC=$?
	ERR=$(cat "$TMPDIR_TEST/run.err")
	CHECKS=$((CHECKS + 1))
	if [ "$RC" -eq 124 ]; then
		fail "$label: commd import finishes within ${TIMEOUT}s" "exit 0 or 1" "timed out"
	elif [ "$RC" -gt 128 ]; then
		fail "$label: commd import is not killed by a signal" "exit 0 or 1" \
			"exit $RC (signal $((RC - 128))), stderr: $ERR"
	fi
}

# leftovers DIR OUTNAME: files in DIR named OUTNAME or OUTNAME.* / -*
leftovers() {
	local f
	for f in "$1/$2" "$1/$2".* "$1/$2"-*; do
		[ -e "$f" ] && printf '%s ' "${f##*/}"
	done
	return 0
}

# expect_refused LABEL INPUT_SHOWN_IN_MESSAGE: after run_import, exit 1 and
# exactly one stderr line naming the file.
expect_refused() {
	local label=$1 name=$2
	check_eq "$label: exit status" 1 "$RC" || true
	local lines
	lines=$(printf '%s' "$ERR" | grep -c '' || true)
	check_eq "$label: stderr line count" 1 "$lines" || echo "    stderr: $ERR" >&2
	CHECKS=$((CHECKS + 1))
	case $ERR in
	*"$name"*) ;;
	*) fail "$label: stderr names the file" "a line containing '$name'" "'$ERR'" ;;
	esac
}

# db_sound LABEL DB: integrity_check ok.
db_sound() {
	local got
	got=$(sqlite3 -readonly "$2" "pragma integrity_check" 2>&1 || true)
	check_eq "$1: PRAGMA integrity_check" ok "$got" || true
}

# bad_case LABEL FILE: a file that cannot be a trace: must be refused.
bad_case() {
	local label=$1 in=$2 d
	d=$(mktemp -d "$W/case.XXXXXX")
	run_import "$label" "$in" "$d/OUT.db"
	expect_refused "$label" "$in"
	check_eq "$label: files left in the output directory" "" "$(leftovers "$d" OUT.db)" || true
}

# --- files that are no trace.dat at all ---------------------------------
bad_case "missing file" "$W/does-not-exist.dat"
: > "$W/empty.dat"
bad_case "empty file" "$W/empty.dat"
printf 'this is not a trace\njust some text\n' > "$W/text.dat"
bad_case "text file" "$W/text.dat"
for v in 6 7; do
	# the right magic and version string, then garbage (fixed seed)
	{ printf '\027\010\104tracing%s\0' "$v"; head -c 8192 /dev/zero | tr '\0' '\245'; } > "$W/magic-v$v-a5.dat"
	bad_case "magic v$v + 0xa5 bytes" "$W/magic-v$v-a5.dat"
	{ printf '\027\010\104tracing%s\0' "$v"; openssl enc -aes-128-ctr -nosalt -pass pass:commd$v -in /dev/zero 2>/dev/null | head -c 8192 || head -c 8192 /dev/urandom; } > "$W/magic-v$v-rand.dat"
	bad_case "magic v$v + pseudo-random bytes" "$W/magic-v$v-rand.dat"
done
mkdir "$W/a-directory.dat"
bad_case "a directory" "$W/a-directory.dat"

# --- the parsing child drops root before it reads a byte of the file ------
if [ "$(id -u)" = 0 ]; then
	command -v strace > /dev/null || abort "strace in PATH" "found" "missing"
	d=$(mktemp -d "$W/case.XXXXXX")
	strace -f -o "$d/st" -e trace=openat,setuid,pread64,read \
		"$COMMD" import --no-progress "$TESTDATA/sched-v7.dat" -o "$d/OUT.db" > /dev/null 2>&1 || true
	# the fds the file got (it is opened more than once), then: no read
	# of any of them before setuid(nobody)
	order=$(awk '/openat\(.*sched-v7\.dat/ { split($0, a, "= "); fds[a[2] + 0] = 1 }
		/setuid\(65534\) += 0/ && !dropped { dropped = 1; print "drop" }
		match($2, "^(pread64|read)\\([0-9]+,") && !seen {
			f = substr($2, index($2, "(") + 1) + 0
			if (f in fds) { seen = 1; print "read" } }' "$d/st" | tr '\n' ' ')
	check_eq "commd import: the parsing child becomes nobody before it reads the file" \
		"drop read " "$order" || true
	db_sound "commd import as nobody" "$d/OUT.db"
fi

# --- a real header with one field made impossible: a clear word each ------
# (sched-v7.dat: magic, "7\0", endianness at 12, long size at 13, the page
# size at 14..17; a page size of 0 once made the parser die of SIGFPE)
# patched NAME OFFSET HEX-BYTES...: a copy of sched-v7.dat with bytes set.
patched() {
	local out=$W/$1.dat off=$2
	shift 2
	cp "$TESTDATA/sched-v7.dat" "$out"
	printf "$(printf '\\x%s' "$@")" | dd of="$out" bs=1 seek="$off" conv=notrunc status=none
	printf '%s\n' "$out"
}
header_case() {	# LABEL FILE PATTERN
	bad_case "$1" "$2"
	CHECKS=$((CHECKS + 1))
	grep -Eq -- "$3" <<< "$ERR" || fail "$1: says what is wrong" "$3" "$ERR"
}
header_case "page size 0" "$(patched page0 14 00 00 00 00)" "bad page size 0 \(offset 14\)"
header_case "page size 3" "$(patched page3 14 03 00 00 00)" "bad page size 3 \(offset 14\)"
header_case "endianness byte 2" "$(patched endian2 12 02)" "bad endianness byte 2 \(offset 12\)"
header_case "long size 3" "$(patched long3 13 03)" "unsupported long size 3 \(offset 13\)"

# --- truncated copies of real fixtures ----------------------------------
SUMMARY=()
for fx in sched-v7 sched-v6; do
	src=$TESTDATA/$fx.dat
	[ -f "$src" ] || { fail "fixture $fx.dat" "present" "missing"; continue; }
	size=$(stat -c %s "$src")
	full=$("$TRACECMD_COUNTS" "$src" | awk '$1 == "TOTAL_RECORDS" { print $2 }')
	for n in 100 $((size / 3)) $((size * 2 / 3)) $((size - 100)); do
		label="$fx.dat truncated to $n of $size bytes"
		d=$(mktemp -d "$W/case.XXXXXX")
		in=$d/$fx-trunc-$n.dat
		head -c "$n" "$src" > "$in"
		run_import "$label" "$in" "$d/OUT.db"
		if [ "$RC" -eq 0 ]; then
			db_sound "$label" "$d/OUT.db"
			rows=$(total_event_rows "$d/OUT.db")
			# honest: exactly what trace-cmd itself reads from this file
			tc=$("$TRACECMD_COUNTS" "$in" 2>/dev/null | awk '$1 == "TOTAL_RECORDS" { print $2 }' || true)
			check_eq "$label: imported rows = trace-cmd report records of the truncated file" \
				"${tc:-trace-cmd cannot read it}" "$rows" || true
			check_eq "$label: files left beside OUT.db" "OUT.db " "$(leftovers "$d" OUT.db)" || true
			if [ "$rows" -lt "$full" ]; then
				SUMMARY+=("$label: exit 0 with FEWER events ($rows of $full) -- FLAG")
			else
				SUMMARY+=("$label: exit 0, all $rows of $full events (trace-cmd reads it too)")
			fi
		else
			expect_refused "$label" "$in"
			check_eq "$label: files left in the output directory" "" "$(leftovers "$d" OUT.db)" || true
			SUMMARY+=("$label: exit $RC: ${ERR//$d\//}")
		fi
	done
done

# --- an existing output -------------------------------------------------
d=$(mktemp -d "$W/case.XXXXXX")
printf 'precious\n' > "$d/OUT.db"
before=$(sha256sum < "$d/OUT.db")
run_import "existing OUT without --force" "$TESTDATA/sched-v7.dat" "$d/OUT.db"
expect_refused "existing OUT without --force" "$d/OUT.db"
check_eq "existing OUT without --force: OUT checksum" "$before" "$(sha256sum < "$d/OUT.db")" || true
check_eq "existing OUT without --force: files in the output directory" "OUT.db " "$(leftovers "$d" OUT.db)" || true

run_import "existing OUT, --force, bad input" "$W/text.dat" "$d/OUT.db" --force
expect_refused "existing OUT, --force, bad input" "$W/text.dat"
check_eq "existing OUT, --force, bad input: OUT checksum (nothing lost)" "$before" "$(sha256sum < "$d/OUT.db")" || true
check_eq "existing OUT, --force, bad input: files in the output directory" "OUT.db " "$(leftovers "$d" OUT.db)" || true

run_import "existing OUT with --force" "$TESTDATA/sched-v7.dat" "$d/OUT.db" --force
check_eq "existing OUT with --force: exit status" 0 "$RC" || echo "    stderr: $ERR" >&2
check_eq "existing OUT with --force: stderr" "" "$ERR" || true
CHECKS=$((CHECKS + 1))
[ "$before" != "$(sha256sum < "$d/OUT.db")" ] ||
	fail "existing OUT with --force: OUT replaced" "a new checksum" "unchanged"
db_sound "existing OUT with --force" "$d/OUT.db"
got=$(total_event_rows "$d/OUT.db" 2>&1 || true)
want_rows=$("$TRACECMD_COUNTS" "$TESTDATA/sched-v7.dat" | awk '$1 == "TOTAL_RECORDS" { print $2 }')
check_eq "existing OUT with --force: event rows" "$want_rows" "$got" || true
check_eq "existing OUT with --force: files in the output directory" "OUT.db " "$(leftovers "$d" OUT.db)" || true

log "truncations:"
for s in "${SUMMARY[@]}"; do log "  $s"; done
finish
