#!/usr/bin/env bash
# Demo of 4D CBCT (docs/guide/4d-cbct.md): a breathing body (a liver dome and a lung nodule moving
# 10 mm along y, the cranio-caudal axis), its phases found from the projections by cbct-signal, then
# 3D FDK, 4D FDK and 4D ROOSTER, and one picture of a coronal slice through the moving ellipsoids for
# each: fourd-side-by-side.png. Prints how far the phases found are from the simulation's and the
# error (MAE) of every frame against the phantom at the frame's phase.
# Usage: scripts/demo-4d.sh [OUTPUT_DIRECTORY] (default out/4d/). Runs from any directory against the
# apps of build/bin (CBCT_BUILD names another build); builds nothing: build the apps first
# (scripts/demo.sh does). Needs python3 with numpy and PIL (Debian: python3-numpy python3-pil).
# Small on purpose (about 20 s on 2 cores): 48^3 voxels of 4 mm, 180 projections of 72^2 pixels; a
# real 4D scan has 600-1400 projections, 10 frames of 256^3 and 10 or more ROOSTER iterations.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

start=$(date +%s.%N)
bin=$CBCT_BUILD/bin
for app in cbct-simulate cbct-signal cbct-fdk cbct-fourdfdk cbct-fourdrooster cbct-compare; do
  [ -x "$bin/$app" ] || { echo "demo-4d.sh: $bin/$app is missing: build it (scripts/demo.sh builds the apps)" >&2; exit 1; }
done
python=
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c "import numpy, PIL" 2>/dev/null; then
    python=$candidate
    break
  fi
done
[ -n "$python" ] || { echo "demo-4d.sh: no python3 with numpy and PIL (Debian: python3-numpy python3-pil)" >&2; exit 1; }
picture="$python $CBCT_ROOT/scripts/demo-4d-picture.py"
out=${1:-$CBCT_ROOT/out/4d}
mkdir -p "$out/frames"

# The body of docs/guide/4d-cbct-signal.md and a nodule in the lung; ellipsoids 2 (the liver, whose dome
# is the diaphragm) and 3 (the nodule) breathe: down 10 mm at end-inhale (phase 0.5), sinusoidally.
cat > "$out/body.txt" <<'EOF'
# density  centre x y z (mm)  semi-axes x y z (mm)
ellipsoid 1.0    0 0 0      70 90 60
ellipsoid -0.7   0 25 0     55 45 45
ellipsoid 0.7    0 -25 0    50 30 40
ellipsoid 0.7  -15 40 0     10 10 10
EOF
amplitude=-10
frames=4 # frame f at phase f/4: 0 is end-exhale, 2 end-inhale
grid=(--dimension 48 --spacing 4)

cbct_log "simulate: 180 projections of 72 x 72 pixels of 4 mm over 360 degrees, 6 breathing cycles"
"$bin/cbct-simulate" --nproj 180 --detector-size 72 --detector-spacing 4 --phantom "$out/body.txt" \
  -g "$out/geometry.xml" -o "$out/scan.mha" --breathing --breathing-cycles 6 --breathing-ellipsoids 2,3 \
  --breathing-amplitude 0,$amplitude,0

cbct_log "signal: the phases from the projections (the Amsterdam shroud; the dome is highest at end-exhale)"
"$bin/cbct-signal" --projections "$out/scan.mha" -g "$out/geometry.xml" -o "$out/phases.txt" --phase-zero maxima \
  --signal-output "$out/signal.txt"
cbct_log "$($picture phases "$out/scan_phases.txt" "$out/phases.txt")"

cbct_log "3D FDK of 48^3 voxels of 4 mm (every phase at once: the moving ellipsoids are smeared)"
"$bin/cbct-fdk" -g "$out/geometry.xml" --projections "$out/scan.mha" "${grid[@]}" -o "$out/fdk.mha"

cbct_log "4D FDK: $frames frames, each from its own phase's projections"
"$bin/cbct-fourdfdk" -g "$out/geometry.xml" --projections "$out/scan.mha" --signal "$out/phases.txt" \
  --frames $frames "${grid[@]}" -o "$out/fourdfdk.mha" --frames-prefix "$out/frames/fdk_"

