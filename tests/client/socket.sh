#!/bin/bash
# Socket mode against fake-server: answers streamed in batches print as
# sqlite3 prints the same values; --limit and --timeout travel in the
# request; the socket comes from --socket, COMMD_SOCKET or the default;
# SQL read from stdin or -f goes one statement batch per request, over one
# connection.  (formats.sh runs every format case over the socket too.)
set -euo pipefail
# shellcheck source=tests/client/lib.sh
source "$(dirname "$0")/lib.sh"
make_db
start_fake_server

# fake:types answers every value type over three 'R' batches (one empty),
# then a second result set; sqlite3 prints these values so.
types_sql="select 42 as i, 0.5 as r, 'héllo' as t, x'414243' as b, null as n
union all select -9223372036854775808, 1e20, 'a,b \"q\"', x'', null
union all select 9223372036854775807, 1.0 / 3, '', x'0078', null
union all select -1, 1e999, 'two' || char(10) || 'lines', x'7a', 'not null';
select -0.25 as second"
for flags in -csv "-csv -header" "-list -header" \
	"-list -nullvalue <null> -separator ;" -line; do
	# shellcheck disable=SC2086
	ref $flags :memory: "$types_sql" >"$T/expected"
	# shellcheck disable=SC2086
	commq_ok "types $flags" --socket "$SOCK" $flags fake:types
	expect_same "types_in_batches_print_like_sqlite3 $flags" \
		"$T/expected" "$T/got"
	# The same answer written a byte at a time reads the same.
	# shellcheck disable=SC2086
	commq_ok "bytewise $flags" --socket "$SOCK" $flags fake:bytewise
	expect_same "answer_cut_anywhere_reads_the_same $flags" \
		"$T/expected" "$T/got"
done
commq_ok types_json --socket "$SOCK" -json fake:types
cat >"$T/expected" <<'EOF'
[{"i":42,"r":0.5,"t":"héllo","b":"ABC","n":null},
{"i":-9223372036854775808,"r":1.0e+20,"t":"a,b \"q\"","b":"","n":null},
{"i":9223372036854775807,"r":0.333333333333333,"t":"","b":"\u0000x","n":null},
{"i":-1,"r":1e999,"t":"two\nlines","b":"z","n":"not null"}]
[{"second":-0.25}]
EOF
expect_same types_json "$T/expected" "$T/got"
# Column mode (the default) as --db prints it: one line per row.
commq_ok column_is_the_default --socket "$SOCK" fake:types
printf '%s\n' \
	'i                     r                  t           b    n       ' \
	'--------------------  -----------------  ----------  ---  --------' \
	'42                    0.5                héllo       ABC          ' \
	'-9223372036854775808  1.0e+20            a,b "q"                  ' \
	'9223372036854775807   0.333333333333333                           ' \
	'-1                    Inf                two^Jlines  z    not null' \
	'second' '------' '-0.25 ' >"$T/expected"
expect_same column_is_the_default "$T/expected" "$T/got"

# --limit and --timeout are sent with the query (fake:echo answers them).
commq_ok limit_timeout_sent --socket "$SOCK" -list --limit 5 --timeout 1.5 fake:echo
expect_eq limit_timeout_sent '5|1500|fake:echo' "$(cat "$T/got")"
commq_ok defaults_sent_as_zero --socket "$SOCK" -list fake:echo
expect_eq defaults_sent_as_zero '0|0|fake:echo' "$(cat "$T/got")"
commq_ok timeout_rounds_up_to_ms --socket "$SOCK" -list --timeout=0.0001 \
	--limit=4294967295 fake:echo
expect_eq timeout_rounds_up_to_ms '4294967295|1|fake:echo' "$(cat "$T/got")"
commq_ok timeout_whole_seconds --socket "$SOCK" -list --timeout 2 fake:echo
expect_eq timeout_whole_seconds '0|2000|fake:echo' "$(cat "$T/got")"
# A late answer is waited for: the deadline is the server's to keep.
commq_ok slow_answer --socket "$SOCK" -list --timeout 0.05 fake:slow
expect_eq slow_answer '0|50|fake:slow' "$(cat "$T/got")"

