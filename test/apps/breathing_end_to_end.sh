#!/usr/bin/env bash
# 4D CBCT's breathing simulation: cbct-simulate --breathing writes the projections of a phantom
# whose chosen ellipsoids move, the geometry, and the phase of each projection beside them (default name
# OUTPUT_phases.txt, or --phases-output); the phases are those of a regular breathing; no movement gives the
# static projections byte for byte, a movement changes them; irregular cycles are reproducible per seed.
# cbct-signal finds the simulation's phases again from the projections (and from its own signal written
# and read back), and refuses damaged signal files and bad options.
# Usage: breathing_end_to_end.sh BINDIR WORKDIR
set -eu
bin=$1
work=$2
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"

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

echo "== cbct-signal: a body whose liver dome moves 10 mm down at end-inhale, 6 cycles in 180 projections"
cat >body.txt <<'PHANTOM'
# a body, its lungs, and the liver's dome under them (ellipsoid 2, the one that breathes)
ellipsoid 1.0   0 0 0     70 90 60
ellipsoid -0.7  0 25 0    55 45 45
ellipsoid 0.7   0 -25 0   50 30 40
PHANTOM
"$bin/cbct-simulate" --nproj 180 --detector-size 64 --detector-spacing 4 --phantom body.txt -g body.xml -o body.mha \
  --breathing --breathing-cycles 6 --breathing-ellipsoids 2 --breathing-amplitude 0,-10,0 --breathing-first-phase 0.2
# The dome is lowest (the signal's minimum) at end-inhale, the simulation's phase 0.5: phase 0 at the maxima.
"$bin/cbct-signal" --projections body.mha -g body.xml -o phases.txt --shroud shroud.mha --signal-output signal.txt \
  --phase-zero maxima --verbose | tee signal.log
grep -q "Amsterdam shroud (sigma 2 mm, edges below), signal by principal motion" signal.log
grep -q "wrote 180 phases to phases.txt" signal.log
test -s shroud.mha
test "$(wc -l <signal.txt)" -eq 180
# Largest distance along the cycle from the simulation's phases once the mean offset is taken out: <= 0.05;
# the offset itself (the choice of phase 0) near 0.
paste phases.txt body_phases.txt | awk '
  function frac(x) { return x - int(x) + (x < int(x) ? 1 : 0) }
  { found[NR] = $1; truth[NR] = $2; d = $1 - $2; c += cos(6.283185307179586 * d); s += sin(6.283185307179586 * d) }
  END {
    offset = atan2(s, c) / 6.283185307179586
    for (k = 1; k <= NR; ++k) {
      if (found[k] < 0 || found[k] >= 1) { print "FAIL: phase " found[k] " outside [0, 1)"; exit 1 }
      e = frac(found[k] - offset - truth[k]); if (e > 0.5) e = 1 - e
      if (e > worst) worst = e
    }
    print "phase error " worst " cycle, offset " offset
    if (NR != 180 || worst > 0.05 || offset > 0.05 || offset < -0.05) { print "FAIL"; exit 1 }
  }'

echo "== an external signal gives the same phases; bad signal files and options are refused"
"$bin/cbct-signal" --input-signal signal.txt -g body.xml -o again.txt --phase-zero maxima
cmp -s phases.txt again.txt || { echo "FAIL: the signal written and read back gave other phases"; exit 1; }
expect_refusal() { # PATTERN OUTPUT COMMAND...
  local pattern=$1 output=$2
  shift 2
  if "$@" 2>err.txt; then echo "FAIL: $* succeeded"; exit 1; fi
  grep -q -- "$pattern" err.txt || { echo "FAIL: $*: '$(cat err.txt)' lacks '$pattern'"; exit 1; }
  test ! -e "$output" || { echo "FAIL: $* left $output"; exit 1; }
}
printf '1\n2\nnan\n' >nan.txt
expect_refusal "line 3 of breathing signal file nan.txt is nan. expected a finite number" out1.txt \
  "$bin/cbct-signal" --input-signal nan.txt -o out1.txt
head -100 signal.txt >short.txt
expect_refusal "number of values in breathing signal file short.txt is 100. expected 180" out2.txt \
  "$bin/cbct-signal" --input-signal short.txt -g body.xml -o out2.txt
"$bin/cbct-simulate" --nproj 60 --detector-size 32 --detector-spacing 8 --phantom body.txt -g still.xml -o still.mha
printf '1\n2\n1\n2\n1\n2\n1\n2\n1\n2\n' >flat.txt # period 2: below the 3 projections a cycle needs
expect_refusal "number of samples of the breathing signal is 10. expected more than 12" out3.txt \
  "$bin/cbct-signal" --input-signal flat.txt -o out3.txt
expect_refusal "--projections is 180 projections. expected 60, the number in --geometry still.xml" out4.txt \
  "$bin/cbct-signal" --projections body.mha -g still.xml -o out4.txt
expect_refusal "--geometry is required with projections" out5.txt "$bin/cbct-signal" --projections body.mha -o out5.txt
expect_refusal "--phase-zero is 'middle'. expected minima or maxima" out6.txt \
  "$bin/cbct-signal" --projections body.mha -g body.xml -o out6.txt --phase-zero middle
expect_refusal "give one or the other" out7.txt "$bin/cbct-signal" --input-signal signal.txt --projections body.mha -o out7.txt
echo "PASS"
