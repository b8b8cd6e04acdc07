# Cross-compiling for 64-bit little-endian Power Linux (ELFv2) from another
# Linux host:
#   cmake -S . -B build-ppc64le \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/powerpc64le-linux-gnu.cmake
# Needs the GNU cross compiler (Debian: gcc-powerpc64le-linux-gnu,
# libc6-dev-ppc64el-cross; g++-powerpc64le-linux-gnu for the C++ tests).
# Tests run under qemu-ppc64le 10 or newer (SK_QEMU_PPC64LE, or on PATH):
# see linux-gnu-cross.cmake.
set(CMAKE_SYSTEM_PROCESSOR ppc64le)
set(SK_CROSS_TRIPLE powerpc64le-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
