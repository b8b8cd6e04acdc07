#!/usr/bin/env bash
# misuse_compile.sh CC CXX INCLUDE_DIR - wrong use of the API must not compile.
# Each case is compiled once as it should be written (must succeed, proving
# the harness works) and once misused (must fail).
set -u
cc=$1 cxx=$2 inc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

cat >"$tmp/case.c" <<'SRC'
#include <statickeys.h>
SK_DEFINE_KEY_FALSE(k);
int not_a_key;
struct sk_key plain_key;
#if MISUSE == 3
/* a key known only at run time: sites need a link-time key address */
__attribute__((noinline)) int g(struct sk_key_false *p)
{
	return sk_branch_unlikely(p);
}
#endif
int f(void)
{
#if MISUSE == 1
	return sk_branch_unlikely(&not_a_key);   /* an int */
#elif MISUSE == 2
	return sk_branch_likely(&plain_key);     /* untyped key */
#elif MISUSE == 3
	return g(&k);
#elif MISUSE == 4
	return sk_key_enable(&not_a_key);        /* update of a non-key */
#else
	return sk_branch_unlikely(&k) + sk_key_enable(&k);
#endif
}
SRC

try() { # try COMPILER LANG MISUSE
	"$1" -x "$2" -O2 -c -I"$inc" -DMISUSE="$3" "$tmp/case.c" -o "$tmp/o.o" \
		>"$tmp/log" 2>&1
}

langs="c c++"
if [ "$cxx" = none ]; then # a build without a C++ compiler (cross, C only)
	echo "note: no C++ compiler: the C++ cases are not checked"
	langs=c
fi
# A key known only at run time (case 3) is refused where sites are patched
# (their table needs a link-time address); a flag test takes any key.
cases="1 2 3 4"
if ! printf '#include <statickeys.h>\nSK_HAVE_PATCHED_SITES\n' |
	"$cc" -E -I"$inc" -x c - | tail -1 | grep -qx 1; then
	echo "note: this target's sites test a flag: case 3 (a run-time key) applies only to patched sites"
	cases="1 2 4"
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
	for m in $cases; do
		if try "$compiler" "$lang" "$m"; then
			echo "FAIL: misuse $m compiled as $lang"
			fail=$((fail + 1))
		else
			pass=$((pass + 1))
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
