#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# build_libfuzzer.sh CLANG SRCDIR OUT RUNTIME_SOURCES... - build the libFuzzer
# target: the runtime compiled as the library is (SK_BUILDING_LIBRARY), the
# fuzz target as a program, all with the fuzzer's coverage and ASan/UBSan.
set -eu
clang=$1 src=$2 out=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Any UBSan report stops the run.
flags=(-std=gnu11 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined
       -fno-sanitize-recover=undefined
       -D_GNU_SOURCE -I"$src/include" -iquote "$src/src" -I"$src/tools")
objs=()
for f in "$@"; do
	# Named by the path under src/: two layers may each have a stats.c.
	rel=${f#"$src"/}
	o=$tmp/${rel//\//_}.o
	"$clang" "${flags[@]}" -fsanitize=fuzzer-no-link -DSK_BUILDING_LIBRARY -c "$f" -o "$o"
	objs+=("$o")
done
"$clang" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src/tools/skctl_json.c" \
	-o "$tmp/skctl_json.o"
"$clang" "${flags[@]}" -fsanitize=fuzzer "$src/fuzz/request_fuzz.c" "${objs[@]}" \
	"$tmp/skctl_json.o" \
	-lpthread -ldl -o "$out"
