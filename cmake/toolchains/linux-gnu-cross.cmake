# What every cmake/toolchains/<triple>.cmake shares: GNU cross compilers
# (or clang --target) for one Debian cross triple, that triple's C library,
# and qemu-user to run target programs.  The including file sets
# CMAKE_SYSTEM_PROCESSOR and SK_CROSS_TRIPLE, then includes this.
#
# C++ is optional: without <triple>-g++ the C library, tools, benchmarks and
# C tests build, and the C++ front end's tests are left out.  Tests run
# under qemu-user when it is found (SK_QEMU_<ARCH>, or qemu-<arch> on PATH);
# qemu 10 or newer is needed for /proc/self/mem writes to reach the emulated
# code (docs/porting.md).
set(CMAKE_SYSTEM_NAME Linux)

set(SK_CROSS_COMPILER "gcc" CACHE STRING "gcc or clang")
if(SK_CROSS_COMPILER STREQUAL "clang")
  set(CMAKE_C_COMPILER clang)
  set(CMAKE_CXX_COMPILER clang++)
  set(CMAKE_C_COMPILER_TARGET ${SK_CROSS_TRIPLE})
  set(CMAKE_CXX_COMPILER_TARGET ${SK_CROSS_TRIPLE})
else()
  set(CMAKE_C_COMPILER ${SK_CROSS_TRIPLE}-gcc)
  find_program(SK_CROSS_CXX ${SK_CROSS_TRIPLE}-g++)
  if(SK_CROSS_CXX)
    set(CMAKE_CXX_COMPILER ${SK_CROSS_CXX})
  else()
    # The top-level CMakeLists.txt enables C++ only when it finds one.
    set(CMAKE_CXX_COMPILER ${SK_CROSS_TRIPLE}-g++-NOTFOUND)
  endif()
endif()

# The target's headers and libraries (Debian's multiarch cross packages).
set(SK_CROSS_SYSROOT /usr/${SK_CROSS_TRIPLE} CACHE PATH "target C library")
list(APPEND CMAKE_FIND_ROOT_PATH ${SK_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Run target programs (tests, try_run) under qemu-user when available.
string(TOUPPER "SK_QEMU_${CMAKE_SYSTEM_PROCESSOR}" sk_qemu_var)
if(NOT ${sk_qemu_var})
  find_program(${sk_qemu_var} qemu-${CMAKE_SYSTEM_PROCESSOR})
endif()
if(${sk_qemu_var})
  set(CMAKE_CROSSCOMPILING_EMULATOR ${${sk_qemu_var}} -L ${SK_CROSS_SYSROOT})
endif()
