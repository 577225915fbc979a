#!/usr/bin/env bash
# Runs every libFuzzer target of test/fuzz for SECONDS seconds (default 60) on its seed corpus
# (test/fuzz/corpus/TARGET) and what earlier runs found (BUILD/fuzz-corpus/TARGET); exits non-zero
# when a target crashes, leaks, hits undefined behaviour or a time or memory limit. The input that
# did is kept in BUILD/fuzz-artifacts/: fix the bug, then copy the input to
# test/fuzz/regressions/TARGET/ so that ctest (label fuzz) runs it from then on.
# Usage: fuzz.sh [SECONDS] [TARGET...]    (BUILD: $CBCT_BUILD, default build-sanitize, configured by
# scripts/sanitize.sh with -DCBCT_BUILD_FUZZERS=ON)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CBCT_BUILD:-$root/build-sanitize}
seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(cbctFuzzGeometryXml cbctFuzzPhantomFile cbctFuzzProjectionFile cbctFuzzHisFile cbctFuzzDBaseTable cbctFuzzXviFrames cbctFuzzVarianXml cbctFuzzXimFile cbctFuzzHndFile cbctFuzzMicroCTScan)
fi
if [ ! -f "$build/CMakeCache.txt" ] || ! grep -q '^CBCT_BUILD_FUZZERS:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "error: $build is not configured with -DCBCT_BUILD_FUZZERS=ON (run scripts/sanitize.sh)" >&2
  exit 1
fi
cmake --build "$build" --target "${targets[@]}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/scripts/lsan.supp:print_suppressions=0}
failed=()
for target in "${targets[@]}"; do
  corpus=$build/fuzz-corpus/$target
  artifacts=$build/fuzz-artifacts
  mkdir -p "$corpus" "$artifacts"
  echo "== fuzz $target for $seconds s"
  # -max_len: the seeds are small and so are the bugs; a MetaImage of 4 kB can still claim any size.
  # -seed: the same mutations in every run (CBCT_FUZZ_SEED, default 1; 0 lets libFuzzer pick one), so
  # that CI replays a sequence already fuzzed longer on the development machine, from the seeds, and
  # a red CI means a changed reader, not bad luck; exploring new sequences is CBCT_FUZZ_SEED=0.
  if ! "$build/bin/$target" -seed="${CBCT_FUZZ_SEED:-1}" -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 -timeout=20 \
       -print_final_stats=1 -artifact_prefix="$artifacts/$target-" "$corpus" "$root/test/fuzz/corpus/$target" \
       >"$build/fuzz-$target.log" 2>&1; then
    failed+=("$target")
    tail -n 60 "$build/fuzz-$target.log"
    echo "FAIL: $target (log: $build/fuzz-$target.log; input: $(ls -t "$artifacts/$target-"* 2>/dev/null | head -n 1))"
  else
    grep -E '^stat::number_of_executed_units|^stat::new_units_added|^#[0-9]+.*DONE' "$build/fuzz-$target.log" || true
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing found crashes in: ${failed[*]}" >&2
  exit 1
fi
echo "== fuzzing: no crash in ${targets[*]} ($seconds s each)"
