#!/usr/bin/env bash
# misuse_compile.sh CC CXX INCLUDE_DIR - the kernel's type errors stay
# compile errors under <statickeys/linux.h>, in C and C++.  The correct
# program (MISUSE=0) must compile, proving the harness works; each misuse
# must fail with the error we expect (a pattern of its message).
set -u
cc=$1 cxx=$2 inc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

cat >"$tmp/case.c" <<'SRC'
#include <statickeys.h>
#include <statickeys/linux.h>
DEFINE_STATIC_KEY_FALSE(typed);
struct static_key plain = STATIC_KEY_INIT_FALSE;
SK_DEFINE_KEY_FALSE(native);
int not_a_key;
#if MISUSE == 4
/* a key known only at run time: sites need a link-time key address */
__attribute__((noinline)) int g(struct static_key *p)
{
	return static_key_false(p);
}
#endif
int f(void)
{
#if MISUSE == 1
	return static_branch_likely(&plain);      /* needs a typed key */
#elif MISUSE == 2
	return static_key_false(&typed);          /* needs a struct static_key */
#elif MISUSE == 3
	return static_branch_unlikely(&not_a_key);
#elif MISUSE == 4
	return g(&plain);
#elif MISUSE == 5
	return static_key_slow_inc(&not_a_key);   /* update of a non-key */
#elif MISUSE == 6
	return static_branch_enable(&plain);      /* needs a typed key */
#elif MISUSE == 7
	return static_branch_unlikely(&native);   /* a native key */
#elif MISUSE == 8
	return sk_branch_unlikely(&typed);        /* a kernel key, native branch */
#else
	return static_branch_unlikely(&typed) + static_key_false(&plain) +
	       static_key_true(&typed.key) + static_branch_enable(&typed) +
	       static_key_slow_inc(&plain) + static_key_enabled(&typed);
#endif
}
SRC

cases=(
	"1|static_branch_likely on a plain struct static_key|_Generic|incomplete|has no member named|no member named"
	"2|static_key_false on a typed key|sk__key"
	"3|a branch on an int|request for member|member reference base type|has no member"
	"4|a key known only at run time|Error|error: invalid operand|impossible constraint|invalid operand"
	"5|an update of an int|incompatible pointer|cannot convert|no matching"
	"6|static_branch_enable on a plain struct static_key|has no member named|no member named"
	"7|a native key in a kernel branch|sk__key"
	"8|a kernel key in a native branch|_Generic|incomplete|sk__key_traits"
)

try() { # try COMPILER LANG MISUSE
	# -Werror=incompatible-pointer-types: what gcc >= 14 does by default.
	local extra=()
	[ "$2" = c ] && extra=(-Werror=incompatible-pointer-types)
	"$1" -x "$2" -O2 -fPIC -c -I"$inc" "${extra[@]}" -DMISUSE="$3" \
		"$tmp/case.c" -o "$tmp/o.o" >"$tmp/log" 2>&1
}

# A key known only at run time (case 4) is refused where sites are patched
# (their table needs a link-time address); a flag test takes any key.
if ! printf '#include <statickeys.h>\nSK_HAVE_PATCHED_SITES\n' |
	"$cc" -E -I"$inc" -x c - | tail -1 | grep -qx 1; then
	echo "note: this target's sites test a flag: case 4 (a run-time key) applies only to patched sites"
	for i in "${!cases[@]}"; do
		[[ ${cases[$i]} == 4\|* ]] && unset 'cases[i]'
	done
fi
langs="c c++"
if [ "$cxx" = none ]; then # a build without a C++ compiler (cross, C only)
	echo "note: no C++ compiler: the C++ cases are not checked"
	langs=c
fi
for lang in $langs; do
	compiler=$cc
	[ "$lang" = c++ ] && compiler=$cxx
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
