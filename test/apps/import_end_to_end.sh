#!/usr/bin/env bash
# A scanner's scan, from its folder to a volume, as a user runs it: cbctWriteScan writes an Elekta XVI 5
# folder (HIS + _Frames.xml) from the exact line integrals of the Shepp-Logan phantom (cbct-simulate on
# XVI's geometry: SID 1000 mm, SDD 1536 mm, 409.6 mm detector), and a Varian TrueBeam half-fan folder
# (Scan.xml, XIM counts, an air scan); cbct-import must say what it found and
# write projections and geometry that reconstruct as the simulation does (the readings are the line
# integrals rounded to 16-bit counts); cbct-fdk --scan and cbct-sart --scan must give the volumes of the
# imported files, bit for bit; --raw keeps the 16-bit readings. A Varian folder without its air scan is
# refused, the message naming --air-fallback, and imported with it. Also the refusals: an output that is a
# file of the scan (left unchanged), --scan with --projections or --geometry.
# Usage: import_end_to_end.sh BINDIR WORKDIR [outputs-are-inputs]
set -eu
bin=$1
work=$2
mode=${3:-all}
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"

expect_line() { # FILE PATTERN
  if ! grep -q -- "$2" "$1"; then
    echo "FAIL: '$2' not in:"
    cat "$1"
    exit 1
  fi
}
expect_error() { # PATTERN COMMAND...: exit status 1 and PATTERN on stderr
  local pattern=$1
  shift
  set +e
  "$@" > stdout.txt 2> stderr.txt
  local rc=$?
  set -e
  if [ "$rc" -ne 1 ] || ! grep -q -- "$pattern" stderr.txt; then
    echo "FAIL: expected exit status 1 and '$pattern' from: $*"
    echo "exit status $rc, stderr:"
    cat stderr.txt
    exit 1
  fi
  echo "refused as expected: $(cat stderr.txt)"
}
# MAE of VOLUME against REFERENCE (whole volume), compared with a bound.
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

"$bin/cbct-simulate" --nproj 72 --sid 1000 --sdd 1536 --detector-size 64 --detector-spacing 6.4 --phantom-scale 80 \
  --phantom-density 0.02 -g sim.xml -o sim.mha
"$bin/cbctWriteScan" elekta sim.mha sim.xml scan/img_1.3.46.423632.test

if [ "$mode" = outputs-are-inputs ]; then
  cp scan/img_1.3.46.423632.test/_Frames.xml frames.copy
  expect_error "--geometry is '.*_Frames.xml', the same file as the INPUT" \
    "$bin/cbct-import" scan/img_1.3.46.423632.test -o out.mha -g scan/img_1.3.46.423632.test/_Frames.xml
  cmp frames.copy scan/img_1.3.46.423632.test/_Frames.xml
  [ ! -e out.mha ] || { echo "FAIL: out.mha written"; exit 1; }
  echo "import outputs-are-inputs: OK"
  exit 0
fi

echo "== cbct-import"
"$bin/cbct-import" scan/img_1.3.46.423632.test -o imported.mha -g imported.xml --verbose | tee import.log
expect_line import.log "^cbct-import: Elekta XVI"
expect_line import.log "^cbct-import: 72 projections, gantry angles 0.0 to 355.0 deg, arc 355.0 deg, increasing angles"
expect_line import.log "^cbct-import: detector 64 x 64 pixels of 6.4 x 6.4 mm (409.6 x 409.6 mm)"
expect_line import.log "^cbct-import: full fan: the detector reaches"
expect_line import.log "^cbct-import: log: "
expect_line import.log "^cbct-import: wrote imported.mha (line integrals, float) and imported.xml"

echo "== a .mha output is written as it is read (mapped in memory): the same image as ITK's writer gives"
"$bin/cbct-import" scan/img_1.3.46.423632.test -o imported.nrrd -g imported-nrrd.xml > /dev/null
mae_below imported.mha imported.nrrd 0
cmp imported-nrrd.xml imported.xml
grep -a -q "^ElementDataFile = LOCAL" imported.mha || { echo "FAIL: imported.mha has no MetaImage header"; exit 1; }

echo "== the imported scan reconstructs as the simulation"
grid=(--dimension 64 --spacing 3)
"$bin/cbct-fdk" -g sim.xml --projections sim.mha "${grid[@]}" -o direct.mha
"$bin/cbct-fdk" -g imported.xml --projections imported.mha "${grid[@]}" -o imported-fdk.mha
mae_below imported-fdk.mha direct.mha 1e-4

echo "== --scan: the same volumes, bit for bit"
"$bin/cbct-fdk" --scan scan/img_1.3.46.423632.test "${grid[@]}" -o scan-fdk.mha --verbose | tee fdk.log
mae_below scan-fdk.mha imported-fdk.mha 0
"$bin/cbct-sart" -g imported.xml --projections imported.mha --dimension 32 --spacing 6 -n 1 -o imported-sart.mha
"$bin/cbct-sart" --scan scan/img_1.3.46.423632.test --dimension 32 --spacing 6 -n 1 -o scan-sart.mha
mae_below scan-sart.mha imported-sart.mha 0

