#!/usr/bin/env bash
# Iterative apps end to end: cbct-simulate -> cbct-sart / cbct-cgls / cbct-osem -> cbct-compare on a
# small problem (64^3 voxels of 2 mm from 60 projections of 96 x 96 pixels of 2 mm, Shepp-Logan),
# asserting the central-region MAE and PSNR against the 2x2x2-supersampled phantom; then cbct-forward
# of the SART volume (Joseph's projector and the ray caster), OS-SART with the ray caster, OS-SART and
# OSEM with the voxel-based backprojector (--bp voxel), and cbct-sart again from the SART volume as its
# initial volume (--input).
# Usage: iterative_end_to_end.sh BINDIR WORKDIR
set -eu
bin=$1
work=$2
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"

. "$(dirname "$0")/check_quality.sh"

grid=(--dimension 64 --spacing 2)
"$bin/cbct-simulate" --nproj 60 --detector-size 96 --detector-spacing 2 --sid 1000 --sdd 1500 -g geometry.xml \
  -o projections.mha

# Measured (2 cores): OS-SART 0.0402 / 24.70 dB, CGLS 0.0691 / 24.36 dB, OSEM 0.0242 / 28.18 dB; FDK of
# the same problem scores 0.1016 / 22.21 dB.
echo "== OS-SART, 5 projections per subset, 3 iterations"
"$bin/cbct-sart" -g geometry.xml --projections projections.mha "${grid[@]}" --niterations 3 --nprojpersubset 5 \
  --lambda 0.8 --positivity -o sart.mha --verbose | tee sart.log
grep -q "backprojector: adjoint" sart.log
check_quality sart.mha "sart" 0.05 23.5

echo "== CGLS, 6 iterations"
"$bin/cbct-cgls" -g geometry.xml --projections projections.mha "${grid[@]}" --niterations 6 -o cgls.nii --verbose
check_quality cgls.nii "cgls" 0.08 23.5

echo "== OSEM, 15 projections per subset, 4 iterations"
"$bin/cbct-osem" -g geometry.xml --projections projections.mha "${grid[@]}" --niterations 4 --nprojpersubset 15 \
  -o osem.nrrd --verbose
check_quality osem.nrrd "osem" 0.03 27

echo "== cbct-forward of the SART volume onto the same detector"
"$bin/cbct-forward" -g geometry.xml -i sart.mha --dimension 96 --spacing 2 -o forward.mha --verbose
test -s forward.mha

echo "== the same with the ray caster (--fp raycast, default step: the smallest voxel spacing)"
"$bin/cbct-forward" -g geometry.xml -i sart.mha --dimension 96 --spacing 2 -o forward-raycast.mha --fp raycast \
  --verbose | tee forward-raycast.log
grep -q "projector: ray caster, step 2 mm (the smallest voxel spacing)" forward-raycast.log
test -s forward-raycast.mha
# Another projector: other values.
if cmp -s forward.mha forward-raycast.mha; then
  echo "FAIL: --fp raycast gave the same projections as --fp joseph"
  exit 1
fi

echo "== OS-SART with the ray caster, step 1 mm"
"$bin/cbct-sart" -g geometry.xml --projections projections.mha "${grid[@]}" --niterations 3 --nprojpersubset 5 \
  --lambda 0.8 --positivity --fp raycast --step 1 -o sart-raycast.mha --verbose | tee sart-raycast.log
grep -q "projector: ray caster, step 1 mm" sart-raycast.log
check_quality sart-raycast.mha "sart raycast" 0.05 23.5

# Measured (2 cores): OS-SART 0.0382 / 25.33 dB, OSEM 0.0198 / 29.88 dB with the voxel-based backprojector.
echo "== OS-SART with the voxel-based backprojector (--bp voxel)"
"$bin/cbct-sart" -g geometry.xml --projections projections.mha "${grid[@]}" --niterations 3 --nprojpersubset 5 \
  --lambda 0.8 --positivity --bp voxel -o sart-voxel.mha --verbose | tee sart-voxel.log
grep -q "backprojector: voxel (voxel-based" sart-voxel.log
check_quality sart-voxel.mha "sart --bp voxel" 0.05 23.5
# Another backprojector: other values.
if cmp -s sart.mha sart-voxel.mha; then
  echo "FAIL: --bp voxel gave the same volume as --bp adjoint"
  exit 1
fi

echo "== OSEM with the voxel-based backprojector (--bp voxel)"
"$bin/cbct-osem" -g geometry.xml --projections projections.mha "${grid[@]}" --niterations 4 --nprojpersubset 15 \
  --bp voxel -o osem-voxel.nrrd --verbose | tee osem-voxel.log
grep -q "backprojector: voxel (voxel-based" osem-voxel.log
check_quality osem-voxel.nrrd "osem --bp voxel" 0.03 27

echo "== one more SART iteration from the SART volume (--input): not worse"
"$bin/cbct-sart" -g geometry.xml --projections projections.mha --input sart.mha --niterations 1 --nprojpersubset 5 \
  --lambda 0.8 --positivity -o sart-more.mha
check_quality sart-more.mha "sart --input" 0.045 24
echo "PASS"
