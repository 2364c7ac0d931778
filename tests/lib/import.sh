# shellcheck shell=bash
# import.sh - helpers of the tests that import the trace.dat fixtures
# (tests/integration, tests/derived): source it after check.sh.
#
# Needs COMMD, TESTDATA and TMPDIR_TEST (the test's scratch directory).

# fixtures: every tests/data/*.dat, one a line (none: the test fails).
fixtures() {
	local f found=0
	for f in "$TESTDATA"/*.dat; do
		[ -e "$f" ] || continue
		found=1
		printf '%s\n' "$f"
	done
	[ "$found" = 1 ] || abort "fixtures in $TESTDATA" "at least one *.dat" "none"
}

# import_ok DAT DB [OPTION...]: import (with the extra options), recording
# a failure (with stderr) if it fails. Returns non-zero when there is no
# database to check.
import_ok() {
	local dat=$1 db=$2 rc=0
	shift 2
	"$COMMD" import "$dat" -o "$db" --force --no-progress "$@" \
		2> "$TMPDIR_TEST/import.err" || rc=$?
	CHECKS=$((CHECKS + 1))
	if [ "$rc" -ne 0 ] || [ ! -f "$db" ]; then
		fail "commd import $(basename "$dat")" "exit 0 and $db created" \
			"exit $rc, stderr: $(head -c 2000 "$TMPDIR_TEST/import.err")"
		return 1
	fi
	return 0
}
