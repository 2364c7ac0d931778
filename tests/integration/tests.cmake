# Integration tests: the real commd and commq binaries on real files.
# Each script sources lib.sh and gets COMMD, COMMQ, TESTDATA, SRCDIR from
# COMMD_TEST_ENV (tests/CMakeLists.txt). Labels: import (fixtures in
# tests/data), live (needs root and tracefs; records with trace-cmd).

foreach(t import-counts import-names import-badinput import-progress
		import-buffers import-clock import-drops import-json
		import-exec-fd import-machine import-trigger)
	string(REPLACE "-" "_" name "${t}")
	add_test(NAME ${name} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/${t}.sh)
	set_tests_properties(${name} PROPERTIES
		ENVIRONMENT "${COMMD_TEST_ENV}" LABELS import TIMEOUT 600)
endforeach()

add_test(NAME import_live_record
	COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/import-live-record.sh)
# RUN_SERIAL: it uses the global ftrace buffer, which nothing else may share.
set_tests_properties(import_live_record PROPERTIES
	ENVIRONMENT "${COMMD_TEST_ENV}" LABELS live TIMEOUT 600 RUN_SERIAL TRUE)
