# Client tests: commq --db against databases built with the sqlite3 shell,
# whose output is the reference.  Included from tests/CMakeLists.txt.
# A script exits 77 (skipped) when the sqlite3 shell is not installed.
set(_client_tests
  client_formats_match_sqlite3 formats
  client_sql_from_args_and_stdin input
  client_errors_and_read_only errors)
while(_client_tests)
  list(POP_FRONT _client_tests _name _script)
  add_test(NAME ${_name}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/${_script}.sh)
  set_tests_properties(${_name} PROPERTIES
    ENVIRONMENT "${COMMD_TEST_ENV}" LABELS client SKIP_RETURN_CODE 77)
endwhile()
