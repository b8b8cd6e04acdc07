#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# snippets.sh SRC CC CXX INCLUDE LIBRARY - every C and C++ program printed in
# the documentation compiles and runs as printed.
#
# Reads the fenced blocks marked ```c and ```cpp of SRC/README.md and
# SRC/docs/*.md.  A block containing "main(" is a complete program: it is
# compiled exactly as printed (C11 with CC, C++17 with CXX; -I INCLUDE, the
# runtime LIBRARY by its path, and the library's interface definitions from
# SK_DOCS_DEFS), run with a 30 s timeout, and must exit 0.  A block without
# "main(" is a fragment: the line before its fence must say so with the
# mark <!-- fragment: ... --> (docs/testing.md), or the block fails.
# CXX "none" (no C++ compiler) skips the C++ programs, saying so.
# Prints one line per block and "N passed, M failed" last; exits 1 on any
# failure.
set -uo pipefail
src=$1 cc=$2 cxx=$3 inc=$4 lib=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
defs=()
for d in ${SK_DOCS_DEFS:-}; do [ "$d" = "-D" ] || defs+=("$d"); done
libdir=$(dirname "$lib")
pass=0 fail=0 n=0

# extract FILE: one file per block in $tmp/blocks, named N.LANG, with
# N.where (FILE:LINE) and N.frag (present when the fragment mark precedes).
extract() {
	awk -v file="$1" -v rel="$2" -v dir="$tmp/blocks" -v start="$n" '
	BEGIN { k = start }
	/^```(c|cpp)[ \t]*$/ && !inb {
		inb = 1; k++; lang = ($0 ~ /cpp/) ? "cpp" : "c"
		out = dir "/" k "." lang
		printf "" > out
		print rel ":" NR > (dir "/" k ".where")
		if (prev ~ /<!-- *fragment:/) print "" > (dir "/" k ".frag")
		next
	}
	inb && /^```[ \t]*$/ { inb = 0; close(out); next }
	inb { print >> out; next }
	/[^ \t]/ { prev = $0 }
	END { print k > (dir "/count") }
	' "$1"
	n=$(cat "$tmp/blocks/count")
}

mkdir -p "$tmp/blocks"
for f in "$src/README.md" "$src"/docs/*.md; do
	extract "$f" "${f#"$src"/}"
done

for ((i = 1; i <= n; i++)); do
	b=$(ls "$tmp/blocks/$i".c "$tmp/blocks/$i".cpp 2>/dev/null)
	where=$(cat "$tmp/blocks/$i.where")
	lang=${b##*.}
	if ! grep -q 'main(' "$b"; then
		if [ -e "$tmp/blocks/$i.frag" ]; then
			echo "fragment $where ($lang): marked, not compiled"
		else
			echo "FAILED $where ($lang): no main() and no fragment mark before the fence"
			fail=$((fail + 1))
		fi
		continue
	fi
	if [ "$lang" = cpp ]; then
		if [ "$cxx" = none ] || [ -z "$cxx" ]; then
			echo "skipped $where (cpp): this build has no C++ compiler"
			continue
		fi
		compile=("$cxx" -std=c++17 -x c++)
	else
		compile=("$cc" -std=c11 -x c)
	fi
	exe=$tmp/prog$i
	if ! "${compile[@]}" -O2 -Wall -Wextra -I"$inc" "${defs[@]}" "$b" -x none "$lib" \
		-Wl,-rpath,"$libdir" -o "$exe" >"$tmp/cc$i.log" 2>&1; then
		echo "FAILED $where ($lang): does not compile as printed:"
		sed 's/^/    /' "$tmp/cc$i.log" | head -20
		fail=$((fail + 1))
		continue
	fi
	if [ -s "$tmp/cc$i.log" ]; then
		echo "  warnings for $where:"; sed 's/^/    /' "$tmp/cc$i.log" | head -10
	fi
	timeout 30 "$exe" >"$tmp/run$i.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAILED $where ($lang): compiled, but exited $rc:"
		sed 's/^/    /' "$tmp/run$i.log" | head -20
		fail=$((fail + 1))
		continue
	fi
	echo "ok $where ($lang): compiled and ran ($(wc -l <"$tmp/run$i.log") lines of output)"
	pass=$((pass + 1))
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
