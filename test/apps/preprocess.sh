#!/usr/bin/env bash
# Real-scan preprocessing through the apps: 16-bit detector readings with Poisson noise and a dark
# current (cbct-simulate --i0 --idark --poisson), converted on the way in (I0 estimated from the air,
# or given), cropped, binned, median-filtered; the truncation correction (--pad) on a detector
# narrower than the head; and the same loading path in cbct-sart. The Shepp-Logan head in
# attenuation per mm (--phantom-density 0.02, near water).
# Usage: preprocess.sh BINDIR WORKDIR
set -eu
bin=$1
work=$2
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"

phantom=(--phantom shepplogan --phantom-scale 60 --phantom-density 0.02)
mae() { # VOLUME [cbct-compare options]: the central-region MAE
  local volume=$1
  shift
  "$bin/cbct-compare" -i "$volume" "${phantom[@]}" --peak 0.04 "$@" | sed -n 's/^central region.* MAE \([^,]*\),.*/\1/p'
}
expect_below() { # LABEL VALUE LIMIT
  if ! [[ "$2" =~ ^[0-9]+(\.[0-9]+)?([eE]-?[0-9]+)?$ ]] || ! awk -v v="$2" -v l="$3" 'BEGIN { exit !(v < l) }'; then
    echo "FAIL [$1]: $2 (must be a number < $3)"
    exit 1
  fi
  echo "  [$1] $2 < $3"
}
expect_line() { # FILE PATTERN
  grep -q -- "$2" "$1" || { echo "FAIL: '$2' not in:"; cat "$1"; exit 1; }
}

scan=(--nproj 90 --detector-size 120 --detector-spacing 1.6 "${phantom[@]}")
grid=(--dimension 64 --spacing 2)

echo "== 16-bit readings, I0 10000, Idark 200, Poisson noise; the line integrals for reference"
"$bin/cbct-simulate" "${scan[@]}" --i0 10000 --idark 200 --poisson --seed 3 -g g.xml -o counts.mha
"$bin/cbct-simulate" "${scan[@]}" -g g.xml -o lines.mha
grep -q "ElementType = MET_USHORT" counts.mha || { echo "FAIL: counts.mha does not hold 16-bit integers"; exit 1; }

"$bin/cbct-fdk" -g g.xml --projections lines.mha "${grid[@]}" -o lines-fdk.mha
reference=$(mae lines-fdk.mha)
echo "  line integrals: MAE $reference"

echo "== readings converted with I0 estimated from each projection's air"
"$bin/cbct-fdk" -g g.xml --projections counts.mha --idark 200 "${grid[@]}" -o counts-fdk.mha --verbose | tee estimated.log
expect_line estimated.log "preprocessing: intensities to line integrals (I0 estimated from the air of each projection, Idark 200); I0 from 99"
expect_below "estimated I0" "$(mae counts-fdk.mha)" "$(awk -v r="$reference" 'BEGIN { print 1.6 * r }')"

echo "== I0 given, with an air threshold, and --nolineint (the readings themselves: far off)"
"$bin/cbct-fdk" -g g.xml --projections counts.mha --i0 10000 --idark 200 "${grid[@]}" -o given-fdk.mha
expect_below "I0 given" "$(mae given-fdk.mha)" "$(awk -v r="$reference" 'BEGIN { print 1.6 * r }')"
"$bin/cbct-fdk" -g g.xml --projections counts.mha --idark 200 --airthres 9000 "${grid[@]}" -o threshold-fdk.mha
expect_below "air threshold" "$(mae threshold-fdk.mha)" "$(awk -v r="$reference" 'BEGIN { print 1.6 * r }')"
"$bin/cbct-fdk" -g g.xml --projections counts.mha --nolineint "${grid[@]}" -o raw-fdk.mha
if awk -v v="$(mae raw-fdk.mha)" 'BEGIN { exit !(v < 1) }'; then
  echo "FAIL: --nolineint reconstructs the readings as if they were line integrals"
  exit 1
fi

echo "== crop, binning and a conditional median: a coarser detector, the same head"
"$bin/cbct-fdk" -g g.xml --projections counts.mha --idark 200 --lowercrop 4,2 --uppercrop 4,2 --binning 2,2 \
  --radius 1,1 --multiplier 3 "${grid[@]}" -o binned-fdk.mha --verbose | tee binned.log
expect_line binned.log "crop 4,2 pixels at the start and 4,2 at the end of u,v; conditional median of radius 1,1,0 (multiplier 3); binning 2x2"
expect_line binned.log "read projections: 56 x 58 pixels of 3.2 x 3.2 mm x 90 projections"
expect_below "cropped and binned" "$(mae binned-fdk.mha)" "$(awk -v r="$reference" 'BEGIN { print 2.0 * r }')"

echo "== the same loading path in cbct-sart: as good from the readings as from the line integrals"
sart=(-g g.xml --dimension 32 --spacing 4 --niterations 2 --nprojpersubset 10)
"$bin/cbct-sart" "${sart[@]}" --projections lines.mha -o sart-lines.mha
"$bin/cbct-sart" "${sart[@]}" --projections counts.mha --idark 200 -o sart.mha --verbose | tee sart.log
expect_line sart.log "cbct-sart: preprocessing: intensities to line integrals"
expect_below "cbct-sart" "$(mae sart.mha)" "$(awk -v r="$(mae sart-lines.mha)" 'BEGIN { print 1.3 * r }')"

echo "== truncated detector (40 mm a side at the isocenter): --pad reduces the error in the field of view"
"$bin/cbct-simulate" --nproj 90 --detector-size 50,120 --detector-spacing 2.4,1.6 "${phantom[@]}" --i0 20000 \
  --idark 100 --poisson --seed 5 -g t.xml -o truncated.mha
"$bin/cbct-fdk" -g t.xml --projections truncated.mha --idark 100 "${grid[@]}" --hann 0.7 -o nopad.mha
"$bin/cbct-fdk" -g t.xml --projections truncated.mha --idark 100 "${grid[@]}" --hann 0.7 --pad 0.5 -o pad.mha --verbose \
  | tee pad.log
expect_line pad.log "truncation correction 0.5 (rows extended by 25 pixels a side)"
without=$(mae nopad.mha --fov-radius 38)
with=$(mae pad.mha --fov-radius 38)
echo "  MAE within 38 mm of the axis: $without without --pad, $with with --pad 0.5"
expect_below "--pad" "$with" "$(awk -v r="$without" 'BEGIN { print 0.75 * r }')"
echo "preprocess: OK"
