#!/usr/bin/env bash
# Where cbct-fdk puts a detector read from a format without an origin, as a new user
# runs it: a TIFF stack of a centred scan reconstructs like the same scan in .mha (the detector is
# centred, -(N-1)/2 * spacing, and --verbose says so), both as one file and as a --path/--regexp
# series; --new-origin still places the detector (0,0, ITK's origin for TIFF and the old default, puts
# the rotation axis at the corner pixel: another volume, measured MAE 0.83 on a 256-pixel full scan).
# 90 views of 96 x 96 pixels of 2.5 mm, 48^3 voxels of 2.5 mm.
# Usage: detector_origin.sh BINDIR WORKDIR
set -eu
bin=$1
work=$2
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"
mkdir -p series

scan=(--nproj 90 --detector-size 96 --detector-spacing 2.5 --sid 1000 --sdd 1500)
grid=(--dimension 48 --spacing 2.5)

expect_line() { # FILE PATTERN
  if ! grep -qF -- "$2" "$1"; then
    echo "FAIL: '$2' not in the output of cbct-fdk:"
    cat "$1"
    exit 1
  fi
}

# relative_difference VOLUME REFERENCE: cbct-compare's relative L2 difference (a number, or the script fails).
relative_difference() {
  local d
  d=$("$bin/cbct-compare" -i "$1" --reference "$2" | sed -n 's/^relative L2 difference from the reference: //p')
  if ! [[ "$d" =~ ^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; then
    echo "FAIL: no relative difference of $1 from $2 (got '$d')" >&2
    exit 1
  fi
  echo "$d"
}

below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

"$bin/cbct-simulate" "${scan[@]}" -g g.xml -o p.mha
"$bin/cbct-simulate" "${scan[@]}" -g g_tif.xml -o series/p.tif
"$bin/cbct-fdk" -g g.xml --projections p.mha "${grid[@]}" -o mha.mha

echo "== TIFF, one file: the detector centred"
"$bin/cbct-fdk" -g g.xml --projections series/p.tif "${grid[@]}" -o tif.mha --verbose | tee tif.log
expect_line tif.log "cbct-fdk: the projection files (TIFF) carry no detector origin: the detector is centred on the rotation axis, its first pixel at (-118.75, -118.75) mm (--new-origin U,V places it elsewhere)"
d=$(relative_difference tif.mha mha.mha)
echo "  relative difference from the .mha's volume: $d"
# Not 0: ITK keeps TIFF's pixel size as a resolution (pixels per unit), which may round the spacing.
below "$d" 1e-4 || { echo "FAIL: the TIFF stack's volume differs from the .mha's by $d"; exit 1; }

echo "== TIFF, --path/--regexp"
"$bin/cbct-fdk" -g g.xml -p series -r 'p\.tif' "${grid[@]}" -o series.mha --verbose | tee series.log
expect_line series.log "carry no detector origin: the detector is centred"
d=$(relative_difference series.mha mha.mha)
below "$d" 1e-4 || { echo "FAIL: the TIFF series' volume differs from the .mha's by $d"; exit 1; }

echo "== TIFF, --new-origin 0,0: the rotation axis at the corner pixel, as the file's (0, 0) said"
"$bin/cbct-fdk" -g g.xml --projections series/p.tif "${grid[@]}" -o corner.mha --new-origin 0,0 --verbose | tee corner.log
if grep -q "carry no detector origin" corner.log; then
  echo "FAIL: --new-origin given, yet the detector was centred"
  exit 1
fi
d=$(relative_difference corner.mha mha.mha)
echo "  relative difference from the .mha's volume: $d"
below 0.5 "$d" || { echo "FAIL: --new-origin 0,0 was not applied (difference $d)"; exit 1; }

echo "== .mha: its own origin, nothing said"
"$bin/cbct-fdk" -g g.xml --projections p.mha "${grid[@]}" -o mha2.mha --verbose | tee mha.log
if grep -q "carry no detector origin" mha.log; then
  echo "FAIL: a MetaImage's origin was replaced"
  exit 1
fi
echo "detector origin: OK"
