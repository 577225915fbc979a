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
# Emission: a parallel (SPECT) scan of a warm cylinder, its attenuation map; a map with a negative mu
# (MetaImage by hand: 2 x 2 x 2 floats of -0.5); projections with negative values (a negative phantom).
echo "ellipsoid 1 0 0 0 40 1000 40" >activity.txt
echo "ellipsoid 0.015 0 0 0 40 1000 40" >mu.txt
echo "ellipsoid -0.01 0 0 0 1000 1000 1000" >negmu.txt
"$bin/cbct-simulate" --emission --nproj 10 --sid 150 --sdd 0 --detector-size 16 --detector-spacing 8 --phantom activity.txt \
  --mu-phantom mu.txt --mu-output mu.mha -g ge10.xml -o pe10.mha
printf 'ObjectType = Image\nNDims = 3\nDimSize = 2 2 2\nElementType = MET_FLOAT\nElementSpacing = 8 8 8\nOffset = -4 -4 -4\nElementDataFile = LOCAL\n' >negmu.mha
for i in 1 2 3 4 5 6 7 8; do printf '\x00\x00\x00\xbf' >>negmu.mha; done
echo "ellipsoid -1 0 0 0 30 30 30" >negative.txt
"$bin/cbct-simulate" --nproj 10 --detector-size 32 --detector-spacing 8 --phantom negative.txt -g gneg.xml -o pneg.mha
# Malformed XML: a closing tag that does not match its opening tag.
sed 's#</SourceToDetectorDistance>#</SourceToIsocenterDistance>#' g10.xml >malformed.xml
grep -q '<SourceToDetectorDistance>1500</SourceToIsocenterDistance>' malformed.xml
# Not an image, whatever its extension says.
echo "these are not projections" >garbage.mha
rm -f missing.xml
echo "inputs made in $work"
