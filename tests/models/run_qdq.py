#!/usr/bin/env python3
"""Pre-quantized (QDQ) model test: torch's own eager post-training
quantization (scripts/make_qdq_model.py), exported to QDQ ONNX, through
`loom build` and `loom run`.

  run_qdq.py BUILD_DIR

Makes the model into BUILD_DIR/models/qdq if it is not there. The test copy of
the model also exposes the dequantized last activation (MaxPool's output) as a
graph output, so the integer values can be compared with torch's. Requires:
  - every Conv, the Add and the MaxPool run as int8 kernels (the QDQ pairs
    folded), and only the model's own Quantize/DequantizeLinear remain;
  - Loom's last int8 activation within 1 LSB of torch's quantized tensor;
  - the float output within the bound that 1 LSB implies through the float
    Linear layer: scale * sum|W| per output, plus 1e-5 for float rounding.
Prints the comparison and "N passed, N failed".
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = ("model.onnx", "input.npy", "torch_output.npy", "torch_quantized.npy")
INT8_OPS = ("Conv", "Add", "MaxPool")


def check(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.stdout.write(p.stdout + p.stderr)
        fail([f"{' '.join(cmd)} exited with {p.returncode}"])
    return p.stdout


def fail(failures):
    for f in failures:
        print(f"run_qdq: FAILED: {f}")
    print("0 passed, 1 failed")
    sys.exit(1)


def dequantize_node(model):
    """The DequantizeLinear that reads the MaxPool output (torch's DeQuantStub)."""
    producers = {o: n for n in model.graph.node for o in n.output}

    def source(name, skip):  # the node producing `name`, looking through ops in `skip`
        n = producers.get(name)
        while n is not None and n.op_type in skip:
            n = producers.get(n.input[0])
        return n

    for n in model.graph.node:
        if n.op_type == "DequantizeLinear":
            pool = source(n.input[0], ("Cast", "QuantizeLinear"))
            if pool is not None and pool.op_type == "MaxPool":
                return n
    fail(["no DequantizeLinear after the MaxPool's QuantizeLinear in the model"])


def linear_weight(model):
    for n in model.graph.node:
        if n.op_type == "Gemm":
            inits = {t.name: t for t in model.graph.initializer}
            return numpy_helper.to_array(inits[n.input[1]]).astype(np.float64)
    fail(["no Gemm (the float Linear) in the model"])


def main():
    build = os.path.abspath(sys.argv[1])
    models = os.path.join(build, "models", "qdq")
    if not all(os.path.exists(os.path.join(models, f)) for f in FILES):
        check(["/usr/bin/python3", os.path.join(ROOT, "scripts", "make_qdq_model.py"), models])
    loom = os.path.join(build, "bin", "loom")

    model = onnx.load(os.path.join(models, "model.onnx"))
    dq = dequantize_node(model)
    tap = dq.output[0]
    torch_q = np.load(os.path.join(models, "torch_quantized.npy")).astype(np.int64)
    model.graph.output.append(onnx.helper.make_tensor_value_info(tap, onnx.TensorProto.FLOAT, list(torch_q.shape)))
    tapped = os.path.join(models, "model_tapped.onnx")
    onnx.save(model, tapped)

    plan = os.path.join(models, "model.plan")
    check([loom, "build", tapped, "-o", plan])
    info = json.loads(check([loom, "inspect", plan, "--json"]))
    failures = []
    for n in info["nodes"]:
        if n["op"] in INT8_OPS and not n["kernel"].endswith(".int8"):
            failures.append(f"node {n['name']} ({n['op']}) runs {n['kernel']}, not an int8 kernel")
        if n["op"] in ("QuantizeLinear", "DequantizeLinear") and n["name"] not in ("/quant/QuantizeLinear", dq.name):
            failures.append(f"node {n['name']} ({n['op']}) left unfolded")
    int8_nodes = [n["name"] for n in info["nodes"] if n["kernel"].endswith(".int8")]
    print(f"plan: {len(info['nodes'])} nodes, int8: {', '.join(int8_nodes)}")

    out_dir = os.path.join(models, "loom_output")
    os.makedirs(out_dir, exist_ok=True)
    check([loom, "run", plan, "--input", f"input={os.path.join(models, 'input.npy')}", "--output", out_dir])
    tap_file = os.path.join(out_dir, tap.replace("/", "_") + ".npy")  # as `loom run` names files
    loom_deq = np.load(tap_file).astype(np.float64)
    loom_out = np.load(os.path.join(out_dir, "output.npy")).astype(np.float64)

    # The tapped tensor is (q - zp) * scale: recover q with the model's own parameters.
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    consts = {n.output[0]: numpy_helper.to_array(n.attribute[0].t) for n in model.graph.node if n.op_type == "Constant"}
    params = {**inits, **consts}
    scale = float(params[dq.input[1]])
    zp = int(params[dq.input[2]]) if len(dq.input) > 2 else 0
    loom_q = np.rint(loom_deq / scale).astype(np.int64) + zp
    if loom_q.shape != torch_q.shape:
        failures.append(f"last activation shape {loom_q.shape}, torch {torch_q.shape}")
    else:
        lsb = np.abs(loom_q - torch_q)
        print(f"last int8 activation: {lsb.size} values, {int((lsb == 0).sum())} equal, "
              f"{int((lsb == 1).sum())} off by 1 LSB, max {int(lsb.max())} LSB (scale {scale:.6g}, zp {zp})")
        if lsb.max() > 1:
            failures.append(f"last activation differs from torch's by {int(lsb.max())} LSB (> 1)")

    torch_out = np.load(os.path.join(models, "torch_output.npy")).astype(np.float64)
    bound = scale * np.abs(linear_weight(model)).sum(axis=1) + 1e-5
    diff = np.abs(loom_out - torch_out).reshape(-1)
    print(f"output: max|loom - torch| {diff.max():.3g}, 1-LSB bound {bound.min():.3g}..{bound.max():.3g}")
    if loom_out.shape != torch_out.shape:
        failures.append(f"output shape {loom_out.shape}, torch {torch_out.shape}")
    elif np.any(diff > bound):
        failures.append(f"output differs from torch by {diff.max():.3g}, beyond the 1-LSB bound")
    if failures:
        fail(failures)
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
