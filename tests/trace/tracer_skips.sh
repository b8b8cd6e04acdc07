# SPDX-License-Identifier: MIT OR Apache-2.0
# tracer_skips.sh - sourced by the tests that attach a real tracer
# (bpftrace_test.sh, perf_test.sh, red_zone.sh), for C and Rust programs
# alike.
#
# skip_unless_bpftrace exits 77 (skipped) with the reason unless bpftrace
# is installed and may load BPF programs here.
#
# skip_unless_traceable PROGRAM exits 77 (skipped) with the reason unless
# this machine's tracers can attach to PROGRAM: it must be built for this
# machine's architecture (cross builds run these tests too) and carry a
# USDT note (C: built with sys/sdt.h; Rust: x86-64).
skip_unless_traceable() {
	local prog=$1 machine
	machine=$(LC_ALL=C readelf -h "$prog" 2>/dev/null | sed -n 's/^ *Machine: *//p')
	case "$(uname -m):$machine" in
	x86_64:*X86-64 | aarch64:AArch64 | riscv64:RISC-V | i?86:"Intel 80386") ;;
	*) echo "SKIPPED: $prog is built for '$machine', not for this $(uname -m) machine's tracers"; exit 77 ;;
	esac
	LC_ALL=C readelf -n "$prog" 2>/dev/null | grep -q 'NT_STAPSDT' ||
		{ echo "SKIPPED: $prog has no USDT note (a C program built without sys/sdt.h)"; exit 77; }
}

skip_unless_bpftrace() {
	local out
	command -v bpftrace >/dev/null || { echo "SKIPPED: bpftrace is not installed"; exit 77; }
	if ! out=$(timeout 20 bpftrace -e 'BEGIN { exit(); }' 2>&1); then
		echo "SKIPPED: BPF is not permitted here (bpftrace: ${out##*$'\n'})"
		exit 77
	fi
}
