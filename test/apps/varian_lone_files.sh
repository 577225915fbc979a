#!/usr/bin/env bash
# A lone Varian projection, opened as a user opens the one file they have: a TrueBeam XIM and an OBI HND
# (the header fields of a real half-fan OBI projection: dSAD 100 cm, dSFD 99999999 for unknown,
# dIDUPosVrt -50 cm, dIDUPosLat 148 mm), each alone in its folder, written by cbctWriteScan.
#   cbct-import --raw: no air scan needed; exactly the stored readings; the geometry in mm (the HND:
#   SID 1000, SDD 1500, ProjectionOffsetX +148, as RTK adds ProjectionInfo.xml's DetectorPosLat); the
#   summary says the numbers the geometry file holds. Without --raw, --air-fallback reads them.
# With "refusals" (label badinput): line integrals without an air scan are refused, the message naming
# what was looked for and the command line's ways out (--air-fallback, --air-fallback-i0, --raw); a
# placeholder or a shift in the wrong unit is refused, nothing written.
# Usage: varian_lone_files.sh BINDIR WORKDIR [refusals]
set -eu
bin=$1
work=$2
mode=${3:-all}
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work" # removed when the test ends

expect_line() { # FILE PATTERN
  if ! grep -q -- "$2" "$1"; then
    echo "FAIL: '$2' not in:"
    cat "$1"
    exit 1
  fi
}
# The value of ELEMENT in the first <Projection> of an RTK geometry file.
xml_value() { # FILE ELEMENT
  sed -n "s:.*<$2>\([^<]*\)</$2>.*:\1:p" "$1" | head -1
}
# Two numbers equal to within 0.05 (the summary prints one decimal).
same_number() { # WHAT SUMMARY GEOMETRY
  if ! awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; exit !(d < 0.05 && d > -0.05) }'; then
    echo "FAIL: $1: the summary says '$2', the geometry written holds '$3'"
    exit 1
  fi
}

"$bin/cbctWriteScan" varian-lone lone

if [ "$mode" = refusals ]; then
  echo "== line integrals of a lone file without its air scan: refused, naming the ways out"
  for file in lone/xim/Proj_00042.xim lone/hnd/Proj_00117.hnd; do
    "$here/expect_error.sh" cbct-import \
      "no air scan: looked for .*lone/(xim|hnd)/Calibrations/AIR-\*.*add --air-fallback.*--air-fallback-i0 I0.*or --raw" \
      --absent li.mha --absent li.xml -- "$bin/cbct-import" "$file" -o li.mha -g li.xml
  done
  echo "== a placeholder where a distance must be: refused, naming the field"
  "$bin/cbctWriteScan" varian-lone sad dSAD=99999999
  "$here/expect_error.sh" cbct-import "dSAD is 99999999 \(Varian's mark for unknown\); expected the source-to-isocenter distance in cm" \
    --absent r.mha --absent r.xml -- "$bin/cbct-import" sad/hnd/Proj_00117.hnd --raw -o r.mha -g r.xml
  "$bin/cbctWriteScan" varian-lone sdd dIDUPosVrt=0 dSFD=99999999
  "$here/expect_error.sh" cbct-import "no source-to-detector distance: header fields dIDUPosVrt is 0 and dSFD is 99999999" \
    --absent r.mha --absent r.xml -- "$bin/cbct-import" sdd/hnd/Proj_00117.hnd --raw -o r.mha -g r.xml
  echo "== a distance in another unit (dSAD in mm: 10 m): refused"
  "$bin/cbctWriteScan" varian-lone mm dSAD=1000
  "$here/expect_error.sh" cbct-import "source-to-isocenter distance 10000 mm \(10 x dSAD 1000 cm\); expected 500 to 2000 mm" \
    --absent r.mha --absent r.xml -- "$bin/cbct-import" mm/hnd/Proj_00117.hnd --raw -o r.mha -g r.xml
  echo "== a lateral shift ten times too large (1480 mm): the detector misses the rotation axis, refused"
  "$bin/cbctWriteScan" varian-lone far dIDUPosLat=1480
  "$here/expect_error.sh" cbct-import "the detector misses the rotation axis" \
    --absent r.mha --absent r.xml -- "$bin/cbct-import" far/hnd/Proj_00117.hnd --raw -o r.mha -g r.xml
  echo "varian lone files, refusals: OK"
  exit 0
