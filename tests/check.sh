# SPDX-License-Identifier: MIT OR Apache-2.0
# tests/check.sh - sourced by the shell tests: the shell side of check.h.
#   check DESCRIPTION COMMAND...   run COMMAND; count and print ok/FAILED
#   check_summary                  print "N passed, M failed"; false on any
#                                  failure (the script's exit status)
pass=0 fail=0
check() {
	if "${@:2}"; then pass=$((pass + 1)); echo "ok: $1"
	else fail=$((fail + 1)); echo "FAILED: $1"; fi
}
check_summary() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
