#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# gdb_site_first_test.sh PROGRAM LIBDIR - gdb in batch mode on site_first.c,
# whose work() starts with a site, while main() flips its key after every
# call and a thread runs another site.  gdb must never crash.
#
#   1. with the script: `break work` is moved past the site and stops at
#      every call: 20 continues, delete, the program runs to its end with
#      no update refused;
#   2. with the script: tbreak, finish, next (over a flip), until, tbreak
#      again, continue to the end: two stops in work(), nothing else;
#   3. without the script: the runtime says once on stderr how to load it;
#      a SIGTRAP stop on the library's int3 goes on with `signal SIGTRAP`;
#   4. without the script, `break work`: updates are refused while gdb's
#      int3 is on the site (with the message), gdb does not crash, and after
#      `delete` they work again.
set -u
prog=$1 libdir=$2
command -v gdb >/dev/null || { echo "SKIPPED: gdb is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../check.sh"
has() { grep -Eq -- "$1" "$tmp/out"; }
hasnt() { ! grep -Eq -- "$1" "$tmp/out"; }
count() { grep -Ec -- "$1" "$tmp/out"; }
run_gdb() { # run_gdb SCRIPT_LOADING(with|without) GDB_COMMANDS_FILE
	local load=(-iex "add-auto-load-safe-path $libdir")
	[ "$1" = without ] && load=(-iex "set auto-load python-scripts off")
	timeout 300 gdb -nx -batch "${load[@]}" -x "$2" "$prog" >"$tmp/out" 2>&1
	echo "---- gdb output ($(basename "$2"), script $1)"; cat "$tmp/out"; echo "----"
}
no_crash() {
	check "$1: gdb did not crash" hasnt "Fatal signal|internal to GDB|internal-error"
}

# 1. break, 20 continues, delete, run to the end.
{ echo "break work"; echo run; for _ in $(seq 20); do echo continue; done
  echo delete; echo continue; } >"$tmp/break.gdb"
run_gdb with "$tmp/break.gdb"
no_crash 1
check "1: the breakpoint is moved past the site, with a message" \
	has "statickeys: breakpoint 1 was on a statickeys site.*moved to where the site leads: breakpoint [0-9]+ at work\+5, breakpoint [0-9]+ at work\+[0-9]+"
check "1: it stopped in work() at all 21 calls" test "$(count 'hit Breakpoint [0-9]+, work ')" -eq 21
check "1: both ways through the site (key off and on)" \
	test "$(grep -Eo 'hit Breakpoint [0-9]+, work' "$tmp/out" | sort -u | wc -l)" -eq 2
check "1: no SIGTRAP reached the user" hasnt "received signal"
check "1: no update refused, runs to its end" has "40 flips, 0 refused, 0 other errors, 0 wrong"
check "1: exits 0" has "exited normally"
check "1: the script told the runtime it is loaded (no hint)" hasnt "statickeys: traced by"

# 2. tbreak, finish, next across a flip, until, tbreak again, to the end.
cat >"$tmp/steps.gdb" <<'G'
tbreak work
run
finish
next
next
until
tbreak work
continue
finish
continue
G
run_gdb with "$tmp/steps.gdb"
no_crash 2
check "2: the temporary breakpoint stopped in work() twice" \
	test "$(count 'Temporary breakpoint [0-9]+, work ')" -eq 2
check "2: finish returned from work() twice" test "$(count '^Value returned is')" -eq 2
check "2: no other stop" test "$(count '^(Thread .* hit )?(Temporary )?[Bb]reakpoint [0-9]+, ')" -eq 2
check "2: no SIGTRAP reached the user" hasnt "received signal"
check "2: no update refused, runs to its end" has "40 flips, 0 refused, 0 other errors, 0 wrong"
check "2: exits 0" has "exited normally"

# 3. No script: the hint, once; a trap stop goes on with `signal SIGTRAP`,
#    as often as the program stops (how often a thread meets an int3 is a
#    race: more often on a loaded machine), until it has exited.
resume_traps='set $n = 0
while $_isvoid($_exitcode) && $n < 1000
set $n = $n + 1
signal SIGTRAP
end'
{ echo run; echo "$resume_traps"; } >"$tmp/nosc.gdb"
run_gdb without "$tmp/nosc.gdb"
no_crash 3
check "3: the runtime says once how to load the script" \
	test "$(count 'statickeys: traced by gdb \(pid [0-9]+\).*source .*-gdb\.py')" -eq 1
check "3: runs to its end, exits 0" has "40 flips, 0 refused, 0 other errors, 0 wrong"
echo "($(count 'received signal SIGTRAP') stops on the library's traps without the script)"

# 4. No script, `break work`: refused while the int3 is there; no crash.
#    (After `delete`, the only stops left are the library's traps.)
{ echo "break work"; echo run; echo continue; echo delete; echo continue
  echo "$resume_traps"; } >"$tmp/nosc_break.gdb"
run_gdb without "$tmp/nosc_break.gdb"
no_crash 4
check "4: the update is refused, naming the breakpoint" \
	has "statickeys: refusing to update key 'k'.*a debugger or uprobe has put its int3 on it"
check "4: updates work again after delete" has "site_first: 40 calls, 39 flips, 1 refused, 0 other errors, 0 wrong"
echo "($(count 'received signal SIGTRAP') stops on the library's traps, each resumed with signal SIGTRAP)"
check_summary
