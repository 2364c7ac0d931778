# tests/naming: a live test of commd's naming (docs/architecture.md section 4).
# namer (namer.c) renames itself, names threads, forks, execs and reuses a
# pid, logging what it did with CLOCK_MONOTONIC times; live-names.sh records
# it with trace-cmd (-C mono, a private instance), imports it with commd and
# checks comm_history against the log and every event against the kernel's
# own fields. Needs root and tracefs (label live).
# Included from tests/CMakeLists.txt (needs COMMD_TEST_ENV).

add_executable(namer ${CMAKE_CURRENT_LIST_DIR}/namer.c)
target_link_libraries(namer PRIVATE Threads::Threads)

commd_script_test(live_names ${CMAKE_CURRENT_LIST_DIR}/live-names.sh live SERIAL TIMEOUT 600
	ENV NAMER=$<TARGET_FILE:namer>)
