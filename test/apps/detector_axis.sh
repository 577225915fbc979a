#!/usr/bin/env bash
# cbct-fdk refuses a detector that misses the rotation axis: a MetaImage whose
# ElementSpacing alone was negated (ITK reads it as the u axis flipped about the first pixel: a detector
# from -118.75 to -356.25 mm, wholly beside the axis; was MAE 0.34 with exit status 0), a detector put
# beside the axis by --new-origin or by the header's Offset, and a half fan two pixels short of the
# axis; each with exit status 1, one error line naming the option, the detector's extent, where the
# axis projects, the reach and the likely cause, and no output. Still accepted: the same stack stored
# reversed with a negative spacing and its origin at the far end (the same volume), half fans that
# reach the axis or stop at it; cbct-sart only warns (an iterative method fits the rays measured).
# 90 views of 96 x 96 pixels of 2.5 mm, 48^3 voxels of 2.5 mm.
# With MPIEXEC, cbct-fdk under mpirun (2 ranks, which check the headers' layout before reading rows)
# refuses the --new-origin case and reconstructs the 80 mm half fan as one process does, byte for byte.
# Usage: detector_axis.sh BINDIR WORKDIR [MPIEXEC]
set -eu
bin=$1
work=$2
mpiexec=${3:-}
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"

scan=(--nproj 90 --detector-size 96 --detector-spacing 2.5 --sid 1000 --sdd 1500)
grid=(--dimension 48 --spacing 2.5)

expect_line() { # FILE TEXT
  if ! grep -qF -- "$2" "$1"; then
    echo "FAIL: '$2' not in:"
    cat "$1"
    exit 1
  fi
}

# refused NAME TEXT... -- ARGUMENTS: cbct-fdk ARGUMENTS -o NAME-fdk.mha fails with status 1, one line of
# stderr "cbct-fdk: error: ..." holding every TEXT, and no NAME-fdk.mha.
refused() {
  local name=$1
  shift
  local texts=()
  while [ "$1" != "--" ]; do
    texts+=("$1")
    shift
  done
  shift
  local status=0
  "$bin/cbct-fdk" "$@" "${grid[@]}" -o "$name-fdk.mha" 2>"$name.err" >"$name.out" || status=$?
  echo "  $(grep 'error:' "$name.err" || true)"
  [ "$status" -eq 1 ] || { echo "FAIL: $name: exit status $status, expected 1"; cat "$name.err"; exit 1; }
  [ "$(grep -c 'cbct-fdk: error: ' "$name.err")" -eq 1 ] || { echo "FAIL: $name: not one error line"; cat "$name.err"; exit 1; }
  for text in "${texts[@]}"; do
    expect_line "$name.err" "$text"
  done
  [ ! -e "$name-fdk.mha" ] || { echo "FAIL: $name: an output was written"; exit 1; }
}

