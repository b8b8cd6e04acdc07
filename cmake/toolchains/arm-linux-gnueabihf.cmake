# Cross-compiling for 32-bit Arm Linux, hard-float (Debian's armhf: ARMv7-A,
# Thumb-2 code by default) from another Linux host:
#   cmake -S . -B build-armhf \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-linux-gnueabihf.cmake
# Needs the GNU cross compiler (Debian: gcc-arm-linux-gnueabihf,
# libc6-dev-armhf-cross; g++-arm-linux-gnueabihf for the C++ tests).
# Tests run under qemu-arm 10 or newer (SK_QEMU_ARM, or on PATH): see
# linux-gnu-cross.cmake.
set(CMAKE_SYSTEM_PROCESSOR arm)
set(SK_CROSS_TRIPLE arm-linux-gnueabihf)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