fi

echo "== --raw on a lone XIM: no air scan needed, the readings as stored"
"$bin/cbct-import" --raw lone/xim/Proj_00042.xim -o xim-raw.mha -g xim.xml --verbose | tee xim.log
expect_line xim.log "^cbct-import: Varian TrueBeam/ProBeam (XIM) from lone/xim/Proj_00042.xim"
expect_line xim.log "^cbct-import: log: Air scan: none found .*the readings as stored need none"
expect_line xim.log "^cbct-import: wrote xim-raw.mha (raw readings, "
"$bin/cbct-compare" -i xim-raw.mha --reference lone/xim/expected.mha | tee xim-compare.log
expect_line xim-compare.log "^whole volume.* MAE 0,"

echo "== --raw on a lone HND (a real half-fan OBI header): the readings as stored, the geometry in mm"
"$bin/cbct-import" --raw lone/hnd/Proj_00117.hnd -o hnd-raw.mha -g hnd.xml --verbose | tee hnd.log
expect_line hnd.log "^cbct-import: Varian OBI (HND) from lone/hnd/Proj_00117.hnd"
expect_line hnd.log "^cbct-import: wrote hnd-raw.mha (raw readings, unsigned_int)"
"$bin/cbct-compare" -i hnd-raw.mha --reference lone/hnd/expected.mha | tee hnd-compare.log
expect_line hnd-compare.log "^whole volume.* MAE 0,"
# 10 x dSAD 100 cm; 10 x (dSAD + |dIDUPosVrt| 50 cm) (dSFD is unknown); dIDUPosLat 148 mm, sign kept.
[ "$(xml_value hnd.xml SourceToIsocenterDistance)" = 1000 ] || { echo "FAIL: SID"; cat hnd.xml; exit 1; }
[ "$(xml_value hnd.xml SourceToDetectorDistance)" = 1500 ] || { echo "FAIL: SDD"; cat hnd.xml; exit 1; }
[ "$(xml_value hnd.xml ProjectionOffsetX)" = 148 ] || { echo "FAIL: ProjectionOffsetX"; cat hnd.xml; exit 1; }

echo "== the summary says what the geometry written holds"
for name in xim hnd; do
  summary=$(sed -n 's/^cbct-import: source to isocenter \([-0-9.]*\) mm, source to detector \([-0-9.]*\) mm$/\1 \2/p' "$name.log")
  [ -n "$summary" ] || { echo "FAIL: no distances in the summary"; cat "$name.log"; exit 1; }
  same_number "$name SID" "${summary% *}" "$(xml_value "$name.xml" SourceToIsocenterDistance)"
  same_number "$name SDD" "${summary#* }" "$(xml_value "$name.xml" SourceToDetectorDistance)"
  offset=$(sed -n 's/.*projection offset X \([-0-9.]*\) mm against.*/\1/p' "$name.log")
  same_number "$name ProjectionOffsetX" "$offset" "$(xml_value "$name.xml" ProjectionOffsetX)"
  # A half fan that reaches the axis: the detector's reach on its near side is small but not below 0.
  expect_line "$name.log" "^cbct-import: half fan (offset detector): the detector reaches [0-9]"
done
expect_line xim.log "^cbct-import: source to isocenter 1000.0 mm, source to detector 1500.0 mm$"
expect_line xim.log "projection offset X -160.0 mm"
expect_line hnd.log "^cbct-import: source to isocenter 1000.0 mm, source to detector 1500.0 mm$"
expect_line hnd.log "projection offset X 148.0 mm"

echo "== line integrals of the lone HND with --air-fallback: the same geometry"
"$bin/cbct-import" lone/hnd/Proj_00117.hnd --air-fallback -o hnd-li.mha -g hnd-li.xml | tee hnd-li.log
cmp hnd-li.xml hnd.xml
echo "varian lone files: OK"
