#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# run_libfuzzer.sh FUZZER SEEDS WORKDIR SECONDS - a bounded libFuzzer run
# starting from the seed corpus; new inputs stay in WORKDIR.
set -eu
fuzzer=$1 seeds=$2 work=$3 seconds=$4
mkdir -p "$work"
exec "$fuzzer" -max_total_time="$seconds" -max_len=6000 -timeout=20 \
	-rss_limit_mb=1024 -print_final_stats=1 "$work" "$seeds"
