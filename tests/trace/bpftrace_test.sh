#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# bpftrace_test.sh TRACED [PLUGIN] - bpftrace attaches to a running program's
# tracepoint (its USDT probe), which turns on by itself; bpftrace counts
# exactly the events the program fired while it was attached; after bpftrace
# leaves, the tracepoint turns off again (the program checks its site and
# the key's count, and says how long it took).  TRACED is a C program
# (traced.c) or a Rust one (rust/tests/traced): both define sktest:tick.
# With PLUGIN, a shared object that defines sktplug:ev is listed too.
set -u
traced=$1 plugin=${2:-}
n=5000
. "$(dirname "$0")/tracer_skips.sh"
skip_unless_traceable "$traced"
skip_unless_bpftrace
tmp=$(mktemp -d) pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT

# bpftrace -l sees the probe in the binary.
if ! bpftrace -l "usdt:$traced:*" | grep -q 'usdt:.*:sktest:tick'; then
	echo "FAIL: bpftrace -l does not list usdt:$traced:sktest:tick"
	bpftrace -l "usdt:$traced:*"
	exit 1
fi

# ... and in a shared object (a plugin that defines sktplug:ev).
if [ -n "$plugin" ] && ! bpftrace -l "usdt:$plugin:*" | grep -q 'usdt:.*:sktplug:ev'; then
	echo "FAIL: bpftrace -l does not list usdt:$plugin:sktplug:ev"
	exit 1
fi

"$traced" $n >"$tmp/out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '^ready' "$tmp/out" && break; sleep 0.05; done
timeout 25 bpftrace -p $pid -e "
usdt:$traced:sktest:tick /arg0 < 1000000000/ { @events = count(); @sum = sum(arg1); }
usdt:$traced:sktest:tick /arg0 == 1000000000/ { exit(); }" >"$tmp/bt" 2>&1
bt=$?
bt_end=$(date +%s.%N) # bpftrace has detached: its process is gone
wait $pid
rc=$?
echo "--- program"; cat "$tmp/out"
echo "--- bpftrace (exit $bt)"; cat "$tmp/bt"
fail=0
events=$(sed -n 's/^@events: \([0-9]*\)/\1/p' "$tmp/bt")
sum=$(sed -n 's/^@sum: \([0-9]*\)/\1/p' "$tmp/bt")
want_sum=$(( n * (n - 1) ))
[ "$rc" = 0 ] || { echo "FAIL: the program exited $rc"; fail=1; }
[ "${events:-}" = "$n" ] || { echo "FAIL: bpftrace counted '${events:-}' events, the program fired $n"; fail=1; }
[ "${sum:-}" = "$want_sum" ] || { echo "FAIL: arguments: sum of arg1 '${sum:-}', want $want_sum"; fail=1; }
# The time from the last event includes bpftrace's own exit (printing its
# maps, detaching its probes), which a loaded machine stretches: printed.
# The library's share, from bpftrace's exit to the key off, must be under
# a second.
off_ms=$(sed -n 's/^off \([0-9]*\) ms.*/\1/p' "$tmp/out")
off_at=$(sed -n 's/^off_at //p' "$tmp/out")
if [ -n "$off_at" ]; then
	lib_ms=$(awk "BEGIN { printf \"%.0f\", ($off_at - $bt_end) * 1000 }")
	echo "off $lib_ms ms after bpftrace exited (negative: before its exit completed)"
	if [ "$lib_ms" -gt 1000 ]; then
		echo "FAIL: off $lib_ms ms after bpftrace exited"; fail=1
	fi
fi
[ $fail = 0 ] && echo "PASS: bpftrace counted $events of $n events with their arguments; off again ${off_ms} ms after the last event"
exit $fail
