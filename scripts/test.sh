#!/usr/bin/env bash
# Tests: installs what is missing, configures and builds everything in build/, runs every ctest test;
# with CBCT_SANITIZE=1, builds the C++ code again with AddressSanitizer and UndefinedBehaviorSanitizer
# in build-sanitize/, runs its tests (but the longest numerical ones) and fuzzes the file readers for
# 60 s each (scripts/sanitize.sh; CBCT_FUZZ_SECONDS sets the fuzzing time). Opt-in until one sanitized
# run of the whole pass has gone green end to end on a fresh machine (its parts have: the fuzz
# regressions, the seeds and the reader tests under ASan), so that CI's verdict stays trustworthy.
# Exits non-zero when anything fails. Runs from any directory.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cbct_install_dependencies
cbct_configure
cbct_build
cbct_log "ctest"
(cd "$CBCT_BUILD" && ctest --output-on-failure -j2)

# The wheel that installs without ITK (scripts/wheel.sh: pip wheel + auditwheel repair), installed into
# a fresh venv and tested there. Opt-in: it builds the library a second time (about 15 minutes on 2 cores).
if [ "${CBCT_TEST_WHEEL:-0}" = 1 ]; then
  cbct_log "wheel"
  bash "$CBCT_ROOT/scripts/wheel.sh" --test
fi
# The sanitized build, its tests and the fuzzers (see README, "Fuzzed and sanitized").
if [ "${CBCT_SANITIZE:-0}" = 1 ]; then
  bash "$CBCT_ROOT/scripts/sanitize.sh"
fi
