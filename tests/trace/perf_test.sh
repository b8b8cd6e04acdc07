#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# perf_test.sh TRACED - perf records a running program's tracepoint as the
# sdt_ event its USDT note defines: `perf probe -x BIN sdt_sktest:tick`, then
# `perf record -e sdt_sktest:tick -p PID`.  Attaching turns the tracepoint
# on (the semaphore), perf records exactly the events fired, and after
# perf leaves the tracepoint turns off again.  TRACED is a C program
# (traced.c) or a Rust one (rust/tests/traced).
set -u
traced=$1
n=3000
. "$(dirname "$0")/tracer_skips.sh"
skip_unless_traceable "$traced"
command -v perf >/dev/null || { echo "SKIPPED: perf is not installed"; exit 77; }
tmp=$(mktemp -d) pid= event=
cleanup() {
	[ -n "$pid" ] && kill $pid 2>/dev/null
	[ -n "$event" ] && perf probe -q -d "$event" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# The event is named after the binary's note; perf keeps it in its probe
# cache (~/.debug) and tracefs: give it a name of its own per run.
if ! perf probe -q -x "$traced" sdt_sktest:tick >"$tmp/probe" 2>&1; then
	echo "SKIPPED: perf cannot add uprobe events here: $(tail -1 "$tmp/probe")"
	exit 77
fi
event=sdt_sktest:tick
"$traced" $n >"$tmp/out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '^ready' "$tmp/out" && break; sleep 0.05; done
# perf has no exit() of its own: it stops when the program says "fired".
perf record -q -e "$event" -p $pid -o "$tmp/perf.data" >"$tmp/rec" 2>&1 &
rec=$!
for _ in $(seq 400); do grep -q '^fired' "$tmp/out" && break; sleep 0.05; done
sleep 0.2
kill -INT $rec
wait $rec
wait $pid
rc=$?
events=$(perf script -i "$tmp/perf.data" 2>/dev/null | grep -c 'sdt_sktest:tick')
echo "--- program"; cat "$tmp/out"
echo "--- perf record"; cat "$tmp/rec"
fail=0
[ "$rc" = 0 ] || { echo "FAIL: the program exited $rc"; fail=1; }
# n events and the END one.
[ "$events" = $((n + 1)) ] || { echo "FAIL: perf recorded $events events, the program fired $((n + 1))"; fail=1; }
[ $fail = 0 ] && echo "PASS: perf recorded all $events events; the tracepoint turned off after perf left"
exit $fail
