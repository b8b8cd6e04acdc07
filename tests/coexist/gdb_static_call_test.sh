#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# gdb_static_call_test.sh PROGRAM LIBDIR [SITES] - debug a program that re-points a
# static call while threads call through it (sc_flipper.c), with gdb in
# batch mode and the library's auto-loaded gdb script, as gdb_test.sh:
#   1. no breakpoints: the threads meet the int3s of the trampoline's
#      updates under gdb, the script lets them through, nothing reaches the
#      user, and the program exits 0 (no update refused, no wrong call);
#   2. `break sk__sct_route` (a breakpoint on the trampoline, whose jump the
#      library rewrites): the script moves it to where the jump leads, says
#      so, the moved breakpoint is hit, and once it is deleted the program
#      runs on and exits 0 (a gdb int3 left on the trampoline would have
#      made every update fail with EILSEQ).
# SITES=patched: the program was linked with -Wl,--emit-relocs, so its call
# sites are patched too, and their int3s are the ones the threads meet
# (the script knows them from the runtime's list).
set -u
prog=$1 libdir=$2 sites=${3:-}
command -v gdb >/dev/null || { echo "SKIPPED: gdb is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../check.sh"
has() { grep -q -- "$1" "$tmp/out"; }
run_gdb() { # run_gdb SCRIPT ARGS...
	local script=$1; shift
	timeout 300 gdb -nx -batch -iex "add-auto-load-safe-path $libdir" \
		-x "$script" --args "$prog" "$@" >"$tmp/out" 2>&1
	echo "---- gdb output ($(basename "$script"))"; cat "$tmp/out"; echo "----"
}

cat >"$tmp/none.gdb" <<'G'
run
python print("statickeys traps retried by gdb:", gdb._statickeys_state["fn"].retried)
G
run_gdb "$tmp/none.gdb" 3000
check "the script was auto-loaded" has "statickeys: catchpoint"
check "no breakpoints: exits 0" has "exited normally"
check "no SIGTRAP reaches the user" bash -c "! grep -q 'received signal SIGTRAP' '$tmp/out'"
check "no update refused, no wrong call" has "3000 updates, 0 refused, [0-9]* calls, 0 wrong"
retried=$(sed -n 's/^statickeys traps retried by gdb: //p' "$tmp/out")
check "threads did meet the trampoline's int3s under gdb (${retried:-none})" \
	test "${retried:-0}" -gt 0
if [ "$sites" = patched ]; then
	check "the call site was patched (--emit-relocs)" has "call site: patched"
fi

cat >"$tmp/bp.gdb" <<'G'
break sk__sct_route
run
continue
delete
continue
G
run_gdb "$tmp/bp.gdb" 300
check "the breakpoint on the trampoline was moved, with a message" \
	has "breakpoint [0-9]* was on a static call's trampoline"
check "the moved breakpoint is hit in a target" has "hit Breakpoint [0-9]*, target_\(one\|two\)"
check "then the program exits 0" has "exited normally"
check "no update refused, no wrong call" has "300 updates, 0 refused, [0-9]* calls, 0 wrong"
check "no SIGTRAP reaches the user" bash -c "! grep -q 'received signal SIGTRAP' '$tmp/out'"
check_summary
