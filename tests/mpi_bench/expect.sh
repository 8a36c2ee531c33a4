#!/usr/bin/env bash
# expect.sh EXIT_CODE PATTERN -- COMMAND...: runs COMMAND, requires its exit code to be EXIT_CODE
# and its output (stdout and stderr) to match the extended regular expression PATTERN. For
# EXIT_CODE 2 it also requires exactly one "topocoll-bench: error:" line (the one-line contract).
set -u
expected=$1 pattern=$2
shift 3
output=$("$@" 2>&1)
code=$?
fail() { printf '%s\n' "$output"; echo "FAIL: $1" >&2; exit 1; }
[ "$code" -eq "$expected" ] || fail "exit code $code, expected $expected"
printf '%s\n' "$output" | grep -Eq -- "$pattern" || fail "output does not match '$pattern'"
if [ "$expected" -eq 2 ]; then
  lines=$(printf '%s\n' "$output" | grep -c "topocoll-bench: error:")
  [ "$lines" -eq 1 ] || fail "$lines error lines, expected one"
fi
printf '%s\n' "$output" | tail -n 3
echo "PASS: exit $code, output matches '$pattern'"
