#!/bin/bash
# Every output mode prints what the sqlite3 shell prints for the same query
# and flags, except where commq chose otherwise (checked literally below).
set -euo pipefail
# shellcheck source=tests/client/lib.sh
source "$(dirname "$0")/lib.sh"
make_db
start_fake_server

all='select * from t'

# csv: quoting of separators, quotes, blanks, newlines, non-ASCII, empty
# text; NULL unquoted.
same_as_sqlite3 csv_quotes_like_sqlite3 "$all" -csv
same_as_sqlite3 csv_header "$all" -csv -header
same_as_sqlite3 csv_own_separator "$all" -csv -separator ';' -header
same_as_sqlite3 csv_nullvalue "$all" -csv -nullvalue NULL
same_as_sqlite3 csv_blobs 'select * from b' -csv

# list: sqlite3's default mode.
same_as_sqlite3 list_plain "$all" -list
same_as_sqlite3 list_header "$all" -list -header
same_as_sqlite3 list_separator_nullvalue "$all" \
	-list -separator ' :: ' -nullvalue '(null)' -header
same_as_sqlite3 list_noheader "$all" -list -noheader
same_as_sqlite3 list_blobs 'select * from b' -list

# line: names right-aligned to at least 5, a blank line between rows.
same_as_sqlite3 line_mode "$all" -line
same_as_sqlite3 line_nullvalue "$all" -line -nullvalue '<null>'
same_as_sqlite3 line_long_name 'select 1 as a_rather_long_name, 2 as x' -line

# json: numbers bare, NULL as null, strings and blobs escaped.  Reals whose
# 15-digit text is exact, so sqlite3's 20 digits say the same.
same_as_sqlite3 json_mode \
	'select * from t where r is null or r in (1.5, 3.0, -0.25, 1e20)' -json
same_as_sqlite3 json_blobs 'select * from b' -json
same_as_sqlite3 json_ignores_header_and_nullvalue \
	'select id, note from t' -json -header -nullvalue X
same_as_sqlite3 json_infinity 'select 1e999 as inf, -1e999 as ninf' -json

# Deviation: json reals are the value's 15-digit text, as in every other
# mode, not sqlite3's 20 digits (0.10000000000000000555).
commq_ok json_reals --db "$DB" -json 'select r from t where id in (2, 100000)'
expect_eq json_reals_use_15_digits \
	$'[{"r":0.1},\n{"r":0.333333333333333}]' "$(cat "$T/got")"

# column: sqlite3 -column -header is the default look, widths from the data.
plain='select * from t
       where instr(s, char(10)) + instr(s, char(9)) + instr(s, char(1)) = 0'
same_as_sqlite3 column_is_default_with_header "$plain" -column -header
ref -column -header "$DB" "$plain" >"$T/expected"
commq_ok column_default_mode --db "$DB" "$plain"
expect_same column_default_mode "$T/expected" "$T/got"
same_as_sqlite3 column_noheader_sizes_by_names_too "$plain" -column -noheader
same_as_sqlite3 column_nullvalue "$plain" -column -header -nullvalue NULL
same_as_sqlite3 column_tabs_expand 'select * from t where id = -5' -column -header
same_as_sqlite3 column_blobs 'select * from b' -column -header
same_as_sqlite3 column_empty_result_prints_nothing \
	'select * from t where 0' -column -header

# table and box: the same columns in sqlite3's frames, header always on
# (centred), a row per line, nothing for an empty result; one frame per
# result of a batch.
same_as_sqlite3 table_mode "$plain" -table
same_as_sqlite3 table_noheader_keeps_the_header "$plain" -table -noheader
same_as_sqlite3 table_nullvalue "$plain" -table -nullvalue NULL
same_as_sqlite3 table_two_results 'select 1 as a, 22 as bb; select 333 as c' -table
same_as_sqlite3 table_empty_result_prints_nothing 'select * from t where 0' -table
same_as_sqlite3 box_mode "$plain" -box
same_as_sqlite3 box_two_results 'select 1 as a, 22 as bb; select 333 as c' -box

# 2500 rows whose widest values fall in the sampled first 1000 rows.
many="with recursive c(i) as (select 1 union all select i + 1 from c
      where i < 2500) select i, i * 2 as twice, 1.0 / i > 0.5 as big,
      printf('%.3f', 1.0 / i) as inv from c"
same_as_sqlite3 column_beyond_sample_same_when_widths_fit "$many" -column -header
same_as_sqlite3 table_beyond_sample_same_when_widths_fit "$many" -table

# Deviation: column widths come from the first 1000 rows; a wider value
# later pushes its own line to the right instead of resizing everything.
late="with recursive c(i) as (select 1 union all select i + 1 from c
      where i < 1001) select case i when 1001 then 'longer' else 'x'
      end as v, i as w from c"
commq_ok column_sample --db "$DB" "$late"
expect_eq column_sample_header "$(printf 'v  w   \n-  ----')" "$(head -n 2 "$T/got")"
expect_eq column_sample_first_row 'x  1   ' "$(sed -n 3p "$T/got")"
expect_eq column_row_1000_aligned 'x  1000' "$(sed -n 1002p "$T/got")"
expect_eq column_wider_late_value_overflows 'longer  1001' "$(tail -n 1 "$T/got")"
expect_eq column_streamed_row_count 1003 "$(wc -l <"$T/got")"

# Deviation: a row stays on one line; control characters show as ^X where
# sqlite3 would wrap the cell over several lines.
commq_ok column_control_chars --db "$DB" \
	"select s, note from t where id = 7 or id is null"
printf '%s\n' 's             note' '------------  ----' \
	'line1^Jline2  a b ' 'ctl^A^Mx      \   ' >"$T/expected"
expect_same column_control_chars_caret "$T/expected" "$T/got"

# Several results: each its own header, array or block, as in sqlite3.
two="select 1 as a, 'x' as b; select 2 as long_name"
for flags in -csv "-csv -header" -list "-list -header" -line -json \
	"-column -header"; do
	# shellcheck disable=SC2086
	same_as_sqlite3 "two_results $flags" "$two" $flags
done

# Two dashes, '=' values, and options on either side of --db and the SQL.
ref -csv -header -separator ';' -nullvalue N "$DB" "$all" >"$T/expected"
commq_ok double_dash_options --csv --header --separator=';' \
	--nullvalue N --db "$DB" "$all"
expect_same double_dash_options "$T/expected" "$T/got"
commq_ok options_after_db_and_sql -csv "$all" --db="$DB" -header \
	-separator ';' -nullvalue N
expect_same options_after_db_and_sql "$T/expected" "$T/got"
commq_ok last_mode_and_header_flag_win -json -csv -header -noheader \
	-header --db "$DB" "$all" -separator ';' -nullvalue N
expect_same last_mode_and_header_flag_win "$T/expected" "$T/got"

finish
