#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# zig_build.sh TARGET SRC XBUILD CMAKE
# Another operating system, built and not run: this tree configured with
# cmake/toolchains/zig.cmake for zig's TARGET (x86_64-freebsd...) into
# XBUILD, without tests and benchmarks, then the shared and static runtime,
# skctl and skdemo (a program using the API) built and checked to be
# programs of that OS.  zig is the PyPI package ziglang, imported from
# python3 or from XBUILD/../zig (.ci/run installs it there with
# pip install --target).  Exit 77 (skipped) with the reason without it.
set -euo pipefail
# grep that reads all its input: `cmd | grep -q` can leave cmd a SIGPIPE,
# which pipefail counts as the pipeline failing.
matches() { grep "$@" >/dev/null; }
target=$1 src=$2 xbuild=$3 cmake=$4
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }

mkdir -p "$(dirname "$xbuild")"
zigdir=$(dirname "$xbuild")/zig
if [ -d "$zigdir/ziglang" ]; then
  export PYTHONPATH=$zigdir${PYTHONPATH:+:$PYTHONPATH}
fi
python3 -c 'import ziglang' 2>/dev/null ||
  skip "no zig (pip install ziglang, or pip install --target $zigdir ziglang)"
echo "zig $(python3 -m ziglang version), target $target"

# is_target FILE: a program or library of the target OS.  FreeBSD's shared
# objects carry no OS note: they need FreeBSD's libc.so.7.
is_target() {
  case $target in
    *-freebsd) file -L "$1" | matches 'for FreeBSD' ||
                 readelf -d "$1" 2>/dev/null | matches 'Shared library: \[libc.so.7\]' ;;
    *-macos) file -L "$1" | matches 'Mach-O' ;;
    *) fail "no check for $target" ;;
  esac
}

"$cmake" -S "$src" -B "$xbuild" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/zig.cmake" \
  -DSK_ZIG_TARGET="$target" "-DSK_ZIG=python3 -m ziglang" -DSK_ZIG_CXX=OFF \
  -DSTATICKEYS_BUILD_TESTS=OFF -DSTATICKEYS_BUILD_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$xbuild.configure.log" 2>&1 ||
  { tail -30 "$xbuild.configure.log"; fail "configure for $target"; }
grep 'statickeys backend' "$xbuild.configure.log" | sed 's/^-- //'
"$cmake" --build "$xbuild" -j "${SK_CROSS_JOBS:-2}" \
  --target statickeys statickeys_static skctl skdemo > "$xbuild.build.log" 2>&1 ||
  { grep -E 'error|warning' "$xbuild.build.log" | head -30; fail "build for $target"; }
if grep -E 'warning:' "$xbuild.build.log"; then fail "warnings building for $target"; fi

n=0
for f in "$xbuild"/src/libstatickeys.so.*.*.* "$xbuild"/src/libstatickeys.*.dylib \
         "$xbuild/tools/skctl" "$xbuild/tools/skdemo"; do
  [ -e "$f" ] && [ ! -L "$f" ] && [ "${f%.py}" = "$f" ] || continue
  is_target "$f" || fail "$f is not a $target file: $(file -L "$f")"
  echo "built: $(file -L "$f" | sed "s|$xbuild/||" | cut -c1-140)"
  n=$((n + 1))
done
ar t "$xbuild/src/libstatickeys.a" >/dev/null || fail "no static library"
echo "built: src/libstatickeys.a ($(ar t "$xbuild/src/libstatickeys.a" | wc -l) objects)"
[ $n -ge 3 ] || fail "expected the shared library, skctl and skdemo; found $n"
# skdemo defines 5 keys (4 and its debug statement's): their listing (8
# bytes each) must be where the runtime looks for it (statickeys/section.h),
# or no key has a name there.
case $target in
  *-macos) listed=$(python3 "$src/tests/cross/macho_section.py" "$xbuild/tools/skdemo" __DATA sk_keys) ;;
  *) listed=$(readelf -SW "$xbuild/tools/skdemo" | sed -n "s/.* sk_keys  *[A-Z]*  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p") && listed=$((16#${listed:-0})) ;;
esac
[ "${listed:-0}" -eq 40 ] || fail "skdemo lists ${listed:-0} bytes of keys, not 40 (5 keys)"
echo "skdemo lists its 5 keys in its key section"
n=$((n + 1))
echo "$((n + 1)) passed, 0 failed"
