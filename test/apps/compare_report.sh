#!/usr/bin/env bash
# cbct-compare --report DIR: cbct-simulate (20 views) -> cbct-fdk and cbct-sart (32^3 voxels
# of 4 mm) -> one report of both. Asserts: index.html and report.png exist and nothing else is left
# beside them; the page embeds its PNG (a data URI) and draws the profile (inline SVG); it holds each
# input's metrics as printed and its provenance from the header (method, geometry, options); the PNG
# is a complete 8-bit RGB image (its pixel data inflates to its rows) of the size cbct-compare
# printed, with room for the reference's and both inputs' rows of planes. Then: a second report into
# the existing directory replaces its files; a file, a path in a missing directory, and (not as root)
# an unwritable directory as DIR are refused with one clear line, leaving nothing.
# Usage: compare_report.sh BINDIR WORKDIR
set -u
bin=$1
work=$2
. "$(dirname "$0")/test_folder.sh"
cbct_test_folder "$work"
status=0
fail() {
  echo "FAIL: $*"
  status=1
}

set -e
"$bin/cbct-simulate" --nproj 20 --detector-size 48 --detector-spacing 4 --phantom shepplogan --phantom-scale 60 \
  -g g.xml -o p.mha >/dev/null
"$bin/cbct-fdk" -g g.xml --projections p.mha --dimension 32 --spacing 4 -o fdk.mha >/dev/null
"$bin/cbct-sart" -g g.xml --projections p.mha --dimension 32 --spacing 4 --niterations 2 --positivity -o sart.mha >/dev/null
"$bin/cbct-compare" -i sart.mha fdk.mha --report report --profile-y -15 --window 0.95,1.1 > compare.log
set +e
cat compare.log

# The header keeps the provenance.
grep -a -q "^ConeBeamCT_Method = SART$" sart.mha || fail "sart.mha has no ConeBeamCT_Method = SART"
grep -a -q "^ConeBeamCT_Method = FDK$" fdk.mha || fail "fdk.mha has no ConeBeamCT_Method = FDK"
grep -a -q "^ConeBeamCT_Options = .*--niterations 2 .*--positivity" sart.mha || fail "sart.mha's options lack --niterations 2 --positivity"

[ -f report/index.html ] || fail "no report/index.html"
[ -f report/report.png ] || fail "no report/report.png"
[ "$(ls report | tr '\n' ' ')" = "index.html report.png " ] || fail "report/ holds $(ls report | tr '\n' ' ')"
leftover=$(find . -maxdepth 1 -name '.report.partial-*')
[ -z "$leftover" ] || fail "a partial directory was left: $leftover"

html=report/index.html
grep -q '<img [^>]*src="data:image/png;base64,iVBORw0KGgo' $html || fail "the page embeds no PNG data URI"
grep -q '<svg ' $html || fail "the page has no SVG profile"
grep -q '<polyline' $html || fail "the SVG profile has no line"
! grep -q 'src="[^d]' $html || fail "the page refers to a file (not self-contained)"
# Each input's MAE as cbct-compare printed it (central, then whole), in the metrics table.
for input in sart fdk; do
  maes=$(sed -n "/^$input.mha:/,/^whole/s/.* MAE \([^,]*\),.*/\1/p" compare.log)
  [ "$(echo "$maes" | wc -l)" -eq 2 ] || fail "cbct-compare printed no central and whole MAE for $input.mha"
  for mae in $maes; do
    grep -q "<td class=\"n\">$mae</td>" $html || fail "the page lacks $input.mha's MAE $mae"
  done
done
grep -q '<td>SART</td>' $html || fail "the page does not name SART (from sart.mha's header)"
grep -q '<td>FDK</td>' $html || fail "the page does not name FDK (from fdk.mha's header)"
grep -q '20 projections, gantry 0 to 342 degrees, SID 1000 mm, SDD 1500 mm, from g.xml' $html ||
  fail "the page lacks the geometry's provenance"
grep -q -- '--niterations 2 .*--positivity' $html || fail "the page lacks sart.mha's options"

