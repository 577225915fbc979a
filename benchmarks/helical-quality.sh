#!/usr/bin/env bash
# Helical reconstruction quality (benchmarks/README.md, "Helical scans and cylindrical detectors"):
# three Shepp-Logan heads of 30 mm stacked 60 mm apart along the rotation axis (174 mm), a 64-row CT
# scanner's cylindrical detector (128 x 64 pixels of 1 mm, centred on the source: SID 595 mm, SDD =
# radius 1085.6 mm; the rows cover 35 mm of the axis), 90 views a turn. For pitch 1 and 1.5: helical
# FDK, and CGLS and SART (OS-SART, subsets of 10 views) after 20 iterations, their mean absolute error
# against the phantom over the middle head; and FDK of that head alone from a circle of 90 views whose
# detector (128 rows) sees it whole. Prints one line per reconstruction.
# Usage: helical-quality.sh BINDIR WORKDIR [--hardware cpu|cuda]
set -eu
bin=$1
work=$2
shift 2
hardware=(--hardware cpu)
if [ $# -gt 0 ]; then
  hardware=("$@")
fi
mkdir -p "$work"
cd "$work"
"$bin/cbct-simulate" --phantom shepplogan --phantom-scale 30 --phantom-output head.txt --nproj 1 --detector-size 8 \
  -g scratch.xml -o scratch.mha
awk '/^ellipsoid/ { y = $4; for (dy = -60; dy <= 60; dy += 60) { $4 = y + dy; print } }' head.txt >heads.txt
scanner=(--sid 595 --sdd 1085.6 --detector-radius 1085.6 --detector-spacing 1)
# The middle head's slices of the 64 x 192 x 64 volume (1 mm): y from -32 to 32 mm; cbct-compare's
# central region of a 64^3 volume of the head alone is the same head.
middle() { # VOLUME: the middle 64 slices along y of VOLUME, as middle.mha
  python3 - "$1" <<'EOF'
import sys
path = sys.argv[1]
header, data = open(path, 'rb').read().split(b'ElementDataFile = LOCAL\n', 1)
lines = header.decode().splitlines()
values = dict(l.split(' = ', 1) for l in lines if ' = ' in l)
nx, ny, nz = map(int, values['DimSize'].split())
plane = nx * 4
out = bytearray()
for z in range(nz):
    start = (z * ny + (ny - 64) // 2) * plane
    out += data[start:start + 64 * plane]
values['DimSize'] = f'{nx} 64 {nz}'
offset = values['Offset'].split()
offset[1] = str(-31.5)
values['Offset'] = ' '.join(offset)
with open('middle.mha', 'wb') as f:
    for l in lines:
        key = l.split(' = ', 1)[0]
        f.write(f'{key} = {values[key]}\n'.encode())
    f.write(b'ElementDataFile = LOCAL\n')
    f.write(out)
EOF
}
measure() { # LABEL VOLUME PHANTOM
  middle "$2"
  echo "$1: $("$bin/cbct-compare" -i middle.mha --phantom "$3" | grep -i 'whole volume' | sed 's/^ *//')"
}
# The circle: the middle head alone, a detector that sees it whole.
awk '/^ellipsoid/ && $4 > -30 && $4 < 30' heads.txt >middle-head.txt
"$bin/cbct-simulate" --phantom middle-head.txt "${scanner[@]}" --detector-size 128,128 --nproj 90 -g circle.xml -o circle.mha
"$bin/cbct-fdk" -g circle.xml --projections circle.mha -o circle-fdk.mha --dimension 64,192,64 --spacing 1 "${hardware[@]}"
measure "circular FDK of the middle head" circle-fdk.mha middle-head.txt
for pitch in 1 1.5; do
  turns=$(python3 -c "print(round((174 + 2 * 35) / (35.08 * $pitch) + 1))")
  "$bin/cbct-simulate" --phantom heads.txt "${scanner[@]}" --detector-size 128,64 --helical "$pitch" \
    --nproj $((90 * turns)) --arc $((360 * turns)) -g helix$pitch.xml -o helix$pitch.mha
  grid=(-g helix$pitch.xml --projections helix$pitch.mha --dimension 64,192,64 --spacing 1 "${hardware[@]}")
  "$bin/cbct-fdk" "${grid[@]}" -o fdk$pitch.mha
  measure "helical FDK, pitch $pitch ($turns turns)" fdk$pitch.mha heads.txt
  "$bin/cbct-cgls" "${grid[@]}" --niterations 20 -o cgls$pitch.mha
  measure "CGLS, 20 iterations, pitch $pitch" cgls$pitch.mha heads.txt
  "$bin/cbct-sart" "${grid[@]}" --niterations 20 --nprojpersubset 10 -o sart$pitch.mha
  measure "SART, 20 iterations, pitch $pitch" sart$pitch.mha heads.txt
done
