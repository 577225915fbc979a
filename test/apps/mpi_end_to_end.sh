#!/usr/bin/env bash
# Several processes through MPI (mpirun -np N --oversubscribe, on the CPU): cbct-fdk's slabs written
# into one file equal the one-process volume bit for bit (also from 16-bit readings preprocessed on
# the way in); a rank with bad input, or a rank killed
# mid-way, ends the whole job with an error and no output file (a previous one stays unchanged).
# Usage: mpi_end_to_end.sh BINDIR WORKDIR MPIEXEC
set -eu
bin=$1
work=$2
mpiexec=$3
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"
# CI runs as root, which Open MPI refuses unless told; Open MPI may also probe for network interfaces
# and shared memory a container lacks: keep to the loopback and the local transports.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_rmaps_base_oversubscribe=1
mpirun=("$mpiexec" --oversubscribe)

fail() {
  echo "FAIL: $*"
  exit 1
}

detector=(--detector-size 128 --detector-spacing 1.6 --sid 1000 --sdd 1500 --source-offset-y 10 --proj-offset-x 6)
grid=(--dimension 96,90,80 --spacing 1.2 --hardware cpu)
"$bin/cbct-simulate" "${detector[@]}" --nproj 90 -g g.xml -o p.mha
"$bin/cbct-simulate" --nproj 12 --detector-size 128 --detector-spacing 1.6 -g g12.xml -o p12.mha

echo "== cbct-fdk: one process, then 2 and 3 ranks (each reads its band of detector rows)"
"$bin/cbct-fdk" -g g.xml --projections p.mha "${grid[@]}" -o single.mha
for n in 2 3; do
  "${mpirun[@]}" -np $n "$bin/cbct-fdk" -g g.xml --projections p.mha "${grid[@]}" -o mpi$n.mha --verbose
  cmp single.mha mpi$n.mha || fail "cbct-fdk with $n ranks differs from one process"
done
echo "  2 and 3 ranks: bit for bit the one-process volume"
echo "== the same from a series of 2D-slice files read with --path/--regexp, .nrrd out"
mkdir -p series
"$bin/cbct-simulate" "${detector[@]}" --nproj 45 --arc 180 -g series/a.xml -o series/p_0.mha
"$bin/cbct-simulate" "${detector[@]}" --nproj 45 --arc 180 --first-angle 180 -g series/b.xml -o series/p_1.mha
"$bin/cbct-fdk" -g g.xml --path series --regexp 'p_[0-9]\.mha$' "${grid[@]}" -o series-single.nrrd
"${mpirun[@]}" -np 2 "$bin/cbct-fdk" -g g.xml --path series --regexp 'p_[0-9]\.mha$' "${grid[@]}" -o series-mpi.nrrd
cmp series-single.nrrd series-mpi.nrrd || fail "cbct-fdk of a series with 2 ranks differs from one process"

echo "== 16-bit readings preprocessed on the way in: each rank reads the files' rows its band needs"
"$bin/cbct-simulate" "${detector[@]}" --nproj 90 --phantom-density 0.02 --i0 20000 --idark 100 --poisson --seed 3 \
  -g gc.xml -o counts.mha
# Row-local steps (I0 given, crop, median across rows, binning): each rank reads a band of rows.
local_steps=(--i0 20000 --idark 100 --lowercrop 3,5 --uppercrop 2,4 --radius 1,1 --multiplier 2 --binning 2,2)
# Steps over whole projections (I0 from the air, Hann along v) with --pad: every rank reads every row.
whole_steps=(--idark 100 --airthres 15000 --pad 0.3 --hannY 0.8 --wpc 0,1,0.05)
for case in local whole; do
  if [ $case = local ]; then steps=("${local_steps[@]}"); else steps=("${whole_steps[@]}"); fi
  "$bin/cbct-fdk" -g gc.xml --projections counts.mha "${steps[@]}" "${grid[@]}" -o pre-$case-single.mha
  "${mpirun[@]}" -np 3 "$bin/cbct-fdk" -g gc.xml --projections counts.mha "${steps[@]}" "${grid[@]}" \
    -o pre-$case-mpi.mha --verbose >pre-$case.log
  cmp pre-$case-single.mha pre-$case-mpi.mha || fail "cbct-fdk with preprocessing ($case) and 3 ranks differs from one process"
  grep -q "preprocessing: .*rows \[" pre-$case.log || { cat pre-$case.log; fail "no rank said which rows it read ($case)"; }
