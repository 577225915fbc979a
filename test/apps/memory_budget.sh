#!/usr/bin/env bash
# cbct-fdk within a memory budget (--memory): the projections streamed from their files a slab's rows
# and a batch of projections at a time, the volume written slab by slab (.mha, .nhdr, a TIFF stack of
# one file per slice), each bit for bit the in-memory run's volume, and the peak resident memory
# within 1.1 times the budget. From 16-bit readings (converted to line integrals batch by batch) in
# one .mha, and from line integrals in three TIFF files (read whole, one at a time); under mpirun too
# when MPIEXEC is given.
# Usage: memory_budget.sh BINDIR WORKDIR [MPIEXEC]
set -eu
bin=$1
work=$2
mpiexec=${3:-}
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work" # removed when the test ends
mkdir -p series stack

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# 150 projections: two whole batches of 64 and a part; a volume of 5.25 MiB (128 x 96 x 112 voxels of
# 1.5 mm). The budget: what the program itself takes on this machine (its libraries, its threads: the
# plan says how much) and 16 MiB for the work, less than the in-memory run's slabs and projections.
scan=(--nproj 150 --detector-size 160,112 --detector-spacing 2 --sid 1000 --sdd 1500)
grid=(--dimension 128,96,112 --spacing 1.5)

# Runs cbct-fdk with ARGS and --verbose into LOG; checks the peak resident memory it reports.
within_budget() {
  local log=$1
  shift
  "$bin/cbct-fdk" "$@" --memory $budget --verbose >"$log" 2>&1 || { cat "$log"; fail "cbct-fdk $* failed"; }
  grep -q "slabs of" "$log" || { cat "$log"; fail "no plan of several slabs in $log"; }
  grep -q "in batches of 64 of the 150 projections" "$log" || { cat "$log"; fail "no batches of projections in $log"; }
  local peak
  peak=$(sed -n 's/.*peak resident memory .* (\([0-9]*\) kB).*/\1/p' "$log")
  [ -n "$peak" ] || { cat "$log"; fail "no peak resident memory in $log"; }
  echo "$log: peak resident memory $peak kB of the $budget_kb kB budget"
  [ "$peak" -le $((budget_kb * 11 / 10)) ] || { cat "$log"; fail "$log: peak $peak kB above 1.1 x $budget_kb kB"; }
}

echo "== 16-bit readings in one .mha: in memory, then within a budget to .mha, .nhdr and a TIFF stack"
"$bin/cbct-simulate" "${scan[@]}" --i0 20000 -g geometry.xml -o readings.mha
"$bin/cbct-fdk" -g geometry.xml --projections readings.mha --i0 20000 "${grid[@]}" -o roomy.mha --memory 1G --verbose >roomy.log
own=$(sed -n 's/.*), \([0-9.]*\) MiB of it the program.s own.*/\1/p' roomy.log)
[ -n "$own" ] || { cat roomy.log; fail "the plan does not say what the program itself takes"; }
budget_mb=$(awk "BEGIN { print int($own) + 1 + 16 }")
budget=${budget_mb}M
budget_kb=$((budget_mb * 1024))
echo "the program takes $own MiB: a budget of $budget"
"$bin/cbct-fdk" -g geometry.xml --projections readings.mha --i0 20000 "${grid[@]}" -o reference.mha
"$bin/cbctSameVoxels" reference.mha roomy.mha || fail "the streamed volume of one slab differs from the in-memory one"
within_budget mha.log -g geometry.xml --projections readings.mha --i0 20000 "${grid[@]}" -o streamed.mha
"$bin/cbctSameVoxels" reference.mha streamed.mha || fail "the streamed .mha differs from the in-memory volume"
within_budget nhdr.log -g geometry.xml --projections readings.mha --i0 20000 "${grid[@]}" -o streamed.nhdr
"$bin/cbctSameVoxels" reference.mha streamed.nhdr || fail "the streamed .nhdr differs from the in-memory volume"
within_budget stack.log -g geometry.xml --projections readings.mha --i0 20000 "${grid[@]}" -o 'stack/slice_%04d.tif'
"$bin/cbctSameVoxels" reference.mha 'stack/slice_%04d.tif' || fail "the TIFF stack differs from the in-memory volume"
[ -f stack/slice_0095.tif ] && [ ! -f stack/slice_0096.tif ] || fail "expected slices 0 to 95 (one per row of y)"
ls -a stack | grep -q partial && fail "a partial folder was left in stack/"

echo "== line integrals in three 3D TIFF files of 50 (TIFF: each file read whole, one at a time)"
for part in 0 1 2; do
  "$bin/cbct-simulate" --nproj 50 --arc 120 --first-angle $((part * 120)) --detector-size 160,112 --detector-spacing 2 \
    --sid 1000 --sdd 1500 -g series/part$part.xml -o series/part$part.tif
done
tif=(-g geometry.xml --path series --regexp 'part[0-9]\.tif$' --new-spacing 2 "${grid[@]}")
"$bin/cbct-fdk" "${tif[@]}" -o reference-lines.mha
within_budget tif.log "${tif[@]}" -o streamed-lines.mhd
grep -q "each file whole, one at a time" tif.log || { cat tif.log; fail "TIFF files were not read whole"; }
"$bin/cbctSameVoxels" reference-lines.mha streamed-lines.mhd || fail "the volume from TIFF files differs"

if [ -n "$mpiexec" ]; then
  echo "== under mpirun: 2 ranks, each within $budget"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_rmaps_base_oversubscribe=1
  "$mpiexec" --oversubscribe -np 2 "$bin/cbct-fdk" -g geometry.xml --projections readings.mha --i0 20000 "${grid[@]}" \
    --memory $budget --verbose -o mpi.mha >mpi.log 2>&1 || { cat mpi.log; fail "cbct-fdk under mpirun failed"; }
  grep -q "rank 1.*in batches of 64 of the 150 projections" mpi.log || { cat mpi.log; fail "no batches under mpirun"; }
  "$bin/cbctSameVoxels" reference.mha mpi.mha || fail "the volume of 2 ranks within a budget differs"
fi
echo "memory budget: every streamed volume is the in-memory one, bit for bit"
