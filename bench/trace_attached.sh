#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# trace_attached.sh BUILD_DIR [JSON] [--quick] - the cost of one event with
# bpftrace attached and counting (`usdt:BIN:PROVIDER:NAME { @n = count(); }`):
# our tracepoint against a plain sys/sdt.h probe under its semaphore, side
# by side in one process and one bpftrace (bench/trace_attached.c), and on
# x86-64 two reference site forms (a bare 5-byte NOP, a 10-byte NOP).  Prints
# a table; writes JSON.  Every figure comes with bpftrace's own count of the
# events, which must equal what the program fired, or the run fails.  Not
# root, BPF denied or bpftrace missing: says why, writes {"skipped": why}
# and exits 77 (the row reads "not measured"; no number is made up).
set -u
bdir=$1 json=${2:-} quick=${3:-}
prog=$bdir/bench/bench_trace_attached
rounds=21 per=20000
[ "$quick" = --quick ] && rounds=7 per=5000

skip() {
	echo "not measured: $1"
	[ -n "$json" ] && printf '{"skipped": "%s"}\n' "${1//\"/\'}" >"$json"
	exit 77
}
[ -x "$prog" ] || skip "$prog was not built (bench/CMakeLists.txt builds it with sys/sdt.h)"
LC_ALL=C readelf -n "$prog" 2>/dev/null | grep -q 'NT_STAPSDT' ||
	skip "$prog has no USDT note (built without sys/sdt.h)"
command -v bpftrace >/dev/null || skip "bpftrace is not installed"
[ "$(id -u)" = 0 ] || skip "not root: attaching uprobes with bpftrace needs root (or CAP_BPF and CAP_PERFMON)"
if ! out=$(timeout 20 bpftrace -e 'BEGIN { exit(); }' 2>&1); then
	skip "BPF is not permitted here (bpftrace: ${out##*$'\n'})"
fi

tmp=$(mktemp -d) pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
# The reference site forms (x86-64 only: bench:nop5, bench:nop10).  Some
# kernels refuse a uprobe on the 10-byte NOP (its CS prefix): asked first,
# of a waiting copy of the program (the kernel reads the instruction when it
# puts the probe into a process), and said in the JSON.
forms= nop10_arg= nop10_refused=
if LC_ALL=C readelf -n "$prog" | grep -q 'Name: nop10'; then
	forms="usdt:$prog:bench:nop5 { @nop5 = count(); }"
	"$prog" 1 1 >/dev/null 2>&1 &
	pid=$!
	timeout 60 bpftrace -p $pid -e "usdt:$prog:bench:nop10 { @n = count(); }
BEGIN { exit(); }" >"$tmp/nop10" 2>&1
	bt=$?
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	pid=
	if [ $bt = 0 ]; then
		forms="$forms
usdt:$prog:bench:nop10 { @nop10 = count(); }"
		nop10_arg=with-nop10
	else
		nop10_refused=$(grep -m1 -i 'cannot attach' "$tmp/nop10" || tail -1 "$tmp/nop10")
		echo "10-byte NOP: bpftrace could not attach ($nop10_refused)"
	fi
fi
"$prog" $rounds $per $nop10_arg >"$tmp/out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '^ready' "$tmp/out" && break; sleep 0.05; done
# The same action on every probe; bench:done is the cue to leave.
timeout 300 bpftrace -p $pid -e "
usdt:$prog:bench:ours { @ours = count(); }
usdt:$prog:bench:usdt { @usdt = count(); }
$forms
usdt:$prog:bench:done { exit(); }" >"$tmp/bt" 2>&1
bt=$?
wait $pid
rc=$?
pid=
if [ $rc != 0 ] || [ $bt != 0 ]; then
	echo "--- program (exit $rc)"; cat "$tmp/out"
	echo "--- bpftrace (exit $bt)"; cat "$tmp/bt"
	echo "FAILED: the program or bpftrace did not finish"
	exit 1
fi
res=$(grep '^{' "$tmp/out")
seen_ours=$(sed -n 's/^@ours: \([0-9]*\)/\1/p' "$tmp/bt")
seen_usdt=$(sed -n 's/^@usdt: \([0-9]*\)/\1/p' "$tmp/bt")
seen_nop5=$(sed -n 's/^@nop5: \([0-9]*\)/\1/p' "$tmp/bt")
seen_nop10=$(sed -n 's/^@nop10: \([0-9]*\)/\1/p' "$tmp/bt")
python3 - "$res" "${seen_ours:-0}" "${seen_usdt:-0}" "$json" "${seen_nop5:-0}" "${seen_nop10:-0}" "$nop10_refused" <<'EOF'
import json, sys
r = json.loads(sys.argv[1])
seen = {"statickeys": int(sys.argv[2]), "usdt_semaphore": int(sys.argv[3])}
names = {"statickeys": "statickeys sk_trace_*()",
         "usdt_semaphore": "sys/sdt.h probe under semaphore"}
# Reference forms: shown with what bpftrace saw, never judged (a form that
# loses events is why it is not ours).
forms = {"nop5_bare": ("bare 5-byte NOP (reference)", int(sys.argv[5])),
         "nop10": ("10-byte NOP (reference)", int(sys.argv[6]))}
bad = [k for k in seen if seen[k] != r["fired_each"]]
print("%-34s %12s %10s %10s %14s" % ("event, bpftrace attached", "median ns",
                                     "min ns", "max ns", "bpftrace saw"))
rows = [(k, names[k], seen[k]) for k in ("statickeys", "usdt_semaphore")]
rows += [(k, forms[k][0], forms[k][1]) for k in forms if k in r]
for k, name, n in rows:
    print("%-34s %12.1f %10.1f %10.1f %14d" % (
        name, r[k]["median_ns"], r[k]["min_ns"], r[k]["max_ns"], n))
ratio = r["statickeys"]["median_ns"] / r["usdt_semaphore"]["median_ns"]
print("ours / USDT: %.3f (medians of %d rounds of %d events each, "
      "alternating)" % (ratio, r["rounds"], r["per_round"]))
if bad:
    print("FAILED: bpftrace counted %s, the program fired %d of each"
          % (seen, r["fired_each"]))
    sys.exit(1)
out = {"measured": "ns per event with bpftrace attached "
                   "(usdt:...{ @n = count(); }), CLOCK_MONOTONIC per round "
                   "of events, median over rounds",
       "rounds": r["rounds"], "per_round": r["per_round"],
       "fired_each": r["fired_each"],
       "bpftrace_counted": seen, "ratio_ours_to_usdt": round(ratio, 3)}
for k in names:
    out[k] = r[k]
out["forms"] = {k: dict(r[k], bpftrace_counted=forms[k][1])
                for k in forms if k in r}
if sys.argv[7]:
    out["forms"]["nop10"] = {"refused": sys.argv[7]}
if sys.argv[4]:
    with open(sys.argv[4], "w") as f:
        json.dump(out, f, indent=1)
EOF
