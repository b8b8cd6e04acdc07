#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# gdb_test.sh PROGRAM LIBDIR SOURCE - debug a program that flips keys, with gdb in
# batch mode, at gdb's default settings plus the library's auto-loaded gdb
# script (LIBDIR/libstatickeys.so.*-gdb.py).  The only setting the test adds
# is the auto-load safe path for LIBDIR, as a distribution does for the
# directories it installs such scripts to (/usr/share/gdb/auto-load is safe
# by default).  No `handle SIGTRAP` anywhere.
#
#   1. no breakpoints: the program runs to its end and exits 0;
#   2. breakpoints in a function holding a site and next to the site: set,
#      hit, deleted (once with a bare `delete`, which also deletes the
#      script's catchpoint: it must come back), set again, hit; exit 0;
#   3. a breakpoint on the site itself: the script moves it, with a message,
#      to where the site leads (gdb's saved byte would undo the library's
#      writes); the new breakpoints are hit; the program runs on and exits
#      0.  (The library's own refusal of an int3 on a site is tested by
#      coexist_refuse_breakpoint_on_site.)
set -u
prog=$1 libdir=$2 src=$3
# Lines of flipper.c: the first of with_site()'s body, and its `if` (the site).
body_line=$(grep -n 'sink += x \* 3;' "$src" | cut -d: -f1)
if_line=$(grep -n 'if (sk_branch_unlikely(&k))' "$src" | cut -d: -f1)
command -v gdb >/dev/null || { echo "SKIPPED: gdb is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../check.sh"
has() { grep -q -- "$1" "$tmp/out"; }
count() { grep -c -- "$1" "$tmp/out"; }
run_gdb() { # run_gdb SCRIPT ARGS...
	local script=$1; shift
	timeout 300 gdb -nx -batch -iex "add-auto-load-safe-path $libdir" \
		-x "$script" --args "$prog" "$@" >"$tmp/out" 2>&1
	echo "---- gdb output ($(basename "$script"))"; cat "$tmp/out"; echo "----"
}

# 1. No breakpoints.
cat >"$tmp/none.gdb" <<'G'
run
python print("statickeys traps retried by gdb:", gdb._statickeys_state["fn"].retried)
G
run_gdb "$tmp/none.gdb" 3 300
check "the script was auto-loaded" has "statickeys: catchpoint"
check "no breakpoints: exits 0" has "exited normally"
check "no SIGTRAP reaches the user" bash -c "! grep -q 'received signal SIGTRAP' '$tmp/out'"
check "no update refused" has " 0 refused, 0 other errors"
retried=$(sed -n 's/^statickeys traps retried by gdb: //p' "$tmp/out")
check "threads did meet int3s of updates under gdb (${retried:-none})" \
	test "${retried:-0}" -gt 0

# 2. Breakpoints in and next to a function with a site.  The program's
#    clock runs on while gdb holds it stopped, so the stops after the first
#    phase must fit in the second (2 s: a loaded machine's gdb takes its
#    time), and phase_done's breakpoint goes, not to take a stop meant for
#    with_site when that phase ends.
cat >"$tmp/bps.gdb" <<'G'
break phase_done
run
delete 1
break with_site
continue
continue
delete 3
break *after_site_addr
continue
continue
delete
break with_site
continue
info breakpoints
delete
continue
G
run_gdb "$tmp/bps.gdb" 2 2000
check "stops at phase_done (breakpoint 1)" has "hit Breakpoint 1, phase_done"
check "breakpoint 3 in with_site hit twice" test "$(count 'hit Breakpoint 3, with_site')" -eq 2
check "breakpoint 4 next to the site hit twice" test "$(count 'hit Breakpoint 4, ')" -eq 2
check "breakpoint 4 stopped right after the site" has "with_site (x=.*) at .*flipper.c:$((if_line + 2))"
check "the catchpoint came back after a bare delete" \
	test "$(count 'statickeys: catchpoint')" -ge 2
# One message per bare delete, naming the catchpoint that is kept (gdb's
# delete also deletes the one the script makes while it runs).
msgs=$(sed -n 's/^statickeys: catchpoint \([0-9]*\) lets.*/\1/p' "$tmp/out" | tr '\n' ' ')
kept=$(sed -n 's/^\([0-9][0-9]*\) *catchpoint .*signal "SIGTRAP".*/\1/p' "$tmp/out" | head -n 1)
check "one message per bare delete (2 deletes + the first: 3), got: $msgs" \
	test "$(count 'statickeys: catchpoint')" -eq 3
check "the message after the first bare delete names the kept catchpoint ($kept): $msgs" \
	test "$(echo "$msgs" | cut -d' ' -f2)" = "$kept"
again=$(sed -n "s/^Breakpoint \([0-9]*\) at 0x[0-9a-f]*: file .*flipper.c, line $body_line\.\$/\1/p" "$tmp/out" | tail -n 1)
check "breakpoint $again, set again in with_site, hit" has "hit Breakpoint $again, with_site"
check "the re-created catchpoint was in place then" \
	grep -Eq "^[0-9]+ +catchpoint .*signal \"SIGTRAP\"" "$tmp/out"
check "after the last delete: runs to its end, exits 0" has "exited normally"
check "no SIGTRAP reaches the user" bash -c "! grep -q 'received signal SIGTRAP' '$tmp/out'"
check "no update refused" has " 0 refused, 0 other errors"

# 3. Breakpoints on the site itself: by address, and by the line of the
#    `if (sk_branch_unlikely(...))`, whose first instruction is the site and
#    whose other location is the branch taken while the key is on.  Both are
#    moved to where the site leads (the next instruction and the jump
#    target) and hit there.  Run several times: the bug this guards against
#    (gdb stepping a thread "past" a breakpoint it found already holding an
#    int3, the library's, into the middle of the site: SIGILL) needs the
#    updater to be caught mid-batch.  As in 2, the stops fit in the second
#    phase.
for round in 1 2 3; do
cat >"$tmp/site.gdb" <<G
break phase_done
run
delete 1
break *site_addr
break flipper.c:$if_line
continue
continue
continue
delete
continue
G
run_gdb "$tmp/site.gdb" 2 1500
check "[$round] the breakpoint on the site is moved past it, with a message" \
	grep -Eq "statickeys: breakpoint 3 was on a statickeys site.*moved to where the site leads: breakpoint 4 at with_site\+[0-9]+, breakpoint 5 at with_site\+[0-9]+" "$tmp/out"
check "[$round] so is the one set by line" \
	grep -Eq "statickeys: breakpoint 6 was on a statickeys site.*moved" "$tmp/out"
check "[$round] the moved breakpoints are hit" \
	test "$(grep -Ec 'hit Breakpoint [4-9], with_site' "$tmp/out")" -eq 3
check "[$round] no thread runs the middle of a site" \
	bash -c "! grep -q 'received signal' '$tmp/out'"
check "[$round] gdb did not crash" bash -c "! grep -Eq 'Fatal signal|internal-error' '$tmp/out'"
check "[$round] no update refused, exits 0" has " 0 refused, 0 other errors"
check "[$round] runs to its end" has "exited normally"
done
check_summary
