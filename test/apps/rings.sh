#!/usr/bin/env bash
# Ring removal through the apps: cbct-simulate --column-gains makes 16-bit readings whose
# detector has three columns with a gain off by 2-3 % (no noise: a Poisson draw of another mean would
# change every later draw); cbct-fdk --rings sorting and --rings wavelet
# reconstruct them. The rings are what the gain errors change (cbct-compare --reference: the relative
# L2 difference to the same reconstruction of the scan without them); each method must shrink them.
# Usage: rings.sh BINDIR WORKDIR
set -eu
bin=$1
work=$2
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"

expect_below() { # LABEL VALUE LIMIT
  if ! [[ "$2" =~ ^[0-9]+(\.[0-9]+)?([eE]-?[0-9]+)?$ ]] || ! awk -v v="$2" -v l="$3" 'BEGIN { exit !(v < l) }'; then
    echo "FAIL [$1]: $2 (must be a number < $3)"
    exit 1
  fi
  echo "  [$1] $2 < $3"
}
difference() { # VOLUME REFERENCE: the relative L2 difference
  "$bin/cbct-compare" -i "$1" --reference "$2" | sed -n 's/^relative L2 difference from the reference: \(.*\)/\1/p' | head -1
}

scan=(--nproj 120 --detector-size 256,4 --detector-spacing 0.75 --phantom shepplogan --phantom-scale 60
      --phantom-density 0.02 --i0 10000)
grid=(--dimension 256,1,256 --spacing 0.5)
"$bin/cbct-simulate" "${scan[@]}" -g g.xml -o clean.mha
"$bin/cbct-simulate" "${scan[@]}" -g g.xml -o faulty.mha --column-gains 149:0.03,171:-0.03,100:0.02 --verbose |
  tee simulate.log
grep -q "3 detector column(s) with a gain off" simulate.log || { echo "FAIL: no gain errors in the log"; exit 1; }

"$bin/cbct-fdk" -g g.xml --projections clean.mha "${grid[@]}" -o clean-fdk.mha
"$bin/cbct-fdk" -g g.xml --projections faulty.mha "${grid[@]}" -o rings-fdk.mha
rings=$(difference rings-fdk.mha clean-fdk.mha)
echo "  rings without removal: $rings"
for method in sorting wavelet; do
  "$bin/cbct-fdk" -g g.xml --projections clean.mha "${grid[@]}" -o clean-$method.mha --rings $method
  "$bin/cbct-fdk" -g g.xml --projections faulty.mha "${grid[@]}" -o $method.mha --rings $method --verbose | tee $method.log
  grep -q "preprocessing: intensities to line integrals.*ring removal" $method.log ||
    { echo "FAIL: no ring removal in the log"; cat $method.log; exit 1; }
  expect_below "--rings $method: what the gain errors leave, against a third of it without" \
    "$(difference $method.mha clean-$method.mha)" "$(awk -v r="$rings" 'BEGIN { print r / 3 }')"
done
echo "rings: ok"
