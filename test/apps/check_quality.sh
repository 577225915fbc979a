# Sourced by the end-to-end scripts (after they set $bin, the directory of the apps).
# check_quality VOLUME LABEL MAX_MAE MIN_PSNR: cbct-compare's central-region figures must beat these.
check_quality() {
  local out mae psnr
  out=$("$bin/cbct-compare" -i "$1")
  echo "$out" | sed "s/^/  [$2] /"
  mae=$(echo "$out" | sed -n 's/^central region.* MAE \([^,]*\),.*/\1/p')
  psnr=$(echo "$out" | sed -n 's/^central region.* PSNR \([^ ]*\) dB.*/\1/p')
  # A NaN or anything else that is not a plain number fails.
  if ! [[ "$mae" =~ ^[0-9]+(\.[0-9]+)?([eE]-?[0-9]+)?$ ]] || ! [[ "$psnr" =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; then
    echo "FAIL [$2]: could not read a MAE and a PSNR from cbct-compare (MAE '$mae', PSNR '$psnr')"
    exit 1
  fi
  if ! awk -v m="$mae" -v p="$psnr" -v mm="$3" -v mp="$4" 'BEGIN { exit !(m < mm && p > mp) }'; then
    echo "FAIL [$2]: central MAE $mae (must be < $3), PSNR $psnr dB (must be > $4)"
    exit 1
  fi
}
