#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# e2e.sh SKDEMO SKCTL MANPAGE - the demo runs, skctl lists its keys, flips
# them one at a time and several at once, the demo's printed behaviour
# follows, and `stats` counts the updates.  Waits are "until it shows, or
# give up after 60 s": nothing here measures time.
set -u
demo=$1 skctl=$2 man=$3
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
. "$(dirname "$0")/testlib.sh"

# ---- a demo with an explicit socket path --------------------------------
sock=$tmp/demo.sock
STATICKEYS_CONTROL=$sock "$demo" -i 100 >"$tmp/out" 2>"$tmp/err" &
pids+=($!); demo_pid=$!
check "socket appears" wait_for test -S "$sock"
check "demo starts with its defaults" wait_tick "$tmp/out" 'greeting=1 shout=0 tracing=0 checksums=0 traced=\+0 Hello, world'

list=$("$skctl" -s "$sock" list); rc=$?
echo "$list"
check "list exits 0" [ $rc -eq 0 ]
for k in greeting shout tracing checksums; do
	check "list shows $k" grep -q "^$k " <<<"$list"
done
check "list shows greeting on by default" grep -Eq '^greeting +on +on ' <<<"$list"
check "list shows the description" grep -q 'print the greeting in capitals' <<<"$list"
before=$("$skctl" -s "$sock" --json stats)
check "stats --json is one JSON line" grep -q '^{"ok":true,"stats":{"updates":' <<<"$before"

# single key
check "enable shout" "$skctl" -s "$sock" enable shout
check "demo shouts" wait_tick "$tmp/out" 'shout=1 .*HELLO, WORLD'
check "get shout says on" sh -c "'$skctl' -s '$sock' get shout | grep -q 'state: *on'"

# several keys in one commit
check "set tracing=1 greeting=0 checksums=1" "$skctl" -s "$sock" set tracing=1 greeting=0 checksums=1
check "demo traces, checksums, is silent" wait_tick "$tmp/out" 'greeting=0 shout=1 tracing=1 checksums=1 traced=\+[1-9][0-9]*$'
check "disable tracing checksums" "$skctl" -s "$sock" disable tracing checksums
check "demo stops tracing" wait_tick "$tmp/out" 'tracing=0 checksums=0 traced=\+0$'

after=$("$skctl" -s "$sock" --json stats)
num() { grep -o "\"$1\":[0-9]*" <<<"$2" | head -1 | cut -d: -f2; }
echo "updates $(num updates "$before") -> $(num updates "$after"), batches $(num batches "$before") -> $(num batches "$after")"
check "stats count 6 more updates" [ $(( $(num updates "$after") - $(num updates "$before") )) -eq 6 ]
# The portable backend (keys as atomic flags) has no site to patch: no batch.
batches=3
grep -q '"backend":"portable"' <<<"$after" && batches=0
check "stats count $batches more batches (one per command, none if portable)" [ $(( $(num batches "$after") - $(num batches "$before") )) -eq $batches ]
check "update latency histogram recorded them" [ "$(grep -o '"update_latency":{"count":[0-9]*' <<<"$after" | cut -d: -f3)" -ge 3 ]
human=$("$skctl" -s "$sock" stats)
check "stats table names writer and sync" grep -q '^sync method: ' <<<"$human"
check "stats table names the backend" grep -Eq '^backend: +[a-z0-9_]+$' <<<"$human"

# every word of the one vocabulary (src/control/value.c), as STATICKEYS and
# STATICKEYS_FILE take them, through skctl and the socket
for w in 0:off off:off false:off no:off 1:on on:on true:on yes:on; do
	check "set shout=${w%%:*} turns it ${w#*:}" sh -c "'$skctl' -s '$sock' set shout=${w%%:*} >/dev/null &&
		'$skctl' -s '$sock' get shout | grep -q 'state: *${w#*:}\$'"
done

# failures change nothing and say why
"$skctl" -s "$sock" set shout=0 no_such_key=1 2>"$tmp/e"; rc=$?
check "unknown key exits 1" [ $rc -eq 1 ]
check "unknown key is named" grep -q "no_such_key" "$tmp/e"
check "shout still on after the refused set" sh -c "'$skctl' -s '$sock' get shout | grep -q 'state: *on'"
"$skctl" -s "$sock" get no_such_key 2>"$tmp/e"; rc=$?
check "get of an unknown key exits 1" [ $rc -eq 1 ]
check "get of an unknown key names it" grep -q "no key named 'no_such_key'" "$tmp/e"
out=$("$skctl" -s "$sock" --json set shout=0 no_such_key=1 2>/dev/null); rc=$?
check "--json, refused: exits 1" [ $rc -eq 1 ]
check "--json, refused: prints the reply" grep -q '^{"ok":false,.*no_such_key' <<<"$out"
"$skctl" -s "$sock" set shout=2 2>"$tmp/e"; rc=$?
check "set NAME=2 is a usage error (exit 2)" [ $rc -eq 2 ]
check "set NAME=2 says what is wrong" grep -q "'shout=2' is not NAME=VALUE (VALUE: 0/1, off/on, false/true, no/yes)" "$tmp/e"
"$skctl" -s "$sock" frobnicate 2>/dev/null; check "unknown command exits 2" [ $? -eq 2 ]
"$skctl" list 2>/dev/null; check "no target exits 2" [ $? -eq 2 ]
"$skctl" -s "$tmp/nothing.sock" list 2>/dev/null; check "no socket exits 3" [ $? -eq 3 ]
out=$("$skctl" -s "$sock" unmatched 2>"$tmp/e"); rc=$?
check "unmatched without STATICKEYS_FILE: exit 0, nothing listed, says why" \
	sh -c "[ $rc -eq 0 ] && [ -z '$out' ] && grep -q 'follows no STATICKEYS_FILE' '$tmp/e'"
