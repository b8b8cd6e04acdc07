#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# musl_static.sh ARCH ZIG_TARGET QEMU_NAME SRC XBUILD CMAKE QEMU_DIR [CFLAG...]
# A port on musl, fully static, where Debian has no musl cross compiler
# for it (armhf, loongarch64): the runtime built by zig's clang against
# zig's musl (cmake/toolchains/zig.cmake, ZIG_TARGET, the CFLAGs added:
# -mthumb for armhf's Thumb-2 sites), then the kernel self-test matrix,
# the torture, the static-call test and the static-call torture linked
# statically against libstatickeys.a and run under qemu-user 10 from
# QEMU_DIR (with the mprotect writer, which qemu refetches).  zig's musl
# builds static programs only, so this is the static half of the port's
# suite on musl; the shared-object half stays glibc's (cross.sh).  zig
# comes from python3 or XBUILD/../zig, as for zig_build.sh.  Exit 77
# (skipped) with the reason without zig or the emulator.
set -euo pipefail
matches() { grep "$@" >/dev/null; }
arch=$1 target=$2 qemu_name=$3 src=$4 xbuild=$5 cmake=$6 qemu_dir=$7
shift 7
cflags="$*"
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }

mkdir -p "$(dirname "$xbuild")"
zigdir=$(dirname "$(dirname "$xbuild")")/os/zig
[ -d "$zigdir/ziglang" ] && export PYTHONPATH=$zigdir${PYTHONPATH:+:$PYTHONPATH}
python3 -c 'import ziglang' 2>/dev/null ||
  skip "no zig (pip install ziglang; .ci/run puts it in <build>/os/zig)"
qemu=$qemu_dir/$qemu_name
[ -x "$qemu" ] || qemu=$(command -v "$qemu_name" || true)
[ -n "$qemu" ] && "$qemu" --version | matches 'version \(1[0-9]\|[2-9][0-9]\)\.' ||
  skip "no $qemu_name 10 or newer (tests/cross/fetch_qemu_user.sh)"
echo "zig $(python3 -m ziglang version) cc -target $target $cflags"
echo "emulator: $("$qemu" --version | head -1)"

"$cmake" -S "$src" -B "$xbuild" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/zig.cmake" \
  -DSK_ZIG_TARGET="$target" "-DSK_ZIG=python3 -m ziglang" -DSK_ZIG_CXX=OFF \
  -DSTATICKEYS_BUILD_TESTS=OFF -DSTATICKEYS_BUILD_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS=$cflags" \
  > "$xbuild.configure.log" 2>&1 ||
  { tail -30 "$xbuild.configure.log"; fail "configure for $target"; }
grep 'statickeys backend' "$xbuild.configure.log" | sed 's/^-- //'
grep 'statickeys backend' "$xbuild.configure.log" | matches "backend: $arch " ||
  fail "the runtime for $target is not the $arch backend"
"$cmake" --build "$xbuild" -j "${SK_CROSS_JOBS:-2}" --target statickeys_static \
  > "$xbuild.build.log" 2>&1 ||
  { grep -E 'error|warning' "$xbuild.build.log" | head -30; fail "build for $target"; }

cc() { python3 -m ziglang cc -target "$target" $cflags -O2 -static "$@"; }
run_one() { # NAME SOURCE [ARG...]: built, checked static, run
  local name=$1 source=$2 exe=$xbuild/$1
  shift 2
  cc -I"$src/include" "$src/tests/$source" "$xbuild/src/libstatickeys.a" \
    -lpthread -o "$exe" || fail "$name: does not build"
  file -L "$exe" | matches -E 'statically linked|static-pie linked' ||
    fail "$name is not a static program: $(file -L "$exe")"
  echo "== $name ($(file -L "$exe" | cut -d, -f1-2 | sed "s|$xbuild/||"))"
  STATICKEYS_WRITER=mprotect SK_TORTURE_SECONDS=3 "$qemu" "$exe" "$@" ||
    fail "$name under $qemu_name"
}
run_one selftest core/selftest.c
run_one torture core/torture.c
run_one static_call_basic static_call/basic.c
run_one static_call_torture static_call/torture.c 3 3
echo "$target: 4 static programs passed"
