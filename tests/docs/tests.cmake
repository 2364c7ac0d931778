# tests/docs: the documentation against the program. Included from
# tests/CMakeLists.txt.
commd_script_test(doc_tables ${CMAKE_CURRENT_LIST_DIR}/tables.sh import TIMEOUT 120)
