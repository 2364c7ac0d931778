#!/bin/bash
# Dot commands (.tables, .schema, .mode, .headers, .help, .quit) where a
# statement could start, in stdin and -f files as at the prompt, and as the
# SQL argument; the same over the socket as with --db.
set -euo pipefail
# shellcheck source=tests/client/lib.sh
source "$(dirname "$0")/lib.sh"
make_db
ref "$DB" <<'SQL'
create index t_id on t(id);
create table events(system text, name text);
create table ev_switch(ts integer);
create table seq(id integer primary key autoincrement);
insert into seq default values;
create view v as select id from t;
SQL
start_fake_server

# run_dot NAME INPUT [ARGS...] — commq ARGS with INPUT on stdin, expecting
# exit 0; stdout in $T/got.
run_dot() {
	local name=$1 input=$2
	shift 2
	commq_ok "$name" "$@" <<<"$input"
}

for target in db socket; do
	if [[ $target == db ]]; then
		at=(--db "$DB")
	else
		at=(--socket "$SOCK")
	fi

	# The internal ev_* tables and SQLite's own stay hidden; 'events'
	# (an ev_ prefix to LIKE, not to GLOB) does not.
	run_dot "$target tables" .tables "${at[@]}"
	expect_eq "$target: tables_hide_internal" $'b\nevents\nseq\nt\nv' "$(cat "$T/got")"
	run_dot "$target tables_pattern" '.tables e%' "${at[@]}"
	expect_eq "$target: tables_pattern" events "$(cat "$T/got")"
	commq_ok "$target tables_as_argument" "${at[@]}" .tables
	expect_eq "$target: tables_as_argument" $'b\nevents\nseq\nt\nv' "$(cat "$T/got")"

	run_dot "$target schema_table" '.schema t' "${at[@]}"
	printf '%s\n' 'CREATE TABLE t(id integer, r real, s text, note text);' \
		'CREATE INDEX t_id on t(id);' >"$T/expected"
	expect_same "$target: schema_table_and_its_index" "$T/expected" "$T/got"
	run_dot "$target schema_all" '.schema' "${at[@]}"
	expect_eq "$target: schema_all_but_internal" \
		'b events seq t t v' \
		"$(sed -E 's/^CREATE (TABLE|INDEX|VIEW) ([a-z_]+).*/\2/' "$T/got" |
			sed -E 's/^t_id$/t/' | tr '\n' ' ' | sed 's/ $//')"
	run_dot "$target schema_internal_by_name" '.schema ev_switch' "${at[@]}"
	expect_eq "$target: schema_internal_by_name" \
		'CREATE TABLE ev_switch(ts integer);' "$(cat "$T/got")"
	run_dot "$target schema_quote" ".schema \"it's\"" "${at[@]}"
	expect_eq "$target: schema_quote_is_escaped" '' "$(cat "$T/got")"

	# .mode and .headers change what follows; listings ignore them.
	run_dot "$target mode" $'.mode csv\nselect 1 as a, \'x y\' as b;\n.headers on
select 2 as a;\n.mode line\nselect 3 as a;\n.mode list\n.headers off
select 4, 5;\n.mode\n.mode json\n.tables e%' "${at[@]}"
	expect_eq "$target: mode_and_headers" $'1,"x y"\na\n2\n    a = 3\n4|5
current output mode: list\nevents' "$(cat "$T/got")"
	run_dot "$target mode_column_has_header" $'.mode csv\n.mode column\nselect 1 as a;' \
		"${at[@]}"
	expect_eq "$target: mode_column_has_header" $'a\n-\n1' "$(cat "$T/got")"
	run_dot "$target mode_keeps_explicit_header" $'.mode column\nselect 1 as a;' \
		-noheader "${at[@]}"
	expect_eq "$target: mode_keeps_explicit_header" 1 "$(cat "$T/got")"

	# A line starting with '.' inside a statement is SQL.
	run_dot "$target dot_inside_statement" $'select\n.5;' -list "${at[@]}"
	expect_eq "$target: dot_inside_statement" 0.5 "$(cat "$T/got")"
	# Comment lines do not hide a command that follows.
	run_dot "$target comment_then_command" $'-- list them\n.tables e%' "${at[@]}"
	expect_eq "$target: comment_then_command" events "$(cat "$T/got")"

	# .quit stops reading: what follows never runs.
	run_dot "$target quit" $'select 1;\n.quit\nselect 2;' -list "${at[@]}"
	expect_eq "$target: quit_stops" 1 "$(cat "$T/got")"
	run_dot "$target exit" $'.exit\nselect 2;' -list "${at[@]}"
	expect_eq "$target: exit_stops" '' "$(cat "$T/got")"

	# -f reads the same way.
	printf '.mode csv\n.headers on\nselect id, s from t where id = 1;\n' >"$T/f.sql"
	commq_ok "$target file" "${at[@]}" -f "$T/f.sql" </dev/null
	expect_eq "$target: file_dot_commands" $'id,s\n1,plain' "$(cat "$T/got")"

	# A wrong command is an error that stops the input.
	rc=0
	"$COMMQ" "${at[@]}" -list >"$T/got" 2>"$T/err" <<<$'.bogus\nselect 1;' || rc=$?
	expect_eq "$target: unknown_command_status" 1 "$rc"
	expect_eq "$target: unknown_command_message" \
		'commq: unknown command or wrong arguments: .bogus (.help lists the commands)' \
		"$(cat "$T/err")"
	expect_eq "$target: unknown_command_stops" '' "$(cat "$T/got")"
	rc=0
	"$COMMQ" "${at[@]}" >"$T/got" 2>"$T/err" <<<'.mode fancy' || rc=$?
	expect_eq "$target: unknown_mode_status" 1 "$rc"
	expect_eq "$target: unknown_mode_message" \
		"commq: .mode: unknown mode 'fancy' (column, table, list, csv, json, line)" \
		"$(cat "$T/err")"
	rc=0
	"$COMMQ" "${at[@]}" >"$T/got" 2>"$T/err" <<<'.headers maybe' || rc=$?
	expect_eq "$target: bad_headers_status" 1 "$rc"
done

commq_ok help --db "$DB" .help
for cmd in .tables .schema .mode .headers .help .quit; do
	grep -q -- "^$cmd" "$T/got" || fail "help: expected $cmd listed, got [$(cat "$T/got")]"
done

finish
