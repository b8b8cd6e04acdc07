#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# dead_target.sh SKDEMO SKCTL MANPAGE - a process that dies before it
# answers is seen gone at once (issue 39): skctl exits 9 ("gone") within
# 1.5 s of the kill, not at its --timeout of 30 s, for `-p` (the process
# reaped, and left a zombie) and for `--all` (the live process answers, the
# dead one is reported gone: exit 6); a process that is stopped but alive
# still gets the whole --timeout (exit 8).  The demos run as copies with a
# name of this run's own, so that parallel tests never meet them.  Waits are
# deadlines.
set -u
demo=$1 skctl_bin=$2 man=$3
tmp=$(mktemp -d)
name=skdead$$
name=${name:0:15}
cp "$demo" "$tmp/$name"
skctl=$skctl_bin
pids=()
cleanup() { for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
. "$(dirname "$0")/testlib.sh"
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# start_demo VAR: a demo serving its default socket; its pid in $VAR.
start_demo() {
	STATICKEYS_CONTROL=1 "$tmp/$name" -i 100 -t 1 >/dev/null 2>&1 &
	pids+=($!); eval "$1=$!"
	wait_for "$skctl" -p "$!" list >/dev/null 2>&1
}
# ask_then_kill PID SKCTL-ARGS...: stop PID, run skctl in the background
# (with a --timeout of 30 s, which "at once" must not be confused with),
# SIGKILL PID once it has been asked; sets rc, and ms: from the kill to
# skctl's exit.
ask_then_kill() {
	local victim=$1 t0 sk; shift
	kill -STOP "$victim"
	wait_for stopped "$victim"
	"$skctl" --timeout 30 "$@" >"$tmp/out" 2>"$tmp/err" &
	sk=$!
	wait_for asked "$victim" || echo "(no request seen queued at $victim)"
	t0=$(now_ms)
	kill -KILL "$victim"
	wait "$sk"; rc=$?
	ms=$(($(now_ms) - t0))
	echo "skctl $*: exit $rc, $ms ms after the kill"; cat "$tmp/out" "$tmp/err"
}

# ---- -p: the process is killed (and reaped by its parent, this shell) ------
start_demo d1
check "the demo serves its socket" "$skctl" -p "$d1" list >/dev/null
ask_then_kill "$d1" -p "$d1" set tracing=1
check "-p, killed while asked: exit 9 (gone)" [ "$rc" -eq 9 ]
check "-p, killed while asked: seen within 1.5 s of the kill ($ms ms)" [ "$ms" -lt 1500 ]
check "-p: it says the process is gone" grep -q "process $d1 is gone" "$tmp/err"

# ---- -p: killed, and left a zombie (its parent never reaps it) ---------------
STATICKEYS_CONTROL=1 sh -c '"$0" -i 100 -t 1 >/dev/null 2>&1 & echo $! >"$1"; exec sleep 120' \
	"$tmp/$name" "$tmp/zpid" &
pids+=($!)
check "the zombie-to-be starts" wait_for test -s "$tmp/zpid"
z=$(cat "$tmp/zpid"); pids+=("$z")
check "it serves its socket" wait_for "$skctl" -p "$z" list
ask_then_kill "$z" -p "$z" set tracing=1
check "the killed demo is a zombie" grep -q '^State:.*Z' "/proc/$z/status"
check "-p, a zombie: exit 9 (gone)" [ "$rc" -eq 9 ]
check "-p, a zombie: seen within 1.5 s of the kill ($ms ms)" [ "$ms" -lt 1500 ]

# ---- --all: one of two is killed while asked ----------------------------------
start_demo a1; start_demo a2
check "two demos serve their sockets" "$skctl" --all --comm "$name" list >/dev/null
ask_then_kill "$a2" --all --comm "$name" set tracing=1
check "--all, one killed: exit 6 (some did)" [ "$rc" -eq 6 ]
check "--all, one killed: seen within 1.5 s of the kill ($ms ms)" [ "$ms" -lt 1500 ]
check "--all: the live one did it" grep -q "^$a1 $name: ok$" "$tmp/out"
check "--all: the dead one is reported gone" grep -q "^$a2 $name: failed: gone" "$tmp/out"
check "--all: on stderr too" grep -q "process $a2 is gone" "$tmp/err"
check "the live one traces" sh -c "'$skctl' -p $a1 get tracing | grep -q 'state: *on'"

# ---- --all: the only one is killed ---------------------------------------------
ask_then_kill "$a1" --all --comm "$name" set tracing=0
check "--all, the only one killed: exit 7 (none did)" [ "$rc" -eq 7 ]
check "--all, the only one killed: seen within 1.5 s of the kill ($ms ms)" [ "$ms" -lt 1500 ]

# ---- a stopped process that lives gets the whole --timeout -------------------
start_demo s1
kill -STOP "$s1"
t0=$(now_ms)
"$skctl" --timeout 1 -p "$s1" set tracing=1 2>"$tmp/err"; rc=$?
ms=$(($(now_ms) - t0))
echo "stopped, alive: exit $rc after $ms ms"; cat "$tmp/err"
check "-p, stopped but alive: exit 8 (timeout)" [ "$rc" -eq 8 ]
check "-p, stopped but alive: waits the whole --timeout ($ms ms)" [ "$ms" -ge 1000 ]
t0=$(now_ms)
"$skctl" --timeout 1 --all --comm "$name" set tracing=1 >"$tmp/out" 2>&1; rc=$?
ms=$(($(now_ms) - t0))
echo "--all, stopped, alive: exit $rc after $ms ms"; cat "$tmp/out"
check "--all, stopped but alive: exit 7, after the whole --timeout ($ms ms)" [ "$rc" -eq 7 ] && [ "$ms" -ge 1000 ]
check "--all: it is reported as not answering, not as gone" grep -q "^$s1 $name: failed: no reply" "$tmp/out"
kill -CONT "$s1"

check "the man page documents exit status 9" grep -Eq "^\.B 9$" "$man"
check "--help documents exit status 9" sh -c "'$skctl' --help | grep -q '9 the process is'"

summary
