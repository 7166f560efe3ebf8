#!/usr/bin/env bash
# Main job: install dependencies, build, and check the whole litmus suite against the PTX model
# with both engines (they check each other); compares every verdict with its expectation file.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$root/build"
cd "$root"
exec ./build/ptxmm check --engine both --model models/ptx.cat litmus/ "$@"
