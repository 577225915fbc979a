#!/usr/bin/env bash
# Installs a conebeamct wheel into a fresh venv and runs wrapping/tests against it from a directory
# outside the source and build trees (so that only the installed package can be imported).
#
#   scripts/test-wheel.sh [--system-site-packages] [--offline DIR] [--bench] WHEEL [PYTEST ARGS...]
#
# --system-site-packages: the venv sees the interpreter's packages (numpy, PyTorch, CuPy of the GPU
# machine); --offline DIR: install from DIR and the interpreter's packages only (no index; DIR holds the
# wheels of what is missing, e.g. pytest: `pip download pytest -d DIR`); --bench: then runs
# benchmarks/python_gpu_arrays.py. The interpreter is the venv's base: $PYTHON (default python3).
# The venv also gets the itk package (ITK 5.4 from PyPI, or from DIR when it is there), so that
# test_itk.py tests conebeamct with itk.Image in and out.
# CBCT_BIN_DIR, when set, points the tests at the command-line apps (bit-for-bit comparisons). Where the
# interpreter has no venv module, --system-site-packages --offline DIR unpacks the wheels instead.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
system=() install=() bench=0
while [ $# -gt 0 ]; do
  case "$1" in
    --system-site-packages) system=(--system-site-packages); shift ;;
    --offline) install=(--no-index --find-links "$2"); shift 2 ;;
    --bench) bench=1; shift ;;
    *) break ;;
  esac
done
wheel=${1:?usage: test-wheel.sh [--system-site-packages] [--offline DIR] [--bench] WHEEL [PYTEST ARGS...]}
shift
wheel=$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python=$work/venv/bin/python
site=()
# pytest, and the itk package (ITK 5.4's wheels) so that test_itk.py runs: conebeamct with itk.Image in
# and out, the ITK-pipeline path. With --offline DIR, itk only where DIR holds its wheels.
extra=(pytest "itk>=5.4,<5.5")
if [ ${#install[@]} -gt 0 ] && ! ls "${install[2]}"/itk-*.whl >/dev/null 2>&1; then
  extra=(pytest)
fi
if "${PYTHON:-python3}" -m venv "${system[@]}" "$work/venv" 2>/dev/null; then
  if [ ${#system[@]} -gt 0 ]; then
    # A venv sees its base interpreter's packages only: when the interpreter is itself in a venv (the
    # GPU machine's python3 is /opt/torch/.venv, with numpy, PyTorch and CuPy), a .pth file adds that
    # venv's site-packages too, so that pip and the tests find them.
    "${PYTHON:-python3}" -c 'import site, sys; print("\n".join(site.getsitepackages()) if sys.prefix != sys.base_prefix else "")' \
      > "$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/interpreter-venv.pth"
  fi
  "$work/venv/bin/pip" install -q "${install[@]}" "$wheel" "${extra[@]}"
elif [ ${#system[@]} -gt 0 ] && [ ${#install[@]} -gt 0 ]; then
  # No venv module (e.g. Ubuntu without python3-venv): a wheel is a zip; unpack it (and the wheels of
  # --offline DIR that the interpreter lacks) into a directory put first on the path.
  echo "test-wheel.sh: no venv for ${PYTHON:-python3}; unpacking the wheel into $work/site instead"
  python=$(command -v "${PYTHON:-python3}")
  mkdir "$work/site"
  "$python" -m zipfile -e "$wheel" "$work/site"
  if ! "$python" -c 'import pytest' 2>/dev/null; then
    for w in "${install[2]}"/*.whl; do "$python" -m zipfile -e "$w" "$work/site"; done
  fi
  site=(PYTHONPATH="$work/site")
else
  echo "test-wheel.sh: error: ${PYTHON:-python3} -m venv failed" >&2
  exit 1
fi
mkdir "$work/tests"
cp "$here"/wrapping/tests/*.py "$work/tests/"
cd "$work/tests"
env -u PYTHONPATH "${site[@]}" "$python" -c \
  'import sys, conebeamct as c; print("conebeamct from", c.__file__, "| CUDA:", c.has_cuda_arrays(), "| device:", c.cuda_device()); sys.exit(not c.__file__.startswith(sys.prefix) and "/site/" not in c.__file__)'
env -u PYTHONPATH "${site[@]}" CBCT_README="$here/wrapping/README.md" "$python" -m pytest -p no:cacheprovider -rs "$@" "$work/tests"
if [ "$bench" = 1 ]; then
  env -u PYTHONPATH "${site[@]}" "$python" "$here/benchmarks/python_gpu_arrays.py" --runs 5
fi
