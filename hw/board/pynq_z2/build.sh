#!/usr/bin/env bash
# Builds loom_accel.bit and loom_accel.hwh for the PYNQ-Z2 with Vivado (not
# available on the development machines: run where Vivado is set up).
#
#   bash hw/board/pynq_z2/build.sh [OUT_DIR]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
OUT=$(mkdir -p "${1:-$ROOT/build-pynq-z2}" && cd "${1:-$ROOT/build-pynq-z2}" && pwd)
for tool in vivado; do
  command -v "$tool" >/dev/null || { echo "build.sh: error: $tool not on PATH" >&2; exit 1; }
done

vivado -mode batch -nojournal -log "$OUT/block_design.log" \
  -source "$ROOT/hw/board/pynq_z2/block_design.tcl" -tclargs "$ROOT" "$OUT"
