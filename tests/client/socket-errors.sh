#!/bin/bash
# Socket mode when things go wrong: every malformed, oversized or cut-off
# answer is one clear line and exit 1 (never a hang, a crash or a silent
# success); the server's SQL errors show where in the SQL they are; a
# missing, refused or forbidden socket is named.
set -euo pipefail
# shellcheck source=tests/client/lib.sh
source "$(dirname "$0")/lib.sh"
make_db
start_fake_server

malformed='commq: malformed response from server'
expect_failure unknown_value_tag 1 "$malformed: value 1 of row 2 of 2 has an unknown type" \
	--socket "$SOCK" fake:badtag
expect_failure unknown_frame_type 1 "$malformed: unknown frame type 0x5a" \
	--socket "$SOCK" fake:badtype
expect_failure oversized_header_fails_at_once 1 \
	"$malformed: frame of 4294967295 bytes (the limit is 1048576)" \
	--socket "$SOCK" fake:oversized
expect_failure empty_frame 1 "$malformed: empty frame" --socket "$SOCK" fake:emptyframe
expect_failure rows_past_frame 1 "$malformed: value 1 of row 2 of 3 runs past its frame" \
	--socket "$SOCK" fake:short-rows
expect_failure stray_bytes 1 "$malformed: 1 stray bytes after 1 rows" \
	--socket "$SOCK" fake:stray
expect_failure rows_before_columns 1 "$malformed: rows before any columns" \
	--socket "$SOCK" fake:rows-first
expect_failure zero_columns 1 "$malformed: result set without columns" \
	--socket "$SOCK" fake:no-columns
expect_failure short_end 1 "$malformed: end frame of 12 bytes, not 16" \
	--socket "$SOCK" fake:bad-end
expect_failure bytes_after_end 1 "$malformed: 22 bytes after the end of the answer" \
	--socket "$SOCK" fake:after-end
expect_failure closed_mid_result 1 \
	'commq: the server closed the connection in the middle of a result' \
	--socket "$SOCK" fake:close-mid-result
expect_failure closed_mid_frame 1 \
	'commq: the server closed the connection in the middle of a result' \
	--socket "$SOCK" fake:close-mid-frame
expect_failure closed_at_once 1 'commq: the server closed the connection before answering' \
	--socket "$SOCK" fake:close-now
# Rows that arrived whole before the damage are still printed.
expect_failure rows_before_damage 1 "$malformed" --socket "$SOCK" -list fake:stray
expect_eq rows_before_damage_printed $'1\n2' "$(cat "$T/out")"
expect_eq rows_before_damage_one_line 1 "$(wc -l <"$T/err")"

# The server's error: its message, the SQL line and a caret under the
# offset.
expect_failure sql_error 1 'commq: no such column: nope' \
	--socket "$SOCK" 'select id from t where nope = 1'
printf '%s\n' 'commq: no such column: nope' '  select id from t where nope = 1' \
	'                         ^' >"$T/expected"
expect_same sql_error_shows_where "$T/expected" "$T/err"
expect_eq sql_error_no_output "" "$(cat "$T/out")"

# In a later line of a statement read from stdin, after tabs.
rc=0
printf 'select 1;\nselect id,\n\tnote frm t;\n' |
	"$COMMQ" --socket "$SOCK" -list >"$T/out" 2>"$T/err" || rc=$?
expect_eq stdin_error_status 1 "$rc"
expect_eq stdin_error_rows_before 1 "$(cat "$T/out")"
printf '%s\n' 'commq: near "t": syntax error' $'  \tnote frm t;' $'  \t         ^' \
	>"$T/expected"
expect_same stdin_error_line_and_tab "$T/expected" "$T/err"

# Statements after an error do not run.
: >"$T/server.log"
rc=0
printf 'select nope;\nselect 2;\n' | "$COMMQ" --socket "$SOCK" -list \
	>"$T/out" 2>"$T/err" || rc=$?
