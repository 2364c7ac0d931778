# tests/live: the real commd capturing through its own tracefs instance
# (label live: needs root and tracefs, FAILS without them). Each script
# sources lib.sh, uses instances commd-test-<pid>-<n> and a mktemp -d
# directory, and its EXIT trap kills every commd it started and removes any
# instance it left. RUN_SERIAL: they load the machine (perf bench) and
# measure losses and delays.
# Included from tests/CMakeLists.txt (needs COMMD_TEST_ENV).

# A stand-in for systemd's notify socket (live-notify.sh).
add_executable(notify-listen ${CMAKE_CURRENT_LIST_DIR}/notify-listen.c)

foreach(t live-lifecycle live-notify live-errors live-sigkill live-heavy live-freshness live-clock
	  live-fulldisk live-loss live-side-by-side live-retention live-retention-kill live-util live-runq live-cgroup live-offcpu live-maxage live-hotplug
	  live-tampered live-pidns live-processes live-wallclock live-reboot live-ui live-ids live-running
	  live-start-names)
	string(REPLACE "-" "_" name "${t}")
	commd_script_test(${name} ${CMAKE_CURRENT_LIST_DIR}/${t}.sh live SERIAL
		ENV NOTIFY_LISTEN=$<TARGET_FILE:notify-listen>)
endforeach()

# Where no CPU can go offline (one CPU, no hotplug) live_hotplug exits 77.
set_tests_properties(live_hotplug PROPERTIES SKIP_RETURN_CODE 77)
# Nor a FIFO loop on a CPU of its own: live_running exits 77 on one CPU.
set_tests_properties(live_running PROPERTIES SKIP_RETURN_CODE 77)

# tests/fleet: two hosts' commd shipping to a two-shard ClickHouse cluster.
# (600 s: about 130 s under AddressSanitizer, and three ClickHouse
# restarts, a CPU offline and a last round retried that may take longer)
commd_script_test(fleet ${CMAKE_CURRENT_LIST_DIR}/../fleet/fleet.sh live SERIAL TIMEOUT 600
	ENV NOTIFY_LISTEN=$<TARGET_FILE:notify-listen>)
# Recorded traces (no wall clock) shipped with commd ship --once.
commd_script_test(fleet_import ${CMAKE_CURRENT_LIST_DIR}/../fleet/fleet-import.sh import SERIAL)
