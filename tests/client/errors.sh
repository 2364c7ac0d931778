#!/bin/bash
# Failures are one line on stderr and a non-zero exit: 1 for what SQLite or
# the file refused, 2 for a bad command line.  --db never writes.
set -euo pipefail
# shellcheck source=tests/client/lib.sh
source "$(dirname "$0")/lib.sh"
make_db
before=$(cksum <"$DB")

expect_failure bad_sql 1 'commq: near "selec": syntax error' \
	--db "$DB" 'selec * from t'
expect_eq bad_sql_one_line 1 "$(wc -l <"$T/err")"
expect_eq bad_sql_no_output "" "$(cat "$T/out")"

expect_failure unknown_table 1 'commq: no such table: nope' \
	--db "$DB" 'select * from nope'

# Statements before a bad one ran and printed; the ones after did not.
expect_failure stops_at_first_error 1 'commq: no such column: nope' \
	--db "$DB" -list 'select 1; select nope from t; select 3'
expect_eq stops_at_first_error_output 1 "$(cat "$T/out")"

expect_failure runtime_error 1 'commq: integer overflow' \
	--db "$DB" 'select abs(-9223372036854775808)'

# --timeout cuts a runaway query off at its deadline.
expect_failure timeout_cuts_off 1 'commq: query cut off at its deadline (0.2 s)' \
	--db "$DB" --timeout 0.2 \
	'with recursive c(i) as (select 1 union all select i + 1 from c)
	 select count(*) from c'

missing=$T/missing.db
expect_failure missing_db 1 "commq: $missing: unable to open database file" \
	--db "$missing" 'select 1'
[[ ! -e $missing ]] || fail "missing_db: expected $missing not to exist, got it created"

# Writes are refused before they run, naming the statement.
expect_failure delete_refused 1 'commq: --db is read-only: delete from t' \
	--db "$DB" 'delete from t'
expect_failure insert_refused 1 'commq: --db is read-only: insert into t values (9, 9, 9, 9)' \
	--db "$DB" $'insert into t\n  values (9, 9, 9, 9)'
expect_failure temp_table_refused 1 'commq: --db is read-only: create temp table x(a)' \
	--db "$DB" 'create temp table x(a)'
expect_failure drop_refused_after_select 1 'commq: --db is read-only: drop table t' \
	--db "$DB" -list 'select count(*) from t; drop table t'
expect_eq drop_refused_after_select_output 7 "$(cat "$T/out")"
expect_failure attach_cannot_create 1 'unable to open database' \
	--db "$DB" "attach '$T/new.db' as n"
[[ ! -e $T/new.db ]] || fail "attach_cannot_create: expected no $T/new.db, got it created"
expect_eq data_intact 7 "$(ref "$DB" 'select count(*) from t')"
expect_eq file_unchanged "$before" "$(cksum <"$DB")"

# --clickhouse: a URL it cannot use, a server that does not answer (port 1
# on loopback: refused), more than one statement: one line each, exit 1.
expect_failure clickhouse_bad_url 1 'commq: --clickhouse ftp://x: expected http://HOST[:PORT]/[?database=DB]' \
	--clickhouse ftp://x 'select 1'
expect_failure clickhouse_no_answer 1 'commq: ClickHouse at 127.0.0.1:1: no answer (is it running?)' \
	--clickhouse 'http://127.0.0.1:1/?database=x' 'select 1'
expect_failure clickhouse_one_statement 1 'commq: --clickhouse runs one statement at a time' \
	--clickhouse http://127.0.0.1:1/ 'select 1; select 2'
# the fleet's rows carry their time of day in seconds: a window of less,
# or of a fraction, is refused, not rounded up unseen (10 ms read 1 s)
expect_failure clickhouse_last_ms 1 'commq: with --clickhouse --last takes whole seconds' \
	--clickhouse http://127.0.0.1:1/ --sql top --by host --last 10ms
expect_failure clickhouse_last_fraction 1 'commq: with --clickhouse --last takes whole seconds' \
	--clickhouse http://127.0.0.1:1/ --sql latency --by host --last 1500ms

# Command-line mistakes: exit 2 and the usage line.
expect_failure unknown_option 2 'commq: unknown option: -bogus' --db "$DB" -bogus
grep -q '^usage: commq \[--socket PATH | --db FILE\]' "$T/err" ||
	fail "unknown_option: expected a usage line, got [$(cat "$T/err")]"
expect_failure two_sql_arguments 2 'commq: more than one SQL argument: select 2' \
	--db "$DB" 'select 1' 'select 2'
expect_failure db_without_value 2 'commq: missing value after --db' --db
expect_failure separator_without_value 2 'commq: missing value after -separator' \
	--db "$DB" 'select 1' -separator
expect_failure flag_with_value 2 'commq: option takes no value: --csv=yes' \
	--db "$DB" --csv=yes 'select 1'

finish
