#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# daemon.sh PROG SKCTL - daemons keep a working control socket under the
# child's pid, and no way of ending leaves a socket behind.
#
# PROG (daemon_prog.c) knows nothing of the control socket: it runs with
# STATICKEYS_CONTROL=1.  For daemon(3) and for fork + setsid + exit, the
# parent's name is gone once it has exited, `skctl -p CHILD` flips the
# child's key and the child's code follows; after SIGKILL nothing is left
# (no abstract name in /proc/net/unix, no file) and skctl -p says there is
# no control socket (exit 3).  Then exit, exec, abort and _exit: the name is
# there before and gone after.  Waits give up after 30 s.
set -u
prog=$1 skctl=$2
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
passed=0 failed=0
check() { # check DESCRIPTION COMMAND...
	local what=$1; shift
	if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $what" >&2; fi
}
listed() { grep -q "@statickeys-$1\$" /proc/net/unix; }
until_true() { for _ in $(seq 300); do "$@" && return 0; sleep 0.1; done; return 1; }
gone() { ! kill -0 "$1" 2>/dev/null && ! listed "$1"; }
no_files() { ! ls -d /tmp/statickeys-"$1"* "${XDG_RUNTIME_DIR:-/nonexistent}"/statickeys-"$1"* 2>/dev/null | grep -q .; }
state_is() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }

for how in daemon setsid; do
	STATICKEYS_CONTROL=1 "$prog" "$how" "$tmp/$how"
	check "$how: the parent exited 0" [ $? -eq 0 ]
	until_true [ -s "$tmp/$how.pid" ]
	child=$(cat "$tmp/$how.pid"); pids+=("$child")
	check "$how: child $child serves @statickeys-$child" until_true listed "$child"
	check "$how: the child's key is off" until_true state_is "$tmp/$how.state" off
	check "$how: skctl -p $child flips the key" sh -c "'$skctl' -p $child set daemon_key=1 >/dev/null"
	check "$how: the child's code follows" until_true state_is "$tmp/$how.state" on
	kill -9 "$child"
	check "$how: after SIGKILL, no socket of $child" until_true gone "$child"
	check "$how: and no file" no_files "$child"
	"$skctl" -p "$child" list 2>"$tmp/err"
	check "$how: skctl -p $child exits 3 (no control socket)" [ $? -eq 3 ]
	check "$how: and says so" grep -q "has no control socket" "$tmp/err"
done

for how in exit exec abort _exit; do
	coproc STATICKEYS_CONTROL=1 "$prog" "$how" 2>/dev/null
	read -r p <&"${COPROC[0]}"; pids+=("$p")
	check "$how: @statickeys-$p is served" until_true listed "$p"
	echo go >&"${COPROC[1]}"
	wait "$COPROC_PID" 2>/dev/null
	check "$how: gone after $how" until_true gone "$p"
	check "$how: no file" no_files "$p"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
