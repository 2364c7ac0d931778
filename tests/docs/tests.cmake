# tests/docs: the documentation against the program. Included from
# tests/CMakeLists.txt.
add_test(NAME doc_tables COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/tables.sh)
set_tests_properties(doc_tables PROPERTIES
	ENVIRONMENT "${COMMD_TEST_ENV}" LABELS import TIMEOUT 120)
