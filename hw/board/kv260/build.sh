#!/usr/bin/env bash
# Builds loom_accel.xclbin for the Kria KV260 with Vivado and Vitis (not
# available on the development machines: run where Xilinx tools are set up).
#
#   PLATFORM=/path/to/kv260.xpfm bash hw/board/kv260/build.sh [OUT_DIR]
#
# Steps: package the RTL as an .xo (package_xo.tcl), link it with v++ (link.cfg).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
OUT=$(mkdir -p "${1:-$ROOT/build-kv260}" && cd "${1:-$ROOT/build-kv260}" && pwd)
: "${PLATFORM:?set PLATFORM to the KV260 Vitis platform (.xpfm)}"
for tool in vivado v++; do
  command -v "$tool" >/dev/null || { echo "build.sh: error: $tool not on PATH" >&2; exit 1; }
done

vivado -mode batch -nojournal -log "$OUT/package_xo.log" \
  -source "$ROOT/hw/board/kv260/package_xo.tcl" -tclargs "$ROOT" "$OUT/loom_accel.xo"
v++ --link --target hw --platform "$PLATFORM" --config "$ROOT/hw/board/kv260/link.cfg" \
  --temp_dir "$OUT/vpp" -o "$OUT/loom_accel.xclbin" "$OUT/loom_accel.xo"
echo "build.sh: wrote $OUT/loom_accel.xclbin"
