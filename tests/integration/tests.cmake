# Integration tests: the real commd and commq binaries on real files.
# Each script sources lib.sh and gets COMMD, COMMQ, TESTDATA, SRCDIR from
# COMMD_TEST_ENV (tests/CMakeLists.txt). Labels: import (fixtures in
# tests/data), live (needs root and tracefs; records with trace-cmd).

foreach(t import-counts import-names import-badinput import-progress
		import-buffers import-clock import-drops import-json
		import-exec-fd import-machine import-trigger import-thread-exec
		import-pid-reuse import-old-kernel import-no-derived
		import-stack-records)
	string(REPLACE "-" "_" name "${t}")
	commd_script_test(${name} ${CMAKE_CURRENT_LIST_DIR}/${t}.sh import TIMEOUT 600)
endforeach()
commd_script_test(import_live_record ${CMAKE_CURRENT_LIST_DIR}/import-live-record.sh live
	SERIAL TIMEOUT 600)
