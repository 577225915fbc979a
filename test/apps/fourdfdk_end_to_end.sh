#!/usr/bin/env bash
# cbct-fourdfdk (4D FDK) as a user runs it: a breathing scan from cbct-simulate --breathing,
# reconstructed into a 4D .mha (4th axis: frame) and, with --frames-prefix, one 3D file per frame;
# nearest-frame gating uses each projection once; bad phase files (wrong count, 1, NaN, text) and bad
# gating options are refused with a message naming the option, and no output appears.
# Usage: fourdfdk_end_to_end.sh BINDIR WORKDIR
set -eu
bin=$1
work=$2
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"

fail() {
  echo "FAIL: $*"
  exit 1
}

echo "== a breathing scan: 120 views, 6 cycles, ellipsoids 4 and 5 moving 15 mm along y"
"$bin/cbct-simulate" --nproj 120 --detector-size 48 --detector-spacing 4 -g geometry.xml -o scan.mha \
  --breathing --breathing-cycles 6 --breathing-ellipsoids 4,5 --breathing-amplitude 0,15,0
test "$(wc -l <scan_phases.txt)" -eq 120 || fail "scan_phases.txt has $(wc -l <scan_phases.txt) lines"

grid=(--dimension 24 --spacing 5)
echo "== 4 frames, nearest-frame gating, one 3D file per frame"
"$bin/cbct-fourdfdk" -g geometry.xml --projections scan.mha --signal scan_phases.txt --frames 4 "${grid[@]}" \
  -o fourd.mha --frames-prefix frame_ --hardware cpu --verbose | tee run.log
grep -q "4 frames, rectangular gating window 0.25 of the cycle; projections per frame: 30 30 30 30" run.log ||
  fail "the frames are not 4 x 30 projections: $(cat run.log)"
grep -q "^NDims = 4" fourd.mha || fail "fourd.mha is not 4D: $(head -c 400 fourd.mha)"
grep -q "^DimSize = 24 24 24 4" fourd.mha || fail "fourd.mha's sizes: $(grep DimSize fourd.mha)"
for f in 00 01 02 03; do
  test -s frame_$f.mha || fail "frame_$f.mha missing"
  grep -q "^NDims = 3" frame_$f.mha || fail "frame_$f.mha is not 3D"
done
test ! -e frame_04.mha || fail "a fifth frame file"
# The frames differ (the ellipsoids moved) and the 4D file holds the frames' pixels in order.
"$bin/cbct-compare" frame_00.mha frame_02.mha >compare.log 2>&1 || true
python3 - <<'PY' || fail "the 4D file's frames are not the frame files"
import re
def pixels(path):
    data = open(path, "rb").read()
    header_end = data.index(b"ElementDataFile = LOCAL\n") + len(b"ElementDataFile = LOCAL\n")
    return data[header_end:]
fourd = pixels("fourd.mha")
frames = [pixels("frame_%02d.mha" % f) for f in range(4)]
assert all(len(f) == 24 ** 3 * 4 for f in frames), [len(f) for f in frames]
assert fourd == b"".join(frames)
assert frames[0] != frames[2]
PY

echo "== --hardware cuda equals the CPU (relative L2 <= 2e-3, cbctCudaFourDFDKTest's bound for the texture path) where a device is present"
if "$bin/cbct-fourdfdk" -g geometry.xml --projections scan.mha --signal scan_phases.txt --frames 4 "${grid[@]}" \
  -o fourd-cuda.mha --hardware cuda 2>cuda.err; then
  python3 - <<'PY' || fail "CUDA and CPU 4D FDK differ"
