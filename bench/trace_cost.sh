#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# trace_cost.sh BUILD_DIR [JSON] - a disabled tracepoint's instructions,
# data reads and conditional branches per call (cachegrind, exact counts):
# ours against a sys/sdt.h probe under its semaphore, a plain flag and an
# LTTng-UST 2.13 tracepoint (when it was built), in one run.  Each program runs with two iteration counts; the difference
# removes start-up, and subtracting the empty loop leaves the check alone.
set -eu
bdir=$1 json=${2:-}
command -v valgrind >/dev/null || { echo "SKIPPED: valgrind is not installed"; exit 77; }
lo=1000000 hi=11000000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
counts() { # counts VARIANT N -> "Ir Dr Bc"
	valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes \
		--cachegrind-out-file="$tmp/cg" "$bdir/bench/trace_loop_$1" "$2" \
		>/dev/null 2>&1
	awk '/^events:/ { for (i = 2; i <= NF; i++) ev[i] = $i }
	     /^summary:/ { for (i = 2; i <= NF; i++) v[ev[i]] = $i;
	                   print v["Ir"], v["Dr"], v["Bc"] }' "$tmp/cg"
}
variants="trace_off usdt_sem flag"
[ -x "$bdir/bench/trace_loop_lttng" ] && variants="$variants lttng"
declare -A per
for v in empty $variants; do
	read -r ir1 dr1 bc1 < <(counts $v $lo)
	read -r ir2 dr2 bc2 < <(counts $v $hi)
	per[$v]="$(awk -v a="$ir1 $dr1 $bc1" -v b="$ir2 $dr2 $bc2" -v n=$((hi - lo)) \
		'BEGIN { split(a, x, " "); split(b, y, " ");
		         printf "%.3f %.3f %.3f", (y[1]-x[1])/n, (y[2]-x[2])/n, (y[3]-x[3])/n }')"
done
read -r e_ir e_dr e_bc <<<"${per[empty]}"
printf '%-34s %12s %10s %10s\n' "disabled tracepoint (per call)" instructions "data reads" branches
rows=()
for v in $variants; do
	read -r ir dr bc <<<"${per[$v]}"
	line=$(awk -v ir=$ir -v dr=$dr -v bc=$bc -v eir=$e_ir -v edr=$e_dr -v ebc=$e_bc \
		'BEGIN { printf "%.2f %.2f %.2f", ir-eir, dr-edr, bc-ebc }')
	read -r a b c <<<"$line"
	case $v in
	trace_off) name="statickeys sk_trace_*()" ;;
	usdt_sem) name="sys/sdt.h probe under semaphore" ;;
	flag) name="plain flag" ;;
	lttng) name="LTTng-UST 2.13 tracepoint" ;;
	esac
	printf '%-34s %12s %10s %10s\n' "$name" "$a" "$b" "$c"
	rows+=("\"$v\": {\"instructions\": $a, \"data_reads\": $b, \"branches\": $c}")
done
if [ -n "$json" ]; then
	(IFS=,; echo "{\"measured\": \"cachegrind, per call of a disabled tracepoint, empty loop subtracted\", ${rows[*]}}") >"$json"
fi
