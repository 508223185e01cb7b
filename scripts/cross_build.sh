#!/usr/bin/env bash
# Cross-builds the run side (engine, kernels, `loom` with run/inspect/bench)
# for a board and smoke-runs it under qemu user emulation.
#
#   scripts/cross_build.sh [aarch64|armhf] [PLAN]
#
# Installs the cross compiler and qemu-user-static if missing, configures
# build-<arch>/ with cmake/toolchains/<triple>.cmake, -DLOOM_BUILDER=OFF and
# -DLOOM_TESTS=OFF, builds loom_engine and loom, then runs `loom --help` (and
# `loom run PLAN --random` when a plan is given) under qemu. It also builds the
# fp32 GEMM test (every GEMM path of the architecture, e.g. NEON, against the
# reference) from googletest's sources (libgtest-dev; the target root has no
# GTest library) and runs it under qemu. binfmt need not be registered: qemu is
# called explicitly with -L <target root>.
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
GTEST_SRC=/usr/src/googletest/googletest
if [[ -d $GTEST_SRC ]]; then
  # The two compiles, then the test's two shards, side by side (each is one
  # process, and qemu runs one guest thread per host thread).
  GTEST_OBJ=$BUILD/gtest-all.o
  CXX_TEST=("$TRIPLE-g++" -std=c++17 -O2 -pthread -I"$ROOT" -I"$GTEST_SRC/include" -I"$GTEST_SRC")
  pids=()
  if [[ ! $GTEST_OBJ -nt $GTEST_SRC/src/gtest-all.cc ]]; then
    "${CXX_TEST[@]}" -c "$GTEST_SRC/src/gtest-all.cc" -o "$GTEST_OBJ" & pids+=($!)
  fi
  "${CXX_TEST[@]}" -c "$ROOT/kernels/cpu/nn/gemm_f32_test.cc" -o "$BUILD/gemm_f32_test.o" & pids+=($!)
  for pid in "${pids[@]}"; do wait "$pid"; done
  "$TRIPLE-g++" -pthread "$BUILD/gemm_f32_test.o" "$GTEST_SRC/src/gtest_main.cc" -I"$GTEST_SRC/include" "$GTEST_OBJ" \
    "$BUILD/kernels/libloom_kernels.a" "$BUILD/common/libloom_common.a" -o "$BUILD/bin/gemm_f32_test"
  pids=()
  for shard in 0 1; do
    GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$shard run "$BUILD/bin/gemm_f32_test" --gtest_brief=1 \
      > "$BUILD/gemm_f32_test.$shard.log" 2>&1 & pids+=($!)
  done
  for shard in 0 1; do
    rc=0
    wait "${pids[$shard]}" || rc=$?
    cat "$BUILD/gemm_f32_test.$shard.log"
    if [[ $rc -ne 0 ]]; then
      echo "cross_build: $ARCH: gemm_f32_test shard $shard failed under $QEMU" >&2
      exit 1
    fi
  done
  echo "cross_build: $ARCH: gemm_f32_test passes under $QEMU"
else
  echo "cross_build: $ARCH: no googletest sources in $GTEST_SRC, gemm_f32_test not run"
fi
if [[ -n "$PLAN" ]]; then
  run "$LOOM" run "$PLAN" --random
  echo "cross_build: $ARCH: loom run $PLAN --random OK"
fi
echo "cross_build: $ARCH OK ($BUILD)"
