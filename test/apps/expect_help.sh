#!/usr/bin/env bash
# APP --help must print its usage on stdout and exit with 0.
# Usage: expect_help.sh APP_PATH
set -u
out=$("$1" --help)
rc=$?
echo "$out" | head -5
if [ "$rc" -ne 0 ]; then
  echo "FAIL: --help exited with $rc"
  exit 1
fi
if ! echo "$out" | grep -q "^Usage: "; then
  echo "FAIL: no 'Usage:' line"
  exit 1
fi
