#!/usr/bin/env bash
# A reconstruction larger than memory, timed and measured against the same one without a budget:
# simulated 16-bit readings on disk, cbct-fdk without --memory (the machine's free memory as the
# budget: in memory when everything fits there) and within --memory, each's wall time and peak resident
# memory (/usr/bin/time -v), and whether the two volumes are the same bit for bit (the .raw data of
# .mhd outputs, compared by checksum so that only one volume is on disk at a time).
#
#   benchmarks/memory-budget.sh [--problem local|L|4k] [--memory SIZE] [--hardware cpu|cuda] [--work DIR]
#                               [--bin DIR] [--keep]
#
# Problems: local (the 2-core machine's target: 1024^3 from 720 x 1024^2 readings, --memory 1G),
# L (2048^3 from 1200 x 2048^2, --memory 8G: 9.4 GB of readings and a 32 GB volume on disk, so the
# GPU machine's kind with 128 GB of disk), 4k (4096^3 from 2400 x 4096^2: 80 GB of readings, 256 GB of
# volume; for the scaling estimate, where a disk allows). One JSON line per run; the inputs and
# outputs are deleted afterwards unless --keep.
set -euo pipefail
problem=local memory= hardware=cpu work=/tmp/cbct-memory-budget bin= keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --problem) problem=$2; shift 2 ;;
    --memory) memory=$2; shift 2 ;;
    --hardware) hardware=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "usage: $0 [--problem local|L|4k] [--memory SIZE] [--hardware cpu|cuda] [--work DIR] [--bin DIR] [--keep]" >&2
       exit 2 ;;
  esac
done
bin=${bin:-$(cd "$(dirname "$0")/.." && pwd)/build/bin}
case "$problem" in
  local) n=720 detector=1024 pixel=0.4 volume=1024 voxel=0.25 default=1G ;;
  L) n=1200 detector=2048 pixel=0.2 volume=2048 voxel=0.125 default=8G ;;
  4k) n=2400 detector=4096 pixel=0.1 volume=4096 voxel=0.0625 default=8G ;;
  *) echo "$0: --problem is '$problem'; expected local, L or 4k" >&2; exit 2 ;;
esac
memory=${memory:-$default}
mkdir -p "$work"
cd "$work"
[ "$keep" = 1 ] || trap 'rm -f "$work"/readings.mha "$work"/volume.mhd "$work"/volume.raw "$work"/geometry.xml' EXIT

# Readings as a detector writes them (I0 20000 through air), written once; the simulation itself holds
# the stack in memory (run it where that fits).
if [ ! -f readings.mha ]; then
  "$bin/cbct-simulate" --nproj $n --detector-size $detector --detector-spacing $pixel --sid 1000 --sdd 1500 \
    --phantom-scale $(awk "BEGIN { print $volume * $voxel * 0.45 }") --i0 20000 -g geometry.xml -o readings.mha
fi
grid=(--dimension $volume --spacing $voxel --hardware "$hardware")

run() { # LABEL EXTRA-OPTIONS...: one JSON line; the volume's checksum in $sum
  local label=$1
  shift
  rm -f volume.mhd volume.raw
  /usr/bin/time -v "$bin/cbct-fdk" -g geometry.xml --projections readings.mha --i0 20000 "${grid[@]}" "$@" \
    -o volume.mhd --verbose >"$label.log" 2>"$label.time"
  local seconds peak load
  seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + t[i]; print s }' "$label.time")
  peak=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$label.time")
  load=$(cut -d' ' -f1 /proc/loadavg)
  sum=$(sha256sum volume.raw | cut -c1-16)
  printf '{"problem": "%s", "hardware": "%s", "run": "%s", "wall_s": %s, "peak_rss_kb": %s, "load": %s, "raw_sha256": "%s"}\n' \
    "$problem" "$hardware" "$label" "$seconds" "$peak" "$load" "$sum"
}

run default # no --memory: the budget is what the machine has free (in memory when everything fits there)
whole=$sum
run budget --memory "$memory"
[ "$sum" = "$whole" ] && echo '{"same_volume_bit_for_bit": true}' || echo '{"same_volume_bit_for_bit": false}'
grep -h "memory budget\|peak resident" budget.log || true
