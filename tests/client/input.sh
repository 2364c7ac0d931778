#!/bin/bash
# Where SQL comes from: the argument or, without one, all of stdin; every
# statement in it runs in order, as the sqlite3 shell runs them.
set -euo pipefail
# shellcheck source=tests/client/lib.sh
source "$(dirname "$0")/lib.sh"
make_db

script="-- counts first
select count(*) as n from t;

/* then names,
   over two lines */
select id, s
  from t where id in (1, 2) order by id;;
select note from t where id = 3 -- a trailing comment"

ref -csv -header "$DB" <<<"$script" >"$T/expected"
commq_ok stdin_runs_every_statement --db "$DB" -csv -header <<<"$script"
expect_same stdin_runs_every_statement "$T/expected" "$T/got"

# '--' ends the options, so SQL may start with a dash (a comment).
commq_ok argument_runs_every_statement --db "$DB" -csv -header -- "$script"
expect_same argument_runs_every_statement "$T/expected" "$T/got"

commq_ok statements_in_order --db "$DB" -list 'select 1; select 2; select 3'
expect_eq statements_in_order $'1\n2\n3' "$(cat "$T/got")"

# The argument wins over stdin, which is not read.
commq_ok argument_over_stdin --db "$DB" -list 'select 1' <<<'select 2'
expect_eq argument_over_stdin 1 "$(cat "$T/got")"

# Nothing to run is not an error, and prints nothing.
for input in "" "   " "-- only a comment" ";;" $'\n\n'; do
	commq_ok "empty_input [$input]" --db "$DB" <<<"$input"
	expect_eq "empty_input [$input] prints nothing" "" "$(cat "$T/got")"
done

# A statement without result columns prints nothing.
commq_ok statement_without_columns --db "$DB" 'begin; select 5 as five; commit'
expect_eq statement_without_columns_is_silent $'five\n----\n5   ' \
	"$(cat "$T/got")"

# --help prints usage on stdout and succeeds.
commq_ok help --help
expect_eq help_starts_with_usage \
	'usage: commq [--socket PATH | --db FILE] [options] [SQL | -f FILE]' \
	"$(head -n 1 "$T/got")"
grep -q -- -nullvalue "$T/got" ||
	fail "help: expected the options listed, got [$(cat "$T/got")]"

finish
