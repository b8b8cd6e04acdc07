#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# valgrind_test.sh TORTURE WINDOW - code rewritten under valgrind
# --smc-check=all, which re-checks translated code against memory so it sees
# rewritten sites.
#   TORTURE  threads run 4096 sites while keys flip: the torture's own
#            checks pass, keys really flipped, valgrind reports no error.
#   WINDOW   core_int3_window: a thread is made to run the sites while
#            their int3 is in place (fault injection), so it traps every
#            time.  Valgrind reports an int3 as SIGTRAP with si_code
#            TRAP_BRKPT (Linux says SI_KERNEL): the library's handler must
#            take both, and resume each trapped thread.
# Traps in the torture itself are counted, not required: valgrind runs one
# thread at a time, and on a loaded machine a run can flip dozens of times
# without a reader ever being scheduled inside a batch (seen: 54 flips in
# 48 s, 0 traps, beside 4 busy processes).  --fair-sched=yes: its default
# lock lets a spinning reader starve the thread that flips the keys.
set -u
torture=$1 window=$2
command -v valgrind >/dev/null || { echo "SKIPPED: valgrind is not installed"; exit 77; }
[ "$window" != none ] || { echo "SKIPPED: no int3 protocol in this build"; exit 77; }
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
timeout 600 valgrind -q --fair-sched=yes --smc-check=all --error-exitcode=99 \
	"$window" >"$out" 2>&1
wrc=$?
cat "$out"
windows=$(grep -c '/32 sites on while trapped, 32 traps' "$out")
[ "$wrc" = 0 ] || { echo "FAILED: the int3 window exit code $wrc under valgrind"; fail=1; }
[ "$windows" = 4 ] || { echo "FAILED: $windows of 4 int3 windows trapped every site"; fail=1; }
[ "$fail" = 0 ] && echo "ok: valgrind --smc-check=all: $flips flips, ${traps:-0} traps resumed in the torture, every site trapped and resumed in 4 int3 windows, exit 0"
exit "$fail"
