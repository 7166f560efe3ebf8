#!/usr/bin/env bash
# Behaviour check for refactorings: run `ptxmm check --engine both --no-time` and `ptxmm gen` on every
# litmus/**/*.litmus test of this checkout with a build of BASE_REV and with the current build, and
# compare the outputs file by file (stdout and stderr together, the exit status, and the kernel file
# `gen -o` writes).
#
# Usage: scripts/check-identical.sh BASE_REV [PATH...]   (PATHs: litmus files or folders, default litmus/)
#   PTXMM_BASE_BUILD     a build directory of BASE_REV: reused if it holds a ptxmm binary (its source tree
#                        must still exist, at BASE_REV); otherwise BASE_REV is checked out into
#                        $PTXMM_BASE_BUILD/src (a git worktree), built in $PTXMM_BASE_BUILD and kept for the
#                        next run. Unset: a temporary worktree and build, removed at exit.
#   PTXMM_BUILD          the current build directory (default: build/ of this checkout), brought up to date.
#   PTXMM_IDENTICAL_OUT  keep the outputs here (default: a temporary directory, kept only if they differ).
#   JOBS                 tests run in parallel (default: nproc).
# Prints "N tests: check logs identical / gen outputs identical", or the files that differ.
# Exit status: 0 identical, 1 some output differs, 2 bad usage or a failed build.
set -euo pipefail

if [[ $# -lt 1 || $1 == -h || $1 == --help ]]; then
  sed -n '2,16s/^# \{0,1\}//p' "$0" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
base_rev="$(git -C "$root" rev-parse --verify --quiet "$1^{commit}")" || {
  echo "check-identical: '$1' is not a commit" >&2
  exit 2
}
jobs="${JOBS:-$(nproc)}"
tmp="$(mktemp -d)"
worktree=""
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  if [[ -n $worktree ]]; then git -C "$root" worktree remove --force "$worktree" >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# Build (or bring up to date) the ptxmm binary in the build directory $1 of the source tree $2.
build() {
  if [[ -f $1/CMakeCache.txt ]]; then
    cmake --build "$1" --target ptxmm -j "$(nproc)" >"$tmp/build.log" 2>&1
  else
    cmake -S "$2" -B "$1" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" >"$tmp/build.log" 2>&1 &&
      cmake --build "$1" --target ptxmm -j "$(nproc)" >>"$tmp/build.log" 2>&1
  fi || {
    tail -n 30 "$tmp/build.log" >&2
    echo "check-identical: building $1 failed" >&2
    exit 2
  }
}

# The base build.
base_build="${PTXMM_BASE_BUILD:-}"
if [[ -n $base_build && -x $base_build/ptxmm ]]; then
  base_src="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$base_build/CMakeCache.txt")"
  if [[ ! -d $base_src ]] || [[ "$(git -C "$base_src" rev-parse HEAD 2>/dev/null)" != "$base_rev" ]]; then
    echo "check-identical: $base_build was not built from $1 (source tree: ${base_src:-unknown})" >&2
    exit 2
  fi
  if [[ -n "$(git -C "$base_src" status --porcelain --untracked-files=no)" ]]; then
    echo "check-identical: warning: $base_src has uncommitted changes" >&2
  fi
  echo "base: reusing $base_build ($(git -C "$root" log -1 --format='%h %s' "$base_rev"))"
else
  if [[ -n $base_build ]]; then
    base_src="$base_build/src"
  else
    base_build="$tmp/base-build"
    base_src="$tmp/base-src"
    worktree="$base_src"
  fi
  mkdir -p "$base_build"
  echo "base: building $(git -C "$root" log -1 --format='%h %s' "$base_rev") in $base_build"
  if [[ ! -d $base_src ]]; then
    git -C "$root" worktree add --detach "$base_src" "$base_rev" >/dev/null 2>&1 || {
      echo "check-identical: cannot check out $1 into $base_src" >&2
      exit 2
    }
  elif [[ "$(git -C "$base_src" rev-parse HEAD 2>/dev/null)" != "$base_rev" ]]; then
    echo "check-identical: $base_src exists and is not at $1" >&2
    exit 2
  fi
  build "$base_build" "$base_src"
  [[ -z $worktree ]] && echo "base: kept for the next run (remove: git worktree remove --force $base_src; rm -rf $base_build)"
fi

cur_build="${PTXMM_BUILD:-$root/build}"
echo "current: building $cur_build"
build "$cur_build" "$root"

out="${PTXMM_IDENTICAL_OUT:-$tmp/out}"
rm -rf "$out/base" "$out/current"
mkdir -p "$out"

# One test with one build: $1 = ptxmm, $2 = output directory, $3 = test (relative to the checkout).
# shellcheck disable=SC2317  # run by xargs
run_one() {
  local exe=$1 dir=$2 test=$3 status
  mkdir -p "$dir/check/$(dirname "$test")" "$dir/gen/$(dirname "$test")"
  {
    "$exe" check --engine both --no-time -j 1 "$test" 2>&1 && status=0 || status=$?
    echo "exit status $status"
  } >"$dir/check/$test.log"
  {
    "$exe" gen "$test" -o "$dir/gen/$test.ptx" 2>&1 && status=0 || status=$?
    echo "exit status $status"
  } >"$dir/gen/$test.out"
}
export -f run_one

cd "$root"
paths=("${@:2}")
[[ ${#paths[@]} -eq 0 ]] && paths=(litmus)
mapfile -t tests < <(find "${paths[@]}" -name '*.litmus' -type f | LC_ALL=C sort)
if [[ ${#tests[@]} -eq 0 ]]; then
  echo "check-identical: no *.litmus tests in ${paths[*]}" >&2
  exit 2
fi
for side in base current; do
  exe="$base_build/ptxmm"
  [[ $side == current ]] && exe="$cur_build/ptxmm"
  echo "$side: running ${#tests[@]} tests"
  printf '%s\0' "${tests[@]}" | xargs -0 -P "$jobs" -I{} bash -c 'run_one "$@"' _ "$exe" "$out/$side" {}
done

# Compare, per kind, the files of each test (a file only one side wrote differs too).
status=0
summary=()
differing=()
for kind in check gen; do
  n=0
  for test in "${tests[@]}"; do
    same=1
    for ext in log out ptx; do
      a="$out/base/$kind/$test.$ext" b="$out/current/$kind/$test.$ext"
      [[ ! -e $a && ! -e $b ]] && continue
      if ! cmp -s "$a" "$b" 2>/dev/null; then
        same=0
        differing+=("$kind/$test.$ext")
      fi
    done
    ((n += 1 - same)) || true
  done
  what="check logs"
  [[ $kind == gen ]] && what="gen outputs"
  if ((n == 0)); then
    summary+=("$what identical")
  else
    summary+=("$n $what differ")
    status=1
  fi
done
echo "${#tests[@]} tests: ${summary[0]} / ${summary[1]}"
if ((status != 0)); then
  if [[ -z ${PTXMM_IDENTICAL_OUT:-} ]]; then  # keep them past the cleanup of $tmp
    kept="$(mktemp -d)"
    mv "$out" "$kept/out"
    out="$kept/out"
  fi
  printf 'differs: %s\n' "${differing[@]}"
  for f in "${differing[@]:0:3}"; do
    echo "--- $f (first lines of the diff)"
    diff -u "$out/base/$f" "$out/current/$f" 2>&1 | sed -n '3,14p' || true
  done
  echo "outputs kept in $out (base/ and current/)"
fi
exit "$status"
