#!/usr/bin/env bash
# import-progress.sh - progress output goes to stderr only when it is a tty
# (or with --progress), and never when it is not (or with --no-progress).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dat=$TESTDATA/sched-drops.dat
[ -f "$dat" ] || abort "fixture" "$dat" "missing"
out=$TMPDIR_TEST/out.db
want=$("$TRACECMD_COUNTS" "$dat" | awk '$1 == "TOTAL_RECORDS" { print $2 }')

# imported LABEL: the run produced the whole database.
imported() {
	local got
	got=$(total_event_rows "$out" 2>&1 || true)
	check_eq "$1: event rows in OUT" "$want" "$got" || true
	rm -f "$out"
}

# 1. stderr a regular file: nothing on stderr or stdout.
rc=0
"$COMMD" import "$dat" -o "$out" > "$TMPDIR_TEST/o1" 2> "$TMPDIR_TEST/e1" || rc=$?
check_eq "stderr redirected to a file: exit status" 0 "$rc" || true
check_eq "stderr redirected to a file: stderr" "" "$(cat -v "$TMPDIR_TEST/e1")" || true
check_eq "stderr redirected to a file: stdout" "" "$(cat -v "$TMPDIR_TEST/o1")" || true
imported "stderr redirected to a file"

# 2. a tty (util-linux script): a progress line with a percentage and a rate.
rc=0
script -qec "$(printf '%q ' "$COMMD" import "$dat" -o "$out")" /dev/null \
	> "$TMPDIR_TEST/tty" 2>&1 < /dev/null || rc=$?
check_eq "on a tty: exit status" 0 "$rc" || true
tty_out=$(cat -v "$TMPDIR_TEST/tty")
CHECKS=$((CHECKS + 1))
case $tty_out in
*%*events/s*) ;;
*) fail "on a tty: progress output" "a '%' and 'events/s'" "'$tty_out'" ;;
esac
CHECKS=$((CHECKS + 1))
case $tty_out in
*100.0%*) ;;
*) fail "on a tty: progress ends at 100%" "'100.0%'" "'$tty_out'" ;;
esac
# the last progress line is terminated, so the shell prompt does not land on it
last=$(tail -c 1 "$TMPDIR_TEST/tty" | od -An -c | tr -d ' ')
check_eq "on a tty: output ends with a newline" '\n' "$last" || true
imported "on a tty"

# 3. a tty with --no-progress: silent.
rc=0
script -qec "$(printf '%q ' "$COMMD" import "$dat" -o "$out" --no-progress)" /dev/null \
	> "$TMPDIR_TEST/tty2" 2>&1 < /dev/null || rc=$?
check_eq "on a tty with --no-progress: exit status" 0 "$rc" || true
check_eq "on a tty with --no-progress: output" "" "$(cat -v "$TMPDIR_TEST/tty2")" || true
imported "on a tty with --no-progress"

# 4. --progress with stderr a file: progress on stderr, stdout clean.
rc=0
"$COMMD" import "$dat" -o "$out" --progress > "$TMPDIR_TEST/o4" 2> "$TMPDIR_TEST/e4" || rc=$?
check_eq "--progress, stderr a file: exit status" 0 "$rc" || true
e4=$(cat -v "$TMPDIR_TEST/e4")
CHECKS=$((CHECKS + 1))
case $e4 in
*%*events/s*) ;;
*) fail "--progress, stderr a file: stderr" "a '%' and 'events/s'" "'$e4'" ;;
esac
check_eq "--progress, stderr a file: stdout" "" "$(cat -v "$TMPDIR_TEST/o4")" || true
imported "--progress, stderr a file"

finish
