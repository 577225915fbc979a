#!/usr/bin/env bash
# scripts/plot-bench.py on cbct-bench JSON lines and scripts/plot-profile.py on cbct-compare
# --profile's CSV: a PNG when matplotlib is there, else the message saying it is missing (exit 3).
# Usage: plot_check.sh BINDIR WORKDIR PYTHON SCRIPTSDIR
set -u
bin=$1
work=$2
python=$3
scripts=$4
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"
status=0

# PLOT_RESULT NAME RC OUTPUT PNG: checks one script's outcome.
plot_result() {
  local name=$1 rc=$2 output=$3 png=$4
  echo "$output"
  if [ "$rc" -eq 0 ]; then
    if [ "$(head -c 8 "$png" | od -An -c | tr -d ' ')" != '211PNG\r\n032\n' ]; then
      echo "FAIL: $name exited with 0 but $png is no PNG file"
      status=1
    else
      echo "$name: $png written ($(stat -c %s "$png") bytes)"
    fi
  elif [ "$rc" -eq 3 ] && echo "$output" | grep -q "matplotlib is not installed"; then
    echo "$name: no matplotlib for $python; the message says so"
  else
    echo "FAIL: $name exited with $rc"
    status=1
  fi
}

cat >bench.jsonl <<'JSON'
== cbct-bench log lines are skipped
{"problem":"S","hardware":"cpu","device":"test","run":"1","volume":512,"projections":360,"detector":[512,512],"total_s":60.1,"upload_s":0,"weighting_s":0.8,"filtering_s":3.1,"backprojection_s":55.9,"download_s":0,"gups":1.2}
{"problem":"S","hardware":"cpu","device":"test","run":"2","volume":512,"projections":360,"detector":[512,512],"total_s":62.3,"upload_s":0,"weighting_s":0.9,"filtering_s":3.0,"backprojection_s":57.8,"download_s":0,"gups":1.2}
{"problem":"S","hardware":"cuda","device":"test GPU","run":"median","volume":512,"projections":360,"detector":[512,512],"total_s":0.128,"upload_s":0.0578,"weighting_s":0.0052,"filtering_s":0.0073,"backprojection_s":0.0563,"download_s":0.0514,"gups":858.0}
JSON
out=$("$python" "$scripts/plot-bench.py" bench.jsonl -o bench.png --log 2>&1)
plot_result plot-bench.py $? "$out" bench.png

"$bin/cbct-simulate" --nproj 30 --detector-size 48 --detector-spacing 4 -g g.xml -o p.mha || exit 1
"$bin/cbct-fdk" -g g.xml --projections p.mha -o v.mha --dimension 32 --spacing 4 || exit 1
"$bin/cbct-compare" -i v.mha --profile profile.csv --profile-y -10 || exit 1
lines=$(grep -c '^-\?[0-9]' profile.csv)
if [ "$lines" -ne 32 ] || ! grep -q '^x_mm,reconstruction,truth$' profile.csv; then
  echo "FAIL: profile.csv has $lines value lines (expected 32) or no header"
  status=1
fi
out=$("$python" "$scripts/plot-profile.py" profile.csv -o profile.png 2>&1)
plot_result plot-profile.py $? "$out" profile.png
exit $status
