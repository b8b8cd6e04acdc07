# Cross-compiling for 32-bit x86 Linux (i686) from an x86-64 Linux host:
#   cmake -S . -B build-i686 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/i686-linux-gnu.cmake
# Needs Debian's cross compilers gcc-i686-linux-gnu and g++-i686-linux-gnu
# (not gcc-multilib, which on Debian 12 removes the aarch64 and riscv64
# cross compilers).  An x86-64 kernel runs the result natively, no
# emulator: with libc6-i386 (the loader /lib/ld-linux.so.2), and
# lib32stdc++6 / lib32gcc-s1 for C++, the tests run on the host's CPU.  At
# run time the programs load those host libraries, never the cross
# sysroot's (its C library may be another build than the loader).
set(CMAKE_SYSTEM_PROCESSOR i686)
set(SK_CROSS_TRIPLE i686-linux-gnu)
set(SK_QEMU_I686 "" CACHE FILEPATH "not used: i686 programs run natively")
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
set(CMAKE_CROSSCOMPILING_EMULATOR "")
