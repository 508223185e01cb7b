#!/usr/bin/env bash
# Runs every Loom test, from a fresh Debian 12 machine (as root) or an existing
# checkout:
#   deps        scripts/install_deps.sh
#   build       Release build in build/ (Ninja, -j2)
#   unit, conformance, zoo, zoo-int8, hw, badinput   ctest labels in build/ (hw:
#               the accelerator's RTL under Verilator)
#   asan-build  AddressSanitizer + UBSan build in build-asan/
#   asan-unit, asan-conformance, asan-badinput   the same labels (no zoo)
#   cross       scripts/cross_build.sh aarch64 (if present)
#   engine-deps scripts/check_engine_deps.sh build [build-aarch64] (if present)
# Every stage runs even if an earlier one failed (stages that need a failed
# build are marked failed); a summary line per stage ends the output and the
# exit code is non-zero if any stage failed. Incremental: existing build trees
# are reused. LOOM_JOBS sets parallelism (default 2); LOOM_BUILD_DIR and
# LOOM_ASAN_BUILD_DIR override the two build directories.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JOBS=${LOOM_JOBS:-2}
BUILD=${LOOM_BUILD_DIR:-$ROOT/build}
ASAN_BUILD=${LOOM_ASAN_BUILD_DIR:-$ROOT/build-asan}
cd "$ROOT"

declare -a SUMMARY=()
FAILED=0

# run_stage NAME COMMAND...: runs the command, records PASS/FAIL and duration.
run_stage() {
  local name=$1; shift
  printf '\n======== %s: %s\n' "$name" "$*"
  local start=$SECONDS
  "$@"
  local rc=$?
  local secs=$((SECONDS - start))
  if [[ $rc -eq 0 ]]; then
    SUMMARY+=("$(printf '%-18s PASS  %5ds' "$name" "$secs")")
  else
    SUMMARY+=("$(printf '%-18s FAIL  %5ds  (exit %d)' "$name" "$secs" "$rc")")
    FAILED=1
  fi
  return $rc
}

# skip_stage NAME REASON [fail]: records a stage that could not run.
skip_stage() {
  if [[ ${3:-} == fail ]]; then
    SUMMARY+=("$(printf '%-18s FAIL      -   (%s)' "$1" "$2")")
    FAILED=1
  else
    SUMMARY+=("$(printf '%-18s SKIP      -   (%s)' "$1" "$2")")
  fi
}

configure_and_build() {
  local dir=$1; shift
  cmake -G Ninja -S "$ROOT" -B "$dir" "$@" && ninja -C "$dir" -j"$JOBS"
}

# The end-to-end labels print their counts and tables even when they pass.
ctest_label() {
  local dir=$1 label=$2 verbose=()
  [[ $label == unit ]] || verbose=(-V)
  ctest --test-dir "$dir" -L "^${label}\$" --output-on-failure --no-tests=error -j"$JOBS" "${verbose[@]}"
}

run_stage deps bash "$ROOT/scripts/install_deps.sh"

if run_stage build configure_and_build "$BUILD" -DCMAKE_BUILD_TYPE=Release; then
  for label in unit conformance zoo zoo-int8 hw badinput; do
    run_stage "$label" ctest_label "$BUILD" "$label"
  done
else
  for label in unit conformance zoo zoo-int8 hw badinput; do skip_stage "$label" "build failed" fail; done
fi

# -O1: sanitizer builds compile faster and keep useful stack traces. The RTL
# tests run in the main build only (Verilated models are slow to compile).
if run_stage asan-build configure_and_build "$ASAN_BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
    -DLOOM_SANITIZE=ON -DLOOM_HW=OFF; then
  for label in unit conformance badinput; do
    run_stage "asan-$label" ctest_label "$ASAN_BUILD" "$label"
  done
else
  for label in unit conformance badinput; do skip_stage "asan-$label" "asan build failed" fail; done
fi

CROSS_OK=0
if [[ -f "$ROOT/scripts/cross_build.sh" ]]; then
  run_stage cross bash "$ROOT/scripts/cross_build.sh" aarch64 && CROSS_OK=1
else
  skip_stage cross "scripts/cross_build.sh not present"
fi

if [[ -f "$ROOT/scripts/check_engine_deps.sh" ]]; then
  # The cross build's `loom` is run-side only (LOOM_BUILDER=OFF): check it too.
  deps_dirs=("$BUILD")
  [[ -d "$ROOT/build-aarch64" && $CROSS_OK -eq 1 ]] && deps_dirs+=("$ROOT/build-aarch64")
  run_stage engine-deps bash "$ROOT/scripts/check_engine_deps.sh" "${deps_dirs[@]}"
else
  skip_stage engine-deps "scripts/check_engine_deps.sh not present"
fi

printf '\n======== summary (%d s total)\n' "$SECONDS"
for line in "${SUMMARY[@]}"; do echo "$line"; done
if [[ $FAILED -ne 0 ]]; then
  echo "test.sh: FAILED"
  exit 1
fi
echo "test.sh: all stages passed"
