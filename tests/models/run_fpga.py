#!/usr/bin/env python3
"""Heterogeneous plans end to end: int8 models built for the accelerator
(`loom build --int8 --target fpga16`) run on an accelerator backend and must
give the bytes the CPU-only int8 plan gives.

  run_fpga.py BUILD_DIR [--device fpga-model|fpga-rtl] [--zoo MODELS_DIR NAME...]
              [--inputs N] [--json FILE]

Without --zoo: the trained digits CNN (scripts/train_digits.py). Both plans
are calibrated from the same ranges (a shared --calib-cache). For N seeded
random inputs (default 8) and on the device:
  - the fpga16 plan on --device (default fpga-model) is bit-identical to the
    CPU int8 plan;
  - the fpga16 plan with `--device cpu --allow-cpu-fallback` is too;
  - classify_digits on the device reaches the CPU int8 plan's accuracy
    exactly, with most of the MACs on the accelerator.
With --zoo: the named models of scripts/export_zoo.py (resnet18,
mobilenet_v2) on their seeded input, same bit-identity checks, and a report
of the placement (nodes and MACs on the FPGA, boundaries, predicted and
measured accelerator time). Prints "N passed, N failed"; exits non-zero on
any failure.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIGITS_FILES = ("digits.onnx", "test_images.npy", "test_labels.npy", "calib/train_images.npy")


class Failed(Exception):
    pass


def run(cmd, timeout=3600):
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        sys.stdout.write(p.stdout[-4000:])
        sys.stdout.write(p.stderr[-4000:])
        raise Failed(f"{' '.join(cmd)} exited with {p.returncode}")
    return p.stdout, time.time() - t0


def build_pair(loom, model, calib, work, method):
    """The CPU int8 plan and the fpga16 plan, from one set of ranges."""
    cache = os.path.join(work, "ranges.json")
    cpu = os.path.join(work, "cpu_int8.plan")
    fpga = os.path.join(work, "fpga16.plan")
    common = ["--int8", "--calib", calib, "--calib-method", method, "--calib-cache", cache]
    run([loom, "build", model, "-o", cpu] + common)
    run([loom, "build", model, "-o", fpga, "--target", "fpga16"] + common)
    return cpu, fpga


def outputs(loom, plan, inputs_args, out_dir, device_args):
    os.makedirs(out_dir, exist_ok=True)
    stdout, seconds = run([loom, "run", plan, "-o", out_dir] + inputs_args + device_args)
    result = {}
    for f in sorted(os.listdir(out_dir)):
        if f.endswith(".npy"):
            with open(os.path.join(out_dir, f), "rb") as fh:
                result[f] = fh.read()
    if not result:
        raise Failed(f"loom run {plan} wrote no outputs")
    return result, seconds, stdout


def compare(name, what, got, want, failures):
    if got != want:
        failures.append(f"{name}: {what} differs from the CPU int8 plan")
        print(f"  FAIL {what}: outputs differ")
        return False
    print(f"  ok   {what}: bit-identical ({sum(len(v) for v in got.values())} bytes)")
    return True


def inspect(loom, plan):
    stdout, _ = run([loom, "inspect", plan, "--json"])
    return json.loads(stdout)


def profile_summary(stdout):
    m = re.search(r"accelerator: (\d+) launch\w*, (\d+) cycles = ([\d.]+) (ms|us)", stdout)
    if not m:
        return None
    value = float(m.group(3)) / (1000.0 if m.group(4) == "us" else 1.0)
    return {"launches": int(m.group(1)), "cycles": int(m.group(2)), "accelerator_ms": value}


def check_model(args, name, model, calib, input_sets, work, failures, report):
    loom = os.path.join(args.build, "bin", "loom")
    print(f"\n== {name}")
    cpu_plan, fpga_plan = build_pair(loom, model, calib, work, args.method)
    info = inspect(loom, fpga_plan)
    nodes = info.get("nodes", [])
    on_fpga = [n for n in nodes if n.get("device") == "fpga"]
    entry = {"fpga_nodes": len(on_fpga), "nodes": len(nodes),
             "boundaries": len(info.get("boundaries", [])),
             "predicted_fpga_ms": sum(n.get("predicted_ms", 0.0) for n in on_fpga)}
    print(f"  placement: {len(on_fpga)} of {len(nodes)} nodes on the FPGA, {entry['boundaries']} boundaries, "
          f"predicted accelerator time {entry['predicted_fpga_ms']:.3f} ms")
    for k, inputs_args in enumerate(input_sets):
        want, _, _ = outputs(loom, cpu_plan, inputs_args, os.path.join(work, f"cpu{k}"), [])
        got, seconds, stdout = outputs(loom, fpga_plan, inputs_args, os.path.join(work, f"dev{k}"),
                                       ["--device", args.device, "--profile"])
        compare(name, f"input {k} on {args.device} ({seconds:.1f} s)", got, want, failures)
        if k == 0:
            summary = profile_summary(stdout)
            if summary:
                entry.update(summary)
                print(f"  {args.device}: {summary['launches']} launches, {summary['cycles']} cycles = "
                      f"{summary['accelerator_ms']:.3f} ms at the configuration's clock")
            fallback, _, _ = outputs(loom, fpga_plan, inputs_args, os.path.join(work, f"fb{k}"),
                                     ["--device", "cpu", "--allow-cpu-fallback"])
            compare(name, f"input {k} on the CPU fallbacks", fallback, want, failures)
    report[name] = entry


def digits(args, failures, report):
    models = os.path.join(args.build, "models", "digits")
    if not all(os.path.exists(os.path.join(models, f)) for f in DIGITS_FILES):
        run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "train_digits.py"), models])
    work = tempfile.mkdtemp(prefix="loom_fpga_digits_")
    images = np.load(os.path.join(models, "test_images.npy"))
    input_sets = []
    for k in range(args.inputs):
        path = os.path.join(work, f"image{k}.npy")
        np.save(path, images[k * 7 % len(images)][None].astype(np.float32))
        input_sets.append(["--input", f"input={path}"])
    check_model(args, "digits", os.path.join(models, "digits.onnx"), os.path.join(models, "calib"), input_sets,
                work, failures, report)
    classify = os.path.join(args.build, "bin", "classify_digits")
    labels = [os.path.join(models, "test_images.npy"), os.path.join(models, "test_labels.npy")]
    cpu_out, _ = run([classify, os.path.join(work, "cpu_int8.plan")] + labels)
    dev_out, _ = run([classify, os.path.join(work, "fpga16.plan")] + labels + ["--device", args.device])
    sys.stdout.write("".join("  " + line + "\n" for line in dev_out.splitlines()))
    acc = re.search(r"accuracy: ([\d.]+)% \((\d+)/(\d+)\)", cpu_out)
    acc_dev = re.search(r"accuracy: ([\d.]+)% \((\d+)/(\d+)\)", dev_out)
    share = re.search(r"([\d.]+)% of the MACs", dev_out)
    if not acc or not acc_dev or acc.group(2) != acc_dev.group(2):
        failures.append("digits: classify_digits accuracy on the device differs from the CPU int8 plan's")
    if not share or float(share.group(1)) < 50.0:
        failures.append("digits: less than half of the MACs ran on the accelerator")
    report["digits"]["accuracy"] = acc_dev.group(1) if acc_dev else None
    report["digits"]["mac_share"] = float(share.group(1)) if share else None


def zoo(args, failures, report):
    for name in args.names:
        model_dir = os.path.join(args.zoo, name)
        model = os.path.join(model_dir, "model.onnx")
        if not os.path.exists(model):
            run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "export_zoo.py"), args.zoo, name])
        work = tempfile.mkdtemp(prefix=f"loom_fpga_{name}_")
        calib = os.path.join(work, "calib")
        os.makedirs(calib)
        rng = np.random.default_rng(1234)
        np.save(os.path.join(calib, "inputs.npy"), rng.standard_normal((8, 3, 224, 224)).astype(np.float32))
        check_model(args, name, model, calib, [["--input", f"input={os.path.join(model_dir, 'input.npy')}"]], work,
                    failures, report)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--device", default="fpga-model")
    parser.add_argument("--zoo", help="models folder of scripts/export_zoo.py")
    parser.add_argument("names", nargs="*", default=[])
    parser.add_argument("--inputs", type=int, default=8)
    parser.add_argument("--method", default="minmax")
    parser.add_argument("--json")
    args = parser.parse_intermixed_args()
    args.build = os.path.abspath(args.build)
    failures, report = [], {}
    try:
        if args.zoo:
            zoo(args, failures, report)
        else:
            digits(args, failures, report)
    except (Failed, subprocess.TimeoutExpired) as e:
        failures.append(str(e))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    for f in failures:
        print("FAIL:", f)
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
