#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then configures, builds and runs an outside project
# (test/apps/external) that uses find_package(ConeBeamCT) and ConeBeamCT::ConeBeamCT.
# Usage: install_test.sh BUILD_DIR WORKDIR CMAKE GENERATOR CXX_COMPILER INPUTS_DIR
set -eu
build=$1
work=$2
cmake=$3
generator=$4
cxx=$5
inputs=$6
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/test_folder.sh"
cbct_test_folder "$work"
work=$(pwd)
"$cmake" --install "$build" --prefix "$work/prefix" >"$work/install.log"
test -f "$work/prefix/lib/cmake/ConeBeamCT/ConeBeamCTConfig.cmake" || test -f "$work/prefix/lib/x86_64-linux-gnu/cmake/ConeBeamCT/ConeBeamCTConfig.cmake"
"$cmake" -S "$here/external" -B "$work/build" -G "$generator" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix"
"$cmake" --build "$work/build"
"$work/build/fdk-example" "$inputs/g10.xml" "$inputs/p10.mha" "$work/volume.mha"
test -s "$work/volume.mha"
# The installed apps run from the prefix (their RPATH finds the installed library).
"$work/prefix/bin/cbct-fdk" --version
# So does the installed benchmark (it once lacked the apps' RPATH and could not find libConeBeamCTMPI.so).
"$work/prefix/bin/cbct-bench" --help >/dev/null
echo "installed package: OK"
