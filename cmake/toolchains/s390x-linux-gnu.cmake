# Cross-compiling for IBM Z (s390x, big-endian) Linux, an architecture whose
# sites are not patched: the build uses the portable backend (keys as
# atomic flags; docs/porting.md).
#   cmake -S . -B build-s390x \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/s390x-linux-gnu.cmake
# Needs gcc-s390x-linux-gnu and libc6-dev-s390x-cross (g++-s390x-linux-gnu
# for the C++ tests).  Tests run under qemu-s390x 10 or newer
# (SK_QEMU_S390X, or on PATH): see linux-gnu-cross.cmake.
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(SK_CROSS_TRIPLE s390x-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
