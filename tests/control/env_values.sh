#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# env_values.sh FLIPPER DEMO SKCTL - every STATICKEYS_* setting is read the
# same way: a documented value is taken silently, any other value is named
# in one warning (with the values it may be) and the default is used; and
# STATICKEYS_CONTROL=on/yes/1 mean the default socket path, never a file
# named "on" (a path needs a '/').
set -u
flipper=$1 demo=$2 skctl=$3
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../check.sh"
# run VAR=VALUE: the flipper's stderr in $tmp/err, its status returned.
run() { env "$1" "$flipper" >"$tmp/out" 2>"$tmp/err"; }

while IFS='|' read -r var bad words dflt good; do
	run "$var=$bad"; rc=$?
	check "$var=$bad: runs (exit $rc)" [ $rc -eq 0 ]
	check "$var=$bad: one warning naming it and the choices" \
		test "$(grep -c "statickeys: $var=$bad is not $words; using $dflt" "$tmp/err")" -eq 1
	for v in $good; do
		run "$var=$v"
		check "$var=$v: no warning" bash -c "! grep -q '$var' '$tmp/err'"
	done
done <<'T'
STATICKEYS_WRITER|bogus|procmem or mprotect|procmem|procmem mprotect
STATICKEYS_SYNC|bogus|membarrier or mprotect|membarrier|membarrier mprotect
STATICKEYS_KEEP_SIGTRAP|maybe|1 or 0|1|1 0
STATICKEYS_BLOCKED_SIGTRAP|sometimes|refuse or warn|refuse|refuse warn
STATICKEYS_SHADOW_STACK|never|auto or assume|auto|auto assume
T

# STATICKEYS_CONTROL: words mean the default address; a bare name is refused.
mkdir -p -m 0700 "$tmp/xdg" && mkdir "$tmp/cwd"
# The default address is "@statickeys-PID" in the abstract namespace.
wait_socket() { for _ in $(seq 100); do grep -q " $1\$" /proc/net/unix && return 0; sleep 0.05; done; return 1; }
for word in on yes 1; do
	(cd "$tmp/cwd" && exec env XDG_RUNTIME_DIR="$tmp/xdg" STATICKEYS_CONTROL=$word "$demo" -i 100 >/dev/null 2>"$tmp/err") &
	p=$!; pids+=($p)
	check "STATICKEYS_CONTROL=$word: the default socket" wait_socket "@statickeys-$p"
	check "STATICKEYS_CONTROL=$word: skctl -p finds it" \
		sh -c "XDG_RUNTIME_DIR='$tmp/xdg' '$skctl' -p $p list >/dev/null"
	check "STATICKEYS_CONTROL=$word: no file named '$word'" [ ! -e "$tmp/cwd/$word" ]
	kill "$p"; wait "$p" 2>/dev/null
done
(cd "$tmp/cwd" && exec env XDG_RUNTIME_DIR="$tmp/xdg" STATICKEYS_CONTROL=ctl "$demo" -n 3 -i 10 >/dev/null 2>"$tmp/err")
check "STATICKEYS_CONTROL=ctl: refused with a warning" \
	grep -q "STATICKEYS_CONTROL=ctl is not 0, 1, on, off, yes, no or a path with a '/'" "$tmp/err"
check "STATICKEYS_CONTROL=ctl: no socket file" [ ! -e "$tmp/cwd/ctl" ]
check_summary