import struct
def floats(path):
    data = open(path, "rb").read()
    start = data.index(b"ElementDataFile = LOCAL\n") + len(b"ElementDataFile = LOCAL\n")
    return struct.unpack("<%df" % ((len(data) - start) // 4), data[start:])
cpu, gpu = floats("fourd.mha"), floats("fourd-cuda.mha")
assert len(cpu) == len(gpu) == 24 ** 3 * 4
d2 = sum((a - b) ** 2 for a, b in zip(gpu, cpu))
n2 = sum(b * b for b in cpu)
print("CUDA vs CPU relative difference", (d2 / n2) ** 0.5)
assert n2 > 0 and d2 <= 4e-6 * n2  # (2e-3)^2: the texture unit's blending, as in cbctCudaFourDFDKTest
PY
else
  grep -q -- "--hardware cuda: \(no CUDA device\|this build has no CUDA\)" cuda.err || fail "--hardware cuda: $(cat cuda.err)"
  echo "no CUDA device here: $(cat cuda.err)"
fi

echo "== --fov nan: the voxels outside the scan's field of view are NaN in every frame, the others as without it"
"$bin/cbct-fourdfdk" -g geometry.xml --projections scan.mha --signal scan_phases.txt --frames 4 "${grid[@]}" \
  -o fov.mha --fov nan --hardware cpu
"$bin/cbct-fdk" -g geometry.xml --projections scan.mha "${grid[@]}" -o fdk.mha --hardware cpu
"$bin/cbct-fdk" -g geometry.xml --projections scan.mha "${grid[@]}" -o fdk-fov.mha --fov --hardware cpu
python3 - <<'PY' || fail "--fov: the outside is not blank or the inside changed"
import math, struct
def floats(path):
    data = open(path, "rb").read()
    start = data.index(b"ElementDataFile = LOCAL\n") + len(b"ElementDataFile = LOCAL\n")
    return struct.unpack("<%df" % ((len(data) - start) // 4), data[start:])
plain, masked = floats("fourd.mha"), floats("fov.mha")
n = 24 ** 3
outside = {i for i in range(n) if math.isnan(masked[i])}
# 24^3 voxels of 5 mm (120 mm) from 48 pixels of 4 mm (128 mm at the axis): the corners and the top
# and bottom of the volume are outside, the centre inside.
assert n // 10 < len(outside) < n // 2, len(outside)
assert (12 * 24 + 12) * 24 + 12 not in outside
for f in range(4):
    for i in range(n):
        value = masked[f * n + i]
        assert math.isnan(value) == (i in outside), (f, i)
        assert i in outside or value == plain[f * n + i], (f, i, value, plain[f * n + i])
fdk, fov = floats("fdk.mha"), floats("fdk-fov.mha")
assert all(fov[i] == 0. for i in outside)
assert all(fov[i] == fdk[i] for i in range(n) if i not in outside)
print("--fov:", len(outside), "of", n, "voxels outside, the same in 3D and in every frame")
PY

echo "== a triangular window shares projections between neighbouring frames"
"$bin/cbct-fourdfdk" -g geometry.xml --projections scan.mha --signal scan_phases.txt --fourdframes 4 "${grid[@]}" \
  -o tri.mha --gating-shape triangular --hardware cpu --verbose | tee tri.log
grep -q "4 frames, triangular gating window 0.5 of the cycle" tri.log || fail "triangular window: $(cat tri.log)"

expect_refusal() { # PATTERN ARGS...: cbct-fourdfdk fails, says PATTERN, writes no out.mha
  local pattern=$1
  shift
  rm -f out.mha
  if "$bin/cbct-fourdfdk" -g geometry.xml --projections scan.mha "${grid[@]}" -o out.mha --hardware cpu "$@" 2>err.txt; then
    fail "cbct-fourdfdk accepted $*"
  fi
  grep -q -- "$pattern" err.txt || fail "expected '$pattern' for $*, got: $(cat err.txt)"
  test ! -e out.mha || fail "out.mha written for $*"
  echo "refused as expected: $(head -n 1 err.txt)"
}
head -n 100 scan_phases.txt >short.txt
expect_refusal "--signal short.txt: .*100.*120" --signal short.txt
sed '7s/.*/1/' scan_phases.txt >one.txt
expect_refusal "--signal one.txt: .*line 7" --signal one.txt
sed '9s/.*/nan/' scan_phases.txt >nan.txt
expect_refusal "--signal nan.txt: .*line 9" --signal nan.txt
sed '3s/.*/inhale/' scan_phases.txt >text.txt
expect_refusal "--signal text.txt: .*line 3" --signal text.txt
expect_refusal "--signal is 'missing.txt'" --signal missing.txt
expect_refusal "--gating-shape is 'gaussian'. expected rectangular or triangular" --signal scan_phases.txt --gating-shape gaussian
expect_refusal "--gating-window is 2" --signal scan_phases.txt --gating-window 2
expect_refusal "--frames is 0" --signal scan_phases.txt --frames 0
# Too many frames for 120 projections of 6 cycles at 20 phases each: frame 1 (phase 1/40) is empty.
expect_refusal "frame 1 of 40 (phase 0.025.*without projections" --signal scan_phases.txt --frames 40
echo "PASS"
