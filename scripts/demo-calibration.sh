#!/usr/bin/env bash
# Demo of the geometry found from the data (docs/howto/calibration.md): a micro-CT scan whose file says
# the rotation axis stands on the detector's centre while it stands 12 pixels off, the detector rolled
# 0.3 degree (the axis leaning 0.7 pixel over the detector's height), with Poisson noise (I0 = 10^4).
# FDK with the file's geometry, cbct-calibrate (with its report: the score against each parameter), FDK
# with the calibrated geometry, each compared with the phantom; one picture of the two side by side:
# calibration-side-by-side.png, and the report's scores.png.
# Usage: scripts/demo-calibration.sh [OUTPUT_DIRECTORY] (default out/calibration/). Runs from any
# directory against the apps of build/bin (CBCT_BUILD names another build); builds nothing (scripts/demo.sh
# builds the apps). Needs python3 with PIL for the picture (Debian: python3-pil). About a minute on 2 cores:
# 128 x 128 pixels, 180 projections, slices of 96 x 96 voxels.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

bin=$CBCT_BUILD/bin
for app in cbct-simulate cbct-calibrate cbct-fdk cbct-slices cbct-compare; do
  [ -x "$bin/$app" ] || { echo "demo-calibration.sh: $bin/$app is missing: build it (scripts/demo.sh builds the apps)" >&2; exit 1; }
done
python=
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c "import PIL" 2>/dev/null; then
    python=$candidate
    break
  fi
done
[ -n "$python" ] || { echo "demo-calibration.sh: no python3 with PIL (Debian: python3-pil)" >&2; exit 1; }
out=${1:-$CBCT_ROOT/out/calibration}
mkdir -p "$out"
cd "$out"

# A micro-CT: the source 100 mm from the axis, the detector 500 mm (magnification 5), 128 x 128 pixels of
# 0.5 mm; a Shepp-Logan head 12 mm tall (attenuation 0.2 per mm inside). The stage stands 1.2 mm off the
# line from the source perpendicular to the detector: in RTK's frame, which turns with the axis, the source
# and the detector both stand -1.2 mm off (the axis 12 pixels off the detector's centre).
scan=(--nproj 180 --sid 100 --sdd 500 --detector-spacing 0.5 --phantom-scale 6 --phantom-density 0.2)
cbct_log "simulate: the axis 12 pixels off, the detector rolled 0.3 degree, I0 10^4 counts with Poisson noise"
"$bin/cbct-simulate" "${scan[@]}" --detector-size 128 --proj-offset-x -1.2 --source-offset-x -1.2 --in-angle 0.3 --i0 10000 --poisson \
  -g true.xml -o scan.mha
cbct_log "the scanner's file: the axis on the detector's centre, no roll"
"$bin/cbct-simulate" "${scan[@]}" --detector-size 4 -g nominal.xml -o scratch.mha
rm -f scratch.mha

grid=(--dimension 96,24,96 --spacing 0.12 --i0 10000)
phantom=(--phantom shepplogan --phantom-scale 6 --phantom-density 0.2 --peak 0.4)
cbct_log "FDK with the file's geometry"
"$bin/cbct-fdk" -g nominal.xml --projections scan.mha "${grid[@]}" -o nominal.mha
cbct_log "cbct-calibrate: opposite views, then the sharpness of FDK slices"
"$bin/cbct-calibrate" -g nominal.xml --projections scan.mha --i0 10000 -o calibrated.xml --report report
cbct_log "FDK with the calibrated geometry, and with the true one"
"$bin/cbct-fdk" -g calibrated.xml --projections scan.mha "${grid[@]}" -o calibrated.mha
"$bin/cbct-fdk" -g true.xml --projections scan.mha "${grid[@]}" -o true.mha
cbct_log "error against the phantom (mean absolute, per mm, whole volume):"
for volume in nominal calibrated true; do
  echo "  $volume: $("$bin/cbct-compare" -i $volume.mha "${phantom[@]}" | sed -n 's/^whole volume.*MAE \([0-9.e+-]*\).*/\1/p')"
done
for volume in nominal calibrated; do
  "$bin/cbct-slices" -i $volume.mha -o $volume.png --min 0 --max 0.3 --zoom 2 > /dev/null
done
"$python" "$CBCT_ROOT/scripts/demo-calibration-picture.py" nominal.png calibrated.png calibration-side-by-side.png \
  "the scanner's geometry (axis 12 pixels off)" "calibrated (cbct-calibrate)"
cbct_log "wrote $out/calibration-side-by-side.png and $out/report/scores.png"
