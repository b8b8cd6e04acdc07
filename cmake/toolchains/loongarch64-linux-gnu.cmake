# Cross-compiling for 64-bit LoongArch Linux (glibc) from another Linux host:
#   cmake -S . -B build-loongarch64 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/loongarch64-linux-gnu.cmake \
#     "-DSK_ZIG=python3 -m ziglang"
# Debian 12 has no loongarch64 cross gcc: zig's C and C++ compilers (clang,
# PyPI's ziglang) build for the target with zig's glibc stubs and its own
# libc++ (linked into each program).  To run the programs: a loongarch64
# glibc (tests/cross/fetch_sysroot_loong64.sh DIR unpacks Debian's loong64
# libc6 there; SK_CROSS_SYSROOT=DIR) and qemu-loongarch64 10 or newer
# (SK_QEMU_LOONGARCH64, or on PATH).
set(SK_ZIG_TARGET loongarch64-linux-gnu CACHE STRING "zig's target triple")
include(${CMAKE_CURRENT_LIST_DIR}/zig.cmake)

set(SK_CROSS_SYSROOT "" CACHE PATH "a loongarch64 glibc to run programs with")
if(NOT SK_QEMU_LOONGARCH64)
  find_program(SK_QEMU_LOONGARCH64 qemu-loongarch64)
endif()
if(SK_QEMU_LOONGARCH64 AND SK_CROSS_SYSROOT)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${SK_QEMU_LOONGARCH64} -L ${SK_CROSS_SYSROOT})
endif()
# zig's clang turns on its undefined-behaviour checks by itself in builds
# without -O (some test programs), and links their runtime only into the
# programs it builds whole: ask for plain code, as gcc makes.
set(CMAKE_C_FLAGS_INIT "-fno-sanitize=undefined")
set(CMAKE_CXX_FLAGS_INIT "-fno-sanitize=undefined")
