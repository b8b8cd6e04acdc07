#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# install_test.sh SRC XBUILD CMAKE - the Windows install runs as installed:
# `cmake --install` of the mingw-w64 build (XBUILD, the one
# windows_wine_tests makes; configured and the library built here when it
# is not there), then a program built against the installed tree alone,
# with pkg-config, dynamically (beside the installed DLLs, nothing else on
# wine's path) and statically (`pkg-config --static`), each run under wine.
# Exit 77 (skipped) with the reason without mingw-w64, wine or pkg-config.
set -euo pipefail
src=$1 xbuild=$2 cmake=$3
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }
cc=x86_64-w64-mingw32-gcc
command -v $cc >/dev/null || skip "no mingw-w64 ($cc; Debian: gcc-mingw-w64-x86-64)"
wine=$(command -v wine64 || command -v wine || true)
[ -n "$wine" ] || [ ! -x /usr/lib/wine/wine64 ] || wine=/usr/lib/wine/wine64
[ -n "$wine" ] || skip "no wine (Debian: wine64)"
command -v pkg-config >/dev/null || skip "no pkg-config"

mkdir -p "$(dirname "$xbuild")"
export WINEPREFIX=${WINEPREFIX:-$(dirname "$xbuild")/wineprefix}
export WINEDEBUG=${WINEDEBUG:--all}
unset WINEPATH # the installed tree alone: no toolchain folder on wine's path
if [ ! -e "$xbuild/CMakeCache.txt" ]; then
  "$cmake" -S "$src" -B "$xbuild" \
    -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/x86_64-w64-mingw32.cmake" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSK_CROSS_SUBBUILD=ON \
    >"$xbuild.configure.log" 2>&1 || { tail -30 "$xbuild.configure.log"; fail "configure"; }
fi
"$cmake" --build "$xbuild" -j "${SK_CROSS_JOBS:-2}" --target statickeys statickeys_static \
  >"$xbuild.install_build.log" 2>&1 || { tail -30 "$xbuild.install_build.log"; fail "build"; }

"$wine" wineboot --init >/dev/null 2>&1 || true # the prefix, once
tmp=$(mktemp -d "$(dirname "$xbuild")/install_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
inst="$tmp/prefix"
"$cmake" --install "$xbuild" --prefix "$inst" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; fail "cmake --install"; }
passed=0 failed=0
check() { local what=$1; shift; if "$@"; then echo "ok: $what"; passed=$((passed + 1)); else echo "FAILED: $what"; failed=$((failed + 1)); fi; }
check "bin/ has libstatickeys.dll" [ -e "$inst/bin/libstatickeys.dll" ]
check "bin/ has the libwinpthread-1.dll it imports" [ -e "$inst/bin/libwinpthread-1.dll" ]
check "no gdb script (an ELF habit) is installed" \
  [ -z "$(find "$inst" -name '*-gdb.py' | head -1)" ]

cat >"$tmp/prog.c" <<'C'
#include <stdio.h>
#include <statickeys.h>

SK_DEFINE_KEY_FALSE(tracing);

static int traced;

__attribute__((noinline)) static int hot(int x)
{
	if (sk_branch_unlikely(&tracing))
		traced++;
	return x * 2;
}

int main(void)
{
	hot(1);
	if (sk_key_enable(&tracing) != 0)
		return 2;
	hot(2);
	sk_key_disable(&tracing);
	hot(3);
	printf("traced %d\n", traced);
	return traced == 1 ? 0 : 1;
}
C
export PKG_CONFIG_LIBDIR="$inst/lib/pkgconfig" # the installed tree's .pc alone
cflags=$(pkg-config --cflags statickeys) libs=$(pkg-config --libs statickeys)
static_libs=$(pkg-config --static --libs statickeys)
echo "pkg-config: $cflags $libs; --static: $static_libs"

# Dynamic: the program beside the installed DLLs, as a user ships it.
$cc "$tmp/prog.c" $cflags $libs -o "$inst/bin/prog.exe" 2>"$tmp/cc.log" ||
  { cat "$tmp/cc.log"; fail "compile against the installed tree"; }
out=$(cd "$inst/bin" && "$wine" ./prog.exe 2>"$tmp/wine.err") && rc=0 || rc=$?
out=${out//$'\r'/} # the C runtime writes CRLF
echo "$out" | sed 's/^/  dynamic: /'; sed 's/^/  dynamic (stderr): /' "$tmp/wine.err"
check "dynamic: runs from the installed bin/ under wine (exit 0, traced 1)" \
  [ "$rc" -eq 0 -a "$out" = "traced 1" ]

# Static: no DLL at all; Libs.private must name what the runtime needs.
mkdir -p "$tmp/static"
$cc -static "$tmp/prog.c" $cflags $static_libs -o "$tmp/static/prog.exe" 2>"$tmp/cc_static.log" ||
  { cat "$tmp/cc_static.log"; }
check "static: links with pkg-config --static --libs alone" [ -e "$tmp/static/prog.exe" ]
if [ -e "$tmp/static/prog.exe" ]; then
  out=$(cd "$tmp/static" && "$wine" ./prog.exe 2>"$tmp/wine.err") && rc=0 || rc=$?
  out=${out//$'\r'/} # the C runtime writes CRLF
  echo "$out" | sed 's/^/  static: /'; sed 's/^/  static (stderr): /' "$tmp/wine.err"
  check "static: runs alone under wine (exit 0, traced 1)" [ "$rc" -eq 0 -a "$out" = "traced 1" ]
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
