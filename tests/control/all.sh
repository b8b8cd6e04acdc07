#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# all.sh SKDEMO SKCTL PEER MANPAGE - `skctl --all`: two and ten demo programs of one
# user, list and set across them, a key only some processes have, a process
# killed while skctl talks to it, the exit codes (0 all, 6 some, 7 none,
# 3 no process), and another user's processes left alone.  The programs run
# as copies called "skall" and every command uses `--comm skall`, so other
# programs on the machine are never touched.  Waits are deadlines (60 s).
set -u
demo=$1 skctl_bin=$2 peer=$3 man=$4
tmp=$(mktemp -d)
chmod 755 "$tmp"
mkdir "$tmp/a" "$tmp/b"
cp "$demo" "$tmp/a/skall"; cp "$peer" "$tmp/b/skall"; cp "$skctl_bin" "$tmp/skctl"
chmod 755 "$tmp/a" "$tmp/b" "$tmp/a/skall" "$tmp/b/skall" "$tmp/skctl"
skctl=$tmp/skctl
pids=()
cleanup() { for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
. "$(dirname "$0")/testlib.sh"
# start_demo N: demo number N, serving its default socket.
start_demo() {
	STATICKEYS_AUDIT=stderr STATICKEYS_CONTROL=1 "$tmp/a/skall" -i 100 -t 1 >"$tmp/out$1" 2>"$tmp/err$1" &
	pids+=($!); eval "demo$1=$!"
}
# Until `--all list` shows N processes (each has its socket).
wait_count() {
	for _ in $(seq 600); do
		[ "$("$skctl" --all --comm skall list 2>/dev/null | awk 'NR>1{print $1}' | sort -u | wc -l)" -eq "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
rows() { "$skctl" --all --comm skall list | awk 'NR>1' | wc -l; }

# ---- two demos ---------------------------------------------------------------
start_demo 1; start_demo 2
check "two demos serve their sockets" wait_count 2
out=$("$skctl" --all --comm skall list); rc=$?
echo "$out"
check "--all list exits 0" [ $rc -eq 0 ]
# Five keys a demo: four and its debug statement's.
check "--all list: one row per process and key (10)" [ "$(awk 'NR>1' <<<"$out" | wc -l)" -eq 10 ]
check "--all list names demo 1" grep -Eq "^ *$demo1 +skall +tracing +off" <<<"$out"
out=$("$skctl" --all --comm skall --json list); rc=$?
check "--all --json: one line per process, with its reply" [ $rc -eq 0 ] && [ "$(grep -c '^{"pid":[0-9]*,"comm":"skall","reply":{"ok":true,"keys":\[' <<<"$out")" -eq 2 ]
out=$("$skctl" -a --comm skall set tracing=1); rc=$?
echo "$out"
check "--all set exits 0 when every process did it" [ $rc -eq 0 ]
check "--all set: one line per process" [ "$(grep -c ': ok$' <<<"$out")" -eq 2 ]
check "demo 1 traces" wait_tick "$tmp/out1" 'tracing=1 .*traced=\+[1-9]'
check "demo 2 traces" wait_tick "$tmp/out2" 'tracing=1 .*traced=\+[1-9]'
re="audit [0-9T:.-]+Z socket uid $(id -u) pid [0-9]+ \(skctl\): tracing 0 -> 1: ok"
check "demo 1 logs who changed tracing, once" [ "$(grep -Ec "$re" "$tmp/err1")" -eq 1 ]
check "skctl log shows it" sh -c "'$skctl' -p $demo2 log | grep -Eq 'socket uid [0-9]+ pid [0-9]+ \(skctl\): tracing 0 -> 1: ok'"
out=$("$skctl" --all --comm skall log); rc=$?
check "--all log: exit 0, each process under its own line" [ $rc -eq 0 ] && [ "$(grep -c "^== [0-9]* skall$" <<<"$out")" -eq 2 ]
check "--all log: both changes" [ "$(grep -c 'tracing 0 -> 1: ok' <<<"$out")" -eq 2 ]
out=$("$skctl" --all --comm skall get tracing); rc=$?
check "--all get: exit 0, on in both" [ $rc -eq 0 ] && [ "$(grep -c 'state: *on' <<<"$out")" -eq 2 ]

# ---- ten demos -----------------------------------------------------------------
for n in 3 4 5 6 7 8 9 10; do start_demo $n; done
check "ten demos serve their sockets" wait_count 10
check "--all list: 50 rows" [ "$(rows)" -eq 50 ]
out=$("$skctl" --all --comm skall set checksums=1 shout=1); rc=$?
check "--all set on ten exits 0" [ $rc -eq 0 ]
check "ten ok lines" [ "$(grep -c ': ok$' <<<"$out")" -eq 10 ]
for n in 1 5 10; do
	check "demo $n shouts and checksums" wait_tick "$tmp/out$n" 'shout=1 tracing=. checksums=1'
done
out=$("$skctl" --all --comm skall disable shout); rc=$?
check "--all disable: exit 0, ten ok lines" [ $rc -eq 0 ] && [ "$(grep -c ': ok$' <<<"$out")" -eq 10 ]
out=$("$skctl" --all --comm skall enable shout); rc=$?
check "--all enable: exit 0, ten ok lines" [ $rc -eq 0 ] && [ "$(grep -c ': ok$' <<<"$out")" -eq 10 ]
out=$("$skctl" --all --comm skall stats); rc=$?
check "--all stats: exit 0, ten sections" [ $rc -eq 0 ] && [ "$(grep -c '^== [0-9]* skall$' <<<"$out")" -eq 10 ]
# Dynamic debug in every process: the demo's statement, one query.
out=$("$skctl" --all --comm skall debug 'func print_tick +p'); rc=$?
echo "$out"
check "--all debug: exit 0, one statement matched in each of ten" [ $rc -eq 0 ] && [ "$(grep -c ': 1 debug statement matched$' <<<"$out")" -eq 10 ]
for n in 1 10; do
	check "demo $n prints its debug statement" wait_for grep -q '^tick [0-9]*: [0-9]* traced$' "$tmp/err$n"
done
out=$("$skctl" --all --comm skall debug); rc=$?
check "--all debug: each catalogue, the statement on" [ $rc -eq 0 ] && [ "$(grep -c 'skdemo.c:[0-9]* \[skall\]print_tick =p "tick %lu: %lu traced\\n"' <<<"$out")" -eq 10 ]

# ---- a key only some processes have --------------------------------------------
STATICKEYS_CONTROL=$tmp/peer.sock "$tmp/b/skall" 2>"$tmp/err_peer" & pids+=($!); peer_pid=$!
check "the peer serves its socket" wait_count 11
# A process that inherited the peer's STATICKEYS_CONTROL=PATH but serves
# nothing (a shell script called skall) is not counted as a second peer.
mkdir "$tmp/c"; printf '#!/bin/sh\nwhile :; do sleep 0.2; done\n' >"$tmp/c/skall"; chmod 755 "$tmp/c/skall"
STATICKEYS_CONTROL=$tmp/peer.sock "$tmp/c/skall" & pids+=($!); heir=$!
check "the heir runs under the name skall" wait_for grep -qx skall "/proc/$heir/comm"
check "--all skips a process whose socket is another's" [ "$(rows)" -eq 52 ]
out=$("$skctl" --all --comm skall set peer_only=1); rc=$?
echo "$out"
check "a key in 1 of 11 processes: exit 6 (some)" [ $rc -eq 6 ]
check "the peer did it" grep -q "^$peer_pid skall: ok$" <<<"$out"
check "the others say why not" [ "$(grep -c "failed: no key named 'peer_only'" <<<"$out")" -eq 10 ]
check "peer_only is on in the peer" sh -c "'$skctl' -p $peer_pid get peer_only | grep -q 'state: *on'"
"$skctl" --all --comm skall set no_such_key=1 >/dev/null 2>&1; rc=$?
check "a key in no process: exit 7 (none)" [ $rc -eq 7 ]
"$skctl" --all --comm no_such_program list >/dev/null 2>&1; rc=$?
check "no process at all: exit 3" [ $rc -eq 3 ]
"$skctl" --all -p 1 list >/dev/null 2>&1; rc=$?
check "--all with -p: exit 2" [ $rc -eq 2 ]

# ---- a process killed while skctl talks to it ------------------------------------
# Demo 4 is stopped: skctl asks it and waits for its reply (at most 30 s);
# once the request waits in its socket, demo 4 is killed, and skctl goes on.
kill -STOP "$demo4"
wait_for stopped "$demo4"
"$skctl" --timeout 30 --all --comm skall set tracing=0 >"$tmp/killed_out" 2>"$tmp/killed_err" &
sk=$!
wait_for asked "$demo4" || echo "(no request seen queued at demo 4)"
kill -KILL "$demo4"
wait "$sk"; rc=$?
cat "$tmp/killed_out"
check "a process killed mid-way: exit 6" [ $rc -eq 6 ]
check "the killed process is reported" grep -q "^$demo4 skall: failed" "$tmp/killed_out"
check "the other nine demos and the peer did it" [ "$(grep -c ': ok$' "$tmp/killed_out")" -eq 10 ]
check "demo 10 stopped tracing" wait_tick "$tmp/out10" 'tracing=0 '

# ---- another user --------------------------------------------------------------------
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	echo "SKIPPED part: another uid needs root and setpriv"
	skipped_uid=1
else
	nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	env -u XDG_RUNTIME_DIR STATICKEYS_CONTROL=1 $nobody "$tmp/a/skall" -i 100 -t 1 >"$tmp/out_nobody" 2>&1 &
	pids+=($!); nobody_pid=$!
	check "root's --all sees the other user's process too" wait_count 11
	out=$(env -u XDG_RUNTIME_DIR $nobody "$skctl" --all --comm skall list); rc=$?
	check "uid 65534's --all list exits 0" [ $rc -eq 0 ]
	check "uid 65534 sees only its own process" [ "$(awk 'NR>1{print $1}' <<<"$out" | sort -u)" = "$nobody_pid" ]
	out=$(env -u XDG_RUNTIME_DIR $nobody "$skctl" --all --comm skall set greeting=0); rc=$?
	echo "$out"
	check "uid 65534's --all set: its own process only, exit 0" [ $rc -eq 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ]
	check "its own demo went quiet" wait_tick "$tmp/out_nobody" 'greeting=0 '
	check "root's demos were not touched" wait_tick "$tmp/out1" 'greeting=1 '
	out=$(env -u XDG_RUNTIME_DIR $nobody "$skctl" -p "$demo1" set greeting=0 2>&1); rc=$?
	check "uid 65534 asking for root's demo by pid is refused (exit 3)" [ $rc -eq 3 ]
fi

for code in 6 7; do
	check "the man page documents exit status $code" grep -Eq "^\.B $code$" "$man"
done
check "--help documents the --all exit codes" sh -c "'$skctl' --help | grep -q '6 some did'"

summary