# The server applies the limit (fake-server over all statements, as in
# --db mode).
commq_ok limit_applied --socket "$SOCK" -list --limit 3 'select id from t; select 9'
expect_eq limit_applied $'1\n2\n3' "$(cat "$T/got")"
commq_ok db_limit_the_same --db "$DB" -list --limit 3 'select id from t; select 9'
expect_eq db_limit_the_same $'1\n2\n3' "$(cat "$T/got")"

# Where the socket is: --socket, else COMMD_SOCKET, else the default.
COMMD_SOCKET=$SOCK commq_ok env_socket -list fake:echo
expect_eq env_socket '0|0|fake:echo' "$(cat "$T/got")"
COMMD_SOCKET=$T/elsewhere commq_ok option_beats_env --socket "$SOCK" -list fake:echo
expect_eq option_beats_env '0|0|fake:echo' "$(cat "$T/got")"
if [[ ! -e /run/commd/commd.sock ]]; then
	COMMD_SOCKET= expect_failure default_socket 1 \
		'commq: cannot connect to /run/commd/commd.sock: No such file or directory' \
		'select 1'
fi

# 100000 rows in ~64 KiB batches stream through.
commq_ok many_rows --socket "$SOCK" -csv fake:many
expect_eq many_rows_count 100000 "$(wc -l <"$T/got")"
expect_eq many_rows_last '100000,"row 100000"' "$(tail -n 1 "$T/got")"
commq_ok many_rows_column --socket "$SOCK" fake:many
expect_eq many_rows_column_count 100002 "$(wc -l <"$T/got")"

# A value filling a frame to the protocol's limit.
commq_ok frame_at_limit --socket "$SOCK" -list fake:huge
expect_eq frame_at_limit_bytes $(((1 << 20) - 16 + 1)) "$(wc -c <"$T/got")"

# An argument goes as one request, whatever it holds; stdin and -f go one
# statement batch per request, all over one connection.
: >"$T/server.log"
commq_ok argument_one_request --socket "$SOCK" -list 'select 1; select 2'
expect_eq argument_one_request $'connection\nquery limit=0 timeout=0: select 1; select 2' \
	"$(cat "$T/server.log")"
script='select 1;
-- a comment line
select 2; select 3;
select
  4'
: >"$T/server.log"
commq_ok stdin_per_statement --socket "$SOCK" -list <<<"$script"
expect_eq stdin_output $'1\n2\n3\n4' "$(cat "$T/got")"
expect_eq stdin_one_connection 1 "$(grep -c '^connection' "$T/server.log")"
expect_eq stdin_requests 3 "$(grep -c '^query' "$T/server.log")"
printf '%s\n' "$script" >"$T/script.sql"
: >"$T/server.log"
commq_ok file_per_statement --socket "$SOCK" -list -f "$T/script.sql" </dev/null
expect_eq file_output $'1\n2\n3\n4' "$(cat "$T/got")"
expect_eq file_requests 3 "$(grep -c '^query' "$T/server.log")"
ref -list -init /dev/null "$DB" <"$T/script.sql" >"$T/expected"
commq_ok db_file_same --db "$DB" -list -f "$T/script.sql"
expect_same db_file_same "$T/expected" "$T/got"
commq_ok file_dash_is_stdin --socket "$SOCK" -list -f - <"$T/script.sql"
expect_eq file_dash_is_stdin $'1\n2\n3\n4' "$(cat "$T/got")"

# Rows before a runtime error print; the error follows; exit 1.
rc=0
"$COMMQ" --socket "$SOCK" -list fake:midresult-error >"$T/got" 2>"$T/err" || rc=$?
expect_eq error_after_rows_status 1 "$rc"
expect_eq error_after_rows_output 1 "$(cat "$T/got")"
expect_eq error_after_rows_message 'commq: query cut off at its deadline' "$(cat "$T/err")"

finish
