#!/usr/bin/env bash
# End-to-end checks of `loom run|inspect|bench`, of `loom build` when this
# loom has it, and of the CLI's error convention (one line "loom: error:
# <message>" on stderr, exit code 1).
# Usage: cli_commands_test.sh LOOM FIXTURE WORKDIR [MODEL.onnx]
set -u
LOOM=$1 FIXTURE=$2 WORK=$3 MODEL=${4:-}
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
"$FIXTURE" write "$WORK" || { echo "FAIL: fixture"; exit 1; }
PLAN=$WORK/model.plan
failures=0
pass() { echo "ok: $1"; }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }

# expect_ok NAME CMD...   : exit 0
expect_ok() {
  local name=$1; shift
  if "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"; then pass "$name"; else fail "$name (exit $?): $(cat "$WORK/err.txt")"; fi
}
# expect_error NAME PATTERN CMD...   : exit 1, exactly one stderr line "loom: error: ..." matching PATTERN
expect_error() {
  local name=$1 pattern=$2; shift 2
  "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"
  local code=$?
  local lines
  lines=$(wc -l <"$WORK/err.txt")
  if [[ $code -ne 1 ]]; then fail "$name: exit code $code, expected 1"; return; fi
  if [[ $lines -ne 1 ]]; then fail "$name: $lines stderr lines, expected 1: $(cat "$WORK/err.txt")"; return; fi
  if ! grep -q "^loom: error: .*$pattern" "$WORK/err.txt"; then fail "$name: '$(cat "$WORK/err.txt")' lacks '$pattern'"; return; fi
  pass "$name"
}
# expect_nonzero NAME CMD...   : CLI11 usage errors keep CLI11's message, exit non-zero
expect_nonzero() {
  local name=$1; shift
  if "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"; then fail "$name: exit 0"; else pass "$name"; fi
}

expect_ok "help" "$LOOM" --help
grep -q "run" "$WORK/out.txt" && grep -q "inspect" "$WORK/out.txt" && grep -q "bench" "$WORK/out.txt" || fail "help lists subcommands"
expect_nonzero "no subcommand" "$LOOM"
expect_nonzero "unknown subcommand" "$LOOM" frobnicate
expect_nonzero "bad thread count" "$LOOM" run "$PLAN" --random --threads 0
expect_nonzero "missing plan argument" "$LOOM" run

expect_ok "run with npy inputs" "$LOOM" run "$PLAN" --input "a=$WORK/a.npy" --input "b=$WORK/b.npy" --output "$WORK/out1"
"$FIXTURE" check "$WORK/out1" && pass "npy outputs correct" || fail "npy outputs correct"
expect_ok "run with --input-pb (matched by name)" "$LOOM" run "$PLAN" --input-pb "$WORK/pb" --output "$WORK/out2" --threads 2
"$FIXTURE" check "$WORK/out2" && pass "pb outputs correct" || fail "pb outputs correct"
expect_ok "run --random prints a summary" "$LOOM" run "$PLAN" --random --seed 3
grep -q "y/out: float32 2x3" "$WORK/out.txt" && grep -q "min" "$WORK/out.txt" && pass "summary" || fail "summary: $(cat "$WORK/out.txt")"
expect_ok "run mixes a given input with random ones" "$LOOM" run "$PLAN" --input "a=$WORK/a.npy" --random

expect_error "unbound input" "input 'a' (float32 2x3) is not given" "$LOOM" run "$PLAN"
expect_error "wrong input shape" "input 'a': expected float32 2x3, got float32 6" "$LOOM" run "$PLAN" --input "a=$WORK/bad.npy" --random
expect_error "unknown input name" "no graph input named 'zz'" "$LOOM" run "$PLAN" --input "zz=$WORK/a.npy" --random
expect_error "missing input file" "cannot open" "$LOOM" run "$PLAN" --input "a=$WORK/none.npy" --random
expect_error "missing plan" "cannot open plan" "$LOOM" run "$WORK/none.plan" --random
printf 'LOOMPLAN' >"$WORK/short.plan"
expect_error "truncated plan" "truncated" "$LOOM" inspect "$WORK/short.plan"
: >"$WORK/empty.plan"
expect_error "empty plan" "empty" "$LOOM" bench "$WORK/empty.plan"
expect_error "empty pb folder" "no input_0.pb" "$LOOM" run "$PLAN" --input-pb "$WORK"

# Devices. No board is attached here: the board backends fail to open, each
# with one line naming the device. (FPGA plans on devices: builder/lower's
# fpga_plan_test and fpga_faults_test.)
expect_ok "run --device fpga-model on a CPU plan" "$LOOM" run "$PLAN" --input "a=$WORK/a.npy" --input "b=$WORK/b.npy" \
  --output "$WORK/out3" --device fpga-model
