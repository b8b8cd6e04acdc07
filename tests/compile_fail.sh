#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# compile_fail.sh CASES INCLUDE_DIR LANG=COMPILER... - wrong use of the API
# must not compile.  CASES is one source file holding every case, chosen
# with -DMISUSE=N, and a line per case:
#     //! N|what it is|pattern of the expected error|another pattern...
# A case marked "//!c++" is refused by C++'s types alone (C compiles it).
# A case marked "//!patched" instead applies only where sites are patched
# (SK_HAVE_PATCHED_SITES): a key known only at run time is refused there,
# because a site's table needs the key's link-time address, while a site
# that tests a flag (the portable backend) takes any key.
# The file as it should be written (MISUSE=0) must compile, proving the
# harness works; each misuse must fail, and with an error matching one of
# its patterns (grep -E), so that a case cannot pass by failing for an
# unrelated reason.  Each LANG (c or c++) is compiled by its COMPILER.
set -u
cases_file=$1 inc=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
mapfile -t cases < <(sed -nE 's#^//!(patched|c\+\+)? #\1 #p' "$cases_file")
[ ${#cases[@]} -gt 0 ] || { echo "FAIL: no //! cases in $cases_file"; exit 1; }

try() { # try COMPILER LANG MISUSE
	# -Werror=incompatible-pointer-types: what gcc >= 14 does by default.
	local flags=(-Werror=incompatible-pointer-types)
	[ "$2" = c++ ] && flags=(-std=c++17)
	"$1" -x "$2" -O2 -fPIC -c -I"$inc" "${flags[@]}" -DMISUSE="$3" \
		"$cases_file" -o "$tmp/o.o" >"$tmp/log" 2>&1
}

# Whether this target's sites are patched, asked of the first compiler.
patched=0
first=${1#*=}
if printf '#include <statickeys.h>\nSK_HAVE_PATCHED_SITES\n' |
	"$first" -E -I"$inc" -x c - 2>/dev/null | tail -1 | grep -qx 1; then
	patched=1
fi

for lc in "$@"; do
	lang=${lc%%=*} compiler=${lc#*=}
	if [ "$compiler" = none ]; then # a build without this compiler (cross, C only)
		echo "note: no $lang compiler: the $lang cases are not checked"
		continue
	fi
	if try "$compiler" "$lang" 0; then
		pass=$((pass + 1))
	else
		echo "FAIL: correct use does not compile as $lang:"; cat "$tmp/log"
		fail=$((fail + 1))
	fi
	for c in "${cases[@]}"; do
		IFS='|' read -r n what patterns <<<"$c"
		if [ "${n%% *}" = c++ ]; then
			n=${n#c++ }
			if [ "$lang" != c++ ]; then
				echo "note: misuse $n ($what) is refused by C++'s types only"
				continue
			fi
		fi
		if [ "${n%% *}" = patched ]; then
			n=${n#patched }
			if [ "$patched" = 0 ]; then
				echo "note: misuse $n ($what) applies only to patched sites; this target's sites test a flag"
				continue
			fi
		fi
		n=${n# }
		if try "$compiler" "$lang" "$n"; then
			echo "FAIL: misuse $n ($what) compiled as $lang"
			fail=$((fail + 1))
		elif grep -Eq "$patterns" "$tmp/log"; then
			echo "ok: misuse $n ($what) does not compile as $lang"
			pass=$((pass + 1))
		else
			echo "FAIL: misuse $n ($what) fails as $lang for another reason:"
			head -5 "$tmp/log"
			fail=$((fail + 1))
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
