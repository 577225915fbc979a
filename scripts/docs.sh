#!/usr/bin/env bash
# Documentation: builds the Sphinx site of docs/ into build/docs/html with warnings as errors (Doxygen's
# included): the user guide, how-tos and developer guide (MyST markdown), the C++ reference from the
# headers' Doxygen comments (breathe) and the Python reference from the built module's docstrings
# (autodoc). Installs what is missing (scripts/common.sh) and builds the Python module first.
#
#   scripts/docs.sh [--examples] [--update-images]
#
# --examples then runs every code block of README.md and docs/ against the build
# (scripts/docs-examples.py, after its own tests in test/docs; builds the apps first); --update-images also copies the pictures the
# how-tos make into docs/images/. CBCT_DOCS_BUILD=0: build nothing, use build/ as it is (a clear error
# when the module is not there). Runs from any directory.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

examples=0 images=()
for arg in "$@"; do
  case "$arg" in
    --examples) examples=1 ;;
    --update-images) examples=1; images=(--update-images) ;;
    *) echo "usage: scripts/docs.sh [--examples] [--update-images]" >&2; exit 2 ;;
  esac
done

start=$(date +%s)
if [ "${CBCT_DOCS_BUILD:-1}" = 1 ]; then
  cbct_install_dependencies
  cbct_configure
  if [ $examples = 1 ]; then
    apps=(cbct-simulate cbct-fdk cbct-compare cbct-slices cbct-forward cbct-sart cbct-cgls cbct-osem cbct-asdpocs
      cbct-admmtv cbct-import)
    # cbct-view exists when CMake found VTK (the pages' screenshots need it then), cbctWriteScan (a test
    # tool: the scanner-data page's stand-in scan) with the tests.
    targets=$(cmake --build "$CBCT_BUILD" --target help 2>/dev/null || true)
    for optional in cbct-view cbctWriteScan; do
      if grep -q "^$optional[: ]" <<<"$targets"; then
        apps+=("$optional")
      fi
    done
    cbct_build _conebeamct "${apps[@]}"
  else
    cbct_build _conebeamct
  fi
fi

# The interpreter the module was built for (Debian's /usr/bin/python3 by default), which also has
# Debian's Sphinx.
python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$CBCT_BUILD/CMakeCache.txt" 2>/dev/null || true)
python=${python:-python3}
if [ ! -f "$CBCT_BUILD/python/conebeamct/__init__.py" ] ||
   ! PYTHONPATH="$CBCT_BUILD/python" "$python" -c "import conebeamct" 2>/dev/null; then
  echo "docs.sh: error: the Python module is not built in $CBCT_BUILD/python (or $python cannot import it):" \
    "the Python reference is made from its docstrings. Build it (cmake --build $CBCT_BUILD --target _conebeamct," \
    "needs python3-dev and pybind11-dev) or run scripts/docs.sh without CBCT_DOCS_BUILD=0" >&2
  exit 1
fi
for module in sphinx myst_parser breathe furo; do
  if ! "$python" -c "import $module" 2>/dev/null; then
    echo "docs.sh: error: $python cannot import $module (Debian: python3-sphinx python3-myst-parser" \
      "python3-breathe furo; scripts/common.sh installs them)" >&2
    exit 1
  fi
done

out=$CBCT_BUILD/docs
mkdir -p "$out"
cbct_log "doxygen: include/ -> $out/doxygen/xml"
rm -rf "$out/doxygen"
{
  cat "$CBCT_ROOT/docs/Doxyfile"
  echo "INPUT = $CBCT_ROOT/include"
  echo "OUTPUT_DIRECTORY = $out/doxygen"
  echo "WARN_LOGFILE = $out/doxygen-warnings.log"
} | doxygen -
if [ -s "$out/doxygen-warnings.log" ]; then
  cat "$out/doxygen-warnings.log" >&2
  echo "docs.sh: error: Doxygen warned about the headers' comments (above)" >&2
  exit 1
fi

cbct_log "sphinx: docs/ -> $out/html (warnings are errors)"
# -E: every page is read again, so that a warning of an unchanged page is not hidden by the cache.
CBCT_DOXYGEN_XML="$out/doxygen/xml" PYTHONPATH="$CBCT_BUILD/python" \
  "$python" -m sphinx -b html -E -W --keep-going -q -d "$out/doctrees" "$CBCT_ROOT/docs" "$out/html"
cbct_log "site: $out/html/index.html ($(($(date +%s) - start)) s)"

if [ $examples = 1 ]; then
  cbct_log "examples: the runner's own tests (test/docs), then every code block of README.md and docs/"
  "$python" -m pytest -q -p no:cacheprovider "$CBCT_ROOT/test/docs"
  "$python" "$CBCT_ROOT/scripts/docs-examples.py" --build "$CBCT_BUILD" "${images[@]}"
fi
