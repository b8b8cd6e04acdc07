#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# cross.sh ARCH MODE SRC XBUILD CMAKE CTEST [QEMU [CMAKE_ARG...]]
# A port, from an x86-64 host: cross-build the whole default tree with
# cmake/toolchains/<triple>.cmake into XBUILD and run it under qemu-user 10+
# (QEMU, or the conf's emulator in the directory QEMU, else $SK_QEMU_<ARCH>,
# else the conf's emulator on PATH).  ARCH names tests/cross/ARCH.conf: the
# triple, the emulator, the ELF machine, the Debian packages, what the clang
# mode builds, and the lists of tests not run there (excluded="no_int3 qemu":
# tests/cross/no_int3.excluded, qemu.excluded; each line a name and a reason).
# A conf with native=1 builds for the host and runs without an emulator (a
# variant of the host's build, such as the portable backend); one with
# native_loader cross-builds and runs on the host's CPU when that loader is
# installed (i686); test_env names settings every test of the run gets;
# suite_dirs names the test folders of the port's focused suite (built and
# run: SK_PORT_SUITE in tests/CMakeLists.txt; benchmarks only with
# suite_bench=ON, their bench_smoke), where the
# whole tree would repeat what the host's run proves.  CMAKE_ARGs
# are added to the configure (-DSTATICKEYS_BACKEND=portable, say).
#   tests    build, then run the C tests there (ctest) minus the excluded
#            ones, each named with its reason (bench_smoke among them: every
#            benchmark program in its tiny mode, a functional check only;
#            tortures 3 s each, SK_TORTURE_SECONDS and SKO_CHURN_SECONDS)
#   install  cmake --install into a fresh prefix: the target's library, the
#            same headers, pkg-config and CMake package files; a consumer
#            built through each and run
#   clang    the site header, the self-test and the arch tests built by clang
#            --target=<triple>, linked with the cross-built runtime by GNU ld
#            and by lld
#   e2e      tests/control/e2e.sh with the target's skdemo and skctl
# Exit 77 (skipped) with the reason when the cross toolchain or qemu 10 is
# missing (.ci/run installs both).
set -euo pipefail
# grep that reads all its input: `cmd | grep -q` can leave cmd a SIGPIPE,
# which pipefail counts as the pipeline failing.
matches() { grep "$@" >/dev/null; }
arch=$1 mode=$2 src=$3 xbuild=$4 cmake=$5 ctest=$6 qemu=${7:-}
shift $(($# < 7 ? $# : 7))
extra_cmake_args=("$@")
here=$src/tests/cross
# The build tree the sub-build is in (<build>/cross/<name>): where .ci/run
# put zig and the fetched sysroots a conf may name.
build_root=$(dirname "$(dirname "$xbuild")")
[ -r "$here/$arch.conf" ] || { echo "FAILED: no $here/$arch.conf" >&2; exit 1; }
# shellcheck source=aarch64.conf
. "$here/$arch.conf"
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }
mkdir -p "$(dirname "$xbuild")"

if [ -n "${native:-}" ]; then
  run() { "$@"; }
  is_target() { readelf -h "$1" 2>/dev/null | matches "Machine: *$elf_machine"; }
  configure_args=()
else
  [ -d "$qemu" ] && qemu=$qemu/$qemu_name
  sysroot=${sysroot:-/usr/$triple}
  toolchain=$src/cmake/toolchains/$triple.cmake
  qemu_var=${qemu_var:-SK_QEMU_$(tr "[:lower:]" "[:upper:]" <<<"$arch")}

  cc_version() { $triple-gcc --version | head -1; }
  if [ -n "${zig_target:-}" ]; then
    # No Debian cross gcc (loongarch64): zig's clang and its glibc stubs
    # build, the conf's fetched C library (sysroot_fetch) runs.
    [ -d "$build_root/os/zig/ziglang" ] &&
      export PYTHONPATH=$build_root/os/zig${PYTHONPATH:+:$PYTHONPATH}
    python3 -c 'import ziglang' 2>/dev/null ||
      skip "no zig for $arch (pip install ziglang; .ci/run puts it in $build_root/os/zig)"
    cc_version() { echo "zig $(python3 -m ziglang version) cc -target $zig_target"; }
    [ -e "$sysroot/$libc" ] ||
      skip "no $arch C library in $sysroot ($sysroot_fetch $sysroot fetches it)"
  else
    # C++ is optional: without the target's g++ the C++ tests are not built.
    command -v $triple-gcc >/dev/null ||
      skip "no $arch cross compiler ($triple-gcc; Debian packages: $packages)"
    [ -e $sysroot/lib/libc.so.6 ] ||
      skip "no $arch C library in $sysroot (Debian packages: $packages)"
  fi
  if [ -n "${native_loader:-}" ]; then
    # A port this host's CPU runs (i686 on x86-64): no emulator.
    [ -e "$native_loader" ] ||
      skip "no $native_loader to run $arch programs natively (Debian packages: $packages)"
    qemu=
    run() { "$@"; }
  else
    for q in "$qemu" "${!qemu_var:-}" "$(command -v $qemu_name || true)"; do
      [ -n "$q" ] && [ -x "$q" ] || continue
      v=$("$q" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p' | head -1)
      if [ -n "$v" ] && [ "$v" -ge 10 ]; then qemu=$q; break; fi
      echo "note: $q is qemu $v; 10 or newer is needed (older versions do not" \
           "see code written through /proc/self/mem)"
      qemu=
    done
    [ -n "$qemu" ] && [ -x "$qemu" ] ||
      skip "no $qemu_name 10 or newer (tests/cross/fetch_qemu_user.sh DIR" \
           "fetches it from Debian bookworm-backports; pass DIR/usr/bin/$qemu_name" \
           "as $qemu_var)"
    run() { "$qemu" -L $sysroot "$@"; }
  fi
  is_target() { ${readelf:-$triple-readelf} -h "$1" 2>/dev/null | matches "Machine: *$elf_machine"; }
  echo "cross compiler: $(cc_version)"
  echo "emulator: ${qemu:+$("$qemu" --version | head -1)}${qemu:-none, $arch runs natively}"
  configure_args=(-DCMAKE_TOOLCHAIN_FILE="$toolchain" -D"$qemu_var=$qemu")
  [ -z "${zig_target:-}" ] ||
    configure_args+=("-DSK_ZIG=env PYTHONPATH=${PYTHONPATH:-} python3 -m ziglang"
                     -DSK_CROSS_SYSROOT="$sysroot")
fi

jobs=${SK_CROSS_JOBS:-2}
# RelWithDebInfo's optimization without its debug information: nothing in a
# port's run reads DWARF (symbol names come from the symbol table; the
# debuggers run against the host's build), and writing it was a sixth of
# each port's compile time.
port_flags="-O2 -DNDEBUG"
suite_args=()
if [ -n "${suite_dirs:-}" ]; then
  suite_args=(-DSK_PORT_SUITE="$(tr -s ' \n' ';;' <<<"$suite_dirs" | sed 's/;$//')"
              -DSTATICKEYS_BUILD_BENCH="${suite_bench:-OFF}")
fi
build() {
  "$cmake" -S "$src" -B "$xbuild" \
    "${configure_args[@]}" "${suite_args[@]}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSK_CROSS_SUBBUILD=ON \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="$port_flags" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$port_flags" \
    "${extra_cmake_args[@]}" \
    > "$xbuild.configure.log" 2>&1 ||
    { cat "$xbuild.configure.log"; fail "configure"; }
  "$cmake" --build "$xbuild" -j "$jobs" > "$xbuild.build.log" 2>&1 ||
    { tail -50 "$xbuild.build.log"; fail "build (log: $xbuild.build.log)"; }
  is_target "$xbuild/src/libstatickeys.so" ||
    fail "$xbuild/src/libstatickeys.so is not built for $arch"
  echo "build: $xbuild"
}

case $mode in
tests)
  build
  # *.excluded: "test-name-regex  reason" per line.
  regexes=() ; echo "excluded from $arch's run, with the reason:"
  for list in $excluded; do
    while read -r name reason; do
      case $name in ''|'#'*) continue ;; esac
      echo "  $name: $reason"
      regexes+=("$name")
    done < "$here/$list.excluded"
  done
  # The timed tortures and churns run 3 s each here, against 10 s in the
  # host's own run: the port's proof is the same protocol and the same
  # checks, and five ports at 10 s each were a sixth of `make test`.
  export SK_TORTURE_SECONDS=${SK_TORTURE_SECONDS:-3}
  export SKO_CHURN_SECONDS=${SKO_CHURN_SECONDS:-3}
  # ARCH.conf's test_env: settings every test runs with (it says why).
  for v in ${test_env:-}; do echo "environment: $v"; export "${v?}"; done
  cd "$xbuild"
  # The names matched here (bash's ERE), passed to ctest as one plain
  # alternation: CMake's regular expressions allow only 9 groups.
  names=
  for t in $("$ctest" -N | sed -n 's/^ *Test *#[0-9]*: //p'); do
    for re in "${regexes[@]}"; do
      [[ $t =~ $re ]] && { names=${names:+$names|}$t; break; }
    done
  done
  regex="^(${names:-no test excluded})\$"
  "$ctest" -N -E "$regex" | tail -1
  "$ctest" -j "$jobs" --output-on-failure --timeout 600 -E "$regex"
  ;;
