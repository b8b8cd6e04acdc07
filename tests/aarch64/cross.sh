#!/usr/bin/env bash
# cross.sh MODE SRC XBUILD CMAKE CTEST [QEMU]
# The aarch64 port, from an x86-64 host: cross-build with
# cmake/toolchains/aarch64-linux-gnu.cmake into XBUILD and run under
# qemu-user 10+ (QEMU, else $SK_QEMU_AARCH64, else qemu-aarch64 on PATH).
#   tests    build, then run the C tests there (ctest) minus those listed
#            in excluded.txt, each with its reason
#   install  cmake --install into a fresh prefix: aarch64 library, the same
#            headers, pkg-config and CMake package files; a consumer built
#            through each and run
#   clang    the site header, the self-test and the aarch64 tests built by clang
#            --target=aarch64-linux-gnu, linked with the cross-built runtime
#            by GNU ld and by lld
#   e2e      tests/control/e2e.sh with the aarch64 skdemo and skctl
# Exit 77 (skipped) with the reason when the cross toolchain or qemu 10 is
# missing (.ci/run installs both).
set -euo pipefail
mode=$1 src=$2 xbuild=$3 cmake=$4 ctest=$5 qemu=${6:-}
here=$src/tests/aarch64
triple=aarch64-linux-gnu
sysroot=/usr/$triple

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }

command -v $triple-gcc >/dev/null && command -v $triple-g++ >/dev/null ||
  skip "no aarch64 cross compiler ($triple-gcc, $triple-g++: Debian packages" \
       "gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross)"
[ -e $sysroot/lib/libc.so.6 ] ||
  skip "no aarch64 C library in $sysroot (libc6-dev-arm64-cross)"
for q in "$qemu" "${SK_QEMU_AARCH64:-}" "$(command -v qemu-aarch64 || true)"; do
  [ -n "$q" ] && [ -x "$q" ] || continue
  v=$("$q" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p' | head -1)
  if [ -n "$v" ] && [ "$v" -ge 10 ]; then qemu=$q; break; fi
  echo "note: $q is qemu $v; 10 or newer is needed (older versions do not" \
       "see code written through /proc/self/mem)"
  qemu=
done
[ -n "$qemu" ] && [ -x "$qemu" ] ||
  skip "no qemu-aarch64 10 or newer (tests/aarch64/fetch_qemu_user.sh DIR" \
       "fetches it from Debian bookworm-backports; pass DIR/usr/bin/qemu-aarch64" \
       "as SK_QEMU_AARCH64)"
run() { "$qemu" -L $sysroot "$@"; }
is_aarch64() { $triple-readelf -h "$1" 2>/dev/null | grep -q 'Machine: *AArch64'; }
echo "cross compiler: $($triple-gcc --version | head -1)"
echo "emulator: $("$qemu" --version | head -1)"

jobs=${SK_CROSS_JOBS:-2}
build() {
  "$cmake" -S "$src" -B "$xbuild" \
    -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/aarch64-linux-gnu.cmake" \
    -DSK_QEMU_AARCH64="$qemu" -DSTATICKEYS_BUILD_BENCH=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$xbuild.configure.log" 2>&1 ||
    { cat "$xbuild.configure.log"; fail "cross configure"; }
  "$cmake" --build "$xbuild" -j "$jobs" > "$xbuild.build.log" 2>&1 ||
    { tail -50 "$xbuild.build.log"; fail "cross build (log: $xbuild.build.log)"; }
  is_aarch64 "$xbuild/src/libstatickeys.so" ||
    fail "$xbuild/src/libstatickeys.so is not an aarch64 object"
  echo "cross build: $xbuild"
}

case $mode in
tests)
  build
  # excluded.txt: "test-name-regex  reason" per line.
  regex= ; echo "excluded under aarch64/qemu-user, with the reason:"
  while read -r name reason; do
    case $name in ''|'#'*) continue ;; esac
    echo "  $name: $reason"
    regex=${regex:+$regex|}$name
  done < "$here/excluded.txt"
  cd "$xbuild"
  "$ctest" -N -E "$regex" | tail -1
  "$ctest" -j "$jobs" --output-on-failure --timeout 600 -E "$regex"
  ;;
