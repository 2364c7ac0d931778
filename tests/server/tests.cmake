# tests/server: commd's query server (`commd serve`) over its real socket,
# with the real daemon capturing through its own tracefs instance (label
# live: needs root and tracefs, FAILS without them). Each script sources
# lib.sh, uses instances commd-srvtest-<pid>-<n> and a mktemp -d directory,
# and its EXIT trap kills every commd it started (by pid), their query
# servers, and removes any instance it left. rawclient sends raw bytes and
# frames and prints what comes back (malformed-input tests).
# Included from tests/CMakeLists.txt (needs COMMD_TEST_ENV).

add_executable(rawclient ${CMAKE_CURRENT_LIST_DIR}/rawclient.c)

foreach(t answers refusals concurrency bad-frames stalled-clients streaming privileges group sigterm safety resets
	  hardening quotas)
	string(REPLACE "-" "_" name "server_${t}")
	commd_script_test(${name} ${CMAKE_CURRENT_LIST_DIR}/server-${t}.sh live SERIAL
		ENV RAWCLIENT=$<TARGET_FILE:rawclient>)
endforeach()
