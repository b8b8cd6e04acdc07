#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# no_warnings.sh SRC_DIR - the public headers compile without a warning in a
# user's strictest build, with -Werror: tests/headers/uses.c (every header,
# and a use of each macro and inline function) compiled
#   as C      in C99, C11, C17 and C23 (-std=c2x): -Wall -Wextra -Wpedantic
#             -Wconversion -Wshadow -Wstrict-prototypes
#   as C++    in C++11, 17, 20 and 23 (c++2b where the compiler has no
#             c++23): the same less the C-only ones, with -Wold-style-cast
#             (and -Wuseless-cast with g++); statickeys.hpp from C++17 on
# by gcc/g++ and clang/clang++ (every standard), and by each patched
# architecture's cross compiler and mingw-w64 (C11 and C++17), each with the
# patched sites and with the portable backend (SK_NO_ASM_GOTO).  The first
# warning of each compile is printed; any failure fails the test.  A
# compiler that is not installed is named, and then the test ends with 77
# (skipped) after running all the others (.ci/run installs every one).
set -u
src=$1
inc=$src/include
file=$src/tests/headers/uses.c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

c_flags=(-Wall -Wextra -Wpedantic -Wconversion -Wshadow -Wstrict-prototypes -Werror)
cxx_flags=(-Wall -Wextra -Wpedantic -Wconversion -Wshadow -Wold-style-cast -Werror)

# One line per compile: COMPILER LANG STD [DEFINE]
jobs=()
missing=()
add() { # add COMPILER LANG STD...
	local cc=$1 lang=$2
	shift 2
	command -v "$cc" >/dev/null || { missing+=("$cc"); return; }
	for std in "$@"; do
		jobs+=("$cc $lang $std -" "$cc $lang $std -DSK_NO_ASM_GOTO")
	done
}
add gcc c c99 c11 c17 c2x
add clang c c99 c11 c17 c2x
add g++ c++ c++11 c++17 c++20 c++23
add clang++ c++ c++11 c++17 c++20 c++23
for triple in aarch64-linux-gnu i686-linux-gnu riscv64-linux-gnu \
	powerpc64le-linux-gnu s390x-linux-gnu arm-linux-gnueabihf \
	x86_64-w64-mingw32; do
	add $triple-gcc c c11
	add $triple-g++ c++ c++17
done

compile() { # compile "COMPILER LANG STD DEFINE"; prints a result line
	set -- $1
	local cc=$1 lang=$2 std=$3 def=$4 flags log=$tmp/$$.$RANDOM
	if [ "$lang" = c ]; then
		flags=("${c_flags[@]}")
	else
		flags=("${cxx_flags[@]}")
		case $cc in clang++) ;; *g++) flags+=(-Wuseless-cast) ;; esac
		# clang 14 names C++23 c++2b.
		"$cc" -std="$std" -x c++ -fsyntax-only /dev/null 2>/dev/null ||
			std=c++2b
	fi
	[ "$def" = - ] && def=
	if "$cc" -std="$std" -x "$lang" -c -I"$inc" "${flags[@]}" $def \
		"$file" -o "$log.o" >"$log" 2>&1; then
		echo "ok   $cc -std=$std $def"
	else
		echo "FAIL $cc -std=$std $def: $(grep -m1 -E 'error|warning' "$log")"
	fi
	rm -f "$log" "$log.o"
}
export -f compile
export inc file tmp
export c_flags_s="${c_flags[*]}" cxx_flags_s="${cxx_flags[*]}"

results=$(printf '%s\n' "${jobs[@]}" |
	xargs -P 2 -I{} bash -c "c_flags=(\$c_flags_s); cxx_flags=(\$cxx_flags_s); compile '{}'")
echo "$results"
failed=$(grep -c '^FAIL' <<<"$results")
passed=$(grep -c '^ok' <<<"$results")
echo "$passed compiles without a warning, $failed with one"
[ "$failed" -eq 0 ] || exit 1
if [ ${#missing[@]} -gt 0 ]; then
	echo "SKIPPED: not installed here, so not checked: ${missing[*]}"
	exit 77
fi
exit 0
