#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# skctl_limits.sh SKDEMO SKCTL MANPAGE - skctl never waits for good, and
# says what went wrong in words that fit the case, with the exit code the
# man page gives: a stopped program and a socket that never answers (exit
# 8 after --timeout); a stream socket that accepts and says nothing, and a
# directory given as the socket (exit 3, "not a statickeys control socket",
# "not a socket"); more than 128 names, and a request longer than 4,096
# bytes (exit 2, usage: not "the program refused").  Durations are bounds
# on a wait that must end, not measurements.
set -u
demo=$1 skctl=$2 man=$3
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
. "$(dirname "$0")/testlib.sh"

# run_for LIMIT_S CMD...: run CMD; rc, its stderr in $err, and whether it
# ended within LIMIT_S seconds (a bound, with room for a loaded machine).
run_for() {
	local limit=$1; shift
	local t0=$(date +%s%N)
	"$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
	elapsed_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	err=$(cat "$tmp/err")
	[ "$elapsed_ms" -le $((limit * 1000)) ]
}

STATICKEYS_CONTROL=1 "$demo" -i 100 >/dev/null 2>&1 &
pids+=($!); demo_pid=$!
check "the demo serves its socket" wait_for "$skctl" -p "$demo_pid" list >/dev/null 2>&1

# ---- a stopped program ----------------------------------------------------
kill -STOP "$demo_pid"
check "a stopped program: skctl ends (--timeout 1)" run_for 20 "$skctl" -p "$demo_pid" --timeout 1 list
echo "$err (exit $rc, ${elapsed_ms} ms)"
check "... with exit 8" [ "$rc" -eq 8 ]
check "... saying no reply came in time" grep -q "no reply from @statickeys-$demo_pid within 1 s" <<<"$err"
check "... after the timeout, not before" [ "$elapsed_ms" -ge 900 ]
check "the default timeout ends it too (5 s)" run_for 30 "$skctl" -p "$demo_pid" set shout=1
check "... with exit 8" [ "$rc" -eq 8 ]
kill -CONT "$demo_pid"
check "once resumed it answers" "$skctl" -p "$demo_pid" list

# ---- sockets that never answer ------------------------------------------
if command -v python3 >/dev/null; then
	python3 - "$tmp" <<'PY' &
import socket, sys, time
d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); d.bind(sys.argv[1] + "/dgram.sock")
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(sys.argv[1] + "/stream.sock"); s.listen(8)
held = []
s.settimeout(0.1)
end = time.time() + 120
while time.time() < end:
    try: held.append(s.accept()[0])
    except socket.timeout: pass
PY
	pids+=($!)
	check "the mute sockets are there" wait_for [ -S "$tmp/stream.sock" ]
	check "a datagram socket that never answers: skctl ends" run_for 20 "$skctl" -s "$tmp/dgram.sock" --timeout 0.5 list
	check "... with exit 8, saying so" [ "$rc" -eq 8 ] && grep -q "no reply from" <<<"$err"
	check "a stream socket that accepts: skctl ends" run_for 20 "$skctl" -s "$tmp/stream.sock" --timeout 0.5 list
	echo "$err (exit $rc)"
	check "... with exit 3: not a statickeys control socket" [ "$rc" -eq 3 ] && grep -q "not a statickeys control socket" <<<"$err"
else
	echo "SKIPPED part: sockets that never answer need python3"
fi

# ---- the wrong kind of path ---------------------------------------------
run_for 20 "$skctl" -s "$tmp" list
echo "$err (exit $rc)"
check "-s DIRECTORY: exit 3, 'is not a socket (a directory)'" [ "$rc" -eq 3 ] && grep -q "$tmp is not a socket (a directory)" <<<"$err"
check "... not 'a socket file left by a process that has ended'" sh -c "! grep -q 'left by a process' '$tmp/err'"
: >"$tmp/plain"
run_for 20 "$skctl" -s "$tmp/plain" list
check "-s FILE: exit 3, 'is not a socket (a file)'" [ "$rc" -eq 3 ] && grep -q "is not a socket (a file)" <<<"$err"

# ---- too much for one request ---------------------------------------------
names=$(for i in $(seq 129); do printf 'k%d=1 ' "$i"; done)
run_for 20 "$skctl" -p "$demo_pid" set $names
echo "$err (exit $rc)"
check "129 names: exit 2 (usage)" [ "$rc" -eq 2 ]
check "... saying at most 128 in one request" grep -q "129 keys named; 'set' takes at most 128 in one request" <<<"$err"
check "... not 'wrong number of arguments'" sh -c "! grep -q 'wrong number' '$tmp/err'"
long=$(for i in $(seq 100); do printf 'key_with_a_rather_long_name_%040d=1 ' "$i"; done)
run_for 20 "$skctl" -p "$demo_pid" set $long
echo "$err (exit $rc)"
check "a request over 4096 bytes: exit 2 (usage), not 1 (refused)" [ "$rc" -eq 2 ]
check "... saying the limit" grep -q "at most 4096 bytes in one request" <<<"$err"
check "128 names still go through (exit 1: no such keys, refused by the program)" sh -c "'$skctl' -p $demo_pid enable $(seq -f 'k%g' 128 | tr '\n' ' ') 2>/dev/null; [ \$? -eq 1 ]"

# ---- options and documentation ------------------------------------------------
run_for 20 "$skctl" -p "$demo_pid" --timeout 0 list
check "--timeout 0: exit 2" [ "$rc" -eq 2 ]
run_for 20 "$skctl" -p "$demo_pid" --timeout nonsense list
check "--timeout nonsense: exit 2" [ "$rc" -eq 2 ]
check "--timeout 2.5 works" "$skctl" -p "$demo_pid" --timeout 2.5 list
check "the man page documents --timeout" grep -q -- '\\-\\-timeout' "$man"
check "the man page documents exit status 8" grep -Eq '^\.B 8$' "$man"
check "--help documents exit 8" sh -c "'$skctl' --help | grep -q '8 no reply'"
summary
