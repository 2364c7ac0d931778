# Unit tests: one executable per module, no I/O beyond temp files.
function(commd_unit name)
  add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.c)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(${name} PRIVATE commd_core)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS unit)
endfunction()
commd_unit(test_decode)
commd_unit(test_resolve)
commd_unit(test_store_faults)
set_tests_properties(test_store_faults PROPERTIES
  ENVIRONMENT "TESTDATA=${CMAKE_SOURCE_DIR}/tests/data" TIMEOUT 600)