done
# In the row-local case a rank reads fewer than the 119 rows left after cropping (59 after binning).
grep -Eq "rows \[[0-9]+, [0-9]+\) from the files' rows \[[0-9]+, [0-9]+\)" pre-local.log || fail "no band of rows read"
awk 'match($0, /from the files. rows \[[0-9]+, [0-9]+\)/) { split(substr($0, RSTART, RLENGTH), a, /[\[,)]/); if (a[3] - a[2] < 119) band = 1 }
     END { exit !band }' pre-local.log || { cat pre-local.log; fail "every rank read all 119 cropped rows in the row-local case"; }
echo "  row-local and whole-projection preprocessing with 3 ranks: bit for bit the one-process volume"

echo "== cbct-sart (OS-SART), cbct-cgls and cbct-osem: 2 and 3 ranks within 1e-5 of one process"
iterative=(-g g.xml --projections p.mha --dimension 64,60,56 --spacing 1.8 --niterations 2)
same_volume() { # VOLUME REFERENCE LABEL: relative L2 difference <= 1e-5 (a NaN fails)
  local out relative
  out=$("$bin/cbct-compare" -i "$1" --reference "$2")
  relative=$(echo "$out" | sed -n 's/^relative L2 difference from the reference: //p')
  echo "  [$3] relative L2 difference $relative"
  awk -v r="$relative" 'BEGIN { exit !(r ~ /^[0-9.eE+-]+$/ && r + 0 <= 1e-5) }' || fail "$3: relative difference '$relative' above 1e-5"
  awk -v r="$relative" -v f="$1" 'BEGIN { exit !(r + 0 >= 0) }' || fail "$3: no difference read"
}
for app in sart cgls osem; do
  extra=()
  [ $app = sart ] && extra=(--nprojpersubset 10 --lambda 0.8)
  [ $app = osem ] && extra=(--nprojpersubset 15 --bp voxel)
  "$bin/cbct-$app" "${iterative[@]}" "${extra[@]}" -o $app-single.mha
  for n in 2 3; do
    "${mpirun[@]}" -np $n "$bin/cbct-$app" "${iterative[@]}" "${extra[@]}" -o $app-mpi$n.mha
    same_volume $app-mpi$n.mha $app-single.mha "cbct-$app, $n ranks"
  done
done
echo "== cbct-sart --fp raycast under mpirun is refused (its samples depend on the volume's extent)"
set +e
"${mpirun[@]}" -np 2 "$bin/cbct-sart" "${iterative[@]}" --fp raycast -o raycast.mha >raycast.log 2>&1
status=$?
set -e
[ $status -ne 0 ] || fail "cbct-sart --fp raycast under mpirun exited 0"
grep -q "cbct-sart: error: rank 0: --fp is 'raycast'; expected joseph under mpirun" raycast.log || { cat raycast.log; fail "no clear error for --fp raycast"; }
[ ! -e raycast.mha ] || fail "an output was written"
echo "== cbct-asdpocs and cbct-admmtv under mpirun are refused (one process), and --time-limit"
for app in asdpocs admmtv; do
  set +e
  "${mpirun[@]}" -np 2 "$bin/cbct-$app" "${iterative[@]}" -o $app.mha >$app.log 2>&1
  status=$?
  set -e
  [ $status -ne 0 ] || fail "cbct-$app under mpirun exited 0"
  grep -q "cbct-$app: error: rank 0: mpirun: cbct-$app runs in one process" $app.log || { cat $app.log; fail "no clear error for cbct-$app"; }
  [ ! -e $app.mha ] || fail "cbct-$app wrote an output"
done
set +e
"${mpirun[@]}" -np 2 "$bin/cbct-sart" "${iterative[@]}" --time-limit 5 -o limit.mha >limit.log 2>&1
status=$?
set -e
[ $status -ne 0 ] || fail "cbct-sart --time-limit under mpirun exited 0"
grep -q "cbct-sart: error: rank 0: --time-limit is 5; expected 0 under mpirun" limit.log || { cat limit.log; fail "no clear error for --time-limit"; }

