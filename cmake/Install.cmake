# `cmake --install`: the ptc executable, libptc (shared and static),
# libptc_protocol (shared), the public headers (C++ and C), the Python
# module, a CMake package (find_package(ptc) -> ptc::ptc and
# ptc::ptc_protocol, and with COMPONENTS static also ptc::ptc_static) and
# ptc.pc for pkg-config.
# Two install components, which are also the two Debian packages
# (cmake/Package.cmake): `runtime` (ptc, libptc.so.N, libptc_protocol.so.N,
# ptc-worker, docs) and `dev`.
include(CMakePackageConfigHelpers)

install(TARGETS ptc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
# ptc-worker, the executable isolated runs' worker processes run
# (isolation/), where ptc::WorkerPool looks for it from libptc.so.N in
# <prefix>/lib and from <prefix>/bin/ptc: <prefix>/libexec/ptc/. It links the
# engine statically: its environment is emptied before it starts (no
# LD_LIBRARY_PATH reaches it), so it needs no libptc.so.N found at run time,
# only Debian's shared libraries.
install(TARGETS ptc-worker RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/ptc COMPONENT runtime)
# The pool looks in ../libexec/ptc/ from the library's folder: with a libdir
# of more than one level (lib/<multiarch>, as GNUInstallDirs makes for the
# prefix /usr) or another libexecdir, an installed libptc.so does not find it
# (hosts then name it with $PTC_WORKER or worker_path).
if(NOT CMAKE_INSTALL_LIBDIR STREQUAL "lib" OR NOT CMAKE_INSTALL_LIBEXECDIR STREQUAL "libexec")
  message(WARNING "ptc-worker is installed in ${CMAKE_INSTALL_LIBEXECDIR}/ptc, which libptc.so in "
                  "${CMAKE_INSTALL_LIBDIR} does not look in (it looks in ../libexec/ptc/): "
                  "isolated runs of hosts linking the installed library need $PTC_WORKER")
endif()
install(TARGETS ptc_shared EXPORT ptcTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
                NAMELINK_COMPONENT dev)
# libptc_protocol.so.N (the lisp_eval tool and the agent loop through the C
# API of <ptc/ptc_protocol.h>; it links libptc.so.N), installed as libptc is:
# find_package(ptc) -> ptc::ptc_protocol.
install(TARGETS ptc_protocol_shared EXPORT ptcTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
                NAMELINK_COMPONENT dev)
install(TARGETS ptc_static EXPORT ptcStaticTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ptc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT dev FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h" PATTERN "README.md")

set(PTC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ptc)
install(EXPORT ptcTargets NAMESPACE ptc:: DESTINATION ${PTC_CMAKE_DIR} COMPONENT dev)
install(EXPORT ptcStaticTargets NAMESPACE ptc:: DESTINATION ${PTC_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ptcConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/ptcConfig.cmake
                              INSTALL_DESTINATION ${PTC_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/ptcConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/ptcConfig.cmake
              ${CMAKE_BINARY_DIR}/package/ptcConfigVersion.cmake
        DESTINATION ${PTC_CMAKE_DIR} COMPONENT dev)

# ptc.pc finds its prefix from its own place, so the installed tree can move
# (a staging root, a .deb's /usr).
file(RELATIVE_PATH PTC_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig
     ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" PTC_PC_TO_PREFIX "${PTC_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/ptc.pc.in ${CMAKE_BINARY_DIR}/package/ptc.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/ptc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT dev)

# The Python module (bindings/python/ptc, pure Python over the C API), where
# Debian's python3 looks: <prefix>/lib/python3/dist-packages/ptc. It finds
# libptc.so.0 in <prefix>/lib or <prefix>/lib/<multiarch> from there.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/bindings/python/ptc DESTINATION lib/python3/dist-packages
        COMPONENT runtime FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)

install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
