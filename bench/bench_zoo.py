#!/usr/bin/env python3
"""Benchmarks the model zoo with `loom bench` and prints a Markdown table.

  bench_zoo.py BUILD_DIR [MODELS_DIR] [--threads 1,2] [--iters K] [--warmup W]

MODELS_DIR (default BUILD_DIR/models/zoo) holds <name>/model.onnx from
scripts/export_zoo.py. Each model is built (<name>/model.plan) with this
build's loom and benchmarked at each thread count; rows are ready to paste into bench/README.md.
"""
import argparse
import json
import os
import platform
import subprocess
import sys


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("models_dir", nargs="?")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    loom = os.path.join(args.build_dir, "bin", "loom")
    models_dir = args.models_dir or os.path.join(args.build_dir, "models", "zoo")
    names = sorted(d for d in os.listdir(models_dir) if os.path.exists(os.path.join(models_dir, d, "model.onnx")))
    if not names:
        sys.exit(f"bench_zoo: error: no models in {models_dir} (run scripts/export_zoo.py)")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip() or "?"
    machine = f"{cpu_name()} ({os.cpu_count()} cores)"
    print("| model | machine / CPU | threads | median ms | p90 ms | Loom commit |")
    print("|---|---|---|---|---|---|")
    for name in names:
        model = os.path.join(models_dir, name, "model.onnx")
        plan = os.path.join(models_dir, name, "model.plan")
        b = subprocess.run([loom, "build", model, "-o", plan], capture_output=True, text=True)
        if b.returncode != 0:
            print(f"| {name} | {machine} | - | build error: {b.stderr.strip()} | | {commit} |")
            continue
        for threads in args.threads.split(","):
            p = subprocess.run([loom, "bench", plan, "--json", "--threads", threads, "--iters", str(args.iters),
                                "--warmup", str(args.warmup)], capture_output=True, text=True)
            if p.returncode != 0:
                print(f"| {name} | {machine} | {threads} | error: {p.stderr.strip()} | | {commit} |")
                continue
            r = json.loads(p.stdout)
            print(f"| {name} | {machine} | {threads} | {r['median_ms']:.2f} | {r['p90_ms']:.2f} | {commit} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
