#!/usr/bin/env bash
# Tests: installs what is missing, configures and builds everything in build/, runs every ctest test,
# then builds the C++ code again with AddressSanitizer and UndefinedBehaviorSanitizer in
# build-sanitize/, runs its tests and fuzzes the file readers for 60 s each (scripts/sanitize.sh;
# CBCT_SANITIZE=0 skips that part, CBCT_FUZZ_SECONDS sets the fuzzing time).
# Exits non-zero when anything fails. Runs from any directory.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cbct_install_dependencies
cbct_configure
cbct_build
cbct_log "ctest"
(cd "$CBCT_BUILD" && ctest --output-on-failure -j2)
if [ "${CBCT_SANITIZE:-1}" != 0 ]; then
  bash "$CBCT_ROOT/scripts/sanitize.sh"
fi
