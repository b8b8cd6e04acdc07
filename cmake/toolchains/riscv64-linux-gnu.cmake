# Cross-compiling for 64-bit RISC-V Linux from another Linux host:
#   cmake -S . -B build-riscv64 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/riscv64-linux-gnu.cmake
# Needs the GNU cross compiler (Debian: gcc-riscv64-linux-gnu,
# libc6-dev-riscv64-cross; g++-riscv64-linux-gnu for the C++ tests).  Tests
# run under qemu-riscv64 10 or newer (SK_QEMU_RISCV64, or on PATH): see
# linux-gnu-cross.cmake.
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(SK_CROSS_TRIPLE riscv64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