install)
  build
  prefix=$(mktemp -d "$xbuild.prefix.XXXXXX")
  trap 'rm -rf "$prefix"' EXIT
  "$cmake" --install "$xbuild" --prefix "$prefix" > /dev/null
  ok=0
  for f in include/statickeys.h include/statickeys/arch/aarch64.h \
           include/statickeys/arch/x86_64.h include/statickeys/branch.h \
           lib/pkgconfig/statickeys.pc lib/cmake/statickeys/statickeysConfig.cmake \
           lib/libstatickeys.so lib/libstatickeys.a; do
    [ -e "$prefix/$f" ] || fail "installed prefix lacks $f"
    ok=$((ok + 1))
  done
  is_aarch64 "$prefix/lib/libstatickeys.so" ||
    fail "installed libstatickeys.so is not aarch64"
  diff -r "$src/include" "$prefix/include" ||
    fail "installed headers differ from the source tree's"
  echo "prefix $prefix: $ok files present, library is aarch64, headers identical"
  # A consumer through pkg-config.
  cflags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags statickeys)
  libs=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --libs statickeys)
  $triple-gcc -O2 $cflags "$src/tests/core/selftest.c" -o "$prefix/selftest_pc" \
    $libs -Wl,-rpath,"$prefix/lib"
  out=$(run "$prefix/selftest_pc")
  echo "pkg-config consumer: $out"
  # A consumer through the CMake package, with the same toolchain file.
  mkdir -p "$prefix/consumer"
  cat > "$prefix/consumer/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.16)
project(consumer C)
find_package(statickeys REQUIRED)
add_executable(selftest_cmake "$src/tests/core/selftest.c")
target_link_libraries(selftest_cmake PRIVATE statickeys::statickeys)
set_target_properties(selftest_cmake PROPERTIES BUILD_RPATH "$prefix/lib")
CM
  "$cmake" -S "$prefix/consumer" -B "$prefix/consumer/build" \
    -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/aarch64-linux-gnu.cmake" \
    -Dstatickeys_DIR="$prefix/lib/cmake/statickeys" \
    > "$prefix/consumer.log" 2>&1 || { cat "$prefix/consumer.log"; fail "consumer configure"; }
  "$cmake" --build "$prefix/consumer/build" >> "$prefix/consumer.log" 2>&1 ||
    { cat "$prefix/consumer.log"; fail "consumer build"; }
  out=$(run "$prefix/consumer/build/selftest_cmake")
  echo "CMake package consumer: $out"
  ;;
clang)
  command -v clang >/dev/null || skip "clang not installed"
  build
  out=$xbuild.clang
  mkdir -p "$out"
  echo "clang: $(clang --version | head -1)"
  # With the GNU linker, then with lld (when installed).
  linkers=(bfd)
  command -v ld.lld >/dev/null && linkers+=(lld) ||
    echo "note: ld.lld not installed: the lld-linked variants are not built"
  for t in core/selftest.c aarch64/syncs_per_batch.c aarch64/static_keys.c \
           aarch64/static_keys_cxx.cpp; do
  for ld in "${linkers[@]}"; do
    exe=$out/$(basename "${t%.*}").$ld
    cc=clang; case $t in *.cpp) cc="clang++ -std=gnu++17" ;; esac
    $cc --target=$triple -O2 -Wall -Wextra -Werror -I"$src/include" \
      -ffunction-sections -fdata-sections -fuse-ld=$ld -Wl,--gc-sections \
      "$src/tests/$t" -o "$exe" -L"$xbuild/src" -lstatickeys \
      -Wl,-rpath,"$xbuild/src"
    is_aarch64 "$exe" || fail "$exe is not aarch64"
    # The sites must be patched ones (a NOP or B in the site table), not the
    # portable fallback.
    objdump_out=$($triple-objdump -h "$exe")
    grep -q ' sk_sites ' <<<"$objdump_out" || fail "$exe has no site table"
    grep -q ' .data.rel.ro ' <<<"$objdump_out" || fail "$exe has no key slots"
    echo "clang-built, $ld-linked $(basename "$t"):"
    run "$exe"
  done
  done
  ;;
e2e)
  # The control plane end to end (tests/control/e2e.sh) with the aarch64
  # skdemo and skctl, each behind a wrapper that execs the emulator (same
  # process id, which skctl -p relies on).
  build
  wrap=$xbuild.wrap
  mkdir -p "$wrap"
  for p in skdemo skctl; do
    printf '#!/bin/sh\nexec "%s" -L %s "%s" "$@"\n' "$qemu" "$sysroot" \
      "$xbuild/tools/$p" > "$wrap/$p"
    chmod +x "$wrap/$p"
  done
  bash "$src/tests/control/e2e.sh" "$wrap/skdemo" "$wrap/skctl" \
    "$src/tools/skctl.1"
  ;;
*) fail "unknown mode $mode" ;;
esac
