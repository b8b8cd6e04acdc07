#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# subproject.sh SRC_DIR HOW - a project builds statickeys from its sources
# with HOW (add_subdirectory or FetchContent): only the library is built,
# statickeys::statickeys and statickeys::statickeys_static link and run.
set -eu
src=$1 how=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/tests/install/subproject" "$tmp/project"
cp "$src/tests/install/consumer.c" "$tmp/"
cmake -S "$tmp/project" -B "$tmp/b" -DSK_HOW="$how" -DSK_SOURCE="$src" \
	${CMAKE_C_COMPILER_LAUNCHER:+-DCMAKE_C_COMPILER_LAUNCHER=$CMAKE_C_COMPILER_LAUNCHER} \
	>"$tmp/conf.log" 2>&1 || { cat "$tmp/conf.log"; exit 1; }
cmake --build "$tmp/b" -j2 >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
# Nothing but the two libraries and the consumers.
built=$(find "$tmp/b" -type f -perm -u+x ! -name '*.so*' ! -name 'a.out' ! -path '*/CMakeFiles/*' -printf '%f\n' | sort | tr '\n' ' ')
[ "$built" = "consumer consumer_static " ] || { echo "FAIL: built executables: $built"; exit 1; }
# ... and no library of the tests' (statickeys_inject, with its fault hooks).
libs=$(find "$tmp/b" -name 'lib*.a' -o -name 'lib*.so*' | sed 's|.*/||' | sort | tr '\n' ' ')
case " $libs" in *inject*) echo "FAIL: built the tests' libraries too: $libs"; exit 1 ;; esac
"$tmp/b/consumer"
"$tmp/b/consumer_static"
ldd "$tmp/b/consumer_static" | grep -q libstatickeys && { echo "FAIL: statickeys_static linked the shared library"; exit 1; }
echo "$how: only the library built; statickeys::statickeys and statickeys::statickeys_static work"
echo "3 passed, 0 failed"
