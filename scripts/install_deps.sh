#!/usr/bin/env bash
# Installs the Debian 12 packages Loom needs to build, test and run its demo.
# Checks each package with dpkg first and touches apt only when something is
# missing (one `apt-get update`, then one install), so running it again is
# cheap. The cross compilers are installed by scripts/cross_build.sh.
# libopenblas0-pthread becomes the system BLAS that python3-torch's Linear and
# MatMul call: with Debian's reference BLAS (libblas3, the default) one of
# vit_b_16's Linears (197x768 by 768x3072) took 1 s instead of 12 ms, and
# exporting vit_b_16 for the zoo tests 68 s.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config
  libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  libflatbuffers-dev flatbuffers-compiler libspdlog-dev libcli11-dev libgtest-dev
  python3 python3-numpy python3-torch python3-torchvision python3-onnx python3-sklearn libopenblas0-pthread
  verilator yosys tcl
  libxrt-dev uuid-dev
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install_deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install_deps: installing ${missing[*]}"
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "install_deps: error: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}" </dev/null