expect_eq first_error_stops_status 1 "$rc"
expect_eq first_error_stops_requests 1 "$(grep -c '^query' "$T/server.log")"

# The server's text is one printable line; a message-less error is named.
expect_failure message_sanitized 1 'commq: bad thing  [31mred' \
	--socket "$SOCK" fake:error-control
expect_eq message_one_line 1 "$(wc -l <"$T/err")"
expect_failure empty_message 1 'commq: statement not allowed' \
	--socket "$SOCK" fake:error-empty

# The socket itself.
expect_failure missing_socket 1 \
	"commq: cannot connect to $T/nope: No such file or directory (is commd running?" \
	--socket "$T/nope" 'select 1'
expect_eq missing_socket_one_line 1 "$(wc -l <"$T/err")"
"$FAKE_SERVER" "$T/stale" 2>/dev/null &
stale_pid=$!
for ((i = 0; i < 200; i++)); do [[ -S $T/stale ]] && break; sleep 0.05; done
kill "$stale_pid"
wait "$stale_pid" 2>/dev/null || true
expect_failure refused 1 "commq: cannot connect to $T/stale: Connection refused" \
	--socket "$T/stale" 'select 1'
long=$T/$(printf 'x%.0s' {1..120})
expect_failure path_too_long 1 "commq: cannot connect to $long: the path is longer" \
	--socket "$long" 'select 1'
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then
	# A socket only root may write to, tried by nobody.
	chmod 711 "$T"
	mkdir -m 755 "$T/private"
	ln "$SOCK" "$T/private/sock"
	chmod 600 "$SOCK"
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$COMMQ" --socket "$T/private/sock" 'select 1' >"$T/out" 2>"$T/err" || rc=$?
	expect_eq permission_denied_status 1 "$rc"
	expect_eq permission_denied_message \
		"commq: cannot connect to $T/private/sock: Permission denied (the socket is for root and group commd)" \
		"$(cat "$T/err")"
	chmod 777 "$SOCK"
fi

# What the command line cannot mean: exit 2.
expect_failure limit_not_a_number 2 'commq: --limit needs a number of rows (0 to 4294967295): ten' \
	--socket "$SOCK" --limit ten 'select 1'
expect_failure limit_too_big 2 'commq: --limit needs a number' \
	--socket "$SOCK" --limit 4294967296 'select 1'
expect_failure limit_negative 2 'commq: --limit needs a number' \
	--socket "$SOCK" --limit -1 'select 1'
for bad in -1 abc 1s nan inf 5000000 ''; do
	expect_failure "timeout [$bad]" 2 "commq: --timeout needs seconds, such as 2 or 0.5: $bad" \
		--socket "$SOCK" --timeout "$bad" 'select 1'
done
expect_failure db_and_socket 2 'commq: --db and --socket exclude each other' \
	--db "$DB" --socket "$SOCK" 'select 1'
expect_failure sql_and_file 2 'commq: both an SQL argument and -f x.sql' \
	--socket "$SOCK" -f x.sql 'select 1'
expect_failure missing_file 1 "commq: $T/none.sql: No such file or directory" \
	--socket "$SOCK" -f "$T/none.sql"

# A batch too big for one frame is refused before it is sent.
head -c 1100000 /dev/zero | tr '\0' ' ' >"$T/big.sql"
echo 'select 1;' >>"$T/big.sql"
expect_failure sql_too_long 1 'commq: the SQL is too long: 1100010 bytes in one batch' \
	--socket "$SOCK" -f "$T/big.sql"

# Output that cannot be written is an error, not a cut result.
if [[ -w /dev/full ]]; then
	rc=0
	"$COMMQ" --socket "$SOCK" -csv fake:many >/dev/full 2>"$T/err" || rc=$?
	expect_eq full_disk_status 1 "$rc"
	grep -q 'commq: printing results: No space left on device' "$T/err" ||
		fail "full_disk: expected 'printing results: No space left', got [$(cat "$T/err")]"
fi

finish
