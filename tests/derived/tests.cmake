# tests/derived: the derived tables `sched` and `wakeup_latency` against an
# independent computation (reference.awk over `trace-cmd report -t`) and
# against invariants (issue 7). Scripts source lib.sh and get COMMD, COMMQ,
# TESTDATA, SRCDIR from COMMD_TEST_ENV. Labels: import (fixtures in
# tests/data), live (records a fresh trace: needs root, tracefs, trace-cmd,
# perf; RUN_SERIAL because it loads the machine with perf bench).
# Included from tests/CMakeLists.txt.

foreach(t derived-cpu-time derived-latency derived-losses derived-thread-state derived-runqueue)
	string(REPLACE "-" "_" name "${t}")
	commd_script_test(${name} ${CMAKE_CURRENT_LIST_DIR}/${t}.sh import TIMEOUT 600)
endforeach()
# thread-exec (thread-exec.c) execs from threads while their leader runs:
# derived-live records it.
add_executable(thread_exec ${CMAKE_CURRENT_LIST_DIR}/thread-exec.c)
target_link_libraries(thread_exec PRIVATE Threads::Threads)
# leader-exit (leader-exit.c): a leader that leaves its threads running,
# and threads that reuse one tid: derived-processes records it.
add_executable(leader_exit ${CMAKE_CURRENT_LIST_DIR}/leader-exit.c)
target_link_libraries(leader_exit PRIVATE Threads::Threads)
foreach(t derived-live derived-processes derived-runtime derived-cgroup-import derived-stacks-import)
	string(REPLACE "-" "_" name "${t}")
	commd_script_test(${name} ${CMAKE_CURRENT_LIST_DIR}/${t}.sh live SERIAL TIMEOUT 600
		ENV NAMER=$<TARGET_FILE:namer> THREAD_EXEC=$<TARGET_FILE:thread_exec>
		LEADER_EXIT=$<TARGET_FILE:leader_exit>)
endforeach()
commd_script_test(derived_migrate ${CMAKE_CURRENT_LIST_DIR}/derived-migrate.sh live)
