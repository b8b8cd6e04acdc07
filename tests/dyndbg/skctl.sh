#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# skctl.sh SERVER SKCTL - dynamic debug through skctl: `skctl debug` prints
# the catalogue in the kernel's control-file format; `skctl debug 'QUERY'`
# prints how many statements matched and the program's output follows;
# several queries in one argument; a bad query is refused (exit 1) with the
# parser's words and changes nothing; `skctl log` has the change.
set -u
server=$1 skctl=$2
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
. "$(dirname "$0")/../control/testlib.sh"

sock=$tmp/server.sock
STATICKEYS_CONTROL=$sock "$server" 2>"$tmp/err" &
pids+=($!)
check "socket appears" wait_for test -S "$sock"

cat=$("$skctl" -s "$sock" debug); rc=$?
echo "$cat"
check "debug exits 0" [ $rc -eq 0 ]
check "the catalogue's header" grep -q '^# filename:lineno \[module\]function flags format$' <<<"$cat"
check "tick in the kernel's format" grep -Eq '^.*server\.c:[0-9]+ \[dyndbg_server\]tick =_ "tick %u\\n"$' <<<"$cat"
check "tock too" grep -Eq '\[dyndbg_server\]tock =_ "tock %u\\n"$' <<<"$cat"
check "nothing printed while off" [ ! -s "$tmp/err" ]

out=$("$skctl" -s "$sock" debug 'func tick +pf'); rc=$?
echo "$out"
check "a query exits 0" [ $rc -eq 0 ]
check "it says how many matched" [ "$out" = "1 debug statements matched" ]
check "tick prints, decorated" wait_tick "$tmp/err" '^tick: tick [0-9]+$'
check "the catalogue shows =pf" grep -q '\]tick =pf ' <<<"$("$skctl" -s "$sock" debug)"

out=$("$skctl" -s "$sock" debug 'func tick -p; func tock +p'); rc=$?
check "two queries, one argument: 2 matched" [ "$out" = "2 debug statements matched" ]
check "tock prints" wait_tick "$tmp/err" '^tock [0-9]+$'
out=$("$skctl" -s "$sock" debug -- func 'to?k' -p)
check "the words may be separate arguments (after --: -p is no option)" [ "$out" = "1 debug statements matched" ]

before=$("$skctl" -s "$sock" debug)
out=$("$skctl" -s "$sock" debug 'func tick +p; fil x +p' 2>&1); rc=$?
echo "$out"
check "a bad query is refused (exit 1)" [ $rc -eq 1 ]
check "the refusal names the word and its byte" grep -q 'query 2, byte 15: unknown keyword.*"fil"' <<<"$out"
check "nothing changed" [ "$before" = "$("$skctl" -s "$sock" debug)" ]
out=$("$skctl" -s "$sock" debug 'module nosuch +p')
check "a query matching nothing is no error" [ "$out" = "0 debug statements matched" ]

log=$("$skctl" -s "$sock" log)
echo "$log"
check "the log has the statements' key changes" grep -Eq 'socket uid [0-9]+ pid [0-9]+ \(skctl\): dyndbg:.*server\.c:[0-9]+ 0 -> 1: ok' <<<"$log"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
