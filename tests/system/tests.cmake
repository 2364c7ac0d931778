# tests/system: the Debian package under a real systemd, booted with
# systemd-nspawn in a debootstrap'ed bookworm tree (label system: needs
# root, tracefs, and Debian's mirror the first time; FAILS without them).
# The tree is cached in /var/cache/commd-test/bookworm; the first run
# spends about a minute making it. Not in sanitizer builds: the package's
# binaries would need the sanitizer runtimes inside the container.
# Included from tests/CMakeLists.txt.
if(NOT COMMD_SANITIZE)
	commd_script_test(system_service ${CMAKE_CURRENT_LIST_DIR}/service.sh system SERIAL
		TIMEOUT 900 ARGS ${CMAKE_BINARY_DIR})
endif()
