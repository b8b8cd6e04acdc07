# SPDX-License-Identifier: MIT OR Apache-2.0
# Cross-compiling for another operating system with zig's bundled C
# compiler and C libraries (FreeBSD and macOS SDK headers and stubs), from
# any host:
#   cmake -S . -B build-freebsd -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/zig.cmake \
#     -DSK_ZIG_TARGET=x86_64-freebsd -DSK_ZIG="python3 -m ziglang"
# SK_ZIG is how zig is started (`zig`, or `python3 -m ziglang` for the PyPI
# package ziglang).  The programs are built, not run: tests/cross/zig_build.sh.
set(SK_ZIG_TARGET "x86_64-freebsd" CACHE STRING "zig's target triple")
set(SK_ZIG "zig" CACHE STRING "the command that starts zig")
if(SK_ZIG_TARGET MATCHES "freebsd")
  set(CMAKE_SYSTEM_NAME FreeBSD)
elseif(SK_ZIG_TARGET MATCHES "macos")
  set(CMAKE_SYSTEM_NAME Darwin)
elseif(SK_ZIG_TARGET MATCHES "-linux-")
  # A Linux architecture Debian 12 has no cross gcc for (loongarch64:
  # cmake/toolchains/loongarch64-linux-gnu.cmake, which runs what it builds).
  set(CMAKE_SYSTEM_NAME Linux)
else()
  message(FATAL_ERROR "SK_ZIG_TARGET=${SK_ZIG_TARGET}: a freebsd, macos or linux target")
endif()
string(REGEX MATCH "^[^-]+" CMAKE_SYSTEM_PROCESSOR "${SK_ZIG_TARGET}")

# CMake wants one program per tool: small scripts in the build tree that
# start zig's (cc, c++, ar, ranlib) for the target.
set(sk_zig_bin ${CMAKE_BINARY_DIR}/zig-wrappers)
foreach(tool cc c++ ar ranlib)
  set(args "${tool}")
  if(tool MATCHES "^(cc|c\\+\\+)$")
    set(args "${tool} -target ${SK_ZIG_TARGET}")
  endif()
  file(WRITE ${sk_zig_bin}/zig-${tool}
    "#!/bin/sh\nexec ${SK_ZIG} ${args} \"$@\"\n")
  file(CHMOD ${sk_zig_bin}/zig-${tool} PERMISSIONS OWNER_READ OWNER_WRITE
    OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
if(CMAKE_SYSTEM_NAME STREQUAL "Darwin")
  # CMake wants install_name_tool for Mach-O, to rewrite paths at install;
  # zig has none, and these trees are built, not installed: it says so.
  file(WRITE ${sk_zig_bin}/install_name_tool
    "#!/bin/sh\necho 'install_name_tool: not available when cross-building with zig' >&2\nexit 1\n")
  file(CHMOD ${sk_zig_bin}/install_name_tool PERMISSIONS OWNER_READ
    OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  set(CMAKE_INSTALL_NAME_TOOL ${sk_zig_bin}/install_name_tool)
endif()
set(CMAKE_C_COMPILER ${sk_zig_bin}/zig-cc)
# C++ only when asked for: CMake's check of a C++ compiler links a program,
# and zig then builds libc++ for the target first (minutes).  A build of
# the C library and tools (tests/cross/zig_build.sh) needs none.
option(SK_ZIG_CXX "Use zig c++ as the C++ compiler too" ON)
if(SK_ZIG_CXX)
  set(CMAKE_CXX_COMPILER ${sk_zig_bin}/zig-c++)
else()
  set(CMAKE_CXX_COMPILER zig-c++-NOTFOUND) # the top-level CMakeLists.txt skips C++
endif()
set(CMAKE_AR ${sk_zig_bin}/zig-ar CACHE FILEPATH "" FORCE)
set(CMAKE_RANLIB ${sk_zig_bin}/zig-ranlib CACHE FILEPATH "" FORCE)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
