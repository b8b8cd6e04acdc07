#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# skctl_e2e.sh PROGRAM SKCTL - kernel-style keys seen and flipped from
# outside: a program of kernel-style code (kernel_program.c) runs with a
# control socket and a start-up state; skctl lists its keys by name, the
# 2012 ones included (named as their sites spell them), flips them one at a
# time and several at once, and the program's sites follow.  Waits are
# "until it shows, or give up after 60 s": nothing here measures time.
set -u
prog=$1 skctl=$2
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }; rm -rf "$tmp"; }
trap cleanup EXIT
passed=0 failed=0
check() { # check DESCRIPTION COMMAND...
	local what=$1; shift
	if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $what" >&2; fi
}
# A line printed after the call, with every site=value given, within 60 s.
wait_sites() { # wait_sites "4=1 5=1 ..."
	local start pairs=$1
	start=$(wc -l <"$tmp/out")
	for _ in $(seq 600); do
		local line ok=1
		kill -0 "$pid" 2>/dev/null || { echo "the program died:" >&2; cat "$tmp/err" >&2; return 1; }
		line=$(tail -n +"$((start + 2))" "$tmp/out" | tail -n 1)
		if [ -n "$line" ]; then
			for p in $pairs; do
				grep -Eq " $p( |$)" <<<"$line" || ok=0
			done
			[ $ok = 1 ] && return 0
		fi
		sleep 0.1
	done
	echo "sites never showed '$pairs'; last line: $(tail -n 1 "$tmp/out")" >&2
	return 1
}
wait_socket() { for _ in $(seq 600); do [ -S "$1" ] && return 0; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done; return 1; }

sock=$tmp/k.sock
# The zeroed 2012 key is switched on at start-up, by the name its site spells.
STATICKEYS_CONTROL=$sock STATICKEYS="old_zeroed=1" "$prog" >"$tmp/out" 2>"$tmp/err" &
pid=$!
check "socket appears" wait_socket "$sock"
kill -0 "$pid" 2>/dev/null || { echo "the program died:"; cat "$tmp/err"; exit 1; }
# site indices: see kernel_sites[] in kernel_style.c
check "start-up state: old_zeroed on, the rest as initialised" \
	wait_sites "0=0 2=1 4=1 5=1 6=0 7=0 8=0 10=1 14=1 15=0 16=0"

list=$("$skctl" -s "$sock" list); rc=$?
echo "$list"
check "list exits 0" [ $rc -eq 0 ]
for k in old_false old_true old_zeroed __tracepoint_sched.key \
	__tracepoint_irq.key new_false new_true new_static_true \
	new_refcounted maybe_on 'new_array\[1\]'; do
	check "list shows $k" grep -q "^$k " <<<"$list"
done
check "old_true is on by default" grep -Eq '^old_true +on +on ' <<<"$list"
check "old_zeroed is on, off by default" grep -Eq '^old_zeroed +on +off ' <<<"$list"

check "enable the tracepoint" "$skctl" -s "$sock" enable __tracepoint_sched.key
check "trace_sched() fires" wait_sites "6=1"
check "one commit: new_false on, old_zeroed off, the zeroed tracepoint on" \
	"$skctl" -s "$sock" set new_false=1 old_zeroed=0 __tracepoint_irq.key=1
check "sites follow the commit" wait_sites "8=1 9=1 4=0 5=0 7=1"
check "disable new_true and old_true" "$skctl" -s "$sock" disable new_true old_true
check "their sites are off" wait_sites "10=0 11=0 2=0 3=0"
check "enable an array element" "$skctl" -s "$sock" enable 'new_array[1]'
check "its site is on, its neighbour's off" wait_sites "16=1 17=0"
check "get shows the tracepoint on" sh -c "'$skctl' -s '$sock' get __tracepoint_sched.key | grep -q 'state: *on'"

[ -s "$tmp/err" ] && { echo "program stderr:"; cat "$tmp/err"; }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
