#!/usr/bin/env bash
# An RTK command line from RTK's documentation, run unchanged with cbct-fdk:
#   rtkfdk -g geometry.xml -p . -r .*.mha -o out.mha --spacing 2 --dimension 256 --origin -255
# must give RTK's grid: 256^3 voxels of 2 mm from (-255, -255, -255) mm (RTK's --origin sets the axes
# given and leaves the others centred, which is -255 here too). Then RTK's spellings of other options
# (--newspacing, --nodisplaced, -d, --size, --hann, single values, repeated values) and --like.
# Usage: rtk_command_line.sh BINDIR WORKDIR
set -eu
bin=$1
work=$2
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"
mkdir -p scan

header() { # FILE KEY: the value of a MetaImage header line
  sed -n "s/^$2 = //p" "$1" | head -1 | tr -d '\r'
}
expect_header() { # FILE KEY VALUE
  local got
  got=$(header "$1" "$2")
  if [ "$got" != "$3" ]; then
    echo "FAIL: $1 has $2 = '$got'; expected '$3'"
    exit 1
  fi
}

"$bin/cbct-simulate" --nproj 24 --detector-size 48 --detector-spacing 8 -g scan/geometry.xml -o scan/projections.mha

echo "== the documentation's command line, in the directory of the projections"
(cd scan && "$bin/cbct-fdk" -g geometry.xml -p . -r .*.mha -o ../out.mha --spacing 2 --dimension 256 --origin -255)
expect_header out.mha DimSize "256 256 256"
expect_header out.mha ElementSpacing "2 2 2"
expect_header out.mha Offset "-255 -255 -255"
expect_header out.mha TransformMatrix "1 0 0 0 1 0 0 0 1"

echo "== RTK's --size, repeated --origin values (x, y given; z centred), -d, --nodisplaced, --hann"
"$bin/cbct-fdk" -g scan/geometry.xml -p scan -r 'projections\.mha' -o rtk.mha --size 32 --spacing 4 \
  --origin -10 --origin -20 -d 2 --nodisplaced --hann 0.8 --verbose | tee rtk.log
expect_header rtk.mha DimSize "32 32 32"
expect_header rtk.mha Offset "-10 -20 -62"
grep -q "hann window, cut-off 0.8" rtk.log || { echo "FAIL: --hann 0.8 is not the Hann window with cut-off 0.8"; cat rtk.log; exit 1; }
grep -q "in 2 slabs" rtk.log || { echo "FAIL: -d 2 did not give 2 slabs"; exit 1; }

echo "== --like: the grid of another volume, and --direction"
"$bin/cbct-fdk" -g scan/geometry.xml --projections scan/projections.mha -o like.mha --like rtk.mha
expect_header like.mha DimSize "32 32 32"
expect_header like.mha Offset "-10 -20 -62"
"$bin/cbct-fdk" -g scan/geometry.xml --projections scan/projections.mha -o turned.mha --dimension 16 --spacing 4 \
  --direction 0,0,1,0,1,0,-1,0,0
expect_header turned.mha TransformMatrix "0 0 -1 0 1 0 1 0 0"
# Centred whatever the direction: origin = -D (N-1)/2 s = (-30, -30, 30).
expect_header turned.mha Offset "-30 -30 30"
# The same world, other voxel order: voxel (i, j, k) of the turned grid is at x = -30 + 4k, y = -30 + 4j,
# z = 30 - 4i, voxel (k, j, 15 - i) of the identity grid.
"$bin/cbct-fdk" -g scan/geometry.xml --projections scan/projections.mha -o straight.mha --dimension 16 --spacing 4
python3 - turned.mha straight.mha <<'PY'
import struct
import sys
def read(path):  # 16^3 floats, i fastest
    data = open(path, "rb").read()
    marker = b"ElementDataFile = LOCAL\n"
    start = data.index(marker) + len(marker)
    return struct.unpack("<4096f", data[start:start + 4 * 4096])
turned, straight = read(sys.argv[1]), read(sys.argv[2])
at = lambda v, i, j, k: v[i + 16 * (j + 16 * k)]
difference = max(abs(at(turned, i, j, k) - at(straight, k, j, 15 - i)) for i in range(16) for j in range(16) for k in range(16))
scale = max(abs(v) for v in straight)
print("turned grid against the identity grid: largest difference %g of %g" % (difference, scale))
sys.exit(0 if difference <= 1e-3 * scale else 1)  # a wrong voxel order differs by the values themselves
PY

echo "== RTK's --newspacing/--neworigin on a TIFF stack (no spacing or origin in the file)"
"$bin/cbct-simulate" --nproj 24 --detector-size 48 --detector-spacing 8 -g tif.xml -o projections.tif
"$bin/cbct-fdk" -g tif.xml --projections projections.tif --newspacing 8 --neworigin -188,-188 -o tif.mha \
  --dimension 32 --spacing 4
echo "rtk command line: OK"
