# Client tests: commq --db against databases built with the sqlite3 shell,
# whose output is the reference, and commq over a socket against
# fake-server (a stand-in for commd's query server that also serves
# deliberately broken answers).  Included from tests/CMakeLists.txt.
# A script exits 77 (skipped) when the sqlite3 shell is not installed.

add_executable(commq_fake_server ${CMAKE_CURRENT_LIST_DIR}/fake-server.c)
target_link_libraries(commq_fake_server PRIVATE commd_common m)

# The response reader under random and mutated input (run it under ASan).
add_executable(test_commq_wire ${CMAKE_CURRENT_LIST_DIR}/wire-fuzz.c
               ${CMAKE_SOURCE_DIR}/client/wire.c)
target_include_directories(test_commq_wire PRIVATE ${CMAKE_SOURCE_DIR}/client)
target_link_libraries(test_commq_wire PRIVATE commd_common)
add_test(NAME client_wire_survives_any_bytes COMMAND test_commq_wire)
set_tests_properties(client_wire_survives_any_bytes PROPERTIES LABELS client)

set(_client_tests
  client_formats_match_sqlite3 formats
  client_sql_from_args_and_stdin input
  client_errors_and_read_only errors
  client_socket_answers socket
  client_socket_errors socket-errors
  client_dot_commands dot-commands
  client_interactive_prompt interactive
  client_terminal_escapes terminal)
while(_client_tests)
  list(POP_FRONT _client_tests _name _script)
  commd_script_test(${_name} ${CMAKE_CURRENT_LIST_DIR}/${_script}.sh client SKIP77
    ENV FAKE_SERVER=$<TARGET_FILE:commq_fake_server>)
endwhile()
