#!/usr/bin/env bash
# 4D CBCT's breathing simulation (issue 28): cbct-simulate --breathing writes the projections of a phantom
# whose chosen ellipsoids move, the geometry, and the phase of each projection beside them (default name
# OUTPUT_phases.txt, or --phases-output); the phases are those of a regular breathing; no movement gives the
# static projections byte for byte, a movement changes them; irregular cycles are reproducible per seed.
# Usage: breathing_end_to_end.sh BINDIR WORKDIR
set -eu
bin=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cd "$work"

scan=(--nproj 90 --detector-size 48 --detector-spacing 4)
echo "== a breathing scan: 3 cycles, the small ellipsoids 4 and 5 moving 15 mm along y"
"$bin/cbct-simulate" "${scan[@]}" -g geometry.xml -o breathing.mha --breathing --breathing-cycles 3 \
  --breathing-ellipsoids 4,5 --breathing-amplitude 0,15,0 --verbose | tee simulate.log
grep -q "breathing: 3 cycles, ellipsoids 4,5 moved by (0, 15, 0) mm" simulate.log
test -s geometry.xml
test -s breathing.mha
test "$(wc -l <breathing_phases.txt)" -eq 90 || { echo "FAIL: breathing_phases.txt has $(wc -l <breathing_phases.txt) lines, not 90"; exit 1; }
# Projection k at phase frac(3 k / 90).
awk '{ k = NR - 1; x = 3 * k / 90; e = x - int(x); d = $1 - e; if (d < 0) d = -d;
       if (d > 1e-12 || $1 < 0 || $1 >= 1) { print "FAIL: line " NR " is " $1 ", expected " e; bad = 1 } }
     END { exit bad }' breathing_phases.txt

echo "== no movement: the static projections byte for byte; --phases-output"
"$bin/cbct-simulate" "${scan[@]}" -g static.xml -o static.mha
"$bin/cbct-simulate" "${scan[@]}" -g still.xml -o still.mha --breathing --breathing-amplitude 0,0,0 \
  --phases-output still-phases.txt
cmp -s static.mha still.mha || { echo "FAIL: a breathing scan without movement differs from the static scan"; exit 1; }
test -s still-phases.txt
test ! -e still_phases.txt
if cmp -s static.mha breathing.mha; then echo "FAIL: the breathing scan equals the static one"; exit 1; fi

echo "== irregular cycles: the same seed gives the same phases, another seed others"
irregular=(--breathing --breathing-cycles 4 --breathing-irregularity 0.3 --breathing-first-phase 0.25)
"$bin/cbct-simulate" "${scan[@]}" -g a.xml -o a.nii.gz "${irregular[@]}" --seed 5
"$bin/cbct-simulate" "${scan[@]}" -g b.xml -o b.nii.gz "${irregular[@]}" --seed 5
"$bin/cbct-simulate" "${scan[@]}" -g c.xml -o c.nii.gz "${irregular[@]}" --seed 6
test -s a_phases.txt # .nii.gz: both extensions replaced
cmp -s a_phases.txt b_phases.txt || { echo "FAIL: the same seed gave other phases"; exit 1; }
if cmp -s a_phases.txt c_phases.txt; then echo "FAIL: another seed gave the same phases"; exit 1; fi
test "$(head -1 a_phases.txt)" = "0.25" || { echo "FAIL: first phase $(head -1 a_phases.txt), not 0.25"; exit 1; }
echo "PASS"