"$FIXTURE" check "$WORK/out3" && pass "fpga-model outputs correct" || fail "fpga-model outputs correct"
expect_error "--device fpga-zynq without registers" "fpga-zynq: give the registers either as a UIO node" \
  "$LOOM" run "$PLAN" --random --device fpga-zynq
expect_error "--device fpga-zynq, no UIO node" "fpga-zynq: $WORK/no-uio: No such file or directory" \
  "$LOOM" run "$PLAN" --random --device fpga-zynq --fpga-uio "$WORK/no-uio"
: >"$WORK/empty.xclbin"
expect_error "--device fpga-xrt, no board" "fpga-xrt: " "$LOOM" bench "$PLAN" --device fpga-xrt --xclbin "$WORK/empty.xclbin"
expect_error "--device nosuch lists the devices" "unknown device 'nosuch' (valid: cpu, fpga-model, fpga-xrt, fpga-zynq, " \
  "$LOOM" run "$PLAN" --random --device nosuch
expect_error "--fpga-base not an address" "--fpga-base 'junk' is not an address (e.g. 0x43C00000)" \
  "$LOOM" run "$PLAN" --random --device fpga-zynq --fpga-base junk
expect_error "--fpga-base without --device fpga-zynq" "--fpga-base is an option of --device fpga-zynq, not of 'cpu'" \
  "$LOOM" run "$PLAN" --random --fpga-base 0x43C00000
expect_error "--xclbin with another device" "--xclbin is an option of --device fpga-xrt, not of 'fpga-model'" \
  "$LOOM" bench "$PLAN" --device fpga-model --xclbin "$WORK/empty.xclbin"

expect_ok "inspect" "$LOOM" inspect "$PLAN" --explain
grep -q "cpu.Add" "$WORK/out.txt" && grep -q "2x3, 2x3 -> 2x3" "$WORK/out.txt" && grep -q "why: cpu: no accelerator" "$WORK/out.txt" \
  && pass "inspect table" || fail "inspect table: $(cat "$WORK/out.txt")"
expect_ok "inspect --json" "$LOOM" inspect "$PLAN" --json
if [[ -x /usr/bin/python3 ]]; then
  /usr/bin/python3 - "$WORK/out.txt" <<'PY' && pass "inspect json fields" || fail "inspect json fields"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["format_version"] == "2.2", j["format_version"]
assert 0 <= j["arena_lower_bound_bytes"] <= j["arena_bytes"], (j["arena_lower_bound_bytes"], j["arena_bytes"])
assert [n["kernel"] for n in j["nodes"]] == ["cpu.Add", "cpu.Relu"]
assert j["nodes"][1]["inputs"] == ["sum"] and j["nodes"][1]["outputs"] == ["y/out"]
assert j["inputs"][0] == {"name": "a", "dtype": "float32", "shape": [2, 3], "size_bytes": 24,
                          "layout": "row_major", "memory_space": "host"}
assert j["outputs"][1]["name"] == "y/out"
assert j["arena_bytes"] > 0 and j["constants_bytes"] == 0
for key in ("producer", "model_hash", "nodes"):
    assert key in j
PY
fi
expect_ok "bench --json" "$LOOM" bench "$PLAN" --iters 5 --warmup 1 --json --threads 2
if [[ -x /usr/bin/python3 ]]; then
  /usr/bin/python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
assert j['iters'] == 5 and j['threads'] == 2
assert 0 <= j['min_ms'] <= j['median_ms'] <= j['p90_ms'] <= j['p99_ms']
assert j['mean_ms'] >= j['min_ms']
assert j['arena_bytes'] > 0 and j['constants_bytes'] >= 0
assert j['load_ms'] > 0 and j['first_run_ms'] > 0
" "$WORK/out.txt" && pass "bench json fields" || fail "bench json fields"
fi
expect_ok "bench text" "$LOOM" bench "$PLAN" --iters 3
grep -q "median" "$WORK/out.txt" || fail "bench text shows median"
expect_ok "bench --check-all-constants" "$LOOM" bench "$PLAN" --iters 1 --check-all-constants
expect_ok "run --check-all-constants" "$LOOM" run "$PLAN" --random --check-all-constants

# The build side, when this loom has it (LOOM_BUILDER=ON).
if "$LOOM" build --help >/dev/null 2>&1; then
  expect_ok "build --list-passes" "$LOOM" build --list-passes --target cpu
  grep -q "^2. graph passes" "$WORK/out.txt" && grep -q "^3. placement for target 'cpu'" "$WORK/out.txt" \
    && sed -n '/^4. post-placement/,/^5\./p' "$WORK/out.txt" | grep -q "fuse_activation" \
    && pass "phases listed with their passes" || fail "phases listed with their passes: $(cat "$WORK/out.txt")"
  expect_error "build --target unknown" "unknown target 'gpu' (targets: cpu, fpga16, fpga32)" \
    "$LOOM" build --list-passes --target gpu
  expect_ok "build --list-passes --target fpga32" "$LOOM" build --list-passes --target fpga32
  grep -q "^3. placement for target 'fpga32': KV260: the kv260 accelerator (32x32 at 250 MHz)" "$WORK/out.txt" \
    && pass "fpga32 described" || fail "fpga32 described: $(cat "$WORK/out.txt")"
