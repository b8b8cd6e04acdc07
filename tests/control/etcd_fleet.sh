#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# etcd_fleet.sh SKDEMO SYNC - the fleet recipe: etcd on 127.0.0.1 is the
# source of truth, one statickeys-etcd-sync per "host" writes that host's
# STATICKEYS_FILE, and two running demo programs (one per file) flip when
# `etcdctl put /statickeys/tracing 1` is run.  The demos print what their
# sites do (tracing=1 and a growing traced count), so the check is on the
# code's behaviour.  A bad value is refused by both, with a message naming
# the line.  Skipped with the reason when etcd or etcdctl is missing.  Waits
# are deadlines (60 s); nothing is timed but the report of the flip.
set -u
set -m # each background job in its own process group, to stop it whole
demo=$1 sync=$2
command -v etcd >/dev/null && command -v etcdctl >/dev/null ||
	{ echo "SKIPPED: etcd and etcdctl are not installed (Debian: etcd-server, etcd-client)"; exit 77; }
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
etcd --name sk --data-dir "$tmp/etcd" \
	--listen-client-urls "$ETCDCTL_ENDPOINTS" --advertise-client-urls "$ETCDCTL_ENDPOINTS" \
	--listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
	--initial-cluster "sk=http://127.0.0.1:$peer" >"$tmp/etcd.log" 2>&1 &
etcd_pid=$!
jobs_started+=($!)
check "etcd answers on 127.0.0.1:$client" wait_for etcdctl endpoint health
etcdctl put /statickeys/greeting 1 >/dev/null

# Two hosts: each has its file, its sync, its program.
for h in 1 2; do
	mkdir "$tmp/host$h"
	"$sync" /statickeys/ "$tmp/host$h/keys.conf" 2>"$tmp/sync$h.err" &
	jobs_started+=($!)
	check "host $h: the sync writes its file" wait_for grep -q '^greeting = 1$' "$tmp/host$h/keys.conf"
	STATICKEYS_FILE=$tmp/host$h/keys.conf "$demo" -i 100 -t 1 >"$tmp/out$h" 2>"$tmp/err$h" &
	jobs_started+=($!)
	check "host $h: the demo starts without tracing" wait_tick "$tmp/out$h" 'tracing=0 '
done

t0=$(date +%s%N)
etcdctl put /statickeys/tracing 1 >/dev/null
check "host 1 traces: its site changed" wait_tick "$tmp/out1" 'tracing=1 .*traced=\+[1-9]'
check "host 2 traces: its site changed" wait_tick "$tmp/out2" 'tracing=1 .*traced=\+[1-9]'
echo "etcdctl put to both programs tracing: $(( ($(date +%s%N) - t0) / 1000000 )) ms (with 100 ms ticks)"
check "host 1 audit names the file" grep -q "file $tmp/host1/keys.conf:[0-9]*: tracing 0 -> 1: ok" "$tmp/err1"

etcdctl put /statickeys/shout 1 >/dev/null
check "both shout" wait_tick "$tmp/out1" 'HELLO, WORLD'
check "both shout (2)" wait_tick "$tmp/out2" 'HELLO, WORLD'

etcdctl put /statickeys/tracing maybe >/dev/null
check "a bad value: host 1 names the line" wait_for grep -q "keys.conf:[0-9]*: the value is not one of 0/1" "$tmp/err1"
check "a bad value: host 2 names the line" wait_for grep -q "keys.conf:[0-9]*: the value is not one of 0/1" "$tmp/err2"
check "a bad value: nothing applied on host 1" wait_tick "$tmp/out1" 'shout=1 tracing=1 '

etcdctl put /statickeys/tracing 0 >/dev/null
check "host 1 stops tracing" wait_tick "$tmp/out1" 'tracing=0 .*traced=\+0'
check "host 2 stops tracing" wait_tick "$tmp/out2" 'tracing=0 .*traced=\+0'

# etcd stops: the files keep their last version, the programs their state.
kill "$etcd_pid"; wait "$etcd_pid" 2>/dev/null
check "etcd stopped" sh -c "! kill -0 $etcd_pid 2>/dev/null"
sleep 0.5
check "host 1's file keeps its last version" grep -q '^tracing = 0$' "$tmp/host1/keys.conf"
check "host 1 keeps shouting" wait_tick "$tmp/out1" 'shout=1 tracing=0 '
summary
