#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# startup_answers.sh PROG SKCTL [STARTS] [SECONDS] - a request at start-up
# never gets a false answer (issue 39): PROG (startup_prog: twenty
# libraries with keys, one of them slow to start, and a key of its own,
# startup_main_key) is started with STATICKEYS_CONTROL=1 again and again,
# STARTS times (200) or until SECONDS (60) have passed, and each time asked
# for its own key the moment its socket exists (skctl retried while there
# is none yet).  Every answer must be the key; not one "no key".  The
# verdict needs MIN_STARTS (50) starts: a loaded machine that made fewer by
# SECONDS gets until LIMIT (150 s, or SECONDS if later) to make them.
set -u
prog=$1 skctl=$2 starts=${3:-200} seconds=${4:-60}
min_starts=50 limit=$((seconds > 150 ? seconds : 150))
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
. "$(dirname "$0")/testlib.sh"

# ask PID: retry `get` while the socket does not exist yet (exit 3), at
# most 20 s; the last exit status and output in rc and $tmp/out.  10 ms
# apart: the window a false answer would come from lasts 100 ms (the slow
# library), and retrying back to back only took the cores from the
# starting program.
ask() {
	local deadline=$((SECONDS + 20))
	while :; do
		"$skctl" -p "$1" get startup_main_key >"$tmp/out" 2>&1; rc=$?
		[ "$rc" -ne 3 ] || [ "$SECONDS" -ge "$deadline" ] && return
		sleep 0.01
	done
}

done_=0 right=0 no_key=0 other=0 tries=0
t0=$(date +%s%N)
while [ "$done_" -lt "$starts" ] && [ "$SECONDS" -lt "$limit" ] &&
      { [ "$SECONDS" -lt "$seconds" ] || [ "$done_" -lt "$min_starts" ]; }; do
	STATICKEYS_CONTROL=1 "$prog" & pid=$!
	ask "$pid"
	done_=$((done_ + 1))
	if [ "$rc" -eq 0 ] && grep -q 'startup_main_key' "$tmp/out"; then
		right=$((right + 1))
	elif grep -q "no key named" "$tmp/out"; then
		no_key=$((no_key + 1))
		echo "start $done_: a false answer (exit $rc):"; cat "$tmp/out"
	else
		other=$((other + 1))
		echo "start $done_: exit $rc:"; cat "$tmp/out"
	fi
	kill -KILL "$pid"; wait "$pid" 2>/dev/null; pid=
done
ms=$((($(date +%s%N) - t0) / 1000000))
echo "$done_ starts in $ms ms: $right answered with the key, $no_key told 'no key', $other otherwise"
check "no request at start-up is told 'no key' ($no_key of $done_)" [ "$no_key" -eq 0 ]
check "every request got the key ($right of $done_)" [ "$right" -eq "$done_" ]
check "enough starts to mean something ($done_ in $SECONDS s, at least $min_starts)" [ "$done_" -ge "$min_starts" ]
summary
