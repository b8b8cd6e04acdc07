# Cross builds of the whole tree, run under qemu-user from an x86-64 host
# (tests/cross/cross.sh; docs/porting.md).  Included by tests/CMakeLists.txt
# so that every test folder can call sk_cross_tests().

set(SK_QEMU_USER_DIR ${PROJECT_BINARY_DIR}/tools/qemu-user/usr/bin CACHE PATH
  "Where qemu-<arch> 10 or newer is looked for first (tests/cross/fetch_qemu_user.sh DEST puts them in DEST/usr/bin)")
set(SK_CROSS_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/cross.sh)
set(SK_MUSL_STATIC_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/musl_static.sh)

# sk_cross_tests(ARCH MODES mode... [NAME name] [CMAKE_ARGS -D...])
# Adds the tests <name>_<mode> (name: ARCH_cross unless given), modes as in
# cross.sh (tests install clang e2e), for tests/cross/ARCH.conf.  They share
# one build, <build>/cross/<name>, made once with CMAKE_ARGS added to its
# configure, so they never run two at a time.
# Only from an x86-64 host that is not itself cross-compiling; each test
# skips with the reason when the cross toolchain or qemu 10 is missing.
function(sk_cross_tests arch)
  cmake_parse_arguments(X "" "NAME" "MODES;CMAKE_ARGS" ${ARGN})
  # SK_CROSS_SUBBUILD: the build cross.sh makes, which must not nest another.
  if(CMAKE_CROSSCOMPILING OR SK_CROSS_SUBBUILD OR
     NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    return()
  endif()
  if(NOT X_NAME)
    set(X_NAME ${arch}_cross)
  endif()
  foreach(mode IN LISTS X_MODES)
    add_test(NAME ${X_NAME}_${mode}
      COMMAND ${SK_CROSS_SCRIPT} ${arch} ${mode} ${PROJECT_SOURCE_DIR}
              ${PROJECT_BINARY_DIR}/cross/${X_NAME} ${CMAKE_COMMAND}
              ${CMAKE_CTEST_COMMAND} ${SK_QEMU_USER_DIR} ${X_CMAKE_ARGS})
    set_tests_properties(${X_NAME}_${mode} PROPERTIES
      SKIP_RETURN_CODE 77 RESOURCE_LOCK ${X_NAME}_build TIMEOUT 1800)
  endforeach()
endfunction()

# sk_musl_static_test(NAME ARCH ZIG_TARGET QEMU_NAME)
# Adds <NAME>_cross_musl: the port on zig's musl, fully static
# (tests/cross/musl_static.sh: the runtime as ARCH's backend, the self-test,
# the torture and the static-call tests run under QEMU_NAME).  Only from an
# x86-64 host that is not itself cross-compiling; skipped with the reason
# without zig or qemu 10.
function(sk_musl_static_test name arch zig_target qemu_name)
  if(CMAKE_CROSSCOMPILING OR SK_CROSS_SUBBUILD OR
     NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    return()
  endif()
  add_test(NAME ${name}_cross_musl
    COMMAND ${SK_MUSL_STATIC_SCRIPT} ${arch} ${zig_target}
            ${qemu_name} ${PROJECT_SOURCE_DIR}
            ${PROJECT_BINARY_DIR}/cross/${name}_musl ${CMAKE_COMMAND}
            ${SK_QEMU_USER_DIR})
  set_tests_properties(${name}_cross_musl PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 900)
endfunction()
