#!/usr/bin/env bash
# expect_failure.sh PATTERN... -- COMMAND...: runs COMMAND (ctest's TIMEOUT catches a hang),
# requires it to fail (non-zero exit) and its output (stdout and stderr) to match every
# extended regular expression PATTERN.
set -u
patterns=()
while [ "$1" != "--" ]; do
  patterns+=("$1")
  shift
done
shift
output=$("$@" 2>&1)
code=$?
fail() { printf '%s\n' "$output"; echo "FAIL: $1" >&2; exit 1; }
[ "$code" -ne 0 ] || fail "exit code 0, expected a failure"
for pattern in "${patterns[@]}"; do
  printf '%s\n' "$output" | grep -Eq -- "$pattern" || fail "output does not match '$pattern'"
done
printf '%s\n' "$output" | grep -E -- "${patterns[0]}" | head -n 2
echo "PASS: exit $code, output matches ${patterns[*]}"
