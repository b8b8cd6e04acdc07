#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# clang_build_run.sh CLANG CLANGXX SRCDIR LIBSTATICKEYS - build the
# kernel-style code and its test with clang (C11) and clang++ (C++17), at
# -O2 and -O0, and run them.
set -eu
clang=$1 clangxx=$2 src=$3 lib=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libdir=$(dirname "$lib")
t=$src/tests/linux
common=(-I"$src/include" -L"$libdir" -lstatickeys -lpthread -Wl,-rpath,"$libdir")
"$clang" -std=gnu11 -O2 "$t/kernel_api.c" "$t/kernel_style.c" "${common[@]}" -o "$tmp/c_O2"
"$clang" -std=gnu11 -O0 "$t/kernel_api.c" "$t/kernel_style.c" "${common[@]}" -o "$tmp/c_O0"
"$clangxx" -std=gnu++17 -O2 "$t/kernel_api_cxx.cpp" "$t/kernel_style_cxx.cpp" "${common[@]}" -o "$tmp/cxx_O2"
for p in c_O2 c_O0 cxx_O2; do
	echo "== clang build $p"
	"$tmp/$p"
done
