#!/usr/bin/env bash
# Few views: the Shepp-Logan head from 30 projections over 360 degrees (256 x 256 pixels of 1 mm,
# SID 1000 mm, SDD 1500 mm) reconstructed on 128^3 voxels of 1 mm by OS-SART, CGLS, ASD-POCS and
# ADMM-TV, each for the same time budget (--time-limit), then the error of each against the
# 2x2x2-supersampled phantom (central region) and an axial slice of each (out/few-views/*.png).
# Prints a Markdown table, and writes one report of all the methods (cbct-compare --report:
# out/few-views/report/index.html, a self-contained page with a row per method, and report.png). Environment: BUDGET (seconds per method, default 120), HARDWARE (cpu or
# cuda, default cpu), NOISE (standard deviation of Gaussian noise added to the line integrals with
# numpy, default 0: none), VIEWS (default 30), BIN (the apps, default build/bin), OUT.
# Runs from any directory; builds nothing (scripts/demo.sh or scripts/test.sh build the apps).
# On the CPU one 128^3 OS-SART iteration takes minutes (148 s on a shared 2-core machine): with a
# budget of 120 s each method gets one iteration, which compares nothing. Run it on a GPU
# (HARDWARE=cuda BUDGET=20), or on the CPU with a budget of tens of minutes.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${BIN:-$root/build/bin}
out=${OUT:-$root/out/few-views}
budget=${BUDGET:-120}
hardware=${HARDWARE:-cpu}
noise=${NOISE:-0}
views=${VIEWS:-30}
mkdir -p "$out"
cd "$out"

"$bin/cbct-simulate" --nproj "$views" --arc 360 --sid 1000 --sdd 1500 --detector-size 256 --detector-spacing 1 \
  --phantom shepplogan --phantom-scale 60 -g geometry.xml -o projections.mha > /dev/null
if [ "$noise" != 0 ]; then
  # Gaussian noise on the line integrals, seed 1 (numpy; MetaImage with the data after the header).
  python3 - "$noise" <<'PYTHON'
import sys
import numpy as np
data = open("projections.mha", "rb").read()
end = data.index(b"ElementDataFile = LOCAL\n") + len(b"ElementDataFile = LOCAL\n")
header, values = data[:end], np.frombuffer(data[end:], dtype="<f4")
noisy = values + np.random.default_rng(1).normal(0.0, float(sys.argv[1]), values.size).astype("<f4")
open("projections.mha", "wb").write(header + noisy.tobytes())
PYTHON
fi

common=(-g geometry.xml --projections projections.mha --dimension 128 --spacing 1 --hardware "$hardware"
        --niterations 100000 --time-limit "$budget" --verbose)
declare -A options=(
  [sart]="--nprojpersubset 5 --lambda 0.8 --positivity"
  [cgls]=""
  [asdpocs]="--nprojpersubset 5 --lambda 0.8 --alpha ${ASD_ALPHA:-0.002} --tviter 20"
  [admmtv]="--alpha ${ADMM_ALPHA:-15} --beta ${ADMM_BETA:-75} --CGiter 3"
)
echo "| method | options | iterations in ${budget} s ($hardware) | MAE | PSNR (dB) |"
echo "|---|---|---|---|---|"
for method in sart cgls asdpocs admmtv; do
  # shellcheck disable=SC2086
  "$bin/cbct-$method" "${common[@]}" ${options[$method]} -o "$method.mha" > "$method.log"
  iterations=$(sed -n "s/^cbct-$method: \([0-9]*\) iterations in .*/\1/p" "$method.log")
  compare=$("$bin/cbct-compare" -i "$method.mha" --phantom shepplogan --phantom-scale 60 --supersampling 2)
  mae=$(echo "$compare" | sed -n 's/^central region.* MAE \([^,]*\),.*/\1/p')
  psnr=$(echo "$compare" | sed -n 's/^central region.* PSNR \([^ ]*\) dB.*/\1/p')
  "$bin/cbct-slices" -i "$method.mha" -o "$method.png" --point 0,-15,0 --min 0.95 --max 1.1 --zoom 2 > /dev/null
  echo "| $method | ${options[$method]:-} | $iterations | $mae | $psnr |"
done
"$bin/cbct-compare" -i sart.mha cgls.mha asdpocs.mha admmtv.mha --phantom shepplogan --phantom-scale 60 \
  --supersampling 2 --profile-y -15 --window 0.95,1.1 --report report > report.log
echo
echo "report of every method: $out/report/index.html (and report.png)"