# The PNG: signature, IHDR (8-bit RGB, the size printed), pixel data of exactly height rows.
size=$(sed -n 's/.*report.png (\([0-9]*\) x \([0-9]*\) pixels).*/\1 \2/p' compare.log)
[ -n "$size" ] || fail "cbct-compare did not print the PNG's size"
if command -v python3 >/dev/null; then
  python3 - report/report.png $size <<'PYTHON' || status=1
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
width, height = int(sys.argv[2]), int(sys.argv[3])
assert data[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
at, idat, header = 8, b"", None
while at < len(data):
    length, kind = struct.unpack(">I4s", data[at:at + 8])
    chunk = data[at + 8:at + 8 + length]
    assert zlib.crc32(kind + chunk) == struct.unpack(">I", data[at + 8 + length:at + 12 + length])[0], "bad CRC"
    if kind == b"IHDR":
        header = struct.unpack(">IIBB", chunk[:10])
    elif kind == b"IDAT":
        idat += chunk
    at += 12 + length
assert header is not None, "no IHDR"
w, h, depth, colour = header
if (w, h) != (width, height):
    sys.exit(f"FAIL: report.png is {w} x {h}; cbct-compare printed {width} x {height}")
assert (depth, colour) == (8, 2), f"expected 8-bit RGB, got depth {depth} colour type {colour}"
pixels = zlib.decompress(idat)
assert len(pixels) == h * (1 + 3 * w), f"pixel data of {len(pixels)} bytes for {w} x {h}"
# Room for the reference's row and two inputs' rows of 32-voxel planes, six across.
assert w >= 6 * 32 and h >= 3 * 32, f"{w} x {h} is too small for the panels"
print(f"report.png: {w} x {h}, 8-bit RGB, {len(data)} bytes")
PYTHON
else
  [ "$(head -c 8 report/report.png | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ] || fail "report.png is no PNG file"
fi

# The existing directory: its files replaced.
before=$(stat -c %Y.%i report/index.html)
sleep 1
"$bin/cbct-compare" -i fdk.mha --report report >/dev/null || fail "a report into the existing directory failed"
[ "$(stat -c %Y.%i report/index.html)" != "$before" ] || fail "report/index.html was not replaced"
grep -q '<td>SART</td>' report/index.html && fail "the replaced page still names SART"
[ -z "$(find . -maxdepth 1 -name '.report.partial-*')" ] || fail "a partial directory was left after the update"

# Bad DIR: one clear line, exit 1, nothing written.
as_user=() # a command prefix that drops root's rights, for the unwritable-directory case
refused() { # PATTERN DIR
  local pattern=$1 dir=$2 rc=0
  "${as_user[@]}" "$bin/cbct-compare" -i fdk.mha --report "$dir" >out.log 2>err.log || rc=$?
  [ "$rc" -eq 1 ] || fail "--report $dir: exit code $rc, expected 1"
  [ "$(wc -l <err.log)" -eq 1 ] || fail "--report $dir: $(wc -l <err.log) lines on stderr"
  grep -E -q "^cbct-compare: error: --report is $pattern" err.log || fail "--report $dir: $(cat err.log)"
  cat err.log
}
echo "a file" > afile
refused "'afile'; .*it is an existing file" afile
[ "$(cat afile)" = "a file" ] || fail "--report afile changed the file"
refused "'missing/report'; .*\(missing is not one\)" missing/report
[ ! -e missing ] || fail "--report missing/report made a directory"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  # Root writes anywhere: run these as nobody, where nobody can reach the work directory.
  chmod a+rx . && chmod a+r fdk.mha
  if setpriv --reuid=nobody --regid=nogroup --clear-groups test -r "$PWD/fdk.mha" 2>/dev/null; then
    as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  fi
fi
if [ "$(id -u)" -ne 0 ] || [ ${#as_user[@]} -gt 0 ]; then
  mkdir -p locked && chmod 555 locked
  refused "'locked/report'; .*can write into" locked/report
  refused "'locked'; .*can write into" locked
  chmod 755 locked
  [ -z "$(ls -A locked)" ] || fail "an unwritable directory got files"
else
  echo "(as root without setpriv: the unwritable-directory case is not checked, root writes anywhere)"
fi
[ -z "$(find . -name '.*.partial-*')" ] || fail "a refused report left a partial directory"

[ $status -eq 0 ] && echo "compare_report: all checks passed"
exit $status
