#!/usr/bin/env bash
# Runs every libFuzzer target of test/fuzz for SECONDS seconds (default 60) on its seed corpus
# (test/fuzz/corpus/TARGET) and what earlier runs found (BUILD/fuzz-corpus/TARGET); exits non-zero
# when a target crashes, leaks, hits undefined behaviour or a time or memory limit. The input that
# did is kept in BUILD/fuzz-artifacts/: fix the bug, then copy the input to
# test/fuzz/regressions/TARGET/ so that ctest (label fuzz) runs it from then on.
# Usage: fuzz.sh [SECONDS | --total SECONDS] [TARGET...]    (BUILD: $CBCT_BUILD, default build-sanitize,
# configured by scripts/sanitize.sh with -DCBCT_BUILD_FUZZERS=ON)
# SECONDS: each target's time. --total SECONDS: a fixed budget of CPU time shared equally by the
# targets (at least 10 s each), so that a new target does not lengthen CI. CBCT_FUZZ_JOBS targets run
# at once (default: one per core; each libFuzzer process uses one).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CBCT_BUILD:-$root/build-sanitize}
total=
if [ "${1:-}" = --total ]; then
  total=${2:?--total needs SECONDS}
  shift 2
  seconds=
else
  seconds=${1:-60}
  shift || true
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(cbctFuzzGeometryXml cbctFuzzPhantomFile cbctFuzzProjectionFile cbctFuzzHisFile cbctFuzzDBaseTable cbctFuzzXviFrames cbctFuzzVarianXml cbctFuzzXimFile cbctFuzzHndFile cbctFuzzMicroCTScan cbctFuzzDicomCTPDFile)
fi
if [ -n "$total" ]; then
  seconds=$(( total / ${#targets[@]} ))
  [ "$seconds" -ge 10 ] || seconds=10
fi
jobs=${CBCT_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
if [ ! -f "$build/CMakeCache.txt" ] || ! grep -q '^CBCT_BUILD_FUZZERS:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "error: $build is not configured with -DCBCT_BUILD_FUZZERS=ON (run scripts/sanitize.sh)" >&2
  exit 1
fi
cmake --build "$build" --target "${targets[@]}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/scripts/lsan.supp:print_suppressions=0}
# fuzz_one TARGET: runs one target; its log in $build/fuzz-TARGET.log, its status in $build/fuzz-TARGET.status.
fuzz_one() {
  local target=$1 corpus=$build/fuzz-corpus/$1 artifacts=$build/fuzz-artifacts status=0
  mkdir -p "$corpus" "$artifacts"
  # -max_len: the seeds are small and so are the bugs; a MetaImage of 4 kB can still claim any size.
  # -seed: the same mutations in every run (CBCT_FUZZ_SEED, default 1; 0 lets libFuzzer pick one), so
  # that CI replays a sequence already fuzzed longer on the development machine, from the seeds, and
  # a red CI means a changed reader, not bad luck; exploring new sequences is CBCT_FUZZ_SEED=0.
  "$build/bin/$target" -seed="${CBCT_FUZZ_SEED:-1}" -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 -timeout=20 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$target-" "$corpus" "$root/test/fuzz/corpus/$target" \
    >"$build/fuzz-$target.log" 2>&1 || status=$?
  echo "$status" >"$build/fuzz-$target.status"
}
echo "== fuzz ${targets[*]}: $seconds s each, $jobs at once"
running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
wait
failed=()
for target in "${targets[@]}"; do
  echo "== fuzz $target for $seconds s"
  if [ "$(cat "$build/fuzz-$target.status" 2>/dev/null || echo 1)" != 0 ]; then
    failed+=("$target")
    tail -n 60 "$build/fuzz-$target.log"
    echo "FAIL: $target (log: $build/fuzz-$target.log; input: $(ls -t "$build/fuzz-artifacts/$target-"* 2>/dev/null | head -n 1))"
  else
    grep -E '^stat::number_of_executed_units|^stat::new_units_added|^#[0-9]+.*DONE' "$build/fuzz-$target.log" || true
  fi
  rm -f "$build/fuzz-$target.status"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing found crashes in: ${failed[*]}" >&2
  exit 1
fi
echo "== fuzzing: no crash in ${targets[*]} ($seconds s each)"
