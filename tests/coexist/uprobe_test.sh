#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# uprobe_test.sh PROGRAM - uprobes (perf probe -x) next to and on a site
# while the program flips its key.
#
#   1. a uprobe at the entry of with_site(), a few bytes before its site:
#      the program runs, flips, exits 0, and perf counts the probe's hits;
#   2. a uprobe on the site itself: every update of the key is refused with
#      -EILSEQ and a message naming the site (the kernel executes the probed
#      instruction from the file, so rewriting it under the probe would be
#      lost), nothing breaks, the program exits 0.
# Needs root, perf, and a kernel with uprobe events; skipped (exit 77) with
# the reason otherwise.
set -u
prog=$1
skip() { echo "SKIPPED: $*"; exit 77; }
command -v perf >/dev/null || skip "perf is not installed"
[ "$(id -u)" = 0 ] || skip "uprobes through perf probe need root"
if [ ! -e /sys/kernel/tracing/uprobe_events ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -e /sys/kernel/tracing/uprobe_events ] ||
		skip "no tracefs with uprobe_events (kernel without CONFIG_UPROBE_EVENTS, or tracefs cannot be mounted)"
fi
tmp=$(mktemp -d)
cleanup() { perf probe -q -d 'sktest:*' >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
cleanup_probes() { perf probe -q -d 'sktest:*' >/dev/null 2>&1; }
cleanup_probes
site_off=$(gdb -batch -ex 'disassemble with_site' "$prog" 2>/dev/null |
	sed -n 's/.*<+\([0-9]*\)>:\tnopl   0x0(%rax,%rax,1)$/\1/p' | head -n 1)
[ -n "$site_off" ] || site_off=$(objdump -d --no-show-raw-insn "$prog" |
	awk '/<with_site>:/{f=1;next} f&&/nopl +0x0\(%rax,%rax,1\)/{print $1;exit}')
perf probe -x "$prog" --add 'sktest:entry=with_site' >"$tmp/probe.log" 2>&1 ||
	{ cat "$tmp/probe.log"; skip "perf probe -x cannot add a uprobe here"; }
perf probe -x "$prog" --add "sktest:site=with_site+$site_off" >>"$tmp/probe.log" 2>&1 ||
	{ cat "$tmp/probe.log"; echo "FAILED: cannot probe with_site+$site_off"; exit 1; }
fail=0 pass=0
check() {
	if "${@:2}"; then pass=$((pass + 1)); echo "ok: $1"
	else fail=$((fail + 1)); echo "FAILED: $1"; fi
}

perf stat -x, -e sktest:entry -- "$prog" 3 200 >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
hits=$(sed -n 's/^\([0-9]*\),,sktest:entry,.*/\1/p' "$tmp/out")
check "uprobe next to the site: exits 0" test "$rc" = 0
check "the uprobe was hit (${hits:-no} hits)" test "${hits:-0}" -gt 0
check "flips went through" grep -Eq "^flips: [1-9][0-9]* done, 0 refused, 0 other errors" "$tmp/out"

perf stat -x, -e sktest:site -- "$prog" 3 200 >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
hits=$(sed -n 's/^\([0-9]*\),,sktest:site,.*/\1/p' "$tmp/out")
check "uprobe on the site: exits 0" test "$rc" = 0
check "the uprobe was hit (${hits:-no} hits)" test "${hits:-0}" -gt 0
check "every update was refused, nothing else failed" \
	grep -Eq "^flips: 0 done, [1-9][0-9]* refused, 0 other errors" "$tmp/out"
# The kernel puts int3 there, or (Linux 6.18+, "optimized uprobes" on a
# 5-byte nop) a call to its uprobe trampoline.
check "the refusal names the site and what was found there" \
	grep -Eq "refusing to update key 'k': its site 0x[0-9a-f]+ \(with_site\+0x[0-9a-f]+ in .*\) holds (cc|e8) .*uprobe" "$tmp/out"
check "said once, not once per attempt" test "$(grep -c 'refusing to update' "$tmp/out")" -eq 1
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
