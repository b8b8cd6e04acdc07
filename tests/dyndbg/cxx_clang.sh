#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# cxx_clang.sh CLANGXX SRCDIR LIBSTATICKEYS - dyndbg_cxx's program built by
# clang++ with -Wall -Wextra -Werror, at -O0 and at -O2, and run.
set -eu
clangxx=$1 src=$2 lib=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libdir=$(dirname "$lib")
for opt in -O0 -O2; do
	"$clangxx" -std=c++17 $opt -Wall -Wextra -Werror -I"$src/include" \
		"$src/tests/dyndbg/cxx.cpp" "$src/tests/dyndbg/cxx_other.cpp" \
		-L"$libdir" -lstatickeys -Wl,-rpath,"$libdir" -o "$tmp/cxx$opt"
	echo "clang++ $opt:"
	"$tmp/cxx$opt"
done
