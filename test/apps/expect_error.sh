#!/usr/bin/env bash
# Runs a command that must fail on bad input: exit code 1 and exactly one line on stderr,
# "APP: error: ...", containing the extended regular expression PATTERN.
# Usage: expect_error.sh APP PATTERN COMMAND [ARGUMENTS...]
set -u
app=$1
pattern=$2
shift 2
stderr_file=$(mktemp)
trap 'rm -f "$stderr_file"' EXIT
"$@" >/dev/null 2>"$stderr_file"
rc=$?
message=$(cat "$stderr_file")
lines=$(wc -l <"$stderr_file")
echo "command: $*"
echo "exit code: $rc"
echo "stderr: $message"
fail=0
if [ "$rc" -ne 1 ]; then
  echo "FAIL: expected exit code 1, got $rc"
  fail=1
fi
if [ "$lines" -ne 1 ]; then
  echo "FAIL: expected one line on stderr, got $lines"
  fail=1
fi
if ! grep -q "^$app: error: " "$stderr_file"; then
  echo "FAIL: stderr does not start with '$app: error: '"
  fail=1
fi
if ! grep -Eq -- "$pattern" "$stderr_file"; then
  echo "FAIL: stderr does not match: $pattern"
  fail=1
fi
exit $fail
