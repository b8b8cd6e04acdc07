# SPDX-License-Identifier: MIT OR Apache-2.0
# Windows x86-64 with mingw-w64's gcc (Debian: gcc-mingw-w64-x86-64), from a
# Linux host:
#   cmake -S . -B build-windows \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/x86_64-w64-mingw32.cmake
# x86-64 sites are patched there, with the int3 protocol of Linux
# (src/os/windows/: WriteProcessMemory, FlushProcessWriteBuffers, a
# vectored exception handler).  `cmake --install` puts libstatickeys.dll and
# the libwinpthread-1.dll it needs in bin/.  When wine is installed, ctest
# runs the test programs under it (CMAKE_CROSSCOMPILING_EMULATOR): wine 8 is
# what the project is tested with, not Windows itself (docs/windows.md).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(sk_triple x86_64-w64-mingw32)
# C++ is optional (the top-level CMakeLists.txt enables it only when found):
# without g++-mingw-w64-x86-64 the C library and the C tests build.
set(CMAKE_C_COMPILER ${sk_triple}-gcc)
find_program(SK_MINGW_CXX ${sk_triple}-g++)
if(SK_MINGW_CXX)
  set(CMAKE_CXX_COMPILER ${SK_MINGW_CXX})
else()
  set(CMAKE_CXX_COMPILER ${sk_triple}-g++-NOTFOUND)
endif()
set(CMAKE_RC_COMPILER ${sk_triple}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${sk_triple})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# wine64 runs the test programs (Debian 12 installs it as
# /usr/lib/wine/wine64, with no wine64 on PATH).
find_program(SK_WINE NAMES wine64 wine PATHS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
if(SK_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${SK_WINE})
endif()