fi

# Targets, clocks and timing caches on a one-Conv ONNX model.
if "$LOOM" build --help >/dev/null 2>&1 && [[ -f "$MODEL" ]]; then
  M=$WORK/conv.onnx
  cp "$MODEL" "$M"
  expect_ok "build --target fpga16 --clock-mhz 150" "$LOOM" build "$M" -o "$WORK/f16.plan" --target fpga16 --clock-mhz 150
  expect_ok "inspect --json of an fpga16 plan" "$LOOM" inspect "$WORK/f16.plan" --json
  if [[ -x /usr/bin/python3 ]]; then
    /usr/bin/python3 - "$WORK/out.txt" <<'PY' && pass "inspect json: target, clock, devices, predictions" || fail "inspect json: target, clock, devices, predictions"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["target"] == "fpga16" and j["clock_mhz"] == 150, (j["target"], j["clock_mhz"])
assert j["boundaries"] == [], j["boundaries"]  # a float Conv stays on the CPU
assert j["notes"] == [], j["notes"]
for n in j["nodes"]:
    assert n["device"] == "cpu" and n["predicted_ms"] > 0, n
    assert n["running_kernel"] == n["kernel"] and n["fallback_kernel"] == "", n
    assert n["placement_reason"] == "cpu: float32 activations not supported by fpga16", n["placement_reason"]
PY
  fi
  expect_ok "inspect --explain of an fpga16 plan" "$LOOM" inspect "$WORK/f16.plan" --explain
  grep -q "target: fpga16, accelerator clock 150 MHz" "$WORK/out.txt" && grep -q "^boundaries (0):" "$WORK/out.txt" \
    && grep -q "why: cpu: float32 activations not supported by fpga16" "$WORK/out.txt" && grep -q "^predicted: " "$WORK/out.txt" \
    && pass "explain: target, reasons, boundaries, total" || fail "explain: $(cat "$WORK/out.txt")"
  expect_error "--clock-mhz 0" "--clock-mhz 0: expected more than 0 and at most 1000 MHz" \
    "$LOOM" build "$M" -o "$WORK/x.plan" --target fpga16 --clock-mhz 0
  expect_error "--clock-mhz too high" "accelerator clock 2000 MHz is out of range" \
    "$LOOM" build "$M" -o "$WORK/x.plan" --target fpga32 --clock-mhz 2000
  expect_error "--clock-mhz on the cpu target" "target 'cpu' has no accelerator, so no clock" \
    "$LOOM" build "$M" -o "$WORK/x.plan" --clock-mhz 100
  expect_error "--timing-cache missing" "timing cache: cannot open '$WORK/none.json'" \
    "$LOOM" build "$M" -o "$WORK/x.plan" --timing-cache "$WORK/none.json"
  printf '{"format": "loom timing cache", "version": 1, "cpu": "x", "threads": 1, "nodes": [{"ms": 1}]}' >"$WORK/bad.json"
  expect_error "--timing-cache malformed" "timing cache '$WORK/bad.json': nodes\[0\]: no \"signature\" member" \
    "$LOOM" build "$M" -o "$WORK/x.plan" --target fpga16 --timing-cache "$WORK/bad.json"
  [[ -e "$WORK/x.plan" ]] && fail "a failed build leaves no plan" || pass "a failed build leaves no plan"

  # -O levels and --dump-graph.
  expect_ok "build -O0" "$LOOM" build "$M" -o "$WORK/o0.plan" -O0
  grep -q "^passes:   eliminate_dead_nodes\|^passes:   none" "$WORK/out.txt" && pass "-O0 runs no optimization" \
    || fail "-O0 runs no optimization: $(cat "$WORK/out.txt")"
  expect_ok "build -O 2" "$LOOM" build "$M" -o "$WORK/o2.plan" -O 2
  expect_error "build -O4" "-O 4: the optimization level must be 0, 1, 2 or 3" "$LOOM" build "$M" -o "$WORK/x.plan" -O4
  expect_ok "build --dump-graph" "$LOOM" build "$M" -o "$WORK/dump.plan" --dump-graph "$WORK/graphs"
  [[ -f "$WORK/graphs/00-import.dot" ]] && ls "$WORK/graphs" | grep -q -- "-final.dot$" \
    && grep -q "^graphs:   .* DOT files in $WORK/graphs" "$WORK/out.txt" \
    && pass "--dump-graph writes the stages" || fail "--dump-graph: $(ls "$WORK/graphs") $(cat "$WORK/out.txt")"

  # Measure the CPU plan's nodes, then build for fpga16 with those times.
  expect_ok "build --target cpu" "$LOOM" build "$M" -o "$WORK/cpu.plan"
  expect_ok "bench --write-timing-cache" "$LOOM" bench "$WORK/cpu.plan" --iters 5 --warmup 1 \
    --write-timing-cache "$WORK/cache.json"
  grep -q "timing cache $WORK/cache.json: 1 CPU node" "$WORK/out.txt" || fail "bench reports the cache: $(cat "$WORK/out.txt")"
  expect_ok "build --timing-cache" "$LOOM" build "$M" -o "$WORK/timed.plan" --target fpga16 --timing-cache "$WORK/cache.json"
  expect_ok "inspect --json of the timed plan" "$LOOM" inspect "$WORK/timed.plan" --json
  if [[ -x /usr/bin/python3 ]]; then
    /usr/bin/python3 - "$WORK/cache.json" "$WORK/out.txt" <<'PY' && pass "the plan's prediction is the measured time" || fail "the plan's prediction is the measured time"
