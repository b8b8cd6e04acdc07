# Cross-compiling for 32-bit x86 Linux (i686) from an x86-64 Linux host:
#   cmake -S . -B build-i686 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/i686-linux-gnu.cmake
# Needs Debian's cross compilers gcc-i686-linux-gnu and g++-i686-linux-gnu
# (not gcc-multilib, which on Debian 12 removes the aarch64 and riscv64
# cross compilers).  An x86-64 kernel runs the result natively: with
# libc6-i386 installed (the loader /lib/ld-linux.so.2), the tests run on
# the host's CPU, no emulator.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)

set(SK_CROSS_TRIPLE i686-linux-gnu)
set(CMAKE_C_COMPILER ${SK_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${SK_CROSS_TRIPLE}-g++)

# The target's headers and libraries (Debian's multiarch cross packages).
set(SK_CROSS_SYSROOT /usr/${SK_CROSS_TRIPLE} CACHE PATH "target C library")
list(APPEND CMAKE_FIND_ROOT_PATH ${SK_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# At run time the programs load the host's 32-bit libraries (libc6-i386,
# and lib32stdc++6 / lib32gcc-s1 for C++), never the cross sysroot's: its C
# library may be another build than the loader /lib/ld-linux.so.2.
