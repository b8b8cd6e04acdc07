#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# k8s_recipe.sh SKDEMO SKCTL FLEET_MD - docs/fleet.md's Kubernetes recipe,
# without a cluster: the `myservice` container's env and the metrics
# sidecar's skctl command are taken from the page as written; a demo
# program named myservice runs with that env (STATICKEYS_FILE pointing at
# a ConfigMap-like directory holding the page's keys.conf), and the
# sidecar's command, run beside it as the same user, must find it and
# print its keys as OpenMetrics.  A recipe without STATICKEYS_CONTROL
# finds nothing (skctl --all exits 3).
set -u
demo=$1 skctl=$2 doc=$3
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
. "$(dirname "$0")/testlib.sh"

# The recipe's YAML block, as the page has it.
sed -n '/^## The same with a Kubernetes ConfigMap/,$p' "$doc" | sed -n '/^```yaml$/,/^```$/p' >"$tmp/recipe.yaml"
check "the page has the recipe" grep -q 'kind: ConfigMap' "$tmp/recipe.yaml"
# The env of the myservice container: its "- { name: X, value: Y }" lines.
sed -n '/- name: myservice$/,/- name: /p' "$tmp/recipe.yaml" |
	sed -n 's/^ *- { name: \([A-Z_]*\), value: "\{0,1\}\([^"}]*\)"\{0,1\} }$/\1=\2/p' >"$tmp/env"
echo "the recipe's env:"; cat "$tmp/env"
check "the recipe sets STATICKEYS_FILE" grep -q '^STATICKEYS_FILE=' "$tmp/env"
# The sidecar's skctl command, from its shell loop.
side=$(grep -o 'skctl --all[^>]*' "$tmp/recipe.yaml" | head -n 1 | sed 's/ *$//')
echo "the sidecar runs: $side"
check "the recipe has a sidecar running skctl --all ... --openmetrics" grep -q -- '--openmetrics' <<<"$side"

# The ConfigMap volume: the page's keys.conf behind a ..data symlink.
mkdir -p "$tmp/cm/..v1"
sed -n '/keys.conf: |/,/^---/p' "$tmp/recipe.yaml" | sed '1d;$d' | sed 's/^ *//' >"$tmp/cm/..v1/keys.conf"
ln -s ..v1 "$tmp/cm/..data" && ln -s ..data/keys.conf "$tmp/cm/keys.conf"
# The program, under the name the recipe gives it (its command name).
cp "$demo" "$tmp/myservice"
env_args=()
while IFS='=' read -r k v; do
	[ "$k" = STATICKEYS_FILE ] && v=$tmp/cm
	env_args+=("$k=$v")
done <"$tmp/env"
env "${env_args[@]}" "$tmp/myservice" -i 100 -t 1 >"$tmp/out" 2>"$tmp/err" &
pid=$!; pids+=($pid)
check "the program runs" wait_tick "$tmp/out" 'tracing=0 '

# The sidecar, as the same user: finds the program and prints its metrics.
got() { "$skctl" ${side#skctl} >"$tmp/metrics" 2>"$tmp/side.err"; }
check "the sidecar's command succeeds" wait_for got
cat "$tmp/side.err"
check "its metrics name the program's keys" \
	grep -q "^statickeys_key_enabled{pid=\"$pid\",comm=\"myservice\",key=\"tracing\"} 0$" "$tmp/metrics"
check "and end as OpenMetrics does" grep -qx '# EOF' "$tmp/metrics"
summary
