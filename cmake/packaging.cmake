# Debian packages with CPack's DEB generator, one per install component:
#   libstatickeys0      the shared library (named after its SONAME) and the
#                       gdb script, in /usr/share/gdb/auto-load/ where gdb
#                       loads it by itself
#   libstatickeys-dev   headers, libstatickeys.a, the .so link, statickeys.pc
#                       and the CMake package
#   statickeys-tools    skctl and skdemo (statically linked), skctl's man
#                       page and statickeys-etcd-sync (when go built it;
#                       Suggests: etcd-client, the etcdctl that puts the
#                       keys it follows)
# Each carries the machine-readable copyright file (cmake/debian/copyright,
# DEP-5) where Debian policy puts it, /usr/share/doc/PACKAGE/copyright.
# Build them from a tree configured with -DCMAKE_INSTALL_PREFIX=/usr (so the
# library directory is Debian's multiarch one): `cpack -G DEB` in the build
# directory (docs/install.md, "Debian packages"; tests/install/deb_test.sh).
set(CPACK_PACKAGE_NAME statickeys)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "statickeys developers <statickeys@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Linux kernel static keys for multi-threaded userspace programs")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
if(STATICKEYS_BUILD_TOOLS)
  list(APPEND CPACK_COMPONENTS_ALL tools)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
# dpkg-shlibdeps computes each package's dependencies on the C library.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libstatickeys${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
# A shlibs file for programs built against it, and an ldconfig trigger.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA
  ${CMAKE_CURRENT_LIST_DIR}/debian/triggers)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libstatickeys-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME statickeys-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
# statickeys-etcd-sync has etcd's client library built in; etcdctl is what
# puts the keys it follows (docs/fleet.md).  skctl and skdemo need neither.
set(CPACK_DEBIAN_TOOLS_PACKAGE_SUGGESTS etcd-client)

foreach(c runtime dev tools)
  string(TOUPPER ${c} C)
  if(c IN_LIST CPACK_COMPONENTS_ALL)
    install(FILES ${CMAKE_CURRENT_LIST_DIR}/debian/copyright
      DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${CPACK_DEBIAN_${C}_PACKAGE_NAME}
      COMPONENT ${c})
  endif()
endforeach()

include(CPack)
cpack_add_component(runtime DISPLAY_NAME "statickeys runtime"
  DESCRIPTION "The shared library and its gdb script")
cpack_add_component(dev DISPLAY_NAME "statickeys development files"
  DESCRIPTION "Headers, static library, pkg-config and CMake files"
  DEPENDS runtime)
cpack_add_component(tools DISPLAY_NAME "statickeys tools"
  DESCRIPTION "skctl, the control client, its man page, skdemo and statickeys-etcd-sync")
