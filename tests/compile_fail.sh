#!/usr/bin/env bash
# compile_fail.sh CASES INCLUDE_DIR LANG=COMPILER... - wrong use of the API
# must not compile.  CASES is one source file holding every case, chosen
# with -DMISUSE=N, and a line per case:
#     //! N|what it is|pattern of the expected error|another pattern...
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
mapfile -t cases < <(sed -n 's|^//! ||p' "$cases_file")
[ ${#cases[@]} -gt 0 ] || { echo "FAIL: no //! cases in $cases_file"; exit 1; }

try() { # try COMPILER LANG MISUSE
	# -Werror=incompatible-pointer-types: what gcc >= 14 does by default.
	local flags=(-Werror=incompatible-pointer-types)
	[ "$2" = c++ ] && flags=(-std=c++17)
	"$1" -x "$2" -O2 -fPIC -c -I"$inc" "${flags[@]}" -DMISUSE="$3" \
		"$cases_file" -o "$tmp/o.o" >"$tmp/log" 2>&1
}

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
