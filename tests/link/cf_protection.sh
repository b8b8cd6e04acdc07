#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# cf_protection.sh ON|OFF CC READELF OBJDUMP NM PATH... - built with
# -fcf-protection (STATICKEYS_CF_PROTECTION, x86-64 Linux), what the build
# makes is marked IBT and SHSTK in its .note.gnu.property (glibc turns
# shadow stacks on only where every object of a program is), and every
# static call trampoline starts with endbr64, which IBT requires where an
# indirect call or jump lands (docs/static-calls.md, "IBT and shadow
# stacks").  A PATH is a folder (every object file compiled under it), a
# static library (every member), or a linked library or program (marked,
# and its sk__sct_* symbols start with endbr64).  The linker marks a
# linked file only if all its inputs are marked, the C library's start
# files included: where those are not (Debian 12's glibc), linked files
# cannot be, and only their trampolines are checked, with the reason.
# Nothing here runs with IBT or a shadow stack enforced: it says whether
# this CPU could.
set -u
. "$(dirname "$0")/../check.sh"
enabled=$1 cc=$2 readelf=$3 objdump=$4 nm=$5
shift 5

flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
for f in user_shstk ibt; do
	case " $flags " in
	*" $f "*) echo "this CPU and kernel show '$f' (/proc/cpuinfo)" ;;
	*) echo "this CPU or kernel does not show '$f' (/proc/cpuinfo)" ;;
	esac
done
echo "not run: a program with a shadow stack or IBT enforced (Linux" \
	"enforces no user IBT; shadow stacks need Linux 6.6+, glibc 2.39+ and" \
	"a CPU with user_shstk); checked: the marks and the bytes"
if [ "$enabled" != ON ]; then
	echo "SKIPPED: built without -fcf-protection (STATICKEYS_CF_PROTECTION" \
		"off, not x86-64 Linux, or the compiler lacks it)"
	exit 77
fi

# marked FILE... - every object in each FILE (each member of an archive)
# has IBT and SHSTK among its x86 features; names any that has not.
marked() {
	local f bad=0
	for f in "$@"; do
		"$readelf" -n "$f" | awk -v file="$f" '
			/^File: / { if (name != "") report()
				    name = $2; ok = 0; next }
			/x86 feature: / && /IBT/ && /SHSTK/ { ok = 1 }
			function report() {
				if (!ok) { print name ": not marked"; bad++ }
			}
			END { if (name == "") name = file; report()
			      exit bad > 0 }' || bad=1
	done
	return $bad
}

# endbr_first FILE - every sk__sct_* symbol of FILE starts with endbr64;
# names any that does not, and says how many were looked at.
endbr_first() {
	local n=0 bad=0 addr sym stop
	while read -r addr _ sym; do
		n=$((n + 1))
		stop=$(printf '0x%x' $((0x$addr + 4)))
		if ! "$objdump" -d --start-address="0x$addr" \
			--stop-address="$stop" "$1" | grep -q 'endbr64'; then
			echo "$sym does not start with endbr64"
			bad=$((bad + 1))
		fi
	done < <("$nm" --defined-only "$1" | awk '$3 ~ /^sk__sct_/')
	echo "$n trampolines"
	return $((bad > 0))
}

# The start files every program and library is linked with.
start_files=()
for f in crti.o crtn.o; do
	p=$("$cc" -print-file-name=$f)
	[ -f "$p" ] && start_files+=("$p")
done
linked_marks=yes
if ! marked "${start_files[@]}" >/dev/null; then
	linked_marks=no
	echo "the C library's start files (${start_files[*]}) carry no IBT" \
		"and SHSTK marks: no file linked here can; checking the objects" \
		"compiled, and the linked files' trampolines"
fi

for p in "$@"; do
	name=${p##*/}
	if [ -d "$p" ]; then
		mapfile -t objs < <(find "$p" -name '*.o' | sort)
		check "$name/: its ${#objs[@]} object files marked IBT and SHSTK" \
			marked "${objs[@]}"
		continue
	fi
	case $p in
	*.a)
		check "$name: every member marked IBT and SHSTK" marked "$p"
		continue ;;
	esac
	[ $linked_marks = yes ] &&
		check "$name: marked IBT and SHSTK" marked "$p"
	check "$name: every trampoline starts with endbr64" endbr_first "$p"
done
check_summary
