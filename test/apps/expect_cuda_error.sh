#!/usr/bin/env bash
# --hardware cuda where no CUDA device can be used: as expect_error.sh (exit code 1, one line
# "APP: error: ..." matching PATTERN). Where a device can be used the command succeeds instead: the
# test is then skipped (exit code 77, the SKIP_RETURN_CODE of the tests that use this script).
# Usage: expect_cuda_error.sh APP PATTERN COMMAND [ARGUMENTS...]
set -u
app=$1
pattern=$2
shift 2
if "$@" >/dev/null 2>&1; then
  echo "a CUDA device ran it: $*"
  echo "SKIP: this test checks the error without a device"
  exit 77
fi
exec bash "$(dirname "$0")/expect_error.sh" "$app" "$pattern" "$@"
