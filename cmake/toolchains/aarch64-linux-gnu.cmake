# Cross-compiling for 64-bit Arm Linux from another Linux host:
#   cmake -S . -B build-aarch64 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# Needs the GNU cross compiler (Debian: gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross; g++-aarch64-linux-gnu for the C++ tests).
# SK_CROSS_COMPILER=clang builds with clang --target=aarch64-linux-gnu
# instead (same C library).  Tests run under qemu-aarch64 10 or newer
# (SK_QEMU_AARCH64, or on PATH): see linux-gnu-cross.cmake.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(SK_CROSS_TRIPLE aarch64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
