#!/usr/bin/env python3
"""Where a model's time goes in Loom and in ONNX Runtime, op kind by op kind.

  bench/op_breakdown.py BUILD_DIR MODEL_NAME [--threads 1] [--iters 20] [--warmup 3] [--json FILE]

For one zoo model (exported into BUILD_DIR/models/zoo when missing, as
bench/compare_ort.py does) it builds a Loom plan (fp32, default -O) and runs,
one after the other:
  - `loom bench PLAN --write-timing-cache`: each CPU node's median time over
    the timed runs (per signature, times the nodes that share it);
  - ONNX Runtime (bench/ort/ort_bench.js --profile, same settings as
    compare_ort.py): its profiler's per-node times over the timed runs
    (warm-up runs dropped), averaged per run.
Then prints both by op kind: Loom's kernel ops with what they fused
(ConvNchwc+BatchNormalization+Sigmoid+Mul), ORT's op types after its graph
optimizations (FusedConv, QuickGelu, ReorderInput, ...). The names differ
because the two fuse differently; the totals and the large rows are what
compare. Per-node profiling adds overhead to both, so the sums run above
the plain medians of compare_ort.py. Not part of CI.
"""
import argparse
import collections
import glob
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_ort import ROOT, Failed, cpu_description, ensure_model, ensure_ort, run  # noqa: E402


def loom_kind(signature):
    """The op and its fused ops: the signature up to its argument list."""
    return signature.split("(", 1)[0]


def loom_breakdown(loom, plan, threads, args, work):
    cache = os.path.join(work, "timing.json")
    out = run([loom, "bench", plan, "--json", "--threads", str(threads), "--iters", str(args.iters), "--warmup",
               str(args.warmup), "--write-timing-cache", cache])
    with open(cache) as f:
        nodes = json.load(f)["nodes"]
    kinds = collections.defaultdict(lambda: [0.0, 0])
    for n in nodes:
        count = n.get("count", 1)
        kinds[loom_kind(n["signature"])][0] += n["ms"] * count
        kinds[loom_kind(n["signature"])][1] += count
    return json.loads(out)["median_ms"], dict(kinds)


def ort_breakdown(env, model, input_arg, threads, args, work):
    prefix = os.path.join(work, "ort_profile")
    out = run(["node", os.path.join(ROOT, "bench", "ort", "ort_bench.js"), model, "--input", input_arg, "--threads",
               str(threads), "--iters", str(args.iters), "--warmup", str(args.warmup), "--profile", prefix], env=env)
    files = sorted(glob.glob(prefix + "*.json"))
    if not files:
        raise Failed(f"ONNX Runtime wrote no profile {prefix}*.json")
    with open(files[-1]) as f:
        events = json.load(f)
    runs = sorted((e for e in events if e.get("cat") == "Session" and e.get("name") == "model_run"),
                  key=lambda e: e["ts"])
    timed = runs[args.warmup:]
    if not timed:
        raise Failed(f"the ONNX Runtime profile has {len(runs)} runs, expected {args.warmup + args.iters}")
    kinds = collections.defaultdict(lambda: [0.0, 0])
    for e in events:
        if e.get("cat") != "Node" or not e.get("name", "").endswith("_kernel_time"):
            continue
        if not any(r["ts"] <= e["ts"] <= r["ts"] + r["dur"] for r in timed):
            continue
        kind = kinds[e.get("args", {}).get("op_name", "?")]
        kind[0] += e["dur"] / 1000.0 / len(timed)
        kind[1] += 1
    for kind in kinds.values():
        kind[1] //= len(timed)
    return json.loads(out)["median_ms"], dict(kinds)


def print_table(title, median_ms, kinds):
    total = sum(ms for ms, _ in kinds.values())
    print(f"\n{title}: median run {median_ms:.2f} ms; profiled nodes sum to {total:.2f} ms")
    print(f"  {'ms':>8}  {'share':>5}  {'nodes':>5}  op")
    for name, (ms, count) in sorted(kinds.items(), key=lambda kv: -kv[1][0]):
        print(f"  {ms:8.3f}  {100 * ms / total if total else 0:4.1f}%  {count:5d}  {name}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build", help="Loom build directory (bin/loom; models/zoo and ort/ go there)")
    p.add_argument("model", help="zoo model name (resnet18, efficientnet_b0, ...)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--json", help="also write both breakdowns to this file")
    args = p.parse_args()
    if args.threads < 1 or args.iters < 1 or args.warmup < 0:
        p.error("--threads and --iters must be >= 1, --warmup >= 0")
    loom = os.path.join(os.path.abspath(args.build), "bin", "loom")
    try:
        if not os.path.exists(loom):
            raise Failed(f"{loom} not found (build Loom first)")
        env = ensure_ort(os.path.abspath(args.build))
        zoo = os.path.join(os.path.abspath(args.build), "models", "zoo")
        model = ensure_model(zoo, args.model)
        input_arg = f"input={os.path.join(zoo, args.model, 'input.npy')}"
        with tempfile.TemporaryDirectory(prefix=f"loom_breakdown_{args.model}_") as work:
            plan = os.path.join(work, "fp32.plan")
            run([loom, "build", model, "-o", plan])
            loom_ms, loom_kinds = loom_breakdown(loom, plan, args.threads, args, work)
            ort_ms, ort_kinds = ort_breakdown(env, model, input_arg, args.threads, args, work)
    except Failed as e:
        print(f"op_breakdown: error: {e}", file=sys.stderr)
        return 1
    print(f"{args.model}, {args.threads} thread(s), {args.iters} timed runs; {cpu_description()}")
    print_table("Loom", loom_ms, loom_kinds)
    print_table("ONNX Runtime", ort_ms, ort_kinds)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"model": args.model, "threads": args.threads, "cpu": cpu_description(),
                       "loom": {"median_ms": loom_ms, "ops": loom_kinds},
                       "ort": {"median_ms": ort_ms, "ops": ort_kinds}}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
