#!/usr/bin/env bash
# The C++ test suite (GoogleTest suites and the apps' tests) built with AddressSanitizer and
# UndefinedBehaviorSanitizer (clang-14, CPU-only, any report aborts the test) in build-sanitize/,
# then every libFuzzer target run for CBCT_FUZZ_SECONDS seconds each (default 60; 0 skips them) by
# scripts/fuzz.sh. Exits non-zero on any failure, sanitizer report or fuzzer crash.
# Not in this build: CUDA (compute-sanitizer covers it: scripts/compute-sanitizer.sh), the Python
# bindings (an ASan runtime cannot be loaded into an uninstrumented python3), cbct-view (VTK and
# Mesa), apps.installed_package (an outside project linking the instrumented library) and the MPI
# parts (Open MPI keeps what MPI_Init allocates for the life of the process, which LeakSanitizer
# reports; apps.mpi_end_to_end runs them in the ordinary build).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
CBCT_SANITIZE_BUILD=${CBCT_SANITIZE_BUILD:-$CBCT_ROOT/build-sanitize}

cbct_install_dependencies
if [ ! -f "$CBCT_SANITIZE_BUILD/CMakeCache.txt" ]; then
  cbct_log "configure: $CBCT_SANITIZE_BUILD (clang-14, ASan + UBSan, libFuzzer)"
  cmake -S "$CBCT_ROOT" -B "$CBCT_SANITIZE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_CXX_FLAGS=-gline-tables-only \
    -DCBCT_USE_CUDA=OFF -DCBCT_USE_MPI=OFF -DCBCT_WRAP_PYTHON=OFF -DCBCT_BUILD_VIEWER=OFF -DCBCT_BUILD_FUZZERS=ON
else
  cmake -S "$CBCT_ROOT" -B "$CBCT_SANITIZE_BUILD" -DCBCT_USE_MPI=OFF
fi
CBCT_BUILD=$CBCT_SANITIZE_BUILD cbct_build

# Any report is fatal; leaks are reported (LeakSanitizer) except the third-party ones listed in
# scripts/lsan.supp.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:check_initialization_order=1:strict_init_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$CBCT_ROOT/scripts/lsan.supp:print_suppressions=0}
cbct_log "ctest (sanitized)"
(cd "$CBCT_SANITIZE_BUILD" && ctest --output-on-failure -j"${CBCT_JOBS:-$(nproc 2>/dev/null || echo 2)}" \
  -E '^apps\.installed_package$')

if [ "${CBCT_FUZZ_SECONDS:-60}" != 0 ]; then
  CBCT_BUILD=$CBCT_SANITIZE_BUILD bash "$CBCT_ROOT/scripts/fuzz.sh" "${CBCT_FUZZ_SECONDS:-60}"
fi
