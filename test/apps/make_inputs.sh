#!/usr/bin/env bash
# Small inputs for the apps' bad-input tests, in the directory WORKDIR.
# Usage: make_inputs.sh BINDIR WORKDIR
set -eu
bin=$1
work=$2
mkdir -p "$work"
cd "$work"
"$bin/cbct-simulate" --nproj 10 --detector-size 32 --detector-spacing 8 -g g10.xml -o p10.mha
"$bin/cbct-simulate" --nproj 12 --detector-size 32 --detector-spacing 8 -g g12.xml -o p12.mha
# Malformed XML: a closing tag that does not match its opening tag.
sed 's#</SourceToDetectorDistance>#</SourceToIsocenterDistance>#' g10.xml >malformed.xml
grep -q '<SourceToDetectorDistance>1500</SourceToIsocenterDistance>' malformed.xml
# Not an image, whatever its extension says.
echo "these are not projections" >garbage.mha
rm -f missing.xml
echo "inputs made in $work"