cbct_log "4D ROOSTER: $frames frames from all the projections, 4 iterations of 4 CG steps, TV in space and time"
"$bin/cbct-fourdrooster" -g "$out/geometry.xml" --projections "$out/scan.mha" --signal "$out/phases.txt" \
  --frames $frames "${grid[@]}" --niter 4 --cgiter 4 --tviter 10 --gamma_space 0.002 --gamma_time 0.002 \
  -o "$out/rooster.mha" --verbose
$picture split "$out/rooster.mha" "$out/frames/rooster_"

# The phantom at frame f's phase f/4 (the middle of its window), against every voxel (cbct-compare) and near
# the moving ellipsoids (the box where the dome and the nodule move), where 3D FDK smears them.
box=-50,50,-20,55,-20,20
phantom=(--phantom "$out/body.txt" --moving "2,3" --amplitude "$amplitude")
cbct_log "error (MAE, per mm) of each frame against the phantom at the frame's phase: whole volume | near the moving ellipsoids"
for ((f = 0; f < frames; f++)); do
  phase=$(awk -v f=$f -v n=$frames 'BEGIN { printf "%g", f / n }')
  awk -v a=$amplitude -v p="$phase" 'BEGIN { d = a * sin(3.141592653589793 * p)^2 }
    /^ellipsoid/ && ++i >= 3 { $4 += d } { print }' "$out/body.txt" > "$out/frames/phantom_$f.txt"
  $picture voxelize "$out/fdk.mha" "$out/frames/phantom_$f.mha" "${phantom[@]}" --phase "$phase"
  mae() {
    echo "$("$bin/cbct-compare" -i "$1" --phantom "$out/frames/phantom_$f.txt" |
      sed -n 's/^whole volume.*MAE \([0-9.e+-]*\).*/\1/p') | $($picture mae "$1" "${phantom[@]}" --phase "$phase" --box=$box)"
  }
  cbct_log "frame $f (phase $phase): 3D FDK $(mae "$out/fdk.mha"); 4D FDK $(mae "$out/frames/fdk_0$f.mha"); 4D ROOSTER $(mae "$out/frames/rooster_0$f.mha")"
done
# Where the nodule is: the centroid of the voxels above 0.65 (half-way between lung and nodule) around it.
nodule=(--threshold 0.65 "--box=-35,5,12,60,-15,15")
centroids=
for ((f = 0; f < frames; f++)); do
  centroids+=" frame $f: phantom $($picture centroid "$out/frames/phantom_$f.mha" "${nodule[@]}"),"
  centroids+=" 4D FDK $($picture centroid "$out/frames/fdk_0$f.mha" "${nodule[@]}"),"
  centroids+=" 4D ROOSTER $($picture centroid "$out/frames/rooster_0$f.mha" "${nodule[@]}");"
done
cbct_log "the nodule's centre along y (mm): 3D FDK $($picture centroid "$out/fdk.mha" "${nodule[@]}");$centroids"

cbct_log "picture: coronal slices through the moving ellipsoids"
$picture picture "$out/fourd-side-by-side.png" "${phantom[@]}" --marks 40,$((40 + amplitude)) --z 2 --min 0 --max 1.8 \
  --zoom 4 --title "4D CBCT of a breathing body: 180 projections over 6 cycles, $frames frames of 48^3 voxels of 4 mm" \
  --caption "coronal x-y plane at z = 2 mm, y (rotation axis, head) up; grey 0 (black) to 1.8 (white) per mm|dashes: the nodule's centre at end-exhale (blue) and end-inhale (red), 10 mm apart" \
  --truth "0:0:0:phantom|end-exhale (phase 0)" --truth "0:1:0.5:phantom|end-inhale (phase 0.5)" \
  --panel "1:0:$out/fdk.mha::3D FDK|every phase at once" \
  --panel "1:1:$out/fdk.mha::3D FDK|(the same volume)" \
  --panel "2:0:$out/fourdfdk.mha:0:4D FDK, frame 0|a quarter of the projections" \
  --panel "2:1:$out/fourdfdk.mha:2:4D FDK, frame 2|a quarter of the projections" \
  --panel "3:0:$out/rooster.mha:0:4D ROOSTER, frame 0|all projections, 4 x 4 CG" \
  --panel "3:1:$out/rooster.mha:2:4D ROOSTER, frame 2|all projections, 4 x 4 CG"

cbct_log "$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "total %.1f s", e - s }')"
cbct_log "wrote $out/fourd-side-by-side.png, the volumes (fdk.mha, fourdfdk.mha, rooster.mha: 4D) and frames/"