echo "== cbct-osem with the emission model (--psf) under mpirun is refused (its slices span the volume it holds)"
set +e
"${mpirun[@]}" -np 2 "$bin/cbct-osem" "${iterative[@]}" --psf 1,0.02 -o emission.mha >emission.log 2>&1
status=$?
set -e
[ $status -ne 0 ] || fail "cbct-osem --psf under mpirun exited 0"
grep -q "cbct-osem: error: rank 0: --fp is 'emission' (from --attenuation or --psf); expected joseph under mpirun: run emission OSEM as one process" emission.log ||
  { cat emission.log; fail "no clear error for emission OSEM under mpirun"; }
[ ! -e emission.mha ] || fail "an output was written"

echo "== bad input on rank 1 (MPMD: its projections do not match the geometry)"
set +e
"${mpirun[@]}" -np 1 "$bin/cbct-fdk" -g g.xml --projections p.mha "${grid[@]}" -o bad.mha : \
  -np 1 "$bin/cbct-fdk" -g g.xml --projections p12.mha "${grid[@]}" -o bad.mha >bad.log 2>&1
status=$?
set -e
cat bad.log
[ $status -ne 0 ] || fail "the job exited 0"
grep -q "^cbct-fdk: error: rank 1: --projections p12.mha with --geometry g.xml: number of projection images is 12; expected the geometry's number of projections (90)$" bad.log ||
  fail "no one-line error naming rank 1"
[ "$(grep -c 'cbct-fdk: error' bad.log)" -eq 1 ] || fail "the error was printed more than once"
[ ! -e bad.mha ] || fail "an output file was written"

echo "== damaged projections under mpirun: NaN in the rows a rank reads, a detector stored flipped"
"$bin/cbct-simulate" --nproj 10 --detector-size 32 --detector-spacing 8 -g g10.xml -o p10.mha
python3 "$(dirname "$0")/make_damaged.py" p10.mha >/dev/null
small=(-g g10.xml --dimension 32 --spacing 8 --hardware cpu) # the volume projects onto every row
for item in "nan.mha:holds non-finite values: [0-9]+ .*expected finite line integrals \\(--replace-nonfinite VALUE replaces them\\)" \
            "reversed.mha:has a negative spacing or a direction other than the identity. expected, under mpirun, a detector stored with positive spacing"; do
  file=${item%%:*}
  pattern=${item#*:}
  set +e
  "${mpirun[@]}" -np 2 "$bin/cbct-fdk" "${small[@]}" --projections "$file" -o damaged.mha >damaged.log 2>&1
  status=$?
  set -e
  [ $status -ne 0 ] || fail "cbct-fdk under mpirun with $file exited 0"
  grep -Eq "^cbct-fdk: error: rank [01]: --projections: (projection file )?$file $pattern" damaged.log ||
    { cat damaged.log; fail "no clear error for $file under mpirun"; }
  [ ! -e damaged.mha ] || fail "an output was written from $file"
done
"${mpirun[@]}" -np 2 "$bin/cbct-fdk" "${small[@]}" --projections nan.mha --replace-nonfinite 0 -o replaced.mha 2>replaced.log
grep -q "replaced the non-finite values of nan.mha by 0" replaced.log || { cat replaced.log; fail "no warning for --replace-nonfinite under mpirun"; }

echo "== a rank killed mid-way (SIGKILL): the previous output stays as it was"
cp single.mha killed.mha
before=$(cksum <killed.mha)
# 400^3 (about 4 s under 2 ranks here): the CPU FDK since 4db28dc finishes 200^3 within the 1 s before the kill.
big=(--dimension 400 --spacing 0.3 --hardware cpu)
set +e
"${mpirun[@]}" -np 1 "$bin/cbct-fdk" -g g.xml --projections p.mha "${big[@]}" -o killed.mha : \
  -np 1 timeout -s KILL 1 "$bin/cbct-fdk" -g g.xml --projections p.mha "${big[@]}" -o killed.mha >killed.log 2>&1
status=$?
set -e
tail -n 5 killed.log
[ $status -ne 0 ] || fail "the job with a killed rank exited 0"
[ "$(cksum <killed.mha)" = "$before" ] || fail "the previous output was changed"
! ls -a | grep -q "partial" || fail "a partial file was left behind: $(ls -a | grep partial)"
echo "mpi end to end: OK"
