# tests/robust: commd against hostile input and abrupt ends.
#   robust_mutate_tracedat (label robust): ~300 mutants of the trace.dat
#     fixtures (tracedat-mutate.c, a fixed seed) through `commd import`:
#     exit 0 with a sound database, or exit 1 with one line naming the
#     file and nothing left behind; never a signal, a hang, stdout output.
#   robust_kill_loop (label live, RUN_SERIAL: loads the machine): 30
#     SIGKILLs at random moments (a fixed seed) while commd captures under
#     perf bench load and answers commq; every restart finds a consistent
#     database with each kill recorded as a loss window. Needs root,
#     tracefs and perf: FAILS without them.
# Included from tests/CMakeLists.txt (needs COMMD_TEST_ENV).

add_executable(tracedat-mutate ${CMAKE_CURRENT_LIST_DIR}/tracedat-mutate.c)

commd_script_test(robust_mutate_tracedat ${CMAKE_CURRENT_LIST_DIR}/mutate-tracedat.sh robust
  SKIP77 TIMEOUT 600 ENV MUTATE=$<TARGET_FILE:tracedat-mutate>)
commd_script_test(robust_kill_loop ${CMAKE_CURRENT_LIST_DIR}/kill-loop.sh live SERIAL TIMEOUT 900)
