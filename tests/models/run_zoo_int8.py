#!/usr/bin/env python3
"""Int8 model-zoo test: post-training quantization of zoo models with each
calibration method, compared with the same model in fp32.

  run_zoo_int8.py BUILD_DIR MODELS_DIR [names...] [--calib N] [--eval N]
                  [--methods minmax,percentile,entropy] [--json FILE]

For each model (default resnet18, mobilenet_v2, efficientnet_b0; exported by
scripts/export_zoo.py into MODELS_DIR if missing):
  - N calibration inputs (default 32) and a held-out evaluation set (default
    8), seeded N(0, 1) like the inputs the zoo's BatchNorm statistics were
    estimated on, written under MODELS_DIR/<name>/int8/;
  - `loom build --int8 --calib ... --calib-method M --report` per method, and
    the fp32 plan; every Conv must run an int8 kernel;
  - both plans run on every held-out input: cosine similarity of the final
    output (mean and worst over the set) and top-1 agreement;
  - a reference: torch simulating the same scheme in float ("fake
    quantization": per-channel symmetric int8 weights, per-tensor asymmetric
    int8 on the input and on every BatchNorm/activation/pool/Linear output,
    minmax ranges from the same calibration inputs). It quantizes fewer
    tensors than Loom (not residual Adds or squeeze-excitation Muls), so it is
    an optimistic estimate of what per-tensor int8 can reach on the model.

The zoo models have random weights, and some amplify small perturbations
strongly (mobilenet_v2 turns 40 dB of input noise into 17 dB at its output),
so int8 alone cannot reach the 0.99 cosine that trained models reach. Pass
rule per (model, method):
  - the reference reaches 0.99: Loom's mean cosine must be >= 0.99 for every
    method;
  - otherwise (the model is too sensitive for per-tensor int8): minmax and
    percentile must stay within 0.02 of the reference; entropy, whose KL
    threshold clips heavy tails by design, is reported only.
Prints a table and "N passed, N failed"; exits non-zero on any failure.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_MODELS = ("resnet18", "mobilenet_v2", "efficientnet_b0")
METHODS = ("minmax", "percentile", "entropy")
TARGET = 0.99
REFERENCE_MARGIN = 0.02
CALIB_SEED = 1234
EVAL_SEED = 4321
TIMEOUT = 900


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    if p.returncode != 0:
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        raise RuntimeError(f"{os.path.basename(cmd[0])} {cmd[1]}: " + (lines[-1] if lines else f"exit {p.returncode}"))
    return p.stdout


def write_npy(path, array):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if not os.path.exists(path):
        np.save(path + ".tmp.npy", array)
        os.replace(path + ".tmp.npy", path)


def cosine(a, b):
    a, b = a.reshape(-1).astype(np.float64), b.reshape(-1).astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30))


def run_outputs(loom, plan, input_name, inputs, out_dir):
    """Runs plan on each input file; returns the list of output arrays."""
    outs = []
    for k, path in enumerate(inputs):
        d = os.path.join(out_dir, str(k))
        os.makedirs(d, exist_ok=True)
        run([loom, "run", plan, "--input", f"{input_name}={path}", "--output", d])
        outs.append(np.load(os.path.join(d, "output.npy")))
    return outs


def torch_reference(name, calib, evalx):
    """Cosine of torch's fake-quantized model against its float self on evalx."""
    import torch
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import export_zoo

    torch.set_num_threads(os.cpu_count() or 1)
    torch.manual_seed(export_zoo.SEED)  # the same construction as export_zoo.export
    model = export_zoo.MODELS[name]()
    export_zoo.randomize_zero_layers(model)
    export_zoo.reestimate_batchnorm(model)
    model.eval()
    act_types = (torch.nn.BatchNorm2d, torch.nn.ReLU, torch.nn.ReLU6, torch.nn.SiLU, torch.nn.Sigmoid,
                 torch.nn.Hardswish, torch.nn.Hardsigmoid, torch.nn.AdaptiveAvgPool2d, torch.nn.MaxPool2d,
                 torch.nn.Linear)
    acts = [m for m in model.modules() if isinstance(m, act_types)]
    ranges = {}

    def record(m, _, out):
        lo, hi = ranges.get(m, (0.0, 0.0))
        ranges[m] = (min(lo, float(out.min())), max(hi, float(out.max())))

    def fake_quant(x, lo, hi):
        scale = (hi - lo) / 255.0 if hi > lo else 1.0
        zp = round(-128 - lo / scale)
        return (torch.clamp(torch.round(x / scale) + zp, -128, 127) - zp) * scale

    with torch.no_grad():
        hooks = [m.register_forward_hook(record) for m in acts]
        for k in range(0, len(calib), 8):
            model(torch.from_numpy(calib[k:k + 8]))
        for h in hooks:
            h.remove()
        x = torch.from_numpy(evalx)
        ref = model(x)
        for m in model.modules():
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
                w = m.weight
                s = (w.abs().flatten(1).max(1).values / 127.0).clamp(min=1e-30).view((-1,) + (1,) * (w.dim() - 1))
                w.copy_(torch.clamp(torch.round(w / s), -127, 127) * s)
        hooks = [m.register_forward_hook(lambda m, _, out: fake_quant(out, *ranges[m])) for m in acts]
        out = model(fake_quant(x, min(0.0, float(calib.min())), max(0.0, float(calib.max()))))
        for h in hooks:
            h.remove()
    return float(np.mean([cosine(r, o) for r, o in zip(ref.numpy(), out.numpy())]))


