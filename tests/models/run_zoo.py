#!/usr/bin/env python3
"""Model-zoo test: each exported torchvision model through `loom build` and
`loom run`, compared with torch's output.

  run_zoo.py BUILD_DIR MODELS_DIR [names...] [--threads N]

MODELS_DIR holds <name>/{model.onnx,input.npy,output.npy} (scripts/export_zoo.py).
A model passes iff max|loom - torch| <= 1e-4 * max|torch| for the default
(-O3) plan, and the optimization passes preserve its output: the -O0 plan's
output agrees with it, max|O0 - O3| <= 1e-5 * max|O0|, or, for a model whose
float32 evaluation is noisier than that, within twice the distance between
torch's output and the -O0 plan's (max|O0 - O3| <= 2 max|O0 - torch|: two
float32 evaluations that round differently; googlenet with its
random weights is such a model: any change of float32 rounding, e.g. folding
BatchNormalization into the weights, moves its output by ~1.3e-5 of its
maximum). Prints a table and
"N passed, N failed"; exits non-zero if any model fails or none is found.
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np
import onnx

REL_TOL = 1e-4
O0_REL_TOL = 1e-5
BUILD_TIMEOUT = 900
RUN_TIMEOUT = 900


def find_loom(build_dir):
    for path in (os.path.join(build_dir, "bin", "loom"), os.path.join(build_dir, "loom")):
        if os.access(path, os.X_OK):
            return path
    sys.exit(f"run_zoo: error: no loom binary in {build_dir}/bin")


def io_names(model_path):
    model = onnx.load(model_path, load_external_data=False)
    initializers = {t.name for t in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in initializers]
    return inputs[0], model.graph.output[0].name


def run(cmd, timeout):
    """Runs cmd; returns (ok, seconds, last stderr line or reason)."""
    start = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, time.time() - start, f"timed out after {timeout} s"
    secs = time.time() - start
    if p.returncode != 0:
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        why = lines[-1] if lines else f"exit code {p.returncode}"
        return False, secs, why
    return True, secs, ""


def build_and_run(loom, model_dir, opt_level, threads, row):
    """Builds the model at -O<opt_level>, runs it on input.npy and returns its
    output as float64, or None with row["why"] set."""
    model = os.path.join(model_dir, "model.onnx")
    suffix = "" if opt_level == 3 else f".O{opt_level}"
    plan = os.path.join(model_dir, f"model{suffix}.plan")
    out_dir = os.path.join(model_dir, f"loom_output{suffix}")
    input_name, output_name = io_names(model)
    ok, secs, why = run([loom, "build", model, "-o", plan, f"-O{opt_level}"], BUILD_TIMEOUT)
    if opt_level == 3:
        row["build"] = secs
    if not ok:
        row["why"] = f"build -O{opt_level}: " + why
        return None
    os.makedirs(out_dir, exist_ok=True)
    out_file = os.path.join(out_dir, output_name + ".npy")
    if os.path.exists(out_file):
        os.remove(out_file)
    ok, secs, why = run([loom, "run", plan, "--input", f"{input_name}={os.path.join(model_dir, 'input.npy')}",
                         "--output", out_dir, "--threads", str(threads)], RUN_TIMEOUT)
    if opt_level == 3:
        row["run"] = secs
    if not ok:
        row["why"] = f"run -O{opt_level}: " + why
        return None
    if not os.path.exists(out_file):
        row["why"] = f"run -O{opt_level} wrote no {output_name}.npy"
        return None
    return np.load(out_file).astype(np.float64)


def test_model(loom, model_dir, threads):
    """Returns a result row: dict with timings, diffs and pass flag."""
    name = os.path.basename(model_dir)
    row = {"model": name, "build": float("nan"), "run": float("nan"), "diff": float("nan"),
           "ref": float("nan"), "ratio": float("nan"), "o0_ratio": float("nan"), "ok": False, "why": ""}
    got = build_and_run(loom, model_dir, 3, threads, row)
    if got is None:
        return row
    ref = np.load(os.path.join(model_dir, "output.npy")).astype(np.float64)
    if got.shape != ref.shape:
        row["why"] = f"output shape {got.shape}, expected {ref.shape}"
        return row
    row["diff"] = float(np.abs(got - ref).max()) if got.size else 0.0
    row["ref"] = float(np.abs(ref).max()) if ref.size else 0.0
    row["ratio"] = row["diff"] / row["ref"] if row["ref"] > 0 else float("inf")
    finite = bool(np.isfinite(got).all())
    row["ok"] = finite and row["ref"] > 0 and row["diff"] <= REL_TOL * row["ref"]
    if not row["ok"]:
        row["why"] = ("non-finite output" if not finite else
                      "reference output is all zeros" if row["ref"] == 0 else
                      f"max|diff|/max|ref| {row['ratio']:.2e} > {REL_TOL:g}")
        return row
    o0 = build_and_run(loom, model_dir, 0, threads, row)
    if o0 is None:
        row["ok"] = False
        return row
    if o0.shape != got.shape:
        row["ok"] = False
        row["why"] = f"-O0 output shape {o0.shape}, -O3 {got.shape}"
        return row
    o0_max = float(np.abs(o0).max()) if o0.size else 0.0
    row["o0_ratio"] = float(np.abs(got - o0).max()) / o0_max if o0_max > 0 else float("inf")
    noise = float(np.abs(ref - o0).max()) / o0_max if o0_max > 0 else float("inf")
    bound = max(O0_REL_TOL, 2 * noise)
    if not row["o0_ratio"] <= bound:
        row["ok"] = False
        row["why"] = (f"-O0 vs -O3: max|diff|/max|O0| {row['o0_ratio']:.2e} > {O0_REL_TOL:g} "
                      f"(and > twice torch vs -O0, 2 x {noise:.2e})")
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("models_dir")
    parser.add_argument("names", nargs="*")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    loom = find_loom(args.build_dir)
    names = args.names or sorted(d for d in os.listdir(args.models_dir)
                                 if os.path.exists(os.path.join(args.models_dir, d, "output.npy")))
    if not names:
        print(f"run_zoo: error: no exported models in {args.models_dir} (run scripts/export_zoo.py)")
        print("0 passed, 1 failed")
        return 1

    header = (f"{'model':<20} {'build s':>8} {'run s':>8} {'max|diff|':>10} {'max|ref|':>10} {'ratio':>9} "
              f"{'O0 vs O3':>9}  pass")
    print(header)
    print("-" * len(header))
    rows = []
    for name in names:
        row = test_model(loom, os.path.join(args.models_dir, name), args.threads)
        rows.append(row)
        print(f"{row['model']:<20} {row['build']:8.2f} {row['run']:8.2f} {row['diff']:10.3g} {row['ref']:10.3g} "
              f"{row['ratio']:9.2e} {row['o0_ratio']:9.2e}  {'yes' if row['ok'] else 'NO  ' + row['why']}", flush=True)
    passed = sum(r["ok"] for r in rows)
    print(f"{passed} passed, {len(rows) - passed} failed")
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
