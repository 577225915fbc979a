#!/usr/bin/env bash
# Demo: installs what is missing, builds the apps in build/, simulates a cone-beam scan of the
# Shepp-Logan head, reconstructs it with FDK and measures the error against the phantom.
# Writes out/geometry.xml, out/projections.mha, out/fdk.mha and out/fdk.png. Runs from any directory.
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

cbct_log "error against the phantom (2x2x2-supersampled voxels)"
"$bin/cbct-compare" -i "$out/fdk.mha" --phantom shepplogan --phantom-scale 60 --supersampling 2
end=$(date +%s.%N)

cbct_log "$(awk -v s="$start" -v w="$work_start" -v e="$end" \
  'BEGIN { printf "total %.1f s (set-up and build %.1f s, simulate + reconstruct + compare %.1f s)", e - s, w - s, e - w }')"
cbct_log "wrote $out/fdk.mha and $out/fdk.png"
