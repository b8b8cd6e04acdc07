#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# static_calls.sh SKDEMO SKCTL - static calls on the control socket: `skctl
# calls` lists the demo's static call with its target's symbol, the label of
# that target and the labels it may take; `skctl call NAME=LABEL` switches
# it, and the demo's printed greeting follows, and `skctl log` has each
# switch (from which label to which, by whom); a label the program did not
# name, or a static call that does not exist, is refused (exit 1) and
# changes nothing.  Then a second demo started through $PATH from another
# directory (its argv[0] a bare name): `skctl calls` still names its
# target's symbol (read from the program's file, not from argv[0]).
# SITES says what `calls` must say of the greeting's call sites: "found"
# (direct calls, the demo linked with -Wl,--emit-relocs: "pending" until
# the first update to another target) or "not_patched".
# Waits are "until it shows, or give up after 60 s".
set -u
demo=$1 skctl=$2 sites=$3
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
. "$(dirname "$0")/testlib.sh"

sock=$tmp/demo.sock
STATICKEYS_CONTROL=$sock "$demo" -i 100 >"$tmp/out" 2>"$tmp/err" &
pids+=($!)
check "socket appears" wait_for test -S "$sock"
check "demo greets in English" wait_tick "$tmp/out" 'Hello, world$'

calls=$("$skctl" -s "$sock" calls); rc=$?
echo "$calls"
check "calls exits 0" [ $rc -eq 0 ]
check "calls shows greeting_text, its target's symbol and label" \
	grep -Eq '^greeting_text +hello_english +english +' <<<"$calls"
check "calls shows the labels it may take" grep -Eq '(english,french|french,english)$' <<<"$calls"
json=$("$skctl" -s "$sock" --json calls)
check "calls --json names the target" grep -q '"name":"greeting_text","target":"hello_english"' <<<"$json"
if [ "$sites" = found ]; then
	# Call sites are looked for at the first update to another target.
	check "calls --json: pending before the first update" \
		grep -q '"sites":{"direct":0,"trampoline":0,"why":"pending"}' <<<"$json"
	check "calls shows it: DIRECT 0, TRAMP ?, WHY pending" \
		grep -Eq '^greeting_text +hello_english +english +0 +\? +pending +' <<<"$calls"
else
	check "calls --json: no call site rewritten here" \
		grep -q '"sites":{"direct":0,"trampoline":0,"why":"not_patched"}' <<<"$json"
	check "calls shows it: DIRECT 0, TRAMP ?, WHY not_patched" \
		grep -Eq '^greeting_text +hello_english +english +0 +\? +not_patched +' <<<"$calls"
fi

check "call greeting_text=french" "$skctl" -s "$sock" call greeting_text=french
check "demo greets in French" wait_tick "$tmp/out" 'Bonjour, le monde$'
check "shout still applies to the new target" "$skctl" -s "$sock" enable shout
check "demo shouts in French" wait_tick "$tmp/out" 'BONJOUR, LE MONDE$'
calls=$("$skctl" -s "$sock" calls)
echo "$calls"
check "calls shows the new target" grep -Eq '^greeting_text +hello_french +french ' <<<"$calls"
if [ "$sites" = found ]; then
	json=$("$skctl" -s "$sock" --json calls)
	check "calls --json counts the greeting's direct call site" \
		grep -Eq '"sites":\{"direct":[1-9][0-9]*,"trampoline":0,"why":"found"\}' <<<"$json"
	check "calls shows it: DIRECT >= 1, TRAMP 0, WHY found" \
		grep -Eq '^greeting_text +hello_french +french +[1-9][0-9]* +0 +found +' <<<"$calls"
fi

out=$("$skctl" -s "$sock" call greeting_text=klingon 2>&1); rc=$?
echo "$out"
check "an unnamed label is refused (exit 1)" [ $rc -eq 1 ]
check "the refusal says why" grep -q "no target labelled 'klingon'" <<<"$out"
out=$("$skctl" -s "$sock" call nosuch=french 2>&1); rc=$?
check "an unknown static call is refused (exit 1)" [ $rc -eq 1 ]
check "the refusal names it" grep -q "no static call named 'nosuch'" <<<"$out"
out=$("$skctl" -s "$sock" call greeting_text 2>&1); rc=$?
check "call without =LABEL is refused" [ $rc -ne 0 ]
sleep 0.3
check "nothing changed: still French" wait_tick "$tmp/out" 'BONJOUR, LE MONDE$'
check "call greeting_text=english" "$skctl" -s "$sock" call greeting_text=english
check "demo greets in English again" wait_tick "$tmp/out" 'HELLO, WORLD$'
log=$("$skctl" -s "$sock" log)
echo "$log"
check "the audit has the switch to French, by whom" \
	grep -Eq 'uid [0-9]+.*: static call greeting_text english -> french: ok$' <<<"$log"
check "and the switch back" grep -q 'static call greeting_text french -> english: ok$' <<<"$log"
check "refusals change nothing and are not switches" \
	bash -c "! grep -q 'klingon' <<<'$log'"
json=$("$skctl" -s "$sock" --json log)
check "log --json names the static call and its targets" \
	grep -q '"static_call":"greeting_text","targets":"english -> french"' <<<"$json"

sock2=$tmp/path.sock
(cd / && PATH="$(dirname "$demo"):$PATH" STATICKEYS_CONTROL=$sock2 \
	exec "$(basename "$demo")" -i 100 >"$tmp/out2" 2>"$tmp/err2") &
pids+=($!)
check "the demo started through \$PATH answers" wait_for test -S "$sock2"
calls=$("$skctl" -s "$sock2" calls)
echo "$calls"
check "its target's symbol, though argv[0] is a bare name and the directory /" \
	grep -Eq '^greeting_text +hello_english +english +' <<<"$calls"
summary