import json, sys
cache, plan = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert cache["format"] == "loom timing cache" and cache["version"] == 1 and cache["threads"] == 1, cache
assert cache["cpu"], cache
[entry] = cache["nodes"]
assert entry["signature"] == "Conv(float32 1x1x5x5, float32 1x1x3x3 -> float32 1x1x5x5)", entry["signature"]
assert entry["count"] == 1, entry
[node] = plan["nodes"]
assert abs(node["predicted_ms"] - entry["ms"]) <= 1e-6 * max(1.0, entry["ms"]), (node["predicted_ms"], entry["ms"])
# A built plan records its arena's lower bound: the input and output live together.
assert 0 < plan["arena_lower_bound_bytes"] <= plan["arena_bytes"], (plan["arena_lower_bound_bytes"], plan["arena_bytes"])
PY
  fi
fi

# Tactics: a model of two 3x3 stride-1 32 -> 32 Convs (run blocked, each
# offering loom.winograd's values) has them timed by default, the second as a
# copy of the first; --tactics heuristic leaves them to the kernels' rules.
if "$LOOM" build --help >/dev/null 2>&1 && [[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c "import onnx" 2>/dev/null; then
  T=$WORK/conv3x3.onnx
  /usr/bin/python3 - "$T" <<'PY' || fail "write a model of 3x3 Convs"
import sys
import numpy as np
from onnx import TensorProto, helper, numpy_helper, save
rng = np.random.default_rng(0)
def const(name, shape):
    return numpy_helper.from_array((0.1 * rng.standard_normal(shape)).astype(np.float32), name)
inits = [const("w1", (32, 32, 3, 3)), const("b1", (32,)), const("w2", (32, 32, 3, 3)), const("b2", (32,))]
conv = dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])
nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["h"], name="conv1", **conv),
         helper.make_node("Relu", ["h"], ["r"], name="relu1"),
         helper.make_node("Conv", ["r", "w2", "b2"], ["y"], name="conv2", **conv)]
graph = helper.make_graph(nodes, "conv3x3", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 32, 16, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32, 16, 16])], inits)
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
PY
  expect_ok "build times tactics by default" "$LOOM" build "$T" -o "$WORK/tactics.plan" --tactic-threads 1
  grep -q "^tactics:  1 nodes timed in .* s (2 with copies), [0-2] run another way" "$WORK/out.txt" \
    && pass "tactics line" || fail "tactics line: $(cat "$WORK/out.txt")"
  expect_ok "build -v lists the tactics" "$LOOM" build "$T" -o "$WORK/tactics.plan" --tactic-threads 1 -v
  [[ $(grep -c "^          conv[12] (Conv.*): loom.winograd = [024] (.* ms, .* ms, .* ms; the rule: [024]" "$WORK/out.txt") -eq 2 ]] \
    && grep -q "as an earlier node of the same shapes)$" "$WORK/out.txt" \
    && pass "tactics listed per node" || fail "tactics listed per node: $(cat "$WORK/out.txt")"
  expect_ok "build --tactics heuristic" "$LOOM" build "$T" -o "$WORK/heuristic.plan" --tactics heuristic
  grep -q "^tactics:" "$WORK/out.txt" && fail "--tactics heuristic times nothing: $(cat "$WORK/out.txt")" \
    || pass "--tactics heuristic times nothing"
  expect_error "--tactics bogus" "--tactics 'bogus': expected measure or heuristic" \
    "$LOOM" build "$T" -o "$WORK/x.plan" --tactics bogus
fi

echo "$failures failure(s)"
[[ $failures -eq 0 ]]
