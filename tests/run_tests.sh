#!/usr/bin/env bash
# run_tests.sh BUILD [CTEST-ARGS...] - run ctest in BUILD and close with one
# line a person and CI both read: "tests: N passed, N failed, N skipped",
# after the name and printed reason of every skipped test (a skip is not a
# pass: CI reads the count).  Exit status: ctest's; also non-zero when more
# tests skipped than SK_MAX_SKIPPED allows (unset: any number).
set -uo pipefail
build=$1
shift
log="$build/Testing/run_tests.log"
mkdir -p "$build/Testing"
(cd "$build" && ctest "$@") 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

# ctest's per-test lines: "  7/261 Test  #12: name ....   Passed   1.2 sec".
result_lines() { grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$log"; }
passed=$(result_lines | grep -c '   Passed ')
skipped=$(result_lines | grep -c '\*\*\*Skipped')
failed=$(result_lines | grep -vc -e '   Passed ' -e '\*\*\*Skipped')

if [ "$skipped" -gt 0 ]; then
  echo
  echo "Skipped, with the reason each printed:"
  last="$build/Testing/Temporary/LastTest.log"
  for t in $(result_lines | grep '\*\*\*Skipped' | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/'); do
    # LastTest.log holds every test's output between its header and footer.
    reason=$(awk -v t="$t" '
      $0 ~ "^[0-9]+/[0-9]+ Test: " t "$" { on = 1; next }
      on && /^Test time =/ { exit }
      on && /SKIP/ { print; exit }' "$last" 2>/dev/null)
    echo "  $t: ${reason:-(no reason printed)}"
  done
fi
echo
echo "tests: $passed passed, $failed failed, $skipped skipped"
if [ "$rc" -eq 0 ] && [ -n "${SK_MAX_SKIPPED:-}" ] && [ "$skipped" -gt "$SK_MAX_SKIPPED" ]; then
  echo "more tests skipped ($skipped) than SK_MAX_SKIPPED=$SK_MAX_SKIPPED allows: what skips is not proven here"
  rc=1
fi
exit "$rc"
