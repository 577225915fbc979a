#!/usr/bin/env bash
# cbct-fourdrooster (4D ROOSTER) as a user runs it: a breathing scan from cbct-simulate
# --breathing reconstructed into a 4D .mha (4th axis: frame) with RTK's option names; a previous 4D
# output as --input (its frames), a motion mask on the frames' grid (elsewhere refused); bad phase
# files and parameters refused with a message naming the option, and no output appears.
# Usage: fourdrooster_end_to_end.sh BINDIR WORKDIR
set -eu
bin=$1
work=$2
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"

fail() {
  echo "FAIL: $*"
  exit 1
}

echo "== a breathing scan: 80 views, 6 cycles, ellipsoids 4 and 5 moving 15 mm along y"
"$bin/cbct-simulate" --nproj 80 --detector-size 48 --detector-spacing 4 -g geometry.xml -o scan.mha \
  --breathing --breathing-cycles 6 --breathing-ellipsoids 4,5 --breathing-amplitude 0,15,0
grid=(--dimension 24 --spacing 5)

echo "== 4 frames, RTK's options"
"$bin/cbct-fourdrooster" -g geometry.xml --projections scan.mha --signal scan_phases.txt --frames 4 "${grid[@]}" \
  --niter 3 --cgiter 3 --tviter 5 --gamma_space 0.0005 --gamma_time 0.0005 -o rooster.mha --hardware cpu --verbose | tee run.log
grep -q "4 frames; projections seeing each frame:" run.log || fail "no frame summary: $(cat run.log)"
grep -q "|p - M x| after each iteration:" run.log || fail "no residuals: $(cat run.log)"
grep -q "^NDims = 4" rooster.mha || fail "rooster.mha is not 4D: $(head -c 400 rooster.mha)"
grep -q "^DimSize = 24 24 24 4" rooster.mha || fail "rooster.mha's sizes: $(grep DimSize rooster.mha)"
python3 - <<'PY' || fail "rooster.mha's values"
import math, struct
data = open("rooster.mha", "rb").read()
start = data.index(b"ElementDataFile = LOCAL\n") + len(b"ElementDataFile = LOCAL\n")
n = 24 ** 3
values = struct.unpack("<%df" % (4 * n), data[start:start + 16 * n])
assert all(math.isfinite(v) for v in values), "a non-finite value"
assert min(values) >= 0., "positivity: %g" % min(values)
assert max(values) > 0.005, "an empty reconstruction: %g" % max(values)
frames = [values[f * n:(f + 1) * n] for f in range(4)]
moved = max(abs(a - b) for a, b in zip(frames[0], frames[2]))
assert moved > 1e-3, "frames 0 and 2 are the same (largest difference %g)" % moved
print("largest value %.4f, frames 0 and 2 differ by up to %.4f" % (max(values), moved))
PY

echo "== --nopositivity, the ray caster, RTK's spelling of --fp"
"$bin/cbct-fourdrooster" -g geometry.xml --projections scan.mha --signal scan_phases.txt --fourdframes 4 "${grid[@]}" \
  --niter 1 --cgiter 2 --nopositivity --fp CudaRayCast -o raycast.mha --hardware cpu --verbose | tee raycast.log
grep -q "positivity off" raycast.log || fail "--nopositivity not said: $(cat raycast.log)"

echo "== the previous output as --input (its 4 frames), and a motion mask on the frames' grid"
"$bin/cbct-fdk" -g geometry.xml --projections scan.mha "${grid[@]}" -o mask.mha
"$bin/cbct-fourdrooster" -g geometry.xml --projections scan.mha --signal scan_phases.txt -i rooster.mha \
  --niter 1 --cgiter 2 --motionmask mask.mha -o again.mha --hardware cpu --verbose | tee again.log
grep -q "4 frames;.*motion mask" again.log || fail "--input's frames or the mask: $(cat again.log)"
grep -q "^DimSize = 24 24 24 4" again.mha || fail "again.mha's sizes: $(grep DimSize again.mha)"

expect_refusal() { # PATTERN ARGS...: cbct-fourdrooster fails, says PATTERN, writes no out.mha
  local pattern=$1
  shift
  rm -f out.mha
  if "$bin/cbct-fourdrooster" -g geometry.xml --projections scan.mha -o out.mha --hardware cpu "$@" 2>err.txt; then
    fail "cbct-fourdrooster accepted $*"
  fi
  grep -q -- "$pattern" err.txt || fail "expected '$pattern' for $*, got: $(cat err.txt)"
  test ! -e out.mha || fail "out.mha written for $*"
  echo "refused as expected: $(head -n 1 err.txt)"
}
head -n 70 scan_phases.txt >short.txt
expect_refusal "--signal short.txt: .*70.*80" --signal short.txt "${grid[@]}"
sed '7s/.*/1/' scan_phases.txt >one.txt
expect_refusal "--signal one.txt: .*line 7" --signal one.txt "${grid[@]}"
sed '9s/.*/nan/' scan_phases.txt >nan.txt
expect_refusal "--signal nan.txt: .*line 9" --signal nan.txt "${grid[@]}"
expect_refusal "--signal is 'missing.txt'" --signal missing.txt "${grid[@]}"
expect_refusal "--niter is 0" --signal scan_phases.txt "${grid[@]}" --niter 0
expect_refusal "--cgiter is 0" --signal scan_phases.txt "${grid[@]}" --cgiter 0
expect_refusal "--tviter is 0" --signal scan_phases.txt "${grid[@]}" --tviter 0
expect_refusal "--gamma_time is -1" --signal scan_phases.txt "${grid[@]}" --gamma_time -1
expect_refusal "--gamma_space is nan" --signal scan_phases.txt "${grid[@]}" --gamma_space nan
expect_refusal "--frames is 0" --signal scan_phases.txt "${grid[@]}" --frames 0
expect_refusal "--fp is 'emission'" --signal scan_phases.txt "${grid[@]}" --fp emission
expect_refusal "--frames is 3. expected the number of frames of --input" --signal scan_phases.txt -i rooster.mha --frames 3
expect_refusal "--input .* with 3 dimensions" --signal scan_phases.txt -i mask.mha
"$bin/cbct-fdk" -g geometry.xml --projections scan.mha --dimension 20 --spacing 6 -o small.mha
expect_refusal "motion mask grid" --signal scan_phases.txt "${grid[@]}" --motionmask small.mha
echo "PASS"
