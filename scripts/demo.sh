#!/usr/bin/env bash
# The Loom demo, from a fresh Debian 12 machine (as root) to a classified digit:
#   1. installs missing packages (scripts/install_deps.sh),
#   2. configures and builds Release into build/ with Ninja,
#   3. trains a small CNN on scikit-learn's 8x8 digits (scripts/train_digits.py),
#   4. builds its float plan and its int8 plan (calibrated on training images)
#      with `build/bin/loom build`,
#   5. runs samples/classify_digits with both on the 360 held-out digits
#      (accuracy, latency),
#   6. builds the int8 plan for the PYNQ-Z2 accelerator (--target fpga16) and
#      classifies the digits on the accelerator's functional model (and on the
#      Verilator simulation of its RTL when Verilator is installed): accuracy,
#      the share of MACs on the accelerator, the projected on-board latency.
# Safe to run again and from any directory; LOOM_JOBS sets build parallelism,
# LOOM_BUILD_DIR the build directory.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${LOOM_BUILD_DIR:-$ROOT/build}
MODELS="$BUILD/models/digits"
JOBS=${LOOM_JOBS:-2}
PYTHON=/usr/bin/python3

step() { printf '\n==> %s\n' "$*"; }

step "Installing dependencies"
bash "$ROOT/scripts/install_deps.sh"

step "Building Loom (Release) in $BUILD"
cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$BUILD" -j"$JOBS"

step "Training the digits CNN"
"$PYTHON" "$ROOT/scripts/train_digits.py" "$MODELS"

step "Building the plan: loom build digits.onnx"
"$BUILD/bin/loom" build "$MODELS/digits.onnx" -o "$MODELS/digits.plan"

step "Building the int8 plan: loom build digits.onnx --int8 --calib calib/"
"$BUILD/bin/loom" build "$MODELS/digits.onnx" -o "$MODELS/digits_int8.plan" --int8 --calib "$MODELS/calib"

step "Classifying the held-out digits with the Loom engine: fp32"
"$BUILD/bin/classify_digits" "$MODELS/digits.plan" "$MODELS/test_images.npy" "$MODELS/test_labels.npy"

step "Classifying the held-out digits with the Loom engine: int8"
"$BUILD/bin/classify_digits" "$MODELS/digits_int8.plan" "$MODELS/test_images.npy" "$MODELS/test_labels.npy"

step "Building the int8 plan for the accelerator: loom build --int8 --target fpga16"
"$BUILD/bin/loom" build "$MODELS/digits.onnx" -o "$MODELS/digits_fpga16.plan" --int8 --calib "$MODELS/calib" \
  --target fpga16

step "Classifying the held-out digits on the accelerator's functional model: --device fpga-model"
"$BUILD/bin/classify_digits" "$MODELS/digits_fpga16.plan" "$MODELS/test_images.npy" "$MODELS/test_labels.npy" \
  --device fpga-model

if grep -q 'LOOM_HAVE_RTL' "$BUILD/build.ninja" 2>/dev/null; then
  step "Classifying the held-out digits on the RTL, simulated by Verilator: --device fpga-rtl"
  "$BUILD/bin/classify_digits" "$MODELS/digits_fpga16.plan" "$MODELS/test_images.npy" "$MODELS/test_labels.npy" \
    --device fpga-rtl
else
  printf '\n(Verilator not found when building: skipping --device fpga-rtl)\n'
fi

printf '\nDone. The CLI is %s (try: %s inspect %s).\n' "$BUILD/bin/loom" "$BUILD/bin/loom" "$MODELS/digits.plan"
