# tests/config: settings (check-config, file < environment < command line,
# the error messages, the shipped commd.conf). No root, no tracefs.
commd_script_test(config_check ${CMAKE_CURRENT_LIST_DIR}/config-check.sh unit)
