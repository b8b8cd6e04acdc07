#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# etcd_fleet.sh SKDEMO SYNC SKCTL - the fleet recipe: etcd on 127.0.0.1 is
# the source of truth, one statickeys-etcd-sync (tools/etcd-sync) per "host"
# writes that host's STATICKEYS_FILE, and two running demo programs (one per
# file) flip when `etcdctl put /statickeys/tracing 1` is run.  The demos
# print what their sites do (tracing=1 and a growing traced count), so the
# checks are on the code's behaviour.  Then: a put changes exactly the key
# it names (a key set with skctl since stays as set); a value with a newline
# is refused alone, its key named, the other keys still follow; a bad word
# is refused by both programs, naming the line; etcd stops and restarts
# (the files keep their version meanwhile, the syncs resume); a sync started
# while etcd is down retries past 5 s, leaves no temporary file, and writes
# its file once etcd is back.  Skipped with the reason when etcd, etcdctl
# or the sync (built only with go) is missing.  Waits are deadlines (60 s);
# nothing is timed but the report of the flip.
set -u
set -m # each background job in its own process group, to stop it whole
demo=$1 sync=$2 skctl=$3
command -v etcd >/dev/null && command -v etcdctl >/dev/null ||
	{ echo "SKIPPED: etcd and etcdctl are not installed (Debian: etcd-server, etcd-client)"; exit 77; }
[ -x "$sync" ] ||
	{ echo "SKIPPED: statickeys-etcd-sync was not built (no go command of the version tools/etcd-sync/go.mod names)"; exit 77; }
