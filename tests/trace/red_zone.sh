#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# red_zone.sh PROG - bpftrace attached to our USDT probe site (red_zone.c)
# counts every event, and nothing below the probing function's stack pointer
# changes while it does.  A bare 5-byte NOP probe beside it is the negative
# control: where the kernel turns a uprobe on it into a call (Linux 6.18
# here), its red zone does change, which shows the check sees such writes.
set -u
prog=$1
n=20000
. "$(dirname "$0")/tracer_skips.sh"
skip_unless_traceable "$prog"
[ "$(uname -m)" = x86_64 ] || { echo "SKIPPED: the 5-byte NOP probe site is x86-64's"; exit 77; }
skip_unless_bpftrace
tmp=$(mktemp -d) pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
"$prog" $n >"$tmp/out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '^ready' "$tmp/out" && break; sleep 0.05; done
timeout 60 bpftrace -p $pid -e "
usdt:$prog:sktrz:ours { @ours = count(); @sum = sum(arg0); }
usdt:$prog:sktrz:bare { @bare = count(); }
usdt:$prog:sktrz:done { exit(); }" >"$tmp/bt" 2>&1
bt=$?
wait $pid
rc=$?
pid=
echo "--- program (exit $rc)"; cat "$tmp/out"
echo "--- bpftrace (exit $bt)"; cat "$tmp/bt"
count() { sed -n "s/^@$1: \([0-9]*\)/\1/p" "$tmp/bt"; }
fail=0
[ $rc = 0 ] && [ $bt = 0 ] || { echo "FAIL: the program or bpftrace did not finish"; exit 1; }
[ "$(count ours)" = $n ] || { echo "FAIL: bpftrace counted '$(count ours)' events of our site, the program fired $n"; fail=1; }
[ "$(count sum)" = $((n * (n - 1) / 2)) ] || { echo "FAIL: arguments: sum of arg0 '$(count sum)', want $((n * (n - 1) / 2))"; fail=1; }
[ "$(count bare)" = $n ] || { echo "FAIL: bpftrace counted '$(count bare)' events of the bare NOP, the program fired $n"; fail=1; }
read -r ours bare < <(sed -n 's/^changed ours \([0-9]*\) bare \([0-9]*\).*/\1 \2/p' "$tmp/out")
[ "${ours:-x}" = 0 ] || { echo "FAIL: the red zone changed in '${ours:-?}' of $n events of our site"; fail=1; }
if [ "${bare:-0}" -gt 0 ]; then
	echo "control: the bare 5-byte NOP's red zone changed in $bare of $n events (this kernel optimizes it: $(grep '^trampoline' "$tmp/out"))"
else
	echo "control: the bare 5-byte NOP's red zone never changed: this kernel does not turn it into a call ($(grep '^trampoline' "$tmp/out")), so only the count was tested here"
fi
[ $fail = 0 ] && echo "PASS: bpftrace counted $n of $n events of our site with their arguments; its red zone never changed"
exit $fail
