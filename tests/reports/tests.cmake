# Report tests: commq top, latency, history, lost, timeline and export on fixtures
# imported with the real commd (tests/data), checked against figures the
# sqlite3 shell or awk compute another way; over the socket with
# tests/client's fake-server too.  timeline.sh needs xmllint (Debian
# package libxml2-utils), chromium.sh Debian's chromium; a missing tool
# fails the test and names its package.  loss-warning.sh checks commq's
# warning about lost events, for queries and reports alike.  Included from
# tests/CMakeLists.txt.

set(_report_tests
  reports_top top
  reports_latency latency
  reports_history history
  reports_lost lost
  reports_util util
  reports_per_task per-task
  reports_sql_and_times sql-and-times
  reports_timeline timeline
  reports_timeline_chromium chromium
  reports_export export
  reports_loss_warning loss-warning
  reports_captures captures
  reports_windows windows)
while(_report_tests)
  list(POP_FRONT _report_tests _name _script)
  commd_script_test(${_name} ${CMAKE_CURRENT_LIST_DIR}/${_script}.sh client
    ENV FAKE_SERVER=$<TARGET_FILE:commq_fake_server>)
endwhile()
