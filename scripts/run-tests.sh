#!/usr/bin/env bash
# Tests: install dependencies, build, and run every Catch2 test through ctest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "${PTXMM_BUILD_DIR:-$root/build}" "$@"
cd "${PTXMM_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)"
