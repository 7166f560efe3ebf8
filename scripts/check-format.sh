#!/usr/bin/env bash
# Fails if any C++ source under harness/, fuzz/ or tools/ is not clang-format clean.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
command -v clang-format >/dev/null || { echo "check-format: clang-format not installed, installing"; apt-get install -y -qq clang-format >/dev/null; }
bad=0
while IFS= read -r f; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then echo "not formatted: $f"; bad=1; fi
done < <(find "$root/harness" "$root/fuzz" "$root/tools" -name '*.cpp' -o -name '*.hpp')
exit $bad
