#!/usr/bin/env bash
# Tests: installs what is missing, configures and builds everything in build/, runs every ctest test.
# Exits non-zero when anything fails. Runs from any directory.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cbct_install_dependencies
cbct_configure
cbct_build
cbct_log "ctest"
cd "$CBCT_BUILD"
ctest --output-on-failure -j2