check "watch prints two rounds" sh -c "'$skctl' -s '$sock' watch -n 2 -i 0.2 | grep -c '^-- ' | grep -qx 2"
kill "$demo_pid"; wait "$demo_pid" 2>/dev/null

# ---- -p PID finds the default socket (the /tmp rule and the XDG rule) ---
# The default address is abstract ("@statickeys-PID"): no file, gone with
# the process however it ends; XDG_RUNTIME_DIR plays no part.
abstract_listed() { grep -q "@statickeys-$1\$" /proc/net/unix; }
for xdg in "" "$tmp/xdg"; do
	[ -n "$xdg" ] && mkdir -p -m 0700 "$xdg"
	if [ -n "$xdg" ]; then envset=(XDG_RUNTIME_DIR="$xdg"); else envset=(-u XDG_RUNTIME_DIR); fi
	env "${envset[@]}" "$demo" -c -i 100 >"$tmp/out2" 2>&1 &
	pids+=($!); p=$!
	for _ in $(seq 100); do abstract_listed "$p" && break; sleep 0.05; done
	check "default socket @statickeys-$p (XDG='$xdg')" abstract_listed "$p"
	check "skctl -p finds pid $p (XDG='$xdg')" sh -c "env -u XDG_RUNTIME_DIR '$skctl' -p $p list | grep -q '^tracing '"
	check "skctl -p flips a key" env -u XDG_RUNTIME_DIR "$skctl" -p "$p" set shout=1
	check "demo shouts after -p set" wait_tick "$tmp/out2" 'HELLO, WORLD'
	check "no socket file under /tmp or \$XDG_RUNTIME_DIR" sh -c "! ls -d /tmp/statickeys-$p ${xdg:+$xdg/statickeys-$p.sock} 2>/dev/null"
	kill "$p"; wait "$p" 2>/dev/null
	check "socket gone on exit" sh -c "! grep -q '@statickeys-$p\$' /proc/net/unix"
	"$skctl" -p "$p" list 2>/dev/null; check "skctl -p on the ended process exits 3" [ $? -eq 3 ]
done

# A socket file given by path survives SIGKILL: skctl says what it is, and
# the next program at that path replaces it.
STATICKEYS_CONTROL=$tmp/stale.sock "$demo" -i 100 >/dev/null 2>&1 &
p=$!; pids+=($p)
wait_for test -S "$tmp/stale.sock"
kill -9 "$p"; wait "$p" 2>/dev/null
"$skctl" -s "$tmp/stale.sock" list 2>"$tmp/err"
check "a stale socket file: skctl exits 3" [ $? -eq 3 ]
check "and says the process has ended" grep -q "left by a process that has ended" "$tmp/err"
STATICKEYS_CONTROL=$tmp/stale.sock "$demo" -i 100 >/dev/null 2>&1 &
p=$!; pids+=($p)
check "the next program replaces the stale file" sh -c "for i in \$(seq 100); do '$skctl' -s '$tmp/stale.sock' list >/dev/null 2>&1 && exit 0; sleep 0.1; done; exit 1"
kill "$p"; wait "$p" 2>/dev/null

# ---- unmatched: the lines of STATICKEYS_FILE that name no key ------------
printf 'shout = 1\nshuot = 1\n' >"$tmp/keys.conf"
STATICKEYS_FILE=$tmp/keys.conf STATICKEYS_CONTROL=$tmp/file.sock "$demo" -i 100 >"$tmp/out" 2>"$tmp/err" &
p=$!; pids+=($p)
check "a demo following a file with a typo" wait_for test -S "$tmp/file.sock"
check "the demo warns with file and line" wait_for grep -q "STATICKEYS_FILE: $tmp/keys.conf:2: no key named \"shuot\"" "$tmp/err"
check "skctl unmatched prints FILE:LINE: NAME" sh -c "'$skctl' -s '$tmp/file.sock' unmatched | grep -qx '$tmp/keys.conf:2: shuot'"
check "skctl unmatched lists nothing more" test "$("$skctl" -s "$tmp/file.sock" unmatched | wc -l)" -eq 1
kill "$p"; wait "$p" 2>/dev/null

# ---- help and man page describe every command ---------------------------
help=$("$skctl" --help)
for c in list get enable disable set stats watch log unmatched; do
	check "--help describes $c" grep -Eq "^  $c( |$)" <<<"$help"
	check "man page describes $c" grep -Eq "^\.B(I)? \"?$c" "$man"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
