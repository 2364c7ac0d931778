#!/bin/bash
# The prompt: with stdin a terminal (a pty, pty-type.py) and no SQL,
# commq prompts, continues unfinished statements, prints errors and goes
# on, keeps history in ~/.commq_history, and leaves with status 0 on .quit
# or end of input.  Over the socket it reconnects after a broken answer.
set -euo pipefail
# shellcheck source=tests/client/lib.sh
source "$(dirname "$0")/lib.sh"
make_db
start_fake_server
export HOME=$T/home
mkdir -p "$HOME"

# at_prompt NAME INPUT [ARGS...] — types INPUT (printf escapes) into
# commq ARGS on a terminal, a line at a time, each once commq's prompt is
# up again (pty-type.py: typed ahead, a ^D could meet the terminal's
# cooked mode between two prompts and be lost); the screen, without
# carriage returns, goes to $T/got.
at_prompt() {
	local name=$1 input=$2 rc=0
	shift 2
	# shellcheck disable=SC2059
	printf "$input" >"$T/typed"
	/usr/bin/python3 "$(dirname "$0")/pty-type.py" 20 "$T/typed" "$COMMQ" "$@" \
		>"$T/screen" 2>&1 || rc=$?
	tr -d '\r' <"$T/screen" >"$T/got"
	expect_eq "$name: exit status" 0 "$rc"
}

# expect_line NAME LINE — the screen has LINE.
expect_line() {
	grep -qxF -- "$2" "$T/got" ||
		fail "$1: expected a line [$2] on the screen, got [$(cat -A "$T/got")]"
}

at_prompt db_session 'select 1 as one;\nselect\n  2 as two;\nselec 5;\n.mode csv\nselect 3, 4;\n.quit\n' \
	--db "$DB" -list
expect_line prompt 'commq> select 1 as one;'
expect_line result 1
expect_line continuation_prompt '   ...>   2 as two;'
expect_line continued_result 2
expect_line error_printed 'commq: near "selec": syntax error'
expect_line goes_on_after_error '3,4'

hist=$HOME/.commq_history
[[ -f $hist ]] || fail "history: expected $hist written, got none"
expect_eq history_private 600 "$(stat -c %a "$hist" 2>/dev/null)"
grep -q 'select.*3,.*4;' "$hist" ||
	fail "history: expected 'select 3, 4;' in it, got [$(cat "$hist")]"

# End of input (^D) runs an unfinished last statement, then leaves.
at_prompt eof_runs_rest 'select 7\n\004' --db "$DB" -list
expect_line eof_runs_rest 7

# The history is there next time: up-arrow brings back 'select 7'.
at_prompt history_recalled '\033[A\n;\n.quit\n' --db "$DB" -list
expect_line history_recalled 7

# Over the socket: a closed or broken answer is an error; the next
# statement connects again and works.
at_prompt socket_session 'fake:close-now;\nfake:echo;\nfake:badtag;\nselect 8;\n.quit\n' \
	--socket "$SOCK" -list
expect_line socket_closed 'commq: the server closed the connection before answering'
expect_line socket_reconnects '0|0|fake:echo;'
expect_line socket_malformed \
	'commq: malformed response from server: value 1 of row 2 of 2 has an unknown type'
expect_line socket_after_malformed 8
expect_line socket_dot_command_prompt 'commq> .quit'

finish
