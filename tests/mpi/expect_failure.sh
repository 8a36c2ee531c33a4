#!/usr/bin/env bash
# expect_failure.sh [--exit CODE] PATTERN... -- COMMAND...: runs COMMAND (ctest's TIMEOUT
# catches a hang), requires it to fail (non-zero exit; exactly CODE with --exit) and its output
# (stdout and stderr) to match every extended regular expression PATTERN.
set -u
exit_code=""
if [ "$1" = "--exit" ]; then
  exit_code=$2
  shift 2
fi
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
[ -z "$exit_code" ] || [ "$code" -eq "$exit_code" ] || fail "exit code $code, expected $exit_code"
for pattern in "${patterns[@]}"; do
  printf '%s\n' "$output" | grep -Eq -- "$pattern" || fail "output does not match '$pattern'"
done
[ "${#patterns[@]}" -eq 0 ] || printf '%s\n' "$output" | grep -E -- "${patterns[0]}" | head -n 2
echo "PASS: exit $code, output matches ${patterns[*]:-(no pattern)}"
