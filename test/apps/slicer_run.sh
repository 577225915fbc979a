#!/usr/bin/env bash
# The apps as 3D Slicer runs them: cbct-compare's --returnparameterfile, and progress reported in
# Slicer's form on stdout (--processinformationaddress for cbct-compare, CBCT_PROGRESS=slicer for
# cbct-fdk), checked by slicer_check.py.
# Usage: slicer_run.sh BINDIR WORKDIR PYTHON CHECK_SCRIPT
set -eu
bin=$1
work=$2
python=$3
check=$4
mkdir -p "$work"
cd "$work"
rm -f returns.txt compare.out fdk.out
"$bin/cbct-simulate" --nproj 20 --detector-size 32 --detector-spacing 8 --phantom-scale 60 -g g.xml -o p.mha
CBCT_PROGRESS=slicer "$bin/cbct-fdk" -g g.xml --projections p.mha -o v.mha --dimension 16 --spacing 8 --divisions 2 >fdk.out
"$bin/cbct-compare" -i v.mha --returnparameterfile returns.txt --processinformationaddress 0 >compare.out
cat returns.txt
status=0
"$python" "$check" returns "$bin/cbct-compare" returns.txt || status=1
"$python" "$check" progress compare.out || status=1
"$python" "$check" progress fdk.out || status=1
# Outside Slicer (no terminal, no address): no Slicer lines on stdout.
env -u SLICER_HOME -u CBCT_PROGRESS "$bin/cbct-compare" -i v.mha >plain.out
if grep -q "<filter-" plain.out; then
  echo "FAIL: <filter-...> lines on stdout outside Slicer"
  status=1
fi
exit $status
