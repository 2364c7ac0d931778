#!/bin/bash
# mutate-tracedat.sh — untrusted trace.dat never takes `commd import`
# down. Mutants of the real fixtures (tests/data/*.dat), made by
# tracedat-mutate (bit flips, truncations, swapped/copied/duplicated 4 KiB
# blocks, huge or wrong values in the size, count and offset fields of the
# v6/v7 layout) with a fixed seed, are imported one by one. Every run must
# end with
#   exit 0: the database is there and passes PRAGMA integrity_check, and
#           whatever stderr has is commd's warnings naming the file (a
#           damaged file may give two: records not stored, and a CPU's
#           records fewer than its CPU stats say), or
#   exit 1: exactly one line on stderr, naming the file; no database and
#           no temporary file left,
# and never by a signal or a hang (TIMEOUT s each). Stdout stays empty.
#
# Env: COMMD, MUTATE (the tracedat-mutate binary), TESTDATA; SEED
# (default 20261129) and PER_FILE (mutants per fixture, 60: 300 in all).
set -uo pipefail
: "${COMMD:?}" "${MUTATE:?}" "${TESTDATA:?}"
SEED=${SEED:-20261129}
PER_FILE=${PER_FILE:-60}
TIMEOUT=${TIMEOUT:-60}
command -v sqlite3 >/dev/null || { echo "mutate-tracedat: no sqlite3 shell; skipped"; exit 77; }

tmp=$(mktemp -d /tmp/commd-mutate.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0 ok=0 rejected=0 n=0
declare -A reasons

fail() {
	fails=$((fails + 1))
	echo "FAIL [$1] $2: $3 ($4)"
	[ -s "$tmp/err" ] && sed 's/^/    stderr: /' "$tmp/err" | head -n 5
	cp "$5" "$tmp/../commd-mutate-failed-$1-$(basename "$2")" 2>/dev/null &&
		echo "    kept as /tmp/commd-mutate-failed-$1-$(basename "$2")"
}

run_one() {	# fixture index
	local fixture=$1 idx=$2 name mut out what rc lines
	name=$(basename "$fixture" .dat)
	mut="$tmp/$name-m$idx.dat"
	out="$tmp/out/$name-m$idx.db"
	mkdir -p "$tmp/out"
	what=$("$MUTATE" "$fixture" "$mut" "$SEED" "$idx") || {
		echo "FAIL: tracedat-mutate $fixture $idx"; fails=$((fails + 1)); return; }
	timeout -s KILL "$TIMEOUT" "$COMMD" import "$mut" -o "$out" \
		> "$tmp/outp" 2> "$tmp/err"
	rc=$?
	n=$((n + 1))
	lines=$(wc -l < "$tmp/err")
	if [ $rc -eq 137 ]; then
		fail "$idx" "$mut" "hung (killed after ${TIMEOUT} s)" "$what" "$mut"
	elif [ $rc -gt 1 ]; then
		fail "$idx" "$mut" "exit status $rc" "$what" "$mut"
	elif [ -s "$tmp/outp" ]; then
		fail "$idx" "$mut" "wrote to stdout" "$what" "$mut"
	elif ls "$tmp/out" | grep -q '\.tmp-'; then
		fail "$idx" "$mut" "left a temporary file: $(ls "$tmp/out")" "$what" "$mut"
	elif [ $rc -eq 1 ]; then
		if [ -e "$out" ]; then
			fail "$idx" "$mut" "failed but left $out" "$what" "$mut"
		elif [ "$lines" -ne 1 ] || ! grep -qF "$mut" "$tmp/err"; then
			fail "$idx" "$mut" "stderr is not one line naming the file ($lines lines)" "$what" "$mut"
		else
			rejected=$((rejected + 1))
			# The reason, without the path: how the rejections spread.
			local r
			r=$(sed -e "s|$mut: ||" -e 's/ at offset [0-9]*//' -e 's/[0-9]\{3,\}/N/g' "$tmp/err" | cut -c1-90)
			reasons[$r]=$(( ${reasons[$r]:-0} + 1 ))
		fi
	else
		local check
		check=$(sqlite3 "$out" "PRAGMA integrity_check" 2>&1)
		if [ ! -s "$out" ]; then
			fail "$idx" "$mut" "exit 0 without a database" "$what" "$mut"
		elif [ "$check" != ok ]; then
			fail "$idx" "$mut" "integrity_check: $check" "$what" "$mut"
		elif [ "$lines" -gt 0 ] && grep -qvF "commd: $mut: " "$tmp/err"; then
			fail "$idx" "$mut" "exit 0 with stderr noise ($lines lines)" "$what" "$mut"
		else
			ok=$((ok + 1))
		fi
	fi
	rm -f "$mut" "$out"
}

start=$(date +%s)
for fixture in "$TESTDATA"/*.dat; do
	for ((i = 0; i < PER_FILE; i++)); do
		run_one "$fixture" "$i"
	done
done
echo "mutate-tracedat: $n mutants (seed $SEED) in $(( $(date +%s) - start )) s:" \
	"$ok imported, $rejected rejected cleanly, $fails failed"
for r in "${!reasons[@]}"; do
	printf '  %4d  %s\n' "${reasons[$r]}" "$r"
done | sort -rn
[ $fails -eq 0 ]
