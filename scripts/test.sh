#!/usr/bin/env bash
# Tests: installs what is missing, configures and builds everything in build/, runs every ctest test;
# then builds the wheel (scripts/wheel.sh) and tests it in a fresh venv against the apps of build/;
# then builds the C++ code again with AddressSanitizer and UndefinedBehaviorSanitizer in
# build-sanitize/, runs its tests (but the numerical suites) and fuzzes the file readers within a shared
# CPU-time budget from a fixed seed (scripts/sanitize.sh, scripts/fuzz.sh; CBCT_FUZZ_BUDGET sets it, 400 s).
# Between ctest and the wheel: the documentation site and its code blocks (scripts/docs.sh --examples).
# CBCT_TEST_WHEEL=0, CBCT_DOCS=0 and CBCT_SANITIZE=0 skip those parts. A whole pass took 36.6 min in CI
# (fresh clone and 2-core machine, no ccache, 2026-11-28; the README has the steps). Exits non-zero when anything fails. Runs from any directory.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cbct_install_dependencies
cbct_configure
cbct_build

# Every test writes its files in a folder of its own and removes it when it ends, passed or failed
# (test/cbctTestFolder.h, test/apps/test_folder.sh, wrapping/tests/conftest.py, the docs runner): the
# tests get a fresh temporary directory, which must be empty when they are all done, as must the app
# tests' folders in the build trees. CBCT_KEEP_TEST_FILES=1 keeps every test's files (for a look; the
# check is then skipped).
cbct_tests_tmp=$(mktemp -d "${TMPDIR:-/tmp}/cbct-test-tmpdir-XXXXXX")
export TMPDIR=$cbct_tests_tmp
cbct_test_work=("$CBCT_BUILD/test/apps" "$CBCT_BUILD/test/python" "${CBCT_SANITIZE_BUILD:-$CBCT_ROOT/build-sanitize}/test/apps")
rm -rf "${cbct_test_work[@]}" # scratch only: what runs before tests cleaned up left there
cbct_log "ctest"
(cd "$CBCT_BUILD" && ctest --output-on-failure -j2)

# The documentation (docs/, scripts/docs.sh): the Sphinx site with warnings as errors, then every code
# block of README.md and docs/ run against build/ (scripts/docs-examples.py). CBCT_DOCS=0 skips it.
if [ "${CBCT_DOCS:-1}" = 1 ]; then
  CBCT_DOCS_BUILD=0 bash "$CBCT_ROOT/scripts/docs.sh" --examples
fi

# The wheel that installs without ITK (scripts/wheel.sh: pip wheel + auditwheel repair), installed into
# a fresh venv and tested there (no build tree on its path; CBCT_BIN_DIR only points the tests that
# compare with the command-line apps at them).
if [ "${CBCT_TEST_WHEEL:-1}" = 1 ]; then
  cbct_log "wheel"
  CBCT_BIN_DIR="$CBCT_BUILD/bin" bash "$CBCT_ROOT/scripts/wheel.sh" --test
fi
# The sanitized build, its tests and the fuzzers (docs/dev/testing.md, "Fuzzed and sanitized").
if [ "${CBCT_SANITIZE:-1}" = 1 ]; then
  bash "$CBCT_ROOT/scripts/sanitize.sh"
fi

# Nothing left behind by any test.
if [ "${CBCT_KEEP_TEST_FILES:-0}" = 1 ]; then
  cbct_log "test files kept (CBCT_KEEP_TEST_FILES=1): $cbct_tests_tmp and the build trees' test/apps"
else
  cbct_check_no_test_files "$cbct_tests_tmp" "${cbct_test_work[@]}"
  rmdir "$cbct_tests_tmp"
fi
