#!/usr/bin/env bash
# run_tests.sh BUILD [CTEST-ARGS...] - run ctest in BUILD and close with one
# line a person and CI both read: "tests: N passed, N failed, N skipped",
# after the name and printed reason of every skipped test (a skip is not a
# pass: CI reads the count) and the lines saying why each failed test did.
# The counts come from ctest's JUnit file, so the output of sub-builds' own
# ctest runs never counts.  Exit status:
# ctest's; also non-zero when more tests skipped than SK_MAX_SKIPPED allows
# (unset: any number).
set -uo pipefail
build=$1
shift
junit="$build/Testing/run_tests.junit.xml"
mkdir -p "$build/Testing"
rm -f "$junit"
(cd "$build" && ctest --output-junit "$PWD/Testing/run_tests.junit.xml" "$@")
rc=$?

summary=$(python3 - "$junit" <<'PY'
import re
import sys
import xml.etree.ElementTree as ET

passed, failed, skipped, details = 0, 0, [], []
# A failing test's lines that say why, repeated at the end: CI keeps the
# head and the tail of a long log, and a failure inside a sub-build's run
# (i686_cross_tests runs 202 tests) is printed far from either.
WHY = re.compile(r"check failed|\*\*\*(Failed|Timeout|Exception)|"
                 r"FAILED|[Ee]rror|panicked|Assertion|Segmentation|"
                 r"uncaught target signal|Abort|Killed|timed out")
try:
    cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
except (OSError, ET.ParseError) as e:
    print("no JUnit file from ctest (%s)" % e)
    print("tests: 0 passed, 1 failed, 0 skipped")
    sys.exit(0)
for case in cases:
    status = case.get("status")
    skip = case.find("skipped")
    if status == "run":
        passed += 1
    elif (status == "notrun" and skip is not None and
          skip.get("message", "").startswith("SKIP_")):
        out = case.findtext("system-out") or ""
        lines = [l for l in out.splitlines() if l.strip()]
        reason = next((l for l in lines if "SKIP" in l.upper()),
                      lines[-1] if lines else "(no reason printed)")
        skipped.append((case.get("name"), reason.strip()))
    else:  # failed, timed out, or not run (no executable)
        failed += 1
        out = (case.findtext("system-out") or "").splitlines()
        why = [l for l in out if WHY.search(l)][:20] or out[-8:]
        details.append((case.get("name"), why))
if skipped:
    print("\nSkipped, with the reason each printed:")
    for name, reason in skipped:
        print("  %s: %s" % (name, reason))
if details:
    print("\nWhy each failed (its lines that say so):")
    for name, why in details:
        print("  %s:" % name)
        for line in why:
            print("    " + line.strip()[:300])
print("\ntests: %d passed, %d failed, %d skipped" % (passed, failed, len(skipped)))
PY
)
echo "$summary"
skipped=$(sed -n 's/^tests: .* \([0-9]*\) skipped$/\1/p' <<<"$summary")
if [ "$rc" -eq 0 ] && [ -n "${SK_MAX_SKIPPED:-}" ] && [ "${skipped:-0}" -gt "$SK_MAX_SKIPPED" ]; then
  echo "more tests skipped ($skipped) than SK_MAX_SKIPPED=$SK_MAX_SKIPPED allows: what skips is not proven here"
  rc=1
fi
exit "$rc"
