#!/bin/bash
# terminal.sh — data cannot steer the terminal commq writes to (a comm name
# is any bytes a user sets): in every output mode, on a terminal (script(1)),
# no ESC, BEL, CR, DEL or C1 control (U+009B is CSI) from the data reaches
# it — control bytes show in caret notation (^[), C1 as \xHH, and JSON
# escapes them; piped, the bytes are exactly sqlite3's.
set -euo pipefail
# shellcheck source=tests/client/lib.sh
source "$(dirname "$0")/lib.sh"
if ! command -v script >/dev/null; then
	echo "SKIP: script(1) from util-linux is needed for a terminal" >&2
	exit 77
fi

sqlite3 "$DB" "create table hostile(comm text);
	insert into hostile values (char(27) || ']0;owned' || char(7) || char(27) || '[2J'
		|| char(13) || 'x' || char(127) || char(155) || '31m' || char(9) || 'tab');"
SQL="select comm, length(comm) as n from hostile"

for mode in -list -csv -column -line -json; do
	timeout 20 script -qec "$(printf '%q ' "$COMMQ" --db "$DB" "$mode" "$SQL")" /dev/null \
		>"$T/tty$mode" 2>&1 </dev/null || fail "commq $mode on a terminal: exit status"
	# script adds \r to every \n; the data's own CR must not survive
	tr -d '\n' <"$T/tty$mode" | sed 's/\r$//' >"$T/tty$mode.flat"
	bad=$(LC_ALL=C tr -d '\n' <"$T/tty$mode" | LC_ALL=C sed 's/\r$//; s/\r\n//g' |
		LC_ALL=C grep -c $'[\x1b\x07\x7f]\|\xc2\x9b' || true)
	expect_eq "commq $mode on a terminal: ESC, BEL, DEL or CSI from the data" 0 "$bad"
	cr=$(LC_ALL=C od -An -c "$T/tty$mode" | tr -s ' ' | grep -o '\\r [^\\]' | grep -vc '\\r \\n' || true)
	expect_eq "commq $mode on a terminal: a CR not before a newline" 0 "$cr"
	grep -q 'owned' "$T/tty$mode" || fail "commq $mode on a terminal: the text itself is gone: $(cat -v "$T/tty$mode")"
	# piped: sqlite3's bytes
	"$COMMQ" --db "$DB" "$mode" "$SQL" >"$T/pipe$mode"
	sqlite3 "$mode" "$DB" "$SQL" >"$T/ref$mode" 2>/dev/null || true
	if [ "$mode" != -column ]; then
		cmp -s "$T/pipe$mode" "$T/ref$mode" ||
			fail "commq $mode piped: not sqlite3's bytes: $(cat -v "$T/pipe$mode") vs $(cat -v "$T/ref$mode")"
	fi
done
grep -q '\^\[\]0;owned\^G' "$T/tty-list" || fail "list on a terminal: caret notation: $(cat -v "$T/tty-list")"
grep -q '\\x9b' "$T/tty-list" || fail "list on a terminal: CSI as \\x9b: $(cat -v "$T/tty-list")"
grep -q '\\u001b\]0;owned\\u0007' "$T/tty-json" || fail "json on a terminal: escapes: $(cat -v "$T/tty-json")"
finish
