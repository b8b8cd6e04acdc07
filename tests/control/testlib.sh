# SPDX-License-Identifier: MIT OR Apache-2.0
# testlib.sh - sourced by the control tests' shell scripts: checks counted
# as the C tests count them, and waits that are deadlines (60 s), not
# measurements.
passed=0 failed=0
check() { # check DESCRIPTION COMMAND...
	local what=$1; shift
	if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $what" >&2; fi
}
# wait_for COMMAND...: until it succeeds.
wait_for() { for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done; return 1; }
# stopped PID: every thread of PID has stopped (kill -STOP returns before
# they have: a thread woken by a request at that moment takes it first, and
# the request is then never seen waiting).
stopped() {
	local t s
	for t in /proc/"$1"/task/*/stat; do
		s=$(cat "$t" 2>/dev/null) || return 1
		s=${s##*) } # after the name, which may hold spaces: the state
		[ "${s%% *}" = T ] || return 1
	done
}
# asked PID: a request waits in PID's control socket (a datagram socket: a
# stopped process never reads it, and ss shows it queued).  Without ss, a
# second.
asked() {
	if ! command -v ss >/dev/null; then sleep 1; return 0; fi
	ss -xa | awk -v s="@statickeys-$1" '$5 == s && $3 > 0 { f = 1 } END { exit !f }'
}
# A tick line printed after the call that matches the regex.
wait_tick() { # wait_tick OUTFILE REGEX
	local out=$1 re=$2 start
	start=$(wc -l <"$out")
	for _ in $(seq 600); do
		tail -n +"$((start + 1))" "$out" | grep -Eq "$re" && return 0
		sleep 0.1
	done
	echo "no line matching '$re' in $out:" >&2; tail -5 "$out" >&2
	return 1
}
# The summary line; the exit status says whether every check passed.
summary() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; }
