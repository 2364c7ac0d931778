# tests/fuzz: libFuzzer harnesses for what commd parses from outside
# (README.md there says how to run them for real). Two kinds of test:
#
#  fuzz_regressions_<harness> (label unit): each harness compiled with
#    replay.c instead of libFuzzer, by the project's compiler, with ASan
#    and UBSan when it has them, runs every file of regressions/<harness>/
#    (inputs that once crashed it) and corpus/<harness>/ once.
#  fuzz_smoke (label fuzz): smoke.sh compiles the harnesses with clang
#    and -fsanitize=fuzzer,address,undefined (build.sh) and fuzzes each
#    for 30 s from its corpus; any finding fails it. Skipped (77) without
#    clang and its libFuzzer runtime.
#
# Included from tests/CMakeLists.txt (needs COMMD_TEST_ENV).

include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=address,undefined")
set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=address,undefined")
check_c_source_compiles("int main(void) { return 0; }" COMMD_FUZZ_SANITIZERS)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)

set(_fz ${CMAKE_CURRENT_LIST_DIR})
set(_d ${CMAKE_SOURCE_DIR}/daemon)
set(_c ${CMAKE_SOURCE_DIR}/common)
# The schema is generated at the top (commd_core depends on it).
set_source_files_properties(${CMAKE_BINARY_DIR}/schema_sql.c ${CMAKE_BINARY_DIR}/schema_fresh.c
  PROPERTIES GENERATED TRUE)
set(_fz_pipeline ${_d}/decode.c ${_d}/cgroups.c ${_d}/stacks.c ${_d}/kallsyms.c ${_d}/resolve.c ${_d}/store.c ${_d}/store_rows.c ${_d}/store_retain.c ${_d}/store_writer.c ${_d}/derive.c
    ${_d}/pipeline.c ${_d}/merge.c ${CMAKE_BINARY_DIR}/schema_sql.c ${CMAKE_BINARY_DIR}/schema_fresh.c
    ${_c}/log.c ${_c}/grow.c ${_c}/json.c ${_c}/states.c ${_c}/numtext.c)

# commd_fuzz_replay(harness SOURCES... LIBS...): the harness and the
# sources it exercises compiled together (not linked from commd_core, so
# the sanitizers see them), with replay.c's main().
function(commd_fuzz_replay name)
  cmake_parse_arguments(F "" "" "SOURCES;LIBS" ${ARGN})
  set(t fuzz_replay_${name})
  add_executable(${t} ${_fz}/replay.c ${_fz}/fuzz-${name}.c ${F_SOURCES})
  target_include_directories(${t} PRIVATE ${_fz} ${_c} ${_d} ${CMAKE_SOURCE_DIR}/client)
  target_link_libraries(${t} PRIVATE ${F_LIBS} Threads::Threads m)
  add_dependencies(${t} commd_core)
  if(COMMD_FUZZ_SANITIZERS)
    target_compile_options(${t} PRIVATE -fsanitize=address,undefined
                           -fno-sanitize-recover=all -fno-omit-frame-pointer)
    target_link_options(${t} PRIVATE -fsanitize=address,undefined)
  endif()
  add_test(NAME fuzz_regressions_${name}
           COMMAND ${t} ${_fz}/regressions/${name} ${_fz}/corpus/${name})
  set_tests_properties(fuzz_regressions_${name} PROPERTIES LABELS unit TIMEOUT 600)
endfunction()

commd_fuzz_replay(pages SOURCES ${_fz_pipeline} ${_d}/pages.c
  LIBS PkgConfig::TRACEFS PkgConfig::TRACEEVENT PkgConfig::SQLITE)
commd_fuzz_replay(tracedat SOURCES ${_fz_pipeline} ${_d}/import.c ${_d}/privs.c ${_d}/tracedat.c
  LIBS PkgConfig::TRACECMD PkgConfig::TRACEEVENT PkgConfig::SQLITE)
commd_fuzz_replay(request SOURCES ${_c}/protocol.c ${_c}/grow.c)
commd_fuzz_replay(response SOURCES ${CMAKE_SOURCE_DIR}/client/wire.c ${_c}/protocol.c ${_c}/grow.c ${_c}/numtext.c
  LIBS PkgConfig::SQLITE)

commd_script_test(fuzz_smoke ${_fz}/smoke.sh fuzz SKIP77 TIMEOUT 900)
