#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# clang_selftest.sh CLANG CLANGXX SRCDIR LIBSTATICKEYS - build and run the
# self-test matrix with clang (C11) and clang++ (C++17) against the library.
set -eu
clang=$1 clangxx=$2 src=$3 lib=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libdir=$(dirname "$lib")
"$clang" -std=gnu11 -O2 -I"$src/include" "$src/tests/core/selftest.c" \
	-L"$libdir" -lstatickeys -Wl,-rpath,"$libdir" -o "$tmp/selftest_c"
"$clangxx" -std=gnu++17 -O2 -I"$src/include" "$src/tests/core/selftest_cxx.cpp" \
	-L"$libdir" -lstatickeys -Wl,-rpath,"$libdir" -o "$tmp/selftest_cxx"
"$clang" -std=gnu11 -O0 -I"$src/include" "$src/tests/core/selftest.c" \
	-L"$libdir" -lstatickeys -Wl,-rpath,"$libdir" -o "$tmp/selftest_c_O0"
"$tmp/selftest_c" && "$tmp/selftest_cxx" && "$tmp/selftest_c_O0"
