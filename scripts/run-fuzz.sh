#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang and runs each for SECONDS (default 20) on a corpus
# seeded from the suite (litmus tests, .expect files, cat models). Usage: scripts/run-fuzz.sh [SECONDS]
# Exits non-zero if a target finds a crash, a leak, a sanitizer error or an input over its time/memory
# limits; the input is left in build-fuzz/findings/. Longer local runs: docs/fuzzing.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-20}"
build="${PTXMM_FUZZ_BUILD_DIR:-$root/build-fuzz}"
# clang and its libFuzzer runtime (only a recommendation of Debian's clang package).
missing=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  echo "run-fuzz: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" != 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTXMM_FUZZ=ON \
  -DPTXMM_BUILD_TESTS=OFF -DPTXMM_ENABLE_CUDA=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target fuzz_litmus_parser fuzz_lower fuzz_cat_parser fuzz_expect
corpus="$build/corpus"
mkdir -p "$build/findings"
seed() {  # seed TARGET PATTERN...: the suite's files of that kind, copied once
  local dir="$corpus/$1"; shift
  mkdir -p "$dir"
  if [ -z "$(ls -A "$dir")" ]; then
    for pat in "$@"; do find "$root/litmus" "$root/models" -name "$pat" -exec cp --backup=numbered -t "$dir" {} +; done
  fi
}
seed litmus_parser '*.litmus'
seed lower '*.litmus'
seed cat_parser '*.cat'
seed expect '*.expect'
status=0
for t in litmus_parser lower cat_parser expect; do
  echo "run-fuzz: fuzz_$t for ${seconds} s"
  # -rss_limit_mb / -timeout: an input over 2 GB or 10 s is a finding too.
  if ! "$build/fuzz/fuzz_$t" "$corpus/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="$build/findings/$t-" -print_final_stats=1 2>"$build/fuzz_$t.log"; then
    echo "run-fuzz: fuzz_$t FAILED (see $build/fuzz_$t.log and $build/findings/)"
    tail -30 "$build/fuzz_$t.log"
    status=1
  fi
  grep -E "^stat::(number_of_executed_units|new_units_added|peak_rss_mb)|cov:" "$build/fuzz_$t.log" | tail -4 || true
done
exit $status
