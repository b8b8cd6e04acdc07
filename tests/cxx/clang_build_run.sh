#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# clang_build_run.sh CLANGXX SRCDIR LIBSTATICKEYS - build the C++ API test
# (program, shared library and plugin) with clang++ at -O2 and run it.
set -eu
clangxx=$1 src=$2 lib=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libdir=$(dirname "$lib")
t=$src/tests/cxx
flags=(-std=gnu++17 -O2 -fPIC -I"$src/include")
"$clangxx" "${flags[@]}" -shared "$t/shared_lib.cpp" -L"$libdir" -lstatickeys \
	-o "$tmp/libsk_cxx_shared.so"
"$clangxx" "${flags[@]}" -shared -DSK_OBJECT_NAME='"plugin"' "$t/shared_lib.cpp" \
	-L"$libdir" -lstatickeys -o "$tmp/sk_cxx_plugin.so"
"$clangxx" "${flags[@]}" -DSK_CXX_PLUGIN_PATH="\"$tmp/sk_cxx_plugin.so\"" \
	"$t/api_test.cpp" "$t/tu_a.cpp" "$t/tu_b.cpp" -rdynamic \
	-L"$tmp" -lsk_cxx_shared -L"$libdir" -lstatickeys -lgtest -lgtest_main \
	-lpthread -ldl -Wl,-rpath,"$libdir:$tmp" -o "$tmp/cxx_api_clang"
"$tmp/cxx_api_clang"
