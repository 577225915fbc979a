#!/usr/bin/env bash
# A newcomer's first command: each iterative app with nothing but its inputs and grid
# gives a good volume from a few-view scan. cbct-simulate (20 views, 64 x 64 pixels of 3 mm) -> each
# app with its defaults on 40^3 voxels of 3.2 mm -> cbct-compare (central MAE). Fails if a default
# regresses: every method within 1.3x of the MAE measured when the defaults were chosen
# (docs/guide/choosing-a-method.md: SART 0.026, CGLS 0.099, MLEM 0.045, ASD-POCS 0.021, ADMM-TV 0.0156),
# ASD-POCS below SART, ADMM-TV (a total-variation method as it comes) at least 25 % below SART's error
# on this scan and on a second piecewise-constant object without a skull (a cylinder with rods and
# spheres of several contrasts, 24 views), and cbct-admmtv says the alpha and beta it chose.
# Usage: first_run_defaults.sh BINDIR WORKDIR
set -eu
bin=$1
work=$2
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"

"$bin/cbct-simulate" --nproj 20 --detector-size 64 --detector-spacing 3 --phantom shepplogan --phantom-scale 60 \
  -g g.xml -o p.mha >/dev/null
grid=(-g g.xml --projections p.mha --dimension 40 --spacing 3.2 --hardware cpu)
status=0
declare -A mae
phantom=shepplogan
measure() { # NAME APP [OPTIONS...]: the central MAE into mae[NAME]
  local name=$1 app=$2
  shift 2
  "$bin/$app" "${grid[@]}" "$@" -o "$name.mha" >"$name.log"
  mae[$name]=$("$bin/cbct-compare" -i "$name.mha" --phantom "$phantom" | sed -n 's/^central region.* MAE \([^,]*\),.*/\1/p')
  awk -v m="${mae[$name]}" 'BEGIN { exit !(m ~ /^[0-9.eE+-]+$/) }' || {
    echo "FAIL: $name: no MAE read ('${mae[$name]}')"
    exit 1
  }
  echo "$name: central MAE ${mae[$name]}"
}
below() { # LABEL VALUE BOUND
  if awk -v v="$2" -v b="$3" 'BEGIN { exit !(v + 0 < b + 0) }'; then
    echo "  $1: $2 < $3"
  else
    echo "FAIL: $1: $2 is not below $3"
    status=1
  fi
}

measure sart cbct-sart
measure cgls cbct-cgls
measure mlem cbct-osem
measure asdpocs cbct-asdpocs
measure admmtv cbct-admmtv --verbose
measure sart-unconstrained cbct-sart --no-positivity

below "SART with its defaults" "${mae[sart]}" 0.034
below "CGLS with its defaults" "${mae[cgls]}" 0.129
below "MLEM (cbct-osem) with its defaults" "${mae[mlem]}" 0.059
below "ASD-POCS with its defaults" "${mae[asdpocs]}" 0.027
below "ADMM-TV with its defaults" "${mae[admmtv]}" 0.0203
below "ASD-POCS against SART" "${mae[asdpocs]}" "${mae[sart]}"
three_quarters() { awk -v m="$1" 'BEGIN { print 0.75 * m }'; }
below "ADMM-TV at least 25 % below SART" "${mae[admmtv]}" "$(three_quarters "${mae[sart]}")"
below "ADMM-TV against half of SART without positivity" "${mae[admmtv]}" \
  "$(awk -v m="${mae[sart-unconstrained]}" 'BEGIN { print m / 2 }')"

# A second piecewise-constant object, without Shepp-Logan's thin skull that dominates its error: a
# cylinder of 1 with rods and spheres from -0.6 to +0.8 of contrast, 24 views (SART 0.018, ADMM-TV 0.010
# when the defaults were chosen).
cat >inserts.txt <<'EOF'
cylinder 1.0   0 0 0   50 45 50
cylinder 0.5   25 0 0   8 40 8
cylinder -0.4  -25 0 0   8 40 8
cylinder 0.25  0 0 25   6 40 6
ellipsoid 0.8  0 0 -25  7 7 7
ellipsoid -0.6 0 10 0   10 15 12
ellipsoid 0.15 18 -20 -18  9 9 9
EOF
"$bin/cbct-simulate" --nproj 24 --detector-size 64 --detector-spacing 3 --phantom inserts.txt -g g2.xml -o p2.mha >/dev/null
grid=(-g g2.xml --projections p2.mha --dimension 40 --spacing 3.2 --hardware cpu)
phantom=inserts.txt
measure sart-inserts cbct-sart
measure admmtv-inserts cbct-admmtv
below "ADMM-TV at least 25 % below SART (inserts)" "${mae[admmtv-inserts]}" "$(three_quarters "${mae[sart-inserts]}")"

grep -E -q "^cbct-admmtv: ADMM-TV: alpha [0-9.e+]+ \(auto\), beta [0-9.e+]+ \(auto\), 2 CG steps, positivity" admmtv.log || {
  echo "FAIL: cbct-admmtv --verbose did not say the alpha and beta it chose"
  cat admmtv.log
  status=1
}
grep -a -q "^ConeBeamCT_Method = ADMM-TV (alpha .* (auto), beta .* (auto), 2 CG steps, positivity)$" admmtv.mha || {
  echo "FAIL: admmtv.mha's provenance lacks the chosen alpha and beta"
  status=1
}
[ $status -eq 0 ] && echo "first-run defaults: all checks passed"
exit $status