export ETCDCTL_API=3
tmp=$(mktemp -d)
jobs_started=()
cleanup() { for p in "${jobs_started[@]}"; do kill -- -"$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
. "$(dirname "$0")/testlib.sh"
# Two free ports on 127.0.0.1, chosen by the kernel (bind to port 0).
py=$(command -v python3 || true)
[ -n "$py" ] || { echo "SKIPPED: python3 (to pick free ports) is not installed"; exit 77; }
read -r client peer < <("$py" -c 'import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])')
export ETCDCTL_ENDPOINTS=http://127.0.0.1:$client
start_etcd() {
	etcd --name sk --data-dir "$tmp/etcd" \
		--listen-client-urls "$ETCDCTL_ENDPOINTS" --advertise-client-urls "$ETCDCTL_ENDPOINTS" \
		--listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
		--initial-cluster "sk=http://127.0.0.1:$peer" >>"$tmp/etcd.log" 2>&1 &
	etcd_pid=$!
	jobs_started+=($!)
}
stop_etcd() { kill "$etcd_pid"; wait "$etcd_pid" 2>/dev/null; }
no_temporary_files() { ! compgen -G "$1/.statickeys-etcd.*" >/dev/null; }
start_etcd
check "etcd answers on 127.0.0.1:$client" wait_for etcdctl endpoint health
etcdctl put /statickeys/greeting 1 >/dev/null

# Two hosts: each has its file, its sync, its program (with a socket).
for h in 1 2; do
	mkdir "$tmp/host$h"
	"$sync" /statickeys/ "$tmp/host$h/keys.conf" 2>"$tmp/sync$h.err" &
	jobs_started+=($!)
	check "host $h: the sync writes its file" wait_for grep -q '^greeting = 1$' "$tmp/host$h/keys.conf"
	STATICKEYS_AUDIT=stderr STATICKEYS_FILE=$tmp/host$h/keys.conf STATICKEYS_CONTROL=$tmp/host$h/demo.sock \
		"$demo" -i 100 -t 1 >"$tmp/out$h" 2>"$tmp/err$h" &
	jobs_started+=($!)
	check "host $h: the demo starts without tracing" wait_tick "$tmp/out$h" 'tracing=0 '
done
check "the file carries no revision (a put rewrites only its key's line)" \
	sh -c "! grep -qi revision '$tmp/host1/keys.conf'"

t0=$(date +%s%N)
etcdctl put /statickeys/tracing 1 >/dev/null
check "host 1 traces: its site changed" wait_tick "$tmp/out1" 'tracing=1 .*traced=\+[1-9]'
check "host 2 traces: its site changed" wait_tick "$tmp/out2" 'tracing=1 .*traced=\+[1-9]'
echo "etcdctl put to both programs tracing: $(( ($(date +%s%N) - t0) / 1000000 )) ms (with 100 ms ticks)"
check "host 1 audit names the file" grep -q "file $tmp/host1/keys.conf:[0-9]*: tracing 0 -> 1: ok" "$tmp/err1"

# A put changes exactly the key it names: host 1's tracing, turned off with
# skctl since, stays off when another key is put.
check "skctl turns host 1's tracing off" "$skctl" -s "$tmp/host1/demo.sock" set tracing=0
check "host 1 stops tracing" wait_tick "$tmp/out1" 'tracing=0 '
etcdctl put /statickeys/shout 1 >/dev/null
check "both shout" wait_tick "$tmp/out1" 'HELLO, WORLD'
check "both shout (2)" wait_tick "$tmp/out2" 'HELLO, WORLD'
check "host 1: the put of shout left tracing as skctl set it" wait_tick "$tmp/out1" 'shout=1 tracing=0 '
check "host 2 still traces" wait_tick "$tmp/out2" 'shout=1 tracing=1 '
n=$(grep -c 'tracing 0 -> 1' "$tmp/err1")
etcdctl put /statickeys/unrelated 0 >/dev/null
check "host 1's file gets the unrelated key" wait_for grep -q '^unrelated = 0$' "$tmp/host1/keys.conf"
sleep 0.3
check "host 1: no further change of tracing (audit)" test "$(grep -c 'tracing 0 -> 1' "$tmp/err1")" -eq "$n"
check "host 1: tracing still off" wait_tick "$tmp/out1" 'shout=1 tracing=0 '
# A put of the value etcd already holds leaves the file's bytes as they
# are: like a touch, it undoes nothing (docs/fleet.md).  A put of a new
# value does.
etcdctl put /statickeys/tracing 1 >/dev/null
sleep 0.3
check "a put of the same value leaves host 1's tracing off" wait_tick "$tmp/out1" 'shout=1 tracing=0 '
etcdctl put /statickeys/tracing 0 >/dev/null
check "host 2 stops tracing" wait_tick "$tmp/out2" 'tracing=0 '
etcdctl put /statickeys/tracing 1 >/dev/null
check "a put of a new value turns it on again on host 1" wait_tick "$tmp/out1" 'tracing=1 .*traced=\+[1-9]'
check "and on host 2" wait_tick "$tmp/out2" 'tracing=1 .*traced=\+[1-9]'

# A value with a newline is refused alone, with its key named.
etcdctl put /statickeys/aaa "$(printf '0\nverbose')" >/dev/null
check "the sync names the refused key" wait_for grep -q '"/statickeys/aaa": the value has a line break' "$tmp/sync1.err"
etcdctl put /statickeys/shout 0 >/dev/null
check "host 1: the other keys still follow" wait_tick "$tmp/out1" 'shout=0 tracing=1 '
check "host 2: the other keys still follow" wait_tick "$tmp/out2" 'shout=0 tracing=1 '
check "the refused key is not in the file" sh -c "! grep -q '^aaa\\|^verbose' '$tmp/host1/keys.conf'"
check "no program refused a version" sh -c "! grep -q 'nothing applied' '$tmp/err1' '$tmp/err2'"
etcdctl put /statickeys/aaa 1 >/dev/null
check "a good value of that key is written" wait_for grep -q '^aaa = 1$' "$tmp/host2/keys.conf"

# A bad word: both programs refuse that version, naming the line.
etcdctl put /statickeys/tracing maybe >/dev/null
check "a bad value: host 1 names the line" wait_for grep -q "keys.conf:[0-9]*: the value is not one of 0/1" "$tmp/err1"
check "a bad value: host 2 names the line" wait_for grep -q "keys.conf:[0-9]*: the value is not one of 0/1" "$tmp/err2"
check "a bad value: nothing applied on host 1" wait_tick "$tmp/out1" 'shout=0 tracing=1 '
etcdctl put /statickeys/tracing 0 >/dev/null
check "host 1 stops tracing" wait_tick "$tmp/out1" 'tracing=0 .*traced=\+0'
check "host 2 stops tracing" wait_tick "$tmp/out2" 'tracing=0 .*traced=\+0'

# Dynamic debug from etcd: the key dyndbg is a query (a "dyndbg = QUERY"
# line of the file), applied by both programs and audited as the line.
etcdctl put /statickeys/dyndbg 'func print_tick +pf' >/dev/null
for h in 1 2; do
	check "host $h: the debug statement prints, with its function" \
		wait_for grep -q '^print_tick: tick [0-9]*: 0 traced$' "$tmp/err$h"
	check "host $h: audited as the file's line" \
		grep -q "file $tmp/host$h/keys.conf:[0-9]*: dyndbg:.*skdemo.c:[0-9]* 0 -> 1: ok" "$tmp/err$h"
done
etcdctl put /statickeys/dyndbg 'func print_tick -p' >/dev/null
check "host 1: off again" wait_for grep -q "dyndbg:.*skdemo.c:[0-9]* 1 -> 0: ok" "$tmp/err1"

# etcd stops: the files keep their last version, the programs their state;
# a sync started now retries (past the 5 s etcdctl gave up after), leaving
# no temporary file.
stop_etcd
check "etcd stopped" sh -c "! kill -0 $etcd_pid 2>/dev/null"
mkdir "$tmp/host3"
"$sync" /statickeys/ "$tmp/host3/keys.conf" 2>"$tmp/sync3.err" &
sync3=$!; jobs_started+=($sync3)
sleep 6
check "host 1's file keeps its last version" grep -q '^tracing = 0$' "$tmp/host1/keys.conf"
check "host 1 keeps its state" wait_tick "$tmp/out1" 'shout=0 tracing=0 '
check "a sync started while etcd is down is still running after 6 s" kill -0 "$sync3"
check "it says etcd is unreachable and it retries" grep -q 'unreachable.*retrying' "$tmp/sync3.err"
check "it wrote no file yet" test ! -e "$tmp/host3/keys.conf"
for h in 1 2 3; do
	check "host $h: no temporary file left" no_temporary_files "$tmp/host$h"
done

# etcd restarts (same data): every sync resumes from where it was.
start_etcd
check "etcd answers again" wait_for etcdctl endpoint health
check "the late sync writes its file" wait_for grep -q '^tracing = 0$' "$tmp/host3/keys.conf"
etcdctl put /statickeys/checksums 1 >/dev/null
check "host 1 follows a put after the restart" wait_tick "$tmp/out1" 'checksums=1'
check "host 2 follows a put after the restart" wait_tick "$tmp/out2" 'checksums=1'
check "host 3's file too" wait_for grep -q '^checksums = 1$' "$tmp/host3/keys.conf"
etcdctl del /statickeys/unrelated >/dev/null
check "a deleted key leaves the file" wait_for sh -c "! grep -q '^unrelated' '$tmp/host1/keys.conf'"

# Stopped with SIGTERM, a sync exits at once and leaves no temporary file.
kill -TERM "$sync3"
check "SIGTERM stops the sync" wait_for sh -c "! kill -0 $sync3 2>/dev/null"
check "and it left no temporary file" no_temporary_files "$tmp/host3"
summary
