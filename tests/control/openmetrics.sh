#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# openmetrics.sh SKDEMO SKCTL CHECKER - `skctl stats --openmetrics`, for
# one process and with --all for two, read by prometheus_client's
# OpenMetrics parser (openmetrics_check.py, run with the system Python,
# which has python3-prometheus-client; skipped with the reason without it).
set -u
demo=$1 skctl=$2 checker=$3
python=/usr/bin/python3
[ -x $python ] || { echo "SKIPPED: no $python"; exit 77; }
$python -c 'import prometheus_client.openmetrics.parser' 2>/dev/null ||
	{ echo "SKIPPED: python3-prometheus-client is not installed for $python"; exit 77; }
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
cp "$demo" "$tmp/skom"
for n in 1 2; do
	STATICKEYS_CONTROL=$tmp/s$n.sock "$tmp/skom" -i 100 -t 1 >/dev/null 2>&1 &
	pids+=($!)
done
for n in 1 2; do
	# The socket can answer before the program's own keys are registered
	# (the library's constructor starts the server first): wait for the key.
	for _ in $(seq 600); do
		"$skctl" -s "$tmp/s$n.sock" get tracing >/dev/null 2>&1 && break
		sleep 0.1
	done
	"$skctl" -s "$tmp/s$n.sock" set tracing=1 >/dev/null || exit 1
done
rc=0
"$skctl" -s "$tmp/s1.sock" stats --openmetrics >"$tmp/one.txt" || rc=1
$python "$checker" "$tmp/one.txt" "${pids[0]}" || rc=1
"$skctl" --all --comm skom stats --openmetrics >"$tmp/all.txt" || rc=1
head -20 "$tmp/all.txt"
$python "$checker" "$tmp/all.txt" "${pids[@]}" || rc=1
exit $rc
