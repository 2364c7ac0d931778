# install.cmake — everything `cmake --install` and the .deb put in place
# besides the two binaries (installed by the root CMakeLists): systemd
# units, sysusers.d and tmpfiles.d entries, /etc/commd/commd.conf, the man
# pages, bash completion; then the CPack settings for the Debian package.
#
#   cmake -S . -B build -DCMAKE_INSTALL_PREFIX=/usr && cmake --build build
#   cmake --install build                 # or:
#   (cd build && cpack -G DEB) && apt install ./build/commd_*.deb
#
# Included from the root CMakeLists after install(TARGETS ...) and
# GNUInstallDirs.

# systemd's directories, relative to the prefix (so /usr/lib/systemd/system
# for /usr, /usr/local/lib/systemd/system for /usr/local: systemd reads both).
set(COMMD_SYSTEMD_UNITDIR "lib/systemd/system" CACHE STRING
    "systemd unit directory (relative to the prefix, or absolute)")
set(COMMD_SYSUSERSDIR "lib/sysusers.d" CACHE STRING "sysusers.d directory")
set(COMMD_TMPFILESDIR "lib/tmpfiles.d" CACHE STRING "tmpfiles.d directory")
set(COMMD_BASHCOMPLETIONDIR "${CMAKE_INSTALL_DATADIR}/bash-completion/completions"
    CACHE STRING "bash completion directory")
# The daemon reads /etc/commd/commd.conf whatever the prefix is.
set(COMMD_CONFDIR "/etc/commd" CACHE PATH "where commd.conf goes")

# The unit names the daemon by its installed path. The file in systemd/
# says /usr/sbin/commd; at install time it is rewritten for the prefix
# actually installed to (cmake --install [--prefix], or /usr for the .deb,
# whatever CMAKE_INSTALL_PREFIX the build was configured with).
install(CODE "
  set(_sbin \"${CMAKE_INSTALL_SBINDIR}\")
  if(NOT IS_ABSOLUTE \"\${_sbin}\")
    set(_sbin \"\${CMAKE_INSTALL_PREFIX}/\${_sbin}\")
  endif()
  file(READ \"${CMAKE_SOURCE_DIR}/systemd/commd.service\" _unit)
  string(REPLACE \"ExecStart=/usr/sbin/commd\" \"ExecStart=\${_sbin}/commd\" _unit \"\${_unit}\")
  file(WRITE \"${CMAKE_BINARY_DIR}/install/commd.service\" \"\${_unit}\")
")
install(FILES ${CMAKE_BINARY_DIR}/install/commd.service
              ${CMAKE_SOURCE_DIR}/systemd/commd.socket
        DESTINATION ${COMMD_SYSTEMD_UNITDIR})
install(FILES ${CMAKE_SOURCE_DIR}/systemd/commd.sysusers
        DESTINATION ${COMMD_SYSUSERSDIR} RENAME commd.conf)
install(FILES ${CMAKE_SOURCE_DIR}/systemd/commd.tmpfiles
        DESTINATION ${COMMD_TMPFILESDIR} RENAME commd.conf)
# An existing commd.conf is the administrator's: `cmake --install` keeps it
# (the package's copy is a dpkg conffile, which dpkg handles the same way).
install(CODE "
  if(EXISTS \"\$ENV{DESTDIR}${COMMD_CONFDIR}/commd.conf\")
    message(STATUS \"Keeping: \$ENV{DESTDIR}${COMMD_CONFDIR}/commd.conf\")
  else()
    file(INSTALL DESTINATION \"${COMMD_CONFDIR}\" TYPE FILE
         FILES \"${CMAKE_SOURCE_DIR}/systemd/commd.conf\")
  endif()
")
# The drop-in that lets the unit ship to ClickHouse (not active as shipped:
# docs/fleet.md says where it goes).
install(FILES ${CMAKE_SOURCE_DIR}/systemd/clickhouse.conf
        DESTINATION ${CMAKE_INSTALL_DATADIR}/commd)
install(FILES ${CMAKE_SOURCE_DIR}/man/commd.8 DESTINATION ${CMAKE_INSTALL_MANDIR}/man8)
install(FILES ${CMAKE_SOURCE_DIR}/man/commq.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_SOURCE_DIR}/man/commd-tables.5 DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)
install(FILES ${CMAKE_SOURCE_DIR}/completion/commq.bash
        DESTINATION ${COMMD_BASHCOMPLETIONDIR} RENAME commq)
install(FILES ${CMAKE_SOURCE_DIR}/completion/commd.bash
        DESTINATION ${COMMD_BASHCOMPLETIONDIR} RENAME commd)

# ---- the Debian package (cpack -G DEB) ---------------------------------
set(CPACK_PACKAGE_NAME commd)
set(CPACK_PACKAGE_VENDOR "commd")
set(CPACK_PACKAGE_CONTACT "commd maintainers <commd@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "scheduler trace capture into SQLite, with per-event task names")
set(CPACK_PACKAGE_DESCRIPTION
    "commd captures the Linux scheduler trace through its own tracefs instance,
names every pid with the name it had at each event's time, stores the
events in SQLite and answers SQL from commq over a unix socket
(members of group commd). It also imports trace-cmd's trace.dat files.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
# Install with DESTDIR so that /etc/commd lands in the package, not on the
# build machine, and CMAKE_INSTALL_PREFIX is /usr while the units are made.
# The package installs under /usr whatever CMAKE_INSTALL_PREFIX the build
# was configured with.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)	# commd_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends: the shared libraries' packages, as dpkg-shlibdeps (dpkg-dev)
# finds them (libtracefs1, libtraceevent1, libtracecmd1, libevent-2.1-7,
# libevent-pthreads-2.1-7, libsqlite3-0, libc6...). Without dpkg-shlibdeps
# the list is written out for Debian 12.
find_program(COMMD_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(COMMD_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libc6, libtracefs1, libtraceevent1, libtracecmd1, libevent-2.1-7, libevent-core-2.1-7, libevent-pthreads-2.1-7, libsqlite3-0, libedit2, libdeflate0")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "systemd")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "trace-cmd, sqlite3")
configure_file(${CMAKE_SOURCE_DIR}/systemd/deb/conffiles.in
               ${CMAKE_BINARY_DIR}/deb/conffiles @ONLY)
foreach(script postinst prerm postrm)
  file(COPY ${CMAKE_SOURCE_DIR}/systemd/deb/${script} DESTINATION ${CMAKE_BINARY_DIR}/deb
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                        WORLD_READ WORLD_EXECUTE)
endforeach()
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_BINARY_DIR}/deb/conffiles
    ${CMAKE_BINARY_DIR}/deb/postinst
    ${CMAKE_BINARY_DIR}/deb/prerm
    ${CMAKE_BINARY_DIR}/deb/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
