#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# misuse_build.sh CC INCLUDE_DIR LIBDIR - misuse that must not build:
# a tracepoint with 13 arguments fails to compile naming the limit (12, the
# most a USDT probe carries); a tracepoint defined in two files fails to link
# naming it.  The correct forms are built first, so the harness is proven.
set -u
cc=$1 inc=$2 libdir=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cat >"$tmp/args.c" <<'C'
#include <statickeys/trace.h>
#if MANY
SK_DECLARE_TRACE(t, many, SK_TP_PROTO(int a1, int a2, int a3, int a4, int a5,
	int a6, int a7, int a8, int a9, int a10, int a11, int a12, int a13),
	SK_TP_ARGS(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13));
#else
SK_DECLARE_TRACE(t, many, SK_TP_PROTO(int a1, int a2, int a3, int a4, int a5,
	int a6, int a7, int a8, int a9, int a10, int a11, int a12),
	SK_TP_ARGS(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12));
#endif
C
cat >"$tmp/def.c" <<'C'
#include <statickeys/trace.h>
SK_DECLARE_TRACE(t, twice, SK_TP_PROTO(int a), SK_TP_ARGS(a));
SK_DEFINE_TRACE(t, twice, SK_TP_PROTO(int a), SK_TP_ARGS(a));
C
echo 'int main(void) { return 0; }' >"$tmp/main.c"

if ! "$cc" -c -I"$inc" -DMANY=0 "$tmp/args.c" -o "$tmp/a.o" 2>"$tmp/log"; then
	echo "FAIL: 12 arguments do not compile:"; cat "$tmp/log"; fail=1
fi
if "$cc" -c -I"$inc" -DMANY=1 "$tmp/args.c" -o "$tmp/a.o" 2>"$tmp/log"; then
	echo "FAIL: 13 arguments compiled"; fail=1
elif ! grep -q 'more than 12 arguments, the most a USDT probe' "$tmp/log"; then
	echo "FAIL: 13 arguments: the error does not name the limit:"; cat "$tmp/log"; fail=1
else
	echo "13 arguments: $(grep -m1 'more than 12' "$tmp/log")"
fi
cp "$tmp/def.c" "$tmp/def2.c"
link() { "$cc" -I"$inc" "$@" "$tmp/main.c" -L"$libdir" -lstatickeys -o "$tmp/prog" 2>"$tmp/log"; }
if ! link "$tmp/def.c"; then
	echo "FAIL: one definition does not link:"; cat "$tmp/log"; fail=1
fi
if link "$tmp/def.c" "$tmp/def2.c"; then
	echo "FAIL: a tracepoint defined twice linked"; fail=1
# GNU ld: "multiple definition of `sk__tp_t_twice'"; lld (zig's, the
# loongarch64 port's): "duplicate symbol: sk__tp_t_twice".
elif ! grep -Eq '(multiple definition of .|duplicate symbol: )sk__tp_t_twice' "$tmp/log"; then
	echo "FAIL: defined twice: the error does not name it:"; cat "$tmp/log"; fail=1
else
	echo "defined twice: $(grep -Em1 'multiple definition|duplicate symbol' "$tmp/log")"
fi
[ $fail = 0 ] && echo "PASS: both misuses refused, naming the limit and the tracepoint"
exit $fail