relative_difference() { # VOLUME REFERENCE
  local d
  d=$("$bin/cbct-compare" -i "$1" --reference "$2" | sed -n 's/^relative L2 difference from the reference: //p')
  if ! [[ "$d" =~ ^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; then
    echo "FAIL: no relative difference of $1 from $2 (got '$d')" >&2
    exit 1
  fi
  echo "$d"
}
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

"$bin/cbct-simulate" "${scan[@]}" -g g.xml -o p.mha
"$bin/cbct-fdk" -g g.xml --projections p.mha "${grid[@]}" -o ref.mha

# The stack's header edited (python3: the data are binary): the spacing's sign alone, or the Offset.
python3 - <<'EOF'
import struct
data = open("p.mha", "rb").read()
spacing = b"ElementSpacing = 2.5 2.5 1\n"
offset = b"Offset = -118.75 -118.75 0\n"
assert data.count(spacing) == 1 and data.count(offset) == 1, data[:400]
open("signonly.mha", "wb").write(data.replace(spacing, b"ElementSpacing = -2.5 2.5 1\n"))
open("offset.mha", "wb").write(data.replace(offset, b"Offset = 10 -118.75 0\n"))
# Stored the other way round along u: each row reversed, the first pixel at the far end (+118.75 mm),
# spacing -2.5: the same detector.
header, pixels = data.split(b"ElementDataFile = LOCAL\n")
n = 96
values = struct.unpack("<%df" % (len(pixels) // 4), pixels)
rows = [values[i:i + n][::-1] for i in range(0, len(values), n)]
flipped = struct.pack("<%df" % len(values), *[v for row in rows for v in row])
header = header.replace(spacing, b"ElementSpacing = -2.5 2.5 1\n").replace(offset, b"Offset = 118.75 -118.75 0\n")
open("flipped.mha", "wb").write(header + b"ElementDataFile = LOCAL\n" + flipped)
EOF

echo "== ElementSpacing = -2.5 2.5 1, Offset kept (the spacing's sign alone edited): refused"
refused signonly \
  "cbct-fdk: error: --projections signonly.mha with --geometry g.xml: the detector misses the rotation axis: in projection 0 (gantry angle 0.0 deg) the detector's columns span u = -357.5 to -117.5 mm (outer pixel edges) but the rotation axis projects at u = 0.0 mm" \
  "reach 231.8 mm on the negative side, -78.1 mm on the positive side; negative: not reached" \
  "signonly.mha gives spacing -2.5 x 2.5 mm and origin (-118.75, -118.75) mm: a negative spacing flips the axis about the first pixel" \
  -- -g g.xml --projections signonly.mha

echo "== the same stack stored reversed along u, spacing -2.5, origin at the far end: the same volume"
"$bin/cbct-fdk" -g g.xml --projections flipped.mha "${grid[@]}" -o flipped-fdk.mha
d=$(relative_difference flipped-fdk.mha ref.mha)
echo "  relative difference from the stored-forward volume: $d"
below "$d" 1e-6 || { echo "FAIL: the reversed stack's volume differs by $d"; exit 1; }

echo "== Offset = 10 (first pixel beside the axis): refused, naming the origin"
refused offset "the detector's columns span u = 8.8 to 248.8 mm" \
  "offset.mha gives spacing 2.5 x 2.5 mm and origin (10, -118.75) mm: likely a wrong origin" \
  "a detector centred on the axis has its first pixel at (-118.75, -118.75) mm" \
  -- -g g.xml --projections offset.mha

echo "== --new-origin 10,-118.75: refused, naming --new-origin"
refused neworigin "--new-origin 10,-118.75 put the first pixel at (10, -118.75) mm" -- \
  -g g.xml --projections p.mha --new-origin 10,-118.75

echo "== --path/--regexp: named as such"
mkdir series
cp signonly.mha series/
refused series "cbct-fdk: error: --path series --regexp signonly\.mha with --geometry g.xml" "the detector misses the rotation axis" -- \
  -g g.xml -p series -r 'signonly\.mha'

echo "== half fans: 80 mm (reaches 26.7 mm past the axis) and 120 mm (stops at it) reconstruct"
for offset in 80 120; do
  "$bin/cbct-simulate" "${scan[@]}" --proj-offset-x "$offset" -g "half$offset.xml" -o "half$offset.mha"
  "$bin/cbct-fdk" -g "half$offset.xml" --projections "half$offset.mha" "${grid[@]}" -o "half$offset-fdk.mha"
  [ -s "half$offset-fdk.mha" ] || { echo "FAIL: no volume for the half fan at $offset mm"; exit 1; }
done
d=$(relative_difference half80-fdk.mha ref.mha)
echo "  half fan 80 mm: relative difference from the centred scan's volume $d"
below "$d" 0.2 || { echo "FAIL: the half fan's volume differs by $d"; exit 1; }

echo "== half fan 125 mm: two pixels short of the axis, refused"
"$bin/cbct-simulate" "${scan[@]}" --proj-offset-x 125 -g half125.xml -o half125.mha
refused half125 "rotation axis projects at u = -125.0 mm" "reach -3.3 mm on the negative side" -- \
  -g half125.xml --projections half125.mha

if [ -n "$mpiexec" ]; then
  echo "== under mpirun, 2 ranks: --new-origin 10,-118.75 refused, the 80 mm half fan as one process"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # as mpi_end_to_end.sh: CI runs as root
  export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_rmaps_base_oversubscribe=1
  status=0
  "$mpiexec" --oversubscribe -np 2 "$bin/cbct-fdk" -g g.xml --projections p.mha --new-origin 10,-118.75 "${grid[@]}" \
    -o mpi-neworigin.mha 2>mpi-neworigin.err || status=$?
  [ "$status" -ne 0 ] || { echo "FAIL: under mpirun, a detector beside the axis was reconstructed"; exit 1; }
  expect_line mpi-neworigin.err "cbct-fdk: error: rank 0: --projections p.mha with --geometry g.xml: the detector misses the rotation axis"
  expect_line mpi-neworigin.err "--new-origin 10,-118.75 put the first pixel at (10, -118.75) mm"
  [ ! -e mpi-neworigin.mha ] || { echo "FAIL: under mpirun, an output was written"; exit 1; }
  "$mpiexec" --oversubscribe -np 2 "$bin/cbct-fdk" -g half80.xml --projections half80.mha "${grid[@]}" -o mpi-half80.mha
  cmp half80-fdk.mha mpi-half80.mha || { echo "FAIL: the half fan under mpirun differs from one process"; exit 1; }
fi

echo "== cbct-sart: a warning, and a volume"
"$bin/cbct-sart" -g g.xml --projections signonly.mha "${grid[@]}" --niterations 1 -o sart.mha 2>sart.err
cat sart.err
expect_line sart.err "cbct-sart: warning: --projections signonly.mha with --geometry g.xml: the detector misses the rotation axis"
expect_line sart.err "reconstructing anyway: an iterative method fits the rays measured"
[ -s sart.mha ] || { echo "FAIL: cbct-sart wrote no volume"; exit 1; }
echo "detector axis: OK"
