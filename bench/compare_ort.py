#!/usr/bin/env python3
"""Loom against ONNX Runtime, side by side on this machine: median latencies and Loom/ORT ratios.

  bench/compare_ort.py BUILD_DIR [--models resnet18,mobilenet_v2,...] [--threads 1,2]
                       [--rounds 5] [--iters 10] [--warmup 3] [--int8 resnet18] [--json FILE]

For each zoo model (scripts/export_zoo.py, exported into BUILD_DIR/models/zoo
when missing) it builds a Loom plan (fp32, default -O), checks that Loom and
ONNX Runtime give the same outputs on the model's input.npy (max |a - b| <=
1e-4 * max |ORT|), then alternates the two, `--rounds` times per thread
count: ORT (`bench/ort/ort_bench.js`: onnxruntime-node, CPU provider, graph
optimization "all", intra-op threads = Loom's threads) then `loom bench`,
each with --warmup untimed and --iters timed runs. A cell is the median of
the rounds' medians; the ratio is Loom / ORT (below 1: Loom is faster).
"Paired" is the median over the rounds of each round's Loom / ORT: on a
machine whose speed changes from minute to minute (a shared VM) the two
runs of one round, seconds apart, mostly share its state, where the two
medians may come from different ones; a wide spread of the rounds' ratios
(min-max, shown) says the run was noisy.
Models named by --int8 also get an int8 Loom plan (minmax calibration on 8
seeded N(0, 1) inputs) timed against the same ORT fp32 runs.

onnxruntime-node@1.30.0 is installed from npm into BUILD_DIR/ort on first
use (ONNXRUNTIME_NODE_INSTALL=skip: the CPU build only). Not part of CI:
timings on a shared machine are noisy; the table goes into bench/README.md.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORT_VERSION = "1.30.0"
DEFAULT_MODELS = "resnet18,mobilenet_v2,squeezenet1_1,efficientnet_b0,vit_b_16"
SIMD_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx_vnni",
              "neon", "asimd", "asimddp")


class Failed(Exception):
    pass


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise Failed(f"{' '.join(cmd[:3])} ... failed: {(p.stderr or p.stdout).strip()[-2000:]}")
    return p.stdout


def cpu_description():
    name, flags = platform.machine(), set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key in ("model name", "Hardware") and name == platform.machine():
                    name = value.strip()
                elif key in ("flags", "Features"):
                    flags.update(value.split())
    except OSError:
        pass
    simd = [f for f in SIMD_FLAGS if f in flags]
    return f"{name}, {os.cpu_count()} cores, SIMD: {' '.join(simd) or 'none found'}"


def ensure_ort(build):
    prefix = os.path.join(build, "ort")
    module = os.path.join(prefix, "node_modules", "onnxruntime-node")
    if not os.path.exists(os.path.join(module, "package.json")):
        print(f"installing onnxruntime-node@{ORT_VERSION} into {prefix}", flush=True)
        os.makedirs(prefix, exist_ok=True)
        env = dict(os.environ, ONNXRUNTIME_NODE_INSTALL="skip")
        run(["npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save",
             f"onnxruntime-node@{ORT_VERSION}"], env=env)
    return dict(os.environ, NODE_PATH=os.path.join(prefix, "node_modules"))


def ensure_model(zoo, name):
    model = os.path.join(zoo, name, "model.onnx")
    if not os.path.exists(model) or not os.path.exists(os.path.join(zoo, name, "input.npy")):
        run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "export_zoo.py"), zoo, name])
    return model


def load_outputs(folder):
    return {f[:-4]: np.load(os.path.join(folder, f)) for f in sorted(os.listdir(folder)) if f.endswith(".npy")}


def check_outputs(name, loom_dir, ort_dir):
    loom, ort = load_outputs(loom_dir), load_outputs(ort_dir)
    if set(loom) != set(ort):
        raise Failed(f"{name}: Loom wrote outputs {sorted(loom)}, ONNX Runtime {sorted(ort)}")
    worst = 0.0
    for key, want in ort.items():
        got = loom[key].astype(np.float64).reshape(-1)
        want = want.astype(np.float64).reshape(-1)
        if got.shape != want.shape:
            raise Failed(f"{name}: output {key} has {got.size} values in Loom, {want.size} in ONNX Runtime")
        scale = max(float(np.max(np.abs(want))), 1e-30)
        worst = max(worst, float(np.max(np.abs(got - want))) / scale)
    if worst > 1e-4:
        raise Failed(f"{name}: outputs differ from ONNX Runtime by {worst:.2e} of their largest value (> 1e-4)")
    return worst


def ort_time(env, model, input_arg, threads, args):
    out = run(["node", os.path.join(ROOT, "bench", "ort", "ort_bench.js"), model, "--input", input_arg,
               "--threads", str(threads), "--iters", str(args.iters), "--warmup", str(args.warmup)], env=env)
    return json.loads(out)["median_ms"]


def loom_time(loom, plan, threads, args):
    out = run([loom, "bench", plan, "--json", "--threads", str(threads), "--iters", str(args.iters),
               "--warmup", str(args.warmup)])
    return json.loads(out)["median_ms"]


def int8_plan(loom, model, work):
    calib = os.path.join(work, "calib")
    os.makedirs(calib, exist_ok=True)
    rng = np.random.default_rng(1234)
    np.save(os.path.join(calib, "inputs.npy"), rng.standard_normal((8, 3, 224, 224)).astype(np.float32))
    plan = os.path.join(work, "int8.plan")
    run([loom, "build", model, "-o", plan, "--int8", "--calib", calib, "--calib-method", "minmax"])
    return plan


def measure_model(name, loom, zoo, env, threads, with_int8, args):
    """Checks Loom's outputs against ORT's on one zoo model, then times both,
    alternating, at each thread count; returns the table rows."""
    model = ensure_model(zoo, name)
    rows = []
    # Plans and outputs (vit_b_16: a 360 MB plan) go when the model is done.
    with tempfile.TemporaryDirectory(prefix=f"loom_ort_{name}_") as work:
        plan = os.path.join(work, "fp32.plan")
        run([loom, "build", model, "-o", plan])
        input_arg = f"input={os.path.join(zoo, name, 'input.npy')}"
        run([loom, "run", plan, "--input", input_arg, "-o", os.path.join(work, "loom")])
        run(["node", os.path.join(ROOT, "bench", "ort", "ort_bench.js"), model, "--input", input_arg, "--iters", "1",
             "--warmup", "0", "--output-dir", os.path.join(work, "ort")], env=env)
        error = check_outputs(name, os.path.join(work, "loom"), os.path.join(work, "ort"))
        plans = [("fp32", plan)] + ([("int8", int8_plan(loom, model, work))] if with_int8 else [])
        for t in threads:
            ort_ms, loom_ms = [], {kind: [] for kind, _ in plans}
            for _ in range(args.rounds):
                ort_ms.append(ort_time(env, model, input_arg, t, args))
                for kind, p in plans:
                    loom_ms[kind].append(loom_time(loom, p, t, args))
            ort_median = statistics.median(ort_ms)
            for kind, _ in plans:
                loom_median = statistics.median(loom_ms[kind])
                round_ratios = [lm / om for lm, om in zip(loom_ms[kind], ort_ms)]
                row = {"model": name, "dtype": kind, "threads": t, "loom_ms": loom_median, "ort_ms": ort_median,
                       "ratio": loom_median / ort_median, "paired_ratio": statistics.median(round_ratios),
                       "round_ratios": round_ratios, "max_rel_error": error if kind == "fp32" else None,
                       "loom_rounds_ms": loom_ms[kind], "ort_rounds_ms": ort_ms}
                rows.append(row)
                print(f"  {name} {kind} {t} thread(s): Loom {loom_median:.2f} ms, ORT fp32 {ort_median:.2f} ms, "
                      f"Loom/ORT {row['ratio']:.2f}, paired {row['paired_ratio']:.2f} "
                      f"({min(round_ratios):.2f}-{max(round_ratios):.2f})", flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--models", default=DEFAULT_MODELS)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--int8", default="resnet18", help="models to also time as int8 Loom plans ('' for none)")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    loom = os.path.join(build, "bin", "loom")
    zoo = os.path.join(build, "models", "zoo")
    threads = [int(t) for t in args.threads.split(",")]
    int8 = set(filter(None, args.int8.split(",")))
    env = ensure_ort(build)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip() or "?"
    print(f"machine: {cpu_description()}; Loom {commit}; onnxruntime-node {ORT_VERSION}; "
          f"{args.rounds} rounds x {args.iters} runs (+{args.warmup} warm-up), medians", flush=True)
    rows, failures = [], []
    for name in args.models.split(","):
        try:
            rows += measure_model(name, loom, zoo, env, threads, name in int8, args)
        except Failed as e:
            failures.append(str(e))
            print(f"  FAIL {e}", flush=True)
    print()
    print("| model | Loom plan | threads | Loom ms | ORT fp32 ms | Loom/ORT | paired (rounds' range) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['model']} | {r['dtype']} | {r['threads']} | {r['loom_ms']:.2f} | {r['ort_ms']:.2f} | "
              f"{r['ratio']:.2f} | {r['paired_ratio']:.2f} ({min(r['round_ratios']):.2f}-"
              f"{max(r['round_ratios']):.2f}) |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": cpu_description(), "commit": commit, "rows": rows, "failures": failures}, f,
                      indent=2)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