echo "== --raw keeps the readings"
"$bin/cbct-import" scan/img_1.3.46.423632.test -o raw.mha -g raw.xml --raw | tee raw.log
expect_line raw.log "^cbct-import: wrote raw.mha (raw readings, unsigned_short) and raw.xml"
grep -q "ElementType = MET_USHORT" raw.mha || { echo "FAIL: raw.mha is not 16-bit"; exit 1; }
cmp raw.xml imported.xml

echo "== a Varian TrueBeam half-fan scan (Scan.xml, XIM counts, an air scan): half fan said, FDK as the simulation"
"$bin/cbct-simulate" --nproj 90 --sid 1000 --sdd 1500 --detector-size 64 --detector-spacing 6.4 --proj-offset-x 120 \
  --phantom-scale 80 --phantom-density 0.02 -g vsim.xml -o vsim.mha
"$bin/cbctWriteScan" varian vsim.mha vsim.xml varian
"$bin/cbct-import" varian -o vimported.mha -g vimported.xml | tee vimport.log
expect_line vimport.log "^cbct-import: Varian TrueBeam/ProBeam (XIM) from varian"
expect_line vimport.log "^cbct-import: 90 projections, gantry angles 0.0 to 356.0 deg, arc 356.0 deg"
expect_line vimport.log "^cbct-import: half fan (offset detector): the detector reaches 56.4 mm and 211.6 mm"
"$bin/cbct-fdk" -g vsim.xml --projections vsim.mha "${grid[@]}" -o vdirect.mha
"$bin/cbct-fdk" --scan varian "${grid[@]}" -o vscan.mha
mae_below vscan.mha vdirect.mha 1e-4
echo "== the same scan as 90 lone XIM files given one by one: the same projections and geometry"
"$bin/cbct-import" $(for k in $(seq 0 89); do echo varian/Acquisitions/1/Proj_$k.xim; done) -o vlone.mha -g vlone.xml \
  | tee vlone.log
expect_line vlone.log "^cbct-import: 90 scans: Varian TrueBeam/ProBeam (XIM) from varian/Acquisitions/1/Proj_0.xim (and 89 more)"
cmp vlone.mha vimported.mha
cmp vlone.xml vimported.xml

echo "== a Varian scan without Calibrations/ (no air scan): refused, naming --air-fallback; imported with it"
mkdir -p noair
cp -r varian/Scan.xml varian/Acquisitions noair/
expect_error "no air scan: looked for .*noair/Calibrations/AIR-\* for 125 kV, half fan.*--air-fallback" \
  "$bin/cbct-import" noair -o noair.mha -g noair.xml
expect_error "no air scan: .*--air-fallback" "$bin/cbct-fdk" --scan noair "${grid[@]}" -o x.mha
[ ! -e noair.mha ] || { echo "FAIL: noair.mha written"; exit 1; }
# The writer's air is 50000 counts at the projections' one norm-chamber reading: I0 50000 gives the
# air-scan import's line integrals exactly; the brightest reading (the default I0) is the same here.
"$bin/cbct-import" noair -o noair.mha -g noair.xml --air-fallback --air-fallback-i0 50000 --verbose | tee noair.log
expect_line noair.log "^cbct-import: log: Air scan: none found (looked for .*); fallback: I0 50000"
expect_line noair.log "^cbct-import: log: Line integrals = log(I0 / (reading \* mean norm / norm)) with I0 50000"
mae_below noair.mha vimported.mha 1e-6
cmp noair.xml vimported.xml
"$bin/cbct-import" noair -o noair2.mha -g noair2.xml --air_fallback --verbose | tee noair2.log # Slicer's spelling
expect_line noair2.log "fallback: I0 = the stack's brightest reading"
"$bin/cbct-fdk" --scan noair --air-fallback --air-fallback-i0 50000 "${grid[@]}" -o noair-fdk.mha
mae_below noair-fdk.mha vscan.mha 1e-6
expect_error "--air-fallback-i0 without --air-fallback" "$bin/cbct-import" noair -o x.mha -g x.xml --air-fallback-i0 5
expect_error "--air-fallback-i0 is -3; expected a finite I0 >= 0" \
  "$bin/cbct-import" noair -o x.mha -g x.xml --air-fallback --air-fallback-i0 -3
expect_error "--air-fallback without --scan" "$bin/cbct-fdk" -g vsim.xml --projections vsim.mha --air-fallback -o x.mha

echo "== refusals"
expect_error "--scan and --projections/--path/--regexp" \
  "$bin/cbct-fdk" --scan scan/img_1.3.46.423632.test --projections imported.mha -o x.mha
expect_error "--scan and --geometry" "$bin/cbct-fdk" --scan scan/img_1.3.46.423632.test -g imported.xml -o x.mha
expect_error "--geometry is required" "$bin/cbct-fdk" --projections imported.mha -o x.mha
expect_error "--scan is 'nowhere'. expected an existing scan folder or file" "$bin/cbct-fdk" --scan nowhere -o x.mha
expect_error "--output is '.*00001.1.3.46.423632.test.his', the same file as the --scan" \
  "$bin/cbct-sart" --scan scan/img_1.3.46.423632.test -o scan/img_1.3.46.423632.test/00001.1.3.46.423632.test.his
[ ! -e x.mha ] || { echo "FAIL: x.mha written"; exit 1; }
echo "import end to end: OK"
