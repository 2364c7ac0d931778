# tests/config: settings (check-config, file < environment < command line,
# the error messages, the shipped commd.conf). No root, no tracefs.
add_test(NAME config_check COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/config-check.sh)
set_tests_properties(config_check PROPERTIES ENVIRONMENT "${COMMD_TEST_ENV}" LABELS unit)
