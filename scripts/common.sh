# Shared by scripts/demo.sh and scripts/test.sh (sourced, not run): finds the repository, installs
# what a fresh Debian 12 machine lacks, configures and builds in build/. Safe to run again.

CBCT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CBCT_BUILD=${CBCT_BUILD:-$CBCT_ROOT/build}
# ccache hashes paths relative to the repository, so that build/ and the wheel's build-wheel-*/ (at the
# same depth) share their objects.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$CBCT_ROOT}
# libvtk9-dev builds cbct-view (optional in CMake); xvfb and xauth run its offscreen test (xvfb-run).
# python3-dev and pybind11-dev build the Python bindings (optional in CMake); python3-numpy and
# python3-pytest run their tests (ctest: python.pytest); python3-venv makes the wheel's build and test
# venvs (scripts/wheel.sh) where python3 is Debian's. libopenmpi-dev and openmpi-bin build and test
# the MPI parts (optional in CMake; ctest: apps.mpi_end_to_end). zlib1g-dev, libexpat1-dev and
# libpng-dev (ITK's own dependencies) measure compressed image data, parse the geometry XML and decode
# a PNG whole before ITK's reader sees it. clang-14 and
# libclang-rt-14-dev build the sanitized tests and the fuzzers (scripts/sanitize.sh, scripts/fuzz.sh).
# python3-sphinx, python3-myst-parser, python3-breathe, furo, doxygen and graphviz build the documentation
# (scripts/docs.sh: Sphinx with MyST markdown, the C++ reference through Doxygen's XML, diagrams);
# python3-pil writes the TIFF files of a how-to's example. ccache lets the wheel (scripts/wheel.sh) reuse
# the library's and the Python module's objects compiled for build/ (the same flags, and paths made
# relative to the repository: CCACHE_BASEDIR below), instead of compiling them a second time.
CBCT_PACKAGES=(ccache cmake ninja-build g++ libinsighttoolkit5-dev libcli11-dev libgtest-dev libvtk9-dev xvfb xauth
  python3-dev python3-venv pybind11-dev python3-numpy python3-pytest python3-matplotlib libopenmpi-dev openmpi-bin
  zlib1g-dev libexpat1-dev libpng-dev clang-14 libclang-rt-14-dev
  python3-sphinx python3-myst-parser python3-breathe furo doxygen graphviz python3-pil)

cbct_log() {
  echo "== $*"
}

# Installs the Debian packages of CBCT_PACKAGES that are missing (apt-get, as root or through sudo).
cbct_install_dependencies() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    cbct_log "not a Debian system: skipping package installation (needs: ${CBCT_PACKAGES[*]})"
    return 0
  fi
  local missing=() package
  for package in "${CBCT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$package")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    cbct_log "packages: all installed"
    return 0
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "error: missing packages ${missing[*]}, and not root and no sudo to install them" >&2
      return 1
    fi
  fi
  cbct_log "installing ${missing[*]}"
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}

# Configures build/ (Release, Ninja; CUDA when nvcc is found) unless it is configured already.
cbct_configure() {
  if [ -f "$CBCT_BUILD/CMakeCache.txt" ]; then
    cbct_log "configure: $CBCT_BUILD (already configured; re-running CMake)"
    cmake -S "$CBCT_ROOT" -B "$CBCT_BUILD"
  else
    cbct_log "configure: $CBCT_BUILD"
    local launcher=()
    if command -v ccache >/dev/null 2>&1; then
      launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
    fi
    cmake -S "$CBCT_ROOT" -B "$CBCT_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}"
  fi
  if grep -q '^CBCT_USE_CUDA:BOOL=ON' "$CBCT_BUILD/CMakeCache.txt"; then
    cbct_log "CUDA: on"
  elif grep -q '^CMAKE_CUDA_COMPILER:FILEPATH=/' "$CBCT_BUILD/CMakeCache.txt"; then
    cbct_log "CUDA: off (switched off in $CBCT_BUILD: CBCT_USE_CUDA=OFF)"
  else
    cbct_log "CUDA: off (no nvcc found)"
  fi
}

# Builds the given targets (all when none); CBCT_JOBS sets the parallelism (default: all cores).
cbct_build() {
  local jobs=${CBCT_JOBS:-$(nproc 2>/dev/null || echo 2)}
  local targets=()
  if [ $# -gt 0 ]; then
    targets=(--target "$@")
  fi
  cbct_log "build: ${*:-all} (-j $jobs)"
  cmake --build "$CBCT_BUILD" -j "$jobs" "${targets[@]}"
}

# cbct_check_no_test_files TMPDIR WORKDIR...: fails, listing them, when what tests left behind is
# found: anything in TMPDIR (the tests' temporary directory), any file in the WORKDIRs (the app tests'
# folders in a build tree, whose empty parents may stay).
cbct_check_no_test_files() {
  local left tmp=$1
  shift
  left=$( (find "$tmp" -mindepth 1 -maxdepth 2
           for folder in "$@"; do [ -d "$folder" ] && find "$folder" -mindepth 1 ! -type d; done) | head -n 40)
  if [ -n "$left" ]; then
    echo "error: tests left files behind (each test removes its own folder when it ends; CBCT_KEEP_TEST_FILES=1 keeps them):" >&2
    echo "$left" >&2
    return 1
  fi
  cbct_log "no test left files behind ($tmp $*)"
}
