#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# valgrind_test.sh TORTURE - the torture test (threads run 4096 sites while
# keys flip) under valgrind --smc-check=all, which re-checks translated code
# against memory so it sees rewritten sites.  Valgrind reports an int3 as
# SIGTRAP with si_code TRAP_BRKPT (Linux says SI_KERNEL): the library's
# handler must take both.  --fair-sched=yes: valgrind runs one thread at a
# time, and its default lock lets a spinning reader starve the thread that
# flips the keys (one flip in a whole run was seen).  Passes if the torture's own checks pass, keys
# really flipped, traps were resumed, and valgrind reports no error.
set -u
torture=$1
command -v valgrind >/dev/null || { echo "SKIPPED: valgrind is not installed"; exit 77; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
SK_TORTURE_SECONDS=${SK_TORTURE_SECONDS:-3} timeout 600 valgrind -q --fair-sched=yes \
	--smc-check=all --error-exitcode=99 "$torture" >"$out" 2>&1
rc=$?
cat "$out"
fail=0
flips=$(sed -n 's/^writer [a-z]*, sync [a-z-]*: \([0-9]*\) flips.*/\1/p' "$out")
traps=$(sed -n 's/.* \([0-9]*\) traps resumed.*/\1/p' "$out")
[ "$rc" = 0 ] || { echo "FAILED: exit code $rc under valgrind"; fail=1; }
[ "${flips:-0}" -gt 0 ] || { echo "FAILED: no key flipped (${flips:-?})"; fail=1; }
[ "${traps:-0}" -gt 0 ] || { echo "FAILED: no trap resumed (${traps:-?})"; fail=1; }
[ "$fail" = 0 ] && echo "ok: valgrind --smc-check=all: $flips flips, $traps traps resumed, exit 0"
exit "$fail"
