# tests/system: the Debian package under a real systemd, booted with
# systemd-nspawn in a debootstrap'ed bookworm tree (label system: needs
# root, tracefs, and Debian's mirror the first time; FAILS without them).
# The tree is cached in /var/cache/commd-test/bookworm; the first run
# spends about a minute making it. Not in sanitizer builds: the package's
# binaries would need the sanitizer runtimes inside the container.
# Included from tests/CMakeLists.txt.
if(NOT COMMD_SANITIZE)
	add_test(NAME system_service
		COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/service.sh ${CMAKE_BINARY_DIR})
	set_tests_properties(system_service PROPERTIES
		LABELS system RUN_SERIAL TRUE TIMEOUT 900)
endif()
