#!/usr/bin/env bash
# Idempotent dependency installer for ptxmm (Debian 12). Installs with apt as root only what is
# missing; prints what it did. The CUDA toolkit is optional (GPU runner); it is not installed here.
set -euo pipefail
pkgs=(cmake g++ make pkg-config libz3-dev catch2 libcli11-dev nlohmann-json3-dev libfmt-dev graphviz libexpat1-dev
      libsqlite3-dev python3-matplotlib  # campaign store (harness/campaign/), report plots (scripts/campaign-plots.py)
      libmimalloc-dev)                   # the ptxmm binary's allocator (harness/CMakeLists.txt)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all dependencies present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
