# Cross-compiling for 64-bit RISC-V Linux from another Linux host:
#   cmake -S . -B build-riscv64 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/riscv64-linux-gnu.cmake
# Needs the GNU cross compilers (Debian: gcc-riscv64-linux-gnu,
# g++-riscv64-linux-gnu, libc6-dev-riscv64-cross).  SK_CROSS_COMPILER=clang
# builds with clang --target=riscv64-linux-gnu instead (same C library).
# Tests run under qemu-user when it is found (SK_QEMU_RISCV64, or
# qemu-riscv64 on PATH); qemu 10 or newer is needed for /proc/self/mem
# writes to reach the emulated code (docs/porting.md).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR riscv64)

set(SK_CROSS_TRIPLE riscv64-linux-gnu)
set(SK_CROSS_COMPILER "gcc" CACHE STRING "gcc or clang")
if(SK_CROSS_COMPILER STREQUAL "clang")
  set(CMAKE_C_COMPILER clang)
  set(CMAKE_CXX_COMPILER clang++)
  set(CMAKE_C_COMPILER_TARGET ${SK_CROSS_TRIPLE})
  set(CMAKE_CXX_COMPILER_TARGET ${SK_CROSS_TRIPLE})
else()
  set(CMAKE_C_COMPILER ${SK_CROSS_TRIPLE}-gcc)
  set(CMAKE_CXX_COMPILER ${SK_CROSS_TRIPLE}-g++)
endif()

# The target's headers and libraries (Debian's multiarch cross packages).
set(SK_CROSS_SYSROOT /usr/${SK_CROSS_TRIPLE} CACHE PATH "target C library")
list(APPEND CMAKE_FIND_ROOT_PATH ${SK_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Run target programs (tests, try_run) under qemu-user when available.
if(NOT SK_QEMU_RISCV64)
  find_program(SK_QEMU_RISCV64 qemu-riscv64)
endif()
if(SK_QEMU_RISCV64)
  set(CMAKE_CROSSCOMPILING_EMULATOR
      ${SK_QEMU_RISCV64} -L ${SK_CROSS_SYSROOT})
endif()
