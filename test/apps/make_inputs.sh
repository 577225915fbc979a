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
for i in $(seq 0 9); do echo 0.$i; done >p10_phases.txt # a phase per projection of p10.mha
# A helix of 4 turns at pitch 1 (the source and detector moving along y), and a phase per projection.
"$bin/cbct-simulate" --nproj 40 --arc 1440 --helical 1 --detector-size 32,8 --detector-spacing 8 -g gh40.xml -o ph40.mha
for i in $(seq 1 40); do echo 0.25; done >ph40_phases.txt
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

# Files cut to a third of their size, in the formats the apps read: the data of a MetaImage (LOCAL
# and detached), NRRD (attached and detached), NIfTI (.nii, .nii.gz, .hdr/.img), TIFF and VTK.
shorten() {
  truncate -s $(($(stat -c %s "$1") / 3)) "$1"
}
for file in short.mha short.nrrd short.nii short.nii.gz short.tif short.vtk cutmhd.mhd cutnhdr.nhdr cuthdr.hdr; do
  "$bin/cbct-simulate" --nproj 10 --detector-size 32 --detector-spacing 8 -g scratch.xml -o "$file"
done
for file in short.mha short.nrrd short.nii short.nii.gz short.tif short.vtk cutmhd.raw cutnhdr.raw cuthdr.img; do
  shorten "$file"
done
# A geometry cut short, a phantom file with a negative semi-axis.
head -c 400 g10.xml >cut.xml
echo "ellipsoid 1 0 0 0 -5 3 3" >badphantom.txt
# NaN, infinities, zero spacing, an oblique direction, 4D, RGB, reversed u, compressed data cut
# short, a missing data file (make_damaged.py).
python3 "$(dirname "$0")/make_damaged.py" p10.mha
# The same file under other names: another spelling, a symbolic and a hard link; a detached pair.
ln -sf p10.mha link10.mha
ln -f p10.mha hard10.mha
"$bin/cbct-simulate" --nproj 10 --detector-size 32 --detector-spacing 8 -g scratch.xml -o p10d.mhd
# An output there before the run (must be unchanged by a failed run).
cp p12.mha existing.mha
echo "inputs made in $work"