install)
  build
  prefix=$(mktemp -d "$xbuild.prefix.XXXXXX")
  trap 'rm -rf "$prefix"' EXIT
  "$cmake" --install "$xbuild" --prefix "$prefix" > /dev/null
  ok=0
  for f in include/statickeys.h include/statickeys/arch/generic.h \
           include/statickeys/arch/x86_64.h include/statickeys/branch.h \
           lib/pkgconfig/statickeys.pc lib/cmake/statickeys/statickeysConfig.cmake \
           lib/libstatickeys.so lib/libstatickeys.a; do
    [ -e "$prefix/$f" ] || fail "installed prefix lacks $f"
    ok=$((ok + 1))
  done
  is_target "$prefix/lib/libstatickeys.so" ||
    fail "installed libstatickeys.so is not $arch"
  diff -r "$src/include" "$prefix/include" ||
    fail "installed headers differ from the source tree's"
  echo "prefix $prefix: $ok files present, library is $arch, headers identical"
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
    -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
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
  for t in $clang_tests; do
  for ld in "${linkers[@]}"; do
    exe=$out/$(basename "${t%.*}").$ld
    cc=clang; case $t in *.cpp) cc="clang++ -std=gnu++17" ;; esac
    $cc --target=$triple -O2 -Wall -Wextra -Werror -I"$src/include" \
      -ffunction-sections -fdata-sections -fuse-ld=$ld -Wl,--gc-sections \
      "$src/tests/$t" -o "$exe" -L"$xbuild/src" -lstatickeys \
      -Wl,-rpath,"$xbuild/src"
    is_target "$exe" || fail "$exe is not $arch"
    # The sites must be patched ones (in the site table), not the portable
    # fallback: the sections the conf names must be there.
    objdump_out=$($triple-objdump -h "$exe")
    for sec in $clang_sections; do
      grep -q " $sec " <<<"$objdump_out" || fail "$exe has no $sec section"
    done
    echo "clang-built, $ld-linked $(basename "$t"):"
    run "$exe"
  done
  done
  ;;
e2e)
  # The control plane end to end (tests/control/e2e.sh) with the target's
  # skdemo and skctl, each behind a wrapper that execs the emulator (same
  # process id, which skctl -p relies on).
  build
  # ARCH.conf's test_env holds for the demo too (the emulator's writer).
  for v in ${test_env:-}; do echo "environment: $v"; export "${v?}"; done
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
