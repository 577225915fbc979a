#!/usr/bin/env bash
# Demo: installs what is missing, builds the apps in build/, simulates a cone-beam scan of the
# Shepp-Logan head, reconstructs it with FDK and measures the error against the phantom.
# Writes out/geometry.xml, out/projections.mha, out/fdk.mha, out/fdk.png, out/profile.csv (a line through
# the phantom, reconstruction and truth), out/profile.png (with matplotlib) and out/report/ (cbct-compare
# --report: index.html, one self-contained page, and report.png). Runs from any directory.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

start=$(date +%s.%N)
cbct_install_dependencies
cbct_configure
cbct_build cbct-simulate cbct-fdk cbct-compare cbct-slices
bin=$CBCT_BUILD/bin
out=$CBCT_ROOT/out
mkdir -p "$out"

work_start=$(date +%s.%N)
cbct_log "simulate: 180 projections over 360 degrees of 200 x 200 pixels of 1.2 mm (SID 1000 mm, SDD 1500 mm)"
"$bin/cbct-simulate" --nproj 180 --arc 360 --sid 1000 --sdd 1500 --detector-size 200 --detector-spacing 1.2 \
  --phantom shepplogan --phantom-scale 60 -g "$out/geometry.xml" -o "$out/projections.mha" --verbose

cbct_log "reconstruct: FDK of 128^3 voxels of 1 mm"
"$bin/cbct-fdk" -g "$out/geometry.xml" --projections "$out/projections.mha" --dimension 128 --spacing 1 \
  --window ramlak -o "$out/fdk.mha" --verbose

cbct_log "slices: axial (x-z, through the ventricles at y = -15 mm), coronal (x-y), sagittal (z-y)"
"$bin/cbct-slices" -i "$out/fdk.mha" -o "$out/fdk.png" --point 0,-15,0 --min 0.95 --max 1.1 --zoom 2

cbct_log "error against the phantom (2x2x2-supersampled voxels); profile along x at y = -15 mm"
"$bin/cbct-compare" -i "$out/fdk.mha" --phantom shepplogan --phantom-scale 60 --supersampling 2 \
  --profile "$out/profile.csv" --profile-y -15 --report "$out/report" --window 0.95,1.1

cbct_log "real scan: noisy 16-bit readings (I0 20000, dark 100, Poisson) of a head wider than the detector"
head=(--phantom shepplogan --phantom-scale 60 --phantom-density 0.02) # attenuation per mm, near water
"$bin/cbct-simulate" --nproj 90 --detector-size 50,120 --detector-spacing 2.4,1.6 "${head[@]}" --i0 20000 \
  --idark 100 --poisson --seed 5 -g "$out/truncated.xml" -o "$out/truncated.mha"
for pad in 0 0.5; do
  "$bin/cbct-fdk" -g "$out/truncated.xml" --projections "$out/truncated.mha" --idark 100 --dimension 64 --spacing 2 \
    --hann 0.7 --pad $pad -o "$out/truncated-pad$pad.mha"
  "$bin/cbct-slices" -i "$out/truncated-pad$pad.mha" -o "$out/truncated-pad$pad.png" --min 0 --max 0.025 --zoom 3
  cbct_log "--pad $pad: $("$bin/cbct-compare" -i "$out/truncated-pad$pad.mha" "${head[@]}" --peak 0.04 --fov-radius 38 |
    sed -n 's/^central region.*: /error within 38 mm of the axis (the detector sees 40): /p')"
done
end=$(date +%s.%N)

# The profile as a picture when matplotlib is there (plot-profile.py says so when it is not).
python=$(command -v python3 || true)
if [ -n "$python" ] && ! "$python" -c "import matplotlib" 2>/dev/null && [ -x /usr/bin/python3 ]; then
  python=/usr/bin/python3 # Debian's python3-matplotlib when python3 on the PATH is another one
fi
rm -f "$out/profile.png"
if [ -n "$python" ]; then
  "$python" "$CBCT_ROOT/scripts/plot-profile.py" "$out/profile.csv" -o "$out/profile.png" ||
    cbct_log "no profile picture (out/profile.csv has the numbers)"
fi

cbct_log "$(awk -v s="$start" -v w="$work_start" -v e="$end" \
  'BEGIN { printf "total %.1f s (set-up and build %.1f s, simulate + reconstruct + compare %.1f s)", e - s, w - s, e - w }')"
cbct_log "wrote $out/fdk.mha, $out/fdk.png, $out/truncated-pad{0,0.5}.png, $out/report/index.html and $out/profile.csv$([ -f "$out/profile.png" ] && echo " and $out/profile.png")"
