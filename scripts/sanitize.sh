#!/usr/bin/env bash
# The C++ test suite (GoogleTest suites and the apps' tests) built with AddressSanitizer and
# UndefinedBehaviorSanitizer (clang-14, CPU-only, any report aborts the test) in build-sanitize/,
# then the libFuzzer targets by scripts/fuzz.sh on a fixed budget of CBCT_FUZZ_BUDGET CPU-seconds shared
# by the targets (default 400: 40 s each for ten targets), one per core at once (3 min 20 s on 2 cores);
# CBCT_FUZZ_SECONDS instead sets each target's time (0 skips them). Exits non-zero on any failure,
# sanitizer report or fuzzer crash.
# The sanitized tests are those that exercise memory through files, readers, apps, threads and bad
# input: every IO, reader, app, bad-input and fuzz-regression test and the suites not labelled
# numerical. The numerical suites (filters and projectors on analytic phantoms, test/CMakeLists.txt:
# 10 to 30 times slower sanitized, the FDK geometry cases alone 26 minutes on 2 cores) run in the
# ordinary build and are not even built here, and the longest app tests (SANITIZE_LONG_TESTS below)
# are left out; CBCT_SANITIZE_ALL=1 builds and runs them all.
# Not in this build: CUDA (compute-sanitizer covers it: scripts/compute-sanitizer.sh), the Python
# bindings (an ASan runtime cannot be loaded into an uninstrumented python3), cbct-view (VTK and
# Mesa), apps.installed_package (an outside project linking the instrumented library) and the MPI
# parts (Open MPI keeps what MPI_Init allocates for the life of the process, which LeakSanitizer
# reports; apps.mpi_end_to_end runs them in the ordinary build).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
CBCT_SANITIZE_BUILD=${CBCT_SANITIZE_BUILD:-$CBCT_ROOT/build-sanitize}

cbct_install_dependencies
# The numerical suites (test/CMakeLists.txt, label numerical) run in the ordinary build only, unless
# CBCT_SANITIZE_ALL=1: not even built here.
numerical=OFF
if [ "${CBCT_SANITIZE_ALL:-0}" != 0 ]; then
  numerical=ON
fi
if [ ! -f "$CBCT_SANITIZE_BUILD/CMakeCache.txt" ]; then
  cbct_log "configure: $CBCT_SANITIZE_BUILD (clang-14, ASan + UBSan, libFuzzer)"
  cmake -S "$CBCT_ROOT" -B "$CBCT_SANITIZE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_CXX_FLAGS=-gline-tables-only \
    -DCBCT_USE_CUDA=OFF -DCBCT_USE_MPI=OFF -DCBCT_WRAP_PYTHON=OFF -DCBCT_BUILD_VIEWER=OFF -DCBCT_BUILD_FUZZERS=ON \
    -DCBCT_NUMERICAL_TESTS="$numerical"
else
  cmake -S "$CBCT_ROOT" -B "$CBCT_SANITIZE_BUILD" -DCBCT_USE_MPI=OFF -DCBCT_NUMERICAL_TESTS="$numerical"
fi
CBCT_BUILD=$CBCT_SANITIZE_BUILD cbct_build

# Any report is fatal; leaks are reported (LeakSanitizer) except the third-party ones listed in
# scripts/lsan.supp.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:check_initialization_order=1:strict_init_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$CBCT_ROOT/scripts/lsan.supp:print_suppressions=0}
# The longest app tests (ctest names, regular expressions), with their sanitized time on 2 cores.
SANITIZE_LONG_TESTS=(
  'apps\.installed_package$'  # an outside project linking the instrumented library (not sanitizer-ready)
  'apps\.(tv_end_to_end|emission_end_to_end|fdk_geometry)$'  # 100 s, 36 s, 33 s
  'apps\.memory_budget$'      # measures peak resident memory against --memory: ASan's shadow and quarantine add 130 MB
)
exclude=$(IFS='|'; echo "^(${SANITIZE_LONG_TESTS[*]})")
if [ "${CBCT_SANITIZE_ALL:-0}" != 0 ]; then
  exclude='^apps\.installed_package$'
fi
cbct_log "ctest (sanitized; left out: $exclude)"
(cd "$CBCT_SANITIZE_BUILD" && ctest --output-on-failure -j"${CBCT_JOBS:-$(nproc 2>/dev/null || echo 2)}" -E "$exclude")

if [ -n "${CBCT_FUZZ_SECONDS:-}" ]; then
  if [ "$CBCT_FUZZ_SECONDS" != 0 ]; then
    CBCT_BUILD=$CBCT_SANITIZE_BUILD bash "$CBCT_ROOT/scripts/fuzz.sh" "$CBCT_FUZZ_SECONDS"
  fi
else
  CBCT_BUILD=$CBCT_SANITIZE_BUILD bash "$CBCT_ROOT/scripts/fuzz.sh" --total "${CBCT_FUZZ_BUDGET:-400}"
fi
