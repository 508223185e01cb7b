#!/usr/bin/env bash
# Runs every Loom test, from a fresh Debian 12 machine (as root) or an existing
# checkout:
#   deps        scripts/install_deps.sh
#   build       Release build in build/ (Ninja, -j2)
#   tests       ctest labels unit, conformance, zoo, zoo-int8, hw, badinput in
#               build/, in one run (hw: the accelerator's RTL under Verilator;
#               ctest's label summary gives each label's time)
#   asan-build  AddressSanitizer + UBSan build in build-asan/
#   asan-tests  labels unit, conformance, badinput there (no zoo)
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

# ctest_labels DIR LABEL...: one ctest run over the labels, so that tests of
# different labels share the cores (a one-process test such as zoo_int8
# would otherwise leave one idle; tests/CMakeLists.txt gives the long ones a
# COST so they start first). Unit tests print their output on failure only;
# the end-to-end tests' outputs (counts, tables) follow the run, test by
# test, from ctest's log.
ctest_labels() {
  local dir=$1; shift
  local regex rc=0
  regex="^($(IFS='|'; echo "$*"))\$"
  local unit_tests  # listed first: a ctest run rewrites the log
  unit_tests=$(ctest --test-dir "$dir" -N -L '^unit$' | sed -n 's/^ *Test *#[0-9]*: //p' | tr '\n' ' ')
  ctest --test-dir "$dir" -L "$regex" --output-on-failure --no-tests=error -j"$JOBS" || rc=$?
  awk -v unit=" $unit_tests" '
    /^[0-9]+\/[0-9]+ Testing: / { name = $3; show = index(unit, " " name " ") == 0; next }
    /^Output:$/ { if (show) printf "\n-------- %s\n", name; out = 1; getline; next }
    /^<end of output>$/ { out = 0; next }
    out && show { print }
  ' "$dir/Testing/Temporary/LastTest.log"
  return $rc
}

run_stage deps bash "$ROOT/scripts/install_deps.sh"

LABELS=(unit conformance zoo zoo-int8 hw badinput)
if run_stage build configure_and_build "$BUILD" -DCMAKE_BUILD_TYPE=Release; then
  run_stage "tests" ctest_labels "$BUILD" "${LABELS[@]}"
else
  skip_stage "tests" "build failed" fail
fi

# -O1: sanitizer builds compile faster and keep useful stack traces. The RTL
# tests run in the main build only (Verilated models are slow to compile), and
# so do the fp32 AVX2 paths: the sanitizer build compiles and checks the
# generic and AVX-512 paths of the same tile code.
if run_stage asan-build configure_and_build "$ASAN_BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
    -DLOOM_SANITIZE=ON -DLOOM_HW=OFF -DLOOM_FP32_AVX2=OFF; then
  run_stage "asan-tests" ctest_labels "$ASAN_BUILD" unit conformance badinput
else
  skip_stage "asan-tests" "asan build failed" fail
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
