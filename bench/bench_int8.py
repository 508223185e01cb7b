#!/usr/bin/env python3
"""Int8 against fp32 with `loom bench`: speed, arena size and int8 build time.

  bench_int8.py BUILD_DIR [MODELS_DIR] [--models resnet18,...] [--threads 1]
                [--iters K] [--warmup W] [--calib N]

MODELS_DIR (default BUILD_DIR/models/zoo) holds <name>/model.onnx from
scripts/export_zoo.py. For each model: the fp32 plan, and the int8 plan
calibrated (entropy, the default method) on N seeded N(0, 1) inputs (default
32, written to <name>/int8/calib<N>/, shared with tests/models/run_zoo_int8.py);
both are timed with `loom bench --json` one after the other, at each thread
count. Prints Markdown rows: medians, the int8 speed-up (fp32 / int8 median),
the arenas and their ratio (int8 / fp32), and the wall time of the int8 build.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_zoo import cpu_name  # noqa: E402

CALIB_SEED = 1234  # as tests/models/run_zoo_int8.py


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"bench_int8: error: {' '.join(cmd)}: {p.stderr.strip()}")
    return p.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("models_dir", nargs="?")
    parser.add_argument("--models", default="resnet18")
    parser.add_argument("--threads", default="1")
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--calib", type=int, default=32)
    args = parser.parse_args()
    loom = os.path.join(args.build_dir, "bin", "loom")
    models_dir = args.models_dir or os.path.join(args.build_dir, "models", "zoo")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip() or "?"
    print(f"machine: {cpu_name()} ({os.cpu_count()} cores); Loom {commit}; {args.calib} calibration inputs")
    print("| model | threads | fp32 median ms | int8 median ms | int8 speed-up | fp32 arena | int8 arena "
          "| arena ratio | int8 build s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        model = os.path.join(models_dir, name, "model.onnx")
        if not os.path.exists(model):
            sys.exit(f"bench_int8: error: no {model} (run scripts/export_zoo.py {models_dir} {name})")
        work = os.path.join(models_dir, name, "int8")
        calib_dir = os.path.join(work, f"calib{args.calib}")
        calib_file = os.path.join(calib_dir, "inputs.npy")
        if not os.path.exists(calib_file):
            os.makedirs(calib_dir, exist_ok=True)
            shape = (args.calib,) + tuple(np.load(os.path.join(models_dir, name, "input.npy")).shape[1:])
            np.save(calib_file, np.random.default_rng(CALIB_SEED).standard_normal(shape).astype(np.float32))
        fp32_plan, int8_plan = os.path.join(work, "bench_fp32.plan"), os.path.join(work, "bench_int8.plan")
        run([loom, "build", model, "-o", fp32_plan])
        start = time.time()
        run([loom, "build", model, "-o", int8_plan, "--int8", "--calib", calib_dir])
        build_s = time.time() - start
        for threads in args.threads.split(","):
            r = {}
            for kind, plan in (("fp32", fp32_plan), ("int8", int8_plan)):
                r[kind] = json.loads(run([loom, "bench", plan, "--json", "--threads", threads, "--iters",
                                          str(args.iters), "--warmup", str(args.warmup)]))
            f, i = r["fp32"], r["int8"]
            print(f"| {name} | {threads} | {f['median_ms']:.1f} | {i['median_ms']:.1f} | "
                  f"{f['median_ms'] / i['median_ms']:.2f}x | {f['arena_bytes'] / 2**20:.2f} MiB | "
                  f"{i['arena_bytes'] / 2**20:.2f} MiB | {i['arena_bytes'] / f['arena_bytes']:.2f} | {build_s:.1f} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
