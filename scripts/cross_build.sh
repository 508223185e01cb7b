#!/usr/bin/env bash
# Cross-builds the run side (engine, kernels, `loom` with run/inspect/bench)
# for a board and smoke-runs it under qemu user emulation.
#
#   scripts/cross_build.sh [aarch64|armhf] [PLAN]
#
# Installs the cross compiler and qemu-user-static if missing, configures
# build-<arch>/ with cmake/toolchains/<triple>.cmake, -DLOOM_BUILDER=OFF and
# -DLOOM_TESTS=OFF, builds loom_engine and loom, then runs `loom --help` (and
# `loom run PLAN --random` when a plan is given) under qemu. binfmt need not be
# registered: qemu is called explicitly with -L <target root>.
set -euo pipefail

ARCH=${1:-aarch64}
PLAN=${2:-}
case "$ARCH" in
  aarch64) TRIPLE=aarch64-linux-gnu; QEMU=qemu-aarch64-static; ELF_MACHINE=AArch64 ;;
  armhf) TRIPLE=arm-linux-gnueabihf; QEMU=qemu-arm-static; ELF_MACHINE=ARM ;;
  *) echo "usage: $0 [aarch64|armhf] [PLAN]" >&2; exit 2 ;;
esac
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build-$ARCH
JOBS=${JOBS:-2}

missing=()
command -v "$TRIPLE-g++" >/dev/null || missing+=("g++-$TRIPLE")
command -v "$QEMU" >/dev/null || missing+=(qemu-user-static)
if ((${#missing[@]})); then
  echo "cross_build: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}"; then
    $SUDO apt-get update
    $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
  fi
fi

cmake -G Ninja -S "$ROOT" -B "$BUILD" \
  -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/$TRIPLE.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DLOOM_BUILDER=OFF -DLOOM_TESTS=OFF
ninja -C "$BUILD" -j"$JOBS" loom_engine loom

LOOM=$BUILD/bin/loom
if ! readelf -h "$LOOM" | grep -q "Machine:.*$ELF_MACHINE"; then
  echo "cross_build: $LOOM is not an $ELF_MACHINE binary" >&2
  exit 1
fi
run() { "$QEMU" -L "/usr/$TRIPLE" "$@"; }
run "$LOOM" --help >/dev/null
echo "cross_build: $ARCH: loom --help runs under $QEMU"
if [[ -n "$PLAN" ]]; then
  run "$LOOM" run "$PLAN" --random
  echo "cross_build: $ARCH: loom run $PLAN --random OK"
fi
echo "cross_build: $ARCH OK ($BUILD)"
