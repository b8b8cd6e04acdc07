#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# wine_tests.sh SRC XBUILD CMAKE CTEST
# Windows x86-64, built and run: this tree configured with
# cmake/toolchains/x86_64-w64-mingw32.cmake (mingw-w64 gcc) into XBUILD,
# built once (the DLL and static runtime, tests/windows' programs), and its
# tests run under wine (ctest's CROSSCOMPILING_EMULATOR): the C API with
# patched x86-64 sites, the kernel matrix, the torture, C++, STATICKEYS, a
# DLL's keys and sites through LoadLibrary and FreeLibrary while keys flip.  Wine is not Windows: what passes here is proven on wine 8.
# Exit 77 (skipped) with the reason without mingw-w64 or wine (.ci/run
# installs gcc-mingw-w64-x86-64 and wine64).
set -euo pipefail
# grep that reads all its input: `cmd | grep -q` can leave cmd a SIGPIPE,
# which pipefail counts as the pipeline failing.
matches() { grep "$@" >/dev/null; }
src=$1 xbuild=$2 cmake=$3 ctest=$4
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }

command -v x86_64-w64-mingw32-gcc >/dev/null ||
  skip "no mingw-w64 (x86_64-w64-mingw32-gcc; Debian: gcc-mingw-w64-x86-64)"
wine=$(command -v wine64 || command -v wine || true)
[ -n "$wine" ] || [ ! -x /usr/lib/wine/wine64 ] || wine=/usr/lib/wine/wine64
[ -n "$wine" ] || skip "no wine (Debian: wine64)"
echo "compiler: $(x86_64-w64-mingw32-gcc --version | head -1)"
echo "emulator: $("$wine" --version)"

mkdir -p "$(dirname "$xbuild")"
# RelWithDebInfo's optimization without its debug information, as in the
# ports' sub-builds (tests/cross/cross.sh): nothing here reads it.
# Wine's own prefix (its C: drive and registry) beside the build, made by
# the first program run (some seconds), not in the user's home.
export WINEPREFIX=${WINEPREFIX:-$(dirname "$xbuild")/wineprefix}
export WINEDEBUG=${WINEDEBUG:--all}
"$cmake" -S "$src" -B "$xbuild" \
  -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/x86_64-w64-mingw32.cmake" \
  -DSK_WINE="$wine" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSK_CROSS_SUBBUILD=ON \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
  > "$xbuild.configure.log" 2>&1 || { tail -30 "$xbuild.configure.log"; fail "configure"; }
grep 'statickeys backend' "$xbuild.configure.log" | sed 's/^-- //'
"$cmake" --build "$xbuild" -j "${SK_CROSS_JOBS:-2}" > "$xbuild.build.log" 2>&1 ||
  { grep -E 'error|warning' "$xbuild.build.log" | head -30; fail "build (log: $xbuild.build.log)"; }
if grep -E 'warning:' "$xbuild.build.log"; then fail "warnings building for Windows"; fi
for f in "$xbuild/bin/libstatickeys.dll" "$xbuild/src/libstatickeys.a" \
         "$xbuild/src/libstatickeys.dll.a"; do
  [ -e "$f" ] || fail "not built: $f"
done
file -L "$xbuild/bin/libstatickeys.dll" | matches 'PE32+ executable (DLL).*x86-64' ||
  fail "libstatickeys.dll is not a Windows x86-64 DLL: $(file -L "$xbuild/bin/libstatickeys.dll")"
echo "built: libstatickeys.dll, libstatickeys.dll.a, libstatickeys.a ($(ar t "$xbuild/src/libstatickeys.a" | wc -l) objects)"
"$wine" wineboot --init >/dev/null 2>&1 || true # the prefix, once
cd "$xbuild"
"$ctest" -j "${SK_CROSS_JOBS:-2}" --output-on-failure --timeout 300
