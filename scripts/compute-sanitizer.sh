#!/usr/bin/env bash
# Runs every GPU test binary (cbctCuda*Test) of a bundle made by bundle-build under NVIDIA's
# compute-sanitizer, once per tool (memcheck with leak checking, racecheck by default), and prints a
# summary: binary, tool, tests run, sanitizer errors, exit status, seconds. Exits non-zero when any
# run reports an error or fails.
#
# Usage (from the root of a checkout of the same sources, on the GPU machine):
#   BUNDLE=/path/to/bundle bash scripts/compute-sanitizer.sh
#   BUNDLE=... TOOLS="memcheck racecheck synccheck initcheck" FILTER='CudaFDK*' bash scripts/compute-sanitizer.sh
# BUNDLE: a directory made by bundle-build (BUNDLE/run, BUNDLE/bin/bin/cbctCuda*Test).
# TOOLS: compute-sanitizer tools to run (default: memcheck racecheck).
# FILTER: a GoogleTest filter (default: every test but the 1000-run endurance test, which takes hours
#   under memcheck; FILTER='*' runs it too).
# LIMIT: seconds per binary and tool (default 1500); COMPUTE_SANITIZER: the program (default: on
#   PATH, else /usr/local/cuda/bin/compute-sanitizer). Logs go to ${OUT:-/tmp}/compute-sanitizer/.
set -uo pipefail
bundle=${BUNDLE:?set BUNDLE to a directory made by bundle-build}
tools=${TOOLS:-memcheck racecheck}
filter=${FILTER:--*Endurance*}
limit=${LIMIT:-1500}
sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
logs=${OUT:-/tmp}/compute-sanitizer
mkdir -p "$logs"
if [ ! -x "$sanitizer" ]; then
  echo "error: compute-sanitizer not found (set COMPUTE_SANITIZER)" >&2
  exit 1
fi
mapfile -t binaries < <(find "$bundle/bin" -type f -name 'cbctCuda*Test' | sort)
if [ ${#binaries[@]} -eq 0 ]; then
  echo "error: no cbctCuda*Test in $bundle/bin (a CUDA build's bundle?)" >&2
  exit 1
fi
"$sanitizer" --version | head -n 2
summary=()
status=0
for binary in "${binaries[@]}"; do
  name=$(basename "$binary")
  for tool in $tools; do
    log=$logs/$name.$tool.log
    options=(--tool "$tool" --error-exitcode 99 --print-limit 100)
    if [ "$tool" = memcheck ]; then
      options+=(--leak-check full)
    fi
    echo "== $name under $tool (filter $filter)"
    start=$(date +%s)
    timeout "$limit" "$bundle/run" "$sanitizer" "${options[@]}" "$binary" --gtest_filter="$filter" >"$log" 2>&1
    rc=$?
    seconds=$(($(date +%s) - start))
    errors=$(grep -Eo 'ERROR SUMMARY: [0-9]+' "$log" | tail -n 1 | grep -Eo '[0-9]+$' || echo '?')
    [ "$tool" = racecheck ] && errors=$(grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" | tail -n 1 | grep -Eo '[0-9]+' || echo "$errors")
    tests=$(grep -Eo '\[==========\] [0-9]+ tests? from' "$log" | tail -n 1 | grep -Eo '[0-9]+' || echo '?')
    passed=$(grep -Eo '\[  PASSED  \] [0-9]+' "$log" | grep -Eo '[0-9]+$' || echo 0)
    skipped=$(grep -Eo '\[  SKIPPED \] [0-9]+' "$log" | grep -Eo '[0-9]+$' || echo 0)
    verdict=ok
    if [ "$rc" -eq 124 ]; then
      verdict="timed out after ${limit} s"
      status=1
    elif [ "$rc" -ne 0 ] || { [ "$errors" != 0 ] && [ "$errors" != '?' ]; }; then
      verdict="FAIL (exit $rc)"
      status=1
    fi
    summary+=("$(printf '%-26s %-10s tests %-4s passed %-4s skipped %-3s errors %-4s %6s s  %s' \
      "$name" "$tool" "$tests" "$passed" "$skipped" "$errors" "$seconds" "$verdict")")
    grep -E '^=========' "$log" | head -n 40
  done
done
echo
echo "== compute-sanitizer summary ($sanitizer; logs in $logs)"
printf '%s\n' "${summary[@]}"
exit $status
