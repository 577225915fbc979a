#!/usr/bin/env bash
# Outputs are written beside their place and renamed into place when complete (cbct::AtomicOutput):
# - a writer killed mid-write (SIGKILL; SIGXFSZ from a file-size limit) leaves the previous output
#   byte for byte as it was;
# - SIGTERM mid-write leaves the previous output and removes the partial one;
# - a write that fails (EFBIG under a file-size limit) is an error naming --output, leaves the
#   previous output and no partial file;
# - a detached format (.mhd + .raw) is replaced whole, and a symbolic link as output is followed.
# Usage: write_safety.sh BINDIR WORKDIR
set -u
bin=$1
work=$2
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"
fail=0
check() { # check DESCRIPTION COMMAND...: runs the command, reports
  local what=$1
  shift
  if "$@"; then
    echo "ok: $what"
  else
    echo "FAIL: $what"
    fail=1
  fi
}
partials() { # partials NAME: the partial outputs of NAME that remain
  ls -d ".$1.partial-"* 2>/dev/null
}

"$bin/cbct-simulate" --nproj 10 --detector-size 32 --detector-spacing 8 -g g.xml -o p.mha >/dev/null || exit 1
recon=(-g g.xml --projections p.mha --spacing 1)

# Kills the writer of NAME (a large volume, slow to compress) once its partial output has data.
# Prints the exit status of the killed process.
kill_while_writing() {
  local signal=$1 name=$2
  "$bin/cbct-fdk" "${recon[@]}" --dimension 256 -o "$name" >/dev/null 2>&1 &
  local pid=$! seen=0
  for _ in $(seq 1 6000); do
    if [ -n "$(find . -maxdepth 2 -path "./.$name.partial-*/$name" -size +0 2>/dev/null)" ]; then
      seen=1
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.005
  done
  kill "-$signal" "$pid" 2>/dev/null
  wait "$pid"
  local rc=$?
  if [ "$seen" -eq 0 ]; then
    echo "(the writer finished before it could be killed)" >&2
  fi
  echo "$rc"
}

echo "== SIGKILL mid-write: the previous output is intact"
"$bin/cbct-fdk" "${recon[@]}" --dimension 24 -o volume.nii.gz >/dev/null || exit 1
cp volume.nii.gz saved.nii.gz
rc=$(kill_while_writing KILL volume.nii.gz)
check "killed by SIGKILL (exit $rc)" test "$rc" -eq 137
check "volume.nii.gz unchanged after SIGKILL" cmp -s saved.nii.gz volume.nii.gz
check "the killed writer's partial output is where it was being written, not in place" test -n "$(partials volume.nii.gz)"
rm -rf .volume.nii.gz.partial-*

echo "== SIGTERM mid-write: the previous output is intact and the partial one removed"
rc=$(kill_while_writing TERM volume.nii.gz)
check "killed by SIGTERM (exit $rc)" test "$rc" -eq 143
check "volume.nii.gz unchanged after SIGTERM" cmp -s saved.nii.gz volume.nii.gz
check "no partial output after SIGTERM" test -z "$(partials volume.nii.gz)"

echo "== a write that fails (file size limit, EFBIG): an error, the previous output intact, no partial file"
"$bin/cbct-fdk" "${recon[@]}" --dimension 24 -o volume.mha >/dev/null || exit 1
cp volume.mha saved.mha
(
  ulimit -f 1000
  trap '' XFSZ
  exec "$bin/cbct-fdk" "${recon[@]}" --dimension 128 -o volume.mha
) >/dev/null 2>stderr.txt
rc=$?
cat stderr.txt
check "exit code 1 (got $rc)" test "$rc" -eq 1
check "one line naming --output volume.mha" grep -q "^cbct-fdk: error: --output volume.mha: could not write the file" stderr.txt
check "volume.mha unchanged after a failed write" cmp -s saved.mha volume.mha
check "no partial output after a failed write" test -z "$(partials volume.mha)"

echo "== killed by SIGXFSZ mid-write: the previous output is intact"
(
  ulimit -f 1000
  exec "$bin/cbct-fdk" "${recon[@]}" --dimension 128 -o volume.mha
) >/dev/null 2>&1
rc=$?
check "killed by SIGXFSZ (exit $rc)" test "$rc" -eq 153
check "volume.mha unchanged after SIGXFSZ" cmp -s saved.mha volume.mha
rm -rf .volume.mha.partial-*

echo "== a detached format is replaced whole: header and data"
"$bin/cbct-fdk" "${recon[@]}" --dimension 24 -o pair.mhd >/dev/null || exit 1
"$bin/cbct-fdk" "${recon[@]}" --dimension 20 -o pair.mhd >/dev/null || exit 1
check "pair.raw holds 20^3 floats" test "$(stat -c %s pair.raw)" -eq 32000
check "pair.mhd reads back (cbct-compare)" "$bin/cbct-compare" -i pair.mhd
check "no partial output after success" test -z "$(partials pair.mhd)"

echo "== a symbolic link as output: the file it points to is replaced, the link kept"
cp saved.mha target.mha
ln -sf target.mha link.mha
"$bin/cbct-fdk" "${recon[@]}" --dimension 20 -o link.mha >/dev/null || exit 1
check "link.mha is still a symbolic link" test -L link.mha
check "target.mha was replaced" test "$(stat -c %s target.mha)" -lt "$(stat -c %s saved.mha)"

exit $fail
