#!/usr/bin/env bash
# run_tests.sh BUILD [CTEST-ARGS...] - run ctest in BUILD and close with one
# line a person and CI both read: "tests: N passed, N failed, N skipped",
# after the name and printed reason of every skipped test (a skip is not a
# pass: CI reads the count).  The counts come from ctest's JUnit file, so
# the output of sub-builds' own ctest runs never counts.  Exit status:
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
import sys
import xml.etree.ElementTree as ET

passed, failed, skipped = 0, 0, []
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
if skipped:
    print("\nSkipped, with the reason each printed:")
    for name, reason in skipped:
        print("  %s: %s" % (name, reason))
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
