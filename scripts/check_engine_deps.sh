#!/usr/bin/env bash
# Asserts that the run side stays free of the build side's dependencies: the
# engine and kernel libraries, and a run-side `loom` (LOOM_BUILDER=OFF),
# reference no protobuf, ONNX or spdlog/fmt symbols and link none of their
# shared libraries.
#
#   scripts/check_engine_deps.sh BUILD_DIR [BUILD_DIR ...]
#
# In a build configured with LOOM_BUILDER=ON the `loom` binary contains the
# builder by design; only the libraries are checked there. Exit 1 on a finding.
set -euo pipefail

if (($# == 0)); then
  echo "usage: $0 BUILD_DIR [BUILD_DIR ...]" >&2
  exit 2
fi
FORBIDDEN_SYMBOLS='google::protobuf|(^|[^A-Za-z_])onnx::|ONNX_NAMESPACE|spdlog::|(^|[^A-Za-z_])fmt::'
FORBIDDEN_LIBS='libprotobuf|libonnx|libspdlog|libfmt'
failures=0

# Symbols of an archive or binary, demangled. GNU nm reads other
# architectures' ELF files on Debian; fall back to a cross nm if not.
symbols() {
  local file=$1
  if nm -C "$file" 2>/dev/null; then return 0; fi
  local cross
  for cross in aarch64-linux-gnu-nm arm-linux-gnueabihf-nm; do
    if command -v "$cross" >/dev/null && "$cross" -C "$file" 2>/dev/null; then return 0; fi
  done
  echo "check_engine_deps: cannot read symbols of $file" >&2
  return 1
}

check_symbols() {
  local file=$1 hits
  if [[ ! -f "$file" ]]; then
    echo "check_engine_deps: missing $file (build it first)" >&2
    failures=$((failures + 1))
    return
  fi
  hits=$(symbols "$file" | grep -E "$FORBIDDEN_SYMBOLS" | head -5 || true)
  if [[ -n "$hits" ]]; then
    echo "check_engine_deps: $file references forbidden symbols:" >&2
    echo "$hits" | sed 's/^/    /' >&2
    failures=$((failures + 1))
  else
    echo "ok: $file (no protobuf/onnx/spdlog symbols)"
  fi
}

check_libraries() {
  local file=$1 needed
  # readelf works for any target architecture, unlike ldd.
  needed=$(readelf -d "$file" 2>/dev/null | grep NEEDED | grep -E "$FORBIDDEN_LIBS" || true)
  if [[ -n "$needed" ]]; then
    echo "check_engine_deps: $file links forbidden libraries:" >&2
    echo "$needed" | sed 's/^/    /' >&2
    failures=$((failures + 1))
  else
    echo "ok: $file (links no protobuf/onnx/spdlog libraries)"
  fi
}

for build in "$@"; do
  if [[ ! -f "$build/CMakeCache.txt" ]]; then
    echo "check_engine_deps: $build is not a CMake build directory" >&2
    failures=$((failures + 1))
    continue
  fi
  check_symbols "$build/engine/libloom_engine.a"
  check_symbols "$build/kernels/libloom_kernels.a"
  check_symbols "$build/common/libloom_common.a"
  if grep -q '^LOOM_BUILDER:BOOL=\(ON\|TRUE\|1\)' "$build/CMakeCache.txt"; then
    echo "note: $build is a builder build (LOOM_BUILDER=ON); its loom includes the builder, so only the libraries were checked"
  else
    check_symbols "$build/bin/loom"
    check_libraries "$build/bin/loom"
  fi
done

if ((failures)); then
  echo "check_engine_deps: $failures problem(s)" >&2
  exit 1
fi
echo "check_engine_deps: OK"