def test_model(loom, models_dir, name, args):
    model_dir = os.path.join(models_dir, name)
    work = os.path.join(model_dir, "int8")
    calib = np.random.default_rng(CALIB_SEED).standard_normal((args.calib, 3, 224, 224)).astype(np.float32)
    evalx = np.random.default_rng(EVAL_SEED).standard_normal((args.eval, 1, 3, 224, 224)).astype(np.float32)
    write_npy(os.path.join(work, f"calib{args.calib}", "inputs.npy"), calib)
    eval_files = []
    for k in range(args.eval):
        eval_files.append(os.path.join(work, "eval", f"{k}.npy"))
        write_npy(eval_files[-1], evalx[k])

    model = os.path.join(model_dir, "model.onnx")
    fp32_plan = os.path.join(work, "fp32.plan")
    run([loom, "build", model, "-o", fp32_plan])
    info = json.loads(run([loom, "inspect", fp32_plan, "--json"]))
    input_name = info["inputs"][0]["name"]
    fp32_out = run_outputs(loom, fp32_plan, input_name, eval_files, os.path.join(work, "out_fp32"))
    reference = torch_reference(name, calib, evalx[:, 0])

    rows = []
    for method in args.methods:
        row = {"model": name, "method": method, "reference": reference}
        plan = os.path.join(work, f"{method}.plan")
        start = time.time()
        run([loom, "build", model, "-o", plan, "--int8", "--calib", os.path.join(work, f"calib{args.calib}"),
             "--calib-method", method, "--report", os.path.join(work, f"{method}.json")])
        row["build_s"] = time.time() - start
        nodes = json.loads(run([loom, "inspect", plan, "--json"]))["nodes"]
        float_convs = [n["name"] for n in nodes if n["op"] == "Conv" and not n["kernel"].endswith(".int8")]
        out = run_outputs(loom, plan, input_name, eval_files, os.path.join(work, f"out_{method}"))
        cos = [cosine(a, b) for a, b in zip(fp32_out, out)]
        row["cosine"], row["worst"] = float(np.mean(cos)), float(np.min(cos))
        row["top1"] = float(np.mean([np.argmax(a) == np.argmax(b) for a, b in zip(fp32_out, out)]))
        if float_convs:
            row["ok"], row["why"] = False, f"{len(float_convs)} Conv nodes not int8, e.g. {float_convs[0]}"
        elif reference >= TARGET:
            row["ok"] = row["cosine"] >= TARGET
            row["why"] = "" if row["ok"] else f"cosine below {TARGET}"
        elif method == "entropy":
            row["ok"], row["why"] = True, "below target; reported only (model too sensitive, see header)"
        else:
            row["ok"] = row["cosine"] >= reference - REFERENCE_MARGIN
            row["why"] = ("below target; model too sensitive (reference < 0.99)" if row["ok"]
                          else f"more than {REFERENCE_MARGIN} below the torch reference")
        rows.append(row)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("models_dir")
    parser.add_argument("names", nargs="*")
    parser.add_argument("--calib", type=int, default=32)
    parser.add_argument("--eval", type=int, default=8)
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()
    args.methods = args.methods.split(",")
    names = args.names or list(DEFAULT_MODELS)
    loom = os.path.join(args.build_dir, "bin", "loom")
    missing = [n for n in names if not os.path.exists(os.path.join(args.models_dir, n, "model.onnx"))]
    if missing:
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "export_zoo.py"), args.models_dir] + missing,
                       check=True)

    rows = []
    for name in names:
        try:
            rows += test_model(loom, args.models_dir, name, args)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
            rows.append({"model": name, "method": "-", "ok": False, "why": str(e)})
        for r in rows[-len(args.methods):]:
            print(f"  {r['model']} {r['method']}: {r.get('cosine', float('nan')):.5f} {r.get('why', '')}", flush=True)

    print(f"\nint8 vs fp32, {args.calib} calibration inputs, {args.eval} held-out inputs (cosine of the final output)")
    print("| model | method | build s | cosine mean | cosine worst | top-1 agree | torch fake-quant | result |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "cosine" not in r:
            print(f"| {r['model']} | {r['method']} | | | | | | FAIL: {r['why']} |")
            continue
        status = ("pass" if r["ok"] else "FAIL") + (f": {r['why']}" if r["why"] else "")
        print(f"| {r['model']} | {r['method']} | {r['build_s']:.1f} | {r['cosine']:.4f} | {r['worst']:.4f} | "
              f"{100 * r['top1']:.0f}% | {r['reference']:.4f} | {status} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    failed = sum(not r["ok"] for r in rows)
    print(f"{len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
