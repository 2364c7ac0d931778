# tests/derived: the derived tables `sched` and `wakeup_latency` against an
# independent computation (reference.awk over `trace-cmd report -t`) and
# against invariants (issue 7). Scripts source lib.sh and get COMMD, COMMQ,
# TESTDATA, SRCDIR from COMMD_TEST_ENV. Labels: import (fixtures in
# tests/data), live (records a fresh trace: needs root, tracefs, trace-cmd,
# perf; RUN_SERIAL because it loads the machine with perf bench).
# Included from tests/CMakeLists.txt.

foreach(t derived-cpu-time derived-latency derived-losses derived-thread-state)
	string(REPLACE "-" "_" name "${t}")
	add_test(NAME ${name} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/${t}.sh)
	set_tests_properties(${name} PROPERTIES
		ENVIRONMENT "${COMMD_TEST_ENV}" LABELS import TIMEOUT 600)
endforeach()

add_test(NAME derived_live COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/derived-live.sh)
set_tests_properties(derived_live PROPERTIES
	ENVIRONMENT "${COMMD_TEST_ENV}" LABELS live TIMEOUT 600 RUN_SERIAL TRUE)

add_test(NAME derived_processes COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/derived-processes.sh)
set_tests_properties(derived_processes PROPERTIES
	ENVIRONMENT "${COMMD_TEST_ENV}" LABELS live TIMEOUT 600 RUN_SERIAL TRUE)

add_test(NAME derived_runtime COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/derived-runtime.sh)
set_tests_properties(derived_runtime PROPERTIES
	ENVIRONMENT "${COMMD_TEST_ENV}" LABELS live TIMEOUT 600 RUN_SERIAL TRUE)

add_test(NAME derived_migrate COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/derived-migrate.sh)
set_tests_properties(derived_migrate PROPERTIES
	ENVIRONMENT "${COMMD_TEST_ENV}" LABELS live TIMEOUT 300)
