#!/usr/bin/env bash
# DICOM-CT-PD (the AAPM/Mayo format of diagnostic CT projection data) from files to a volume, as a user
# runs it: cbct-simulate makes a helical scan (pitch 1, 4 turns) of a Shepp-Logan head on a cylindrical
# detector centred on the source, 32 columns x 16 rows, a quarter-pixel detector offset; cbctWriteScan
# writes it as DICOM-CT-PD files (one per view, 16-bit values of step 2^-10) and a README beside them;
# cbct-import must recognise the folder (and --format dicomctpd must read it), say what it found, skip
# the README, and write projections and a geometry that helical FDK reconstructs as the simulation (the
# values rounded to 2^-10: MAE below 1e-4, 9.0e-6 measured); cbct-fdk --scan gives the
# imported files' volume bit for bit. A damaged file in the folder is refused, naming it.
# Usage: dicomctpd_import.sh BINDIR WORKDIR
set -eu
bin=$1
work=$2
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"

expect_line() { # FILE PATTERN
  if ! grep -q -- "$2" "$1"; then
    echo "FAIL: '$2' not in:"
    cat "$1"
    exit 1
  fi
}
mae_below() { # VOLUME REFERENCE BOUND
  local out mae
  out=$("$bin/cbct-compare" -i "$1" --reference "$2")
  mae=$(echo "$out" | sed -n 's/^whole volume.* MAE \([^,]*\),.*/\1/p')
  echo "  $1 vs $2: MAE $mae (bound $3)"
  if ! [[ "$mae" =~ ^[0-9]+(\.[0-9]+)?([eE]-?[0-9]+)?$ ]] || ! awk -v m="$mae" -v b="$3" 'BEGIN { exit !(m <= b) }'; then
    echo "FAIL: $1 against $2: MAE '$mae', must be <= $3"
    echo "$out"
    exit 1
  fi
}

echo "== a helical scan on a cylinder, written as DICOM-CT-PD"
"$bin/cbct-simulate" --phantom shepplogan --phantom-scale 20 --sid 400 --sdd 800 --detector-radius 800 \
  --detector-size 32,16 --detector-spacing 2 --proj-offset-x 0.5 --helical 1 --nproj 192 --arc 1440 \
  -g sim.xml -o sim.mha
"$bin/cbctWriteScan" dicomctpd sim.mha sim.xml scan
echo "not a projection" > scan/README.txt
ls scan | head -3

echo "== cbct-import"
"$bin/cbct-import" scan -o imported.mha -g imported.xml --verbose | tee import.log
expect_line import.log "^cbct-import: DICOM-CT-PD (AAPM/Mayo CT projection data, CYLINDRICAL detector)"
expect_line import.log "^cbct-import: 192 projections"
expect_line import.log "^cbct-import: detector 32 x 16 pixels of 2 x 2 mm"
expect_line import.log "1 files without a DICOM preamble skipped"
expect_line import.log "GantryAngle = -DetectorFocalCenterAngularPosition"
grep -q "RadiusCylindricalDetector" imported.xml || { echo "FAIL: imported.xml has no cylindrical detector"; exit 1; }
"$bin/cbct-import" scan -o forced.mha -g forced.xml --format dicomctpd > /dev/null
cmp forced.xml imported.xml

echo "== the imported scan reconstructs as the simulation (helical FDK)"
grid=(--dimension 24,40,24 --spacing 1.5)
"$bin/cbct-fdk" -g sim.xml --projections sim.mha "${grid[@]}" -o direct.mha
"$bin/cbct-fdk" -g imported.xml --projections imported.mha "${grid[@]}" -o imported-fdk.mha --verbose | tee fdk.log
expect_line fdk.log "helical"
mae_below imported-fdk.mha direct.mha 1e-4

echo "== --scan: the same volume, bit for bit"
"$bin/cbct-fdk" --scan scan "${grid[@]}" -o scan-fdk.mha
mae_below scan-fdk.mha imported-fdk.mha 0

echo "== a file cut short is refused, naming it: inside its pixels, then inside its header (detection"
echo "   looks at the first three DICOM files)"
first=$(ls scan/*.dcm | head -1)
size=$(stat -c %s "$first")
head -c $((size - 100)) "$first" > cut.dcm && mv cut.dcm "$first"
expect_refusal() { # PATTERN
  set +e
  "$bin/cbct-import" scan -o bad.mha -g bad.xml > stdout.txt 2> stderr.txt
  local rc=$?
  set -e
  if [ "$rc" -ne 1 ] || ! grep -q -- "$1" stderr.txt; then
    echo "FAIL: expected exit status 1 and '$1'; status $rc:"
    cat stderr.txt
    exit 1
  fi
  [ ! -e bad.mha ] || { echo "FAIL: bad.mha written"; exit 1; }
  echo "refused as expected: $(cat stderr.txt)"
}
expect_refusal "DICOM file .*000001.dcm is cut short: it ends at byte $((size - 100)), inside Pixel Data (7FE0,0010)"
head -c 300 "$first" > cut.dcm && mv cut.dcm "$first"
expect_refusal "DICOM file .*000001.dcm is cut short: it ends at byte 300"
echo "dicomctpd import: OK"
