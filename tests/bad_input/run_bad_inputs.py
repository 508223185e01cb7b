#!/usr/bin/env python3
"""Bad-input test: the `loom` CLI on malformed models, plans, tensors and
arguments must fail cleanly.

  run_bad_inputs.py BUILD_DIR [--timeout SECONDS] [--flips N] [--verbose]

For every case, `loom` must exit non-zero, not die by a signal, finish before
the timeout, and print exactly one non-empty stderr line starting with
"loom: error:" that contains a keyword naming the problem. Pure argument errors
may print CLI11's usage text instead (still a non-zero exit). A plan with
random bit flips may also run successfully if its output is bit-identical to
the intact plan's (the flip hit bytes that carry no meaning, e.g. padding).
Prints one line per failure and "N passed, N failed".
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

PLAN_CORRUPT = (r"checksum|corrupt|truncat|magic|version|format|header|size|offset|range|invalid|malformed|verif"
                r"|empty|padding|outside|overlap|mismatch|too (small|short)")
VERSION = r"version|format"
NOT_FOUND = r"not found|no such file|does not exist|cannot open|can't open|failed to open"


class Runner:
    def __init__(self, loom, timeout, verbose):
        self.loom = loom
        self.timeout = timeout
        self.verbose = verbose
        self.passed = 0
        self.failed = 0
        self.harmless_flips = 0

    def _exec(self, args):
        try:
            p = subprocess.run([self.loom] + args, capture_output=True, text=True, errors="replace",
                               timeout=self.timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return None
        return p

    def _record(self, name, problem, p=None):
        if problem is None:
            self.passed += 1
            if self.verbose:
                print(f"ok    {name}: {p.stderr.strip().splitlines()[0] if p and p.stderr.strip() else ''}")
            return True
        self.failed += 1
        detail = ""
        if p is not None:
            detail = " | stderr: " + " / ".join(p.stderr.strip().splitlines()[:3])[:300]
        print(f"FAIL  {name}: {problem}{detail}")
        return False

    @staticmethod
    def _problem(p, keywords, usage_ok):
        """Why `p` is not a clean failure, or None."""
        if p.returncode < 0:
            return f"killed by signal {-p.returncode}"
        if p.returncode == 0:
            return "exited 0"
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        if usage_ok and not (lines and lines[0].startswith("loom: error:")):
            return None  # CLI11's own usage error
        if len(lines) != 1:
            return f"{len(lines)} non-empty stderr lines, expected 1"
        if not lines[0].startswith("loom: error:") or not lines[0][len("loom: error:"):].strip():
            return "stderr line does not start with 'loom: error: <message>'"
        if keywords and not re.search(keywords, lines[0], re.IGNORECASE):
            return f"message lacks /{keywords}/"
        return None

    def expect_error(self, name, args, keywords=None, usage_ok=False, extra_check=None):
        p = self._exec(args)
        if p is None:
            return self._record(name, f"timed out after {self.timeout} s")
        problem = self._problem(p, keywords, usage_ok)
        if problem is None and extra_check is not None:
            problem = extra_check(p.stderr)
        return self._record(name, problem, p)

    def expect_error_or_same_output(self, name, args, out_file, baseline, keywords):
        if os.path.exists(out_file):
            os.remove(out_file)
        p = self._exec(args)
        if p is None:
            return self._record(name, f"timed out after {self.timeout} s")
        if p.returncode == 0:
            if not os.path.exists(out_file):
                return self._record(name, "exited 0 without writing its output", p)
            if not np.array_equal(np.load(out_file), baseline, equal_nan=True):
                return self._record(name, "exited 0 with a different output (corruption went unnoticed)", p)
            self.harmless_flips += 1
            return self._record(name, None, p)
        return self._record(name, self._problem(p, keywords, False), p)


# ---- inputs -------------------------------------------------------------------------------------------------

def good_model():
    """y = Relu(x) + w, x: float32 1x3x4x4."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((1, 3, 4, 4)).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"], name="relu"), helper.make_node("Add", ["r", "w"], ["y"], name="add")],
        "good",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 4, 4])],
        [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def cycle_model():
    """a = Add(x, b); b = Relu(a): a cycle through a and b."""
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "b"], ["a"], name="add"), helper.make_node("Relu", ["a"], ["b"], name="relu")],
        "cycle",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1, 4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def unknown_op_model():
    graph = helper.make_graph(
        [helper.make_node("FrobnicateTensor", ["x"], ["y"], name="frob")],
        "unknown_op",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def save_npy(path, array):
    with open(path, "wb") as f:
        np.save(f, array)
    return path


# ---- cases --------------------------------------------------------------------------------------------------

def model_cases(r, tmp):
    good_onnx = good_model().SerializeToString()
    r.expect_error("build: non-ONNX file", ["build", write(f"{tmp}/text.onnx", b"this is not an ONNX model\n" * 4),
                                            "-o", f"{tmp}/o.plan"])
    r.expect_error("build: empty file", ["build", write(f"{tmp}/empty.onnx", b""), "-o", f"{tmp}/o.plan"])
    for cut in sorted({1, 5, 20, len(good_onnx) // 3, len(good_onnx) // 2, len(good_onnx) - 1}):
        path = write(f"{tmp}/cut{cut}.onnx", good_onnx[:cut])
        r.expect_error(f"build: ONNX truncated at {cut}/{len(good_onnx)} bytes", ["build", path, "-o", f"{tmp}/o.plan"])
    r.expect_error("build: graph with a cycle", ["build", write(f"{tmp}/cycle.onnx", cycle_model().SerializeToString()),
                                                 "-o", f"{tmp}/o.plan"], keywords=r"cycle")
    r.expect_error("build: unknown op", ["build", write(f"{tmp}/unknown.onnx", unknown_op_model().SerializeToString()),
                                         "-o", f"{tmp}/o.plan"], keywords=r"unsupported")
    r.expect_error("build: missing model file", ["build", f"{tmp}/no_such_model.onnx", "-o", f"{tmp}/o.plan"],
                   keywords=NOT_FOUND)
    if os.path.exists(f"{tmp}/o.plan"):
        r._record("build: failed builds leave no plan", "a failed build left o.plan behind")
    good_path = write(f"{tmp}/good.onnx", good_onnx)
    r.expect_error("build: --shape malformed", ["build", good_path, "-o", f"{tmp}/o.plan", "--shape", "x=1x3xAx4"],
                   keywords=r"shape", usage_ok=True)
    r.expect_error("build: --shape without '='", ["build", good_path, "-o", f"{tmp}/o.plan", "--shape", "garbage"],
                   keywords=r"shape", usage_ok=True)
    r.expect_error("build: --shape of an unknown input", ["build", good_path, "-o", f"{tmp}/o.plan",
                                                          "--shape", "nosuch=1x3x4x4"], keywords=r"nosuch")
    r.expect_error("build: unknown flag", ["build", good_path, "--frobnicate"], usage_ok=True)
    r.expect_error("build: unknown target", ["build", good_path, "-o", f"{tmp}/o.plan", "--target", "gpu"],
                   r"unknown target .gpu.")
    r.expect_error("build: --list-passes for an unknown target", ["build", "--list-passes", "--target", "gpu"],
                   r"unknown target .gpu.")
    r.expect_error("build: no model", ["build", "-o", f"{tmp}/o.plan"], r"model is required")
    r.expect_error("unknown subcommand", ["frobnicate"], usage_ok=True)


def calibration_cases(r, tmp, good_path):
    """`loom build --int8` with bad calibration data: one clear error each."""
    def folder(name, arrays):
        d = os.path.join(tmp, "calib_" + name)
        os.makedirs(d, exist_ok=True)
        for i, a in enumerate(arrays):
            save_npy(os.path.join(d, f"{i}.npy"), a)
        return d

    good = np.random.default_rng(1).standard_normal((4, 3, 4, 4)).astype(np.float32)
    out = f"{tmp}/o8.plan"
    nan = good.copy()
    nan[2, 1, 0, 3] = np.nan
    inf = good.copy()
    inf[0, 0, 0, 0] = np.inf
    cases = [
        ("wrong shape", folder("shape", [good[:, :, :3, :]]), r"shape"),
        ("wrong dtype", folder("dtype", [good.astype(np.float64)]), r"float64"),
        ("empty folder", folder("empty", []), r"no \.npy"),
        ("NaN values", folder("nan", [nan]), r"NaN"),
        ("Inf values", folder("inf", [inf]), r"Inf"),
        ("missing folder", os.path.join(tmp, "calib_missing"), r"does not exist"),
    ]
    for name, path, keywords in cases:
        r.expect_error(f"build --int8: {name}", ["build", good_path, "-o", out, "--int8", "--calib", path], keywords)
    r.expect_error("build --int8: no calibration data", ["build", good_path, "-o", out, "--int8"], r"--calib")
    r.expect_error("build --int8: unknown method", ["build", good_path, "-o", out, "--int8", "--calib",
                                                    folder("good", [good]), "--calib-method", "mean"], r"calib-method")
    r.expect_error("build: --calib without --int8", ["build", good_path, "-o", out, "--calib", folder("good", [good])],
                   r"needs --int8")
    # A cache written for the good model, read for another one.
    cache = f"{tmp}/ranges.txt"
    p = subprocess.run([r.loom, "build", good_path, "-o", out, "--int8", "--calib", folder("good", [good]),
                        "--calib-cache", cache], capture_output=True, text=True, timeout=r.timeout)
    if p.returncode != 0:
        r._record("build --int8: the intact calibration set", f"exit {p.returncode}: {p.stderr.strip()[:300]}")
    changed = good_model()
    changed.producer_name = "another version"
    other = write(f"{tmp}/other.onnx", changed.SerializeToString())
    r.expect_error("build --int8: a cache for another model", ["build", other, "-o", out, "--int8", "--calib-cache",
                                                                cache], r"was made for model")
    write(f"{tmp}/bad_cache.txt", b"loom calibration cache 1\nmodel 00\nmethod entropy\n\"x\" one two\n")
    r.expect_error("build --int8: a malformed cache", ["build", good_path, "-o", out, "--int8", "--calib-cache",
                                                        f"{tmp}/bad_cache.txt"], r"line")
    if os.path.exists(out) and not os.path.exists(cache):
        r._record("build --int8: failed builds leave no plan", "a failed int8 build left o8.plan behind")


def run_cases(r, tmp, plan):
    x = np.random.default_rng(1).standard_normal((1, 3, 4, 4)).astype(np.float32)
    good_x = save_npy(f"{tmp}/x.npy", x)
    out = f"{tmp}/out"
    r.expect_error("run: input left unbound", ["run", plan, "--output", out], keywords=r"\bx\b|input|bound")
    r.expect_error("run: --input names no graph input", ["run", plan, "--input", f"nosuch={good_x}", "--output", out],
                   keywords=r"nosuch")
    r.expect_error("run: wrong input dtype", ["run", plan, "--input", f"x={save_npy(f'{tmp}/x_i64.npy', x.astype(np.int64))}",
                                              "--output", out], keywords=r"dtype|int64|type")
    r.expect_error("run: wrong input shape", ["run", plan, "--input", f"x={save_npy(f'{tmp}/x_shape.npy', np.zeros((1, 3, 5, 5), np.float32))}",
                                              "--output", out], keywords=r"shape")
    r.expect_error("run: malformed .npy", ["run", plan, "--input", f"x={write(f'{tmp}/bad.npy', b'NUMPY? not really' * 8)}",
                                           "--output", out], keywords=r"npy|magic|header")
    header_only = save_npy(f"{tmp}/short.npy", x)
    with open(header_only, "r+b") as f:
        f.truncate(os.path.getsize(header_only) - 40)
    r.expect_error("run: .npy with missing data", ["run", plan, "--input", f"x={header_only}", "--output", out],
                   keywords=r"npy|truncat|short|size|bytes")
    r.expect_error("run: missing .npy file", ["run", plan, "--input", f"x={tmp}/no_such.npy", "--output", out],
                   keywords=NOT_FOUND)
    r.expect_error("run: missing plan file", ["run", f"{tmp}/no_such.plan", "--random"], keywords=NOT_FOUND)
    r.expect_error("run: unknown flag", ["run", plan, "--frobnicate"], usage_ok=True)
    r.expect_error("run: --threads not a number", ["run", plan, "--random", "--threads", "many"], usage_ok=True)
    r.expect_error("inspect: missing plan file", ["inspect", f"{tmp}/no_such.plan"], keywords=NOT_FOUND)
    r.expect_error("inspect: an ONNX file, not a plan", ["inspect", f"{tmp}/good.onnx"], keywords=PLAN_CORRUPT)
    r.expect_error("bench: missing plan file", ["bench", f"{tmp}/no_such.plan"], keywords=NOT_FOUND)


def plan_cases(r, tmp, plan, flips, seed):
    data = open(plan, "rb").read()
    x = f"{tmp}/x.npy"
    out = f"{tmp}/out"
    for cut in sorted({0, 8, 32, 63, 64, 65, len(data) // 2, len(data) - 1}):
        path = write(f"{tmp}/cut{cut}.plan", data[:cut])
        r.expect_error(f"run: plan truncated at {cut}/{len(data)} bytes", ["run", path, "--input", f"x={x}", "--output", out],
                       keywords=PLAN_CORRUPT)
    r.expect_error("inspect: truncated plan", ["inspect", f"{tmp}/cut{len(data) // 2}.plan"], keywords=PLAN_CORRUPT)
    r.expect_error("bench: truncated plan", ["bench", f"{tmp}/cut{len(data) // 2}.plan", "--iters", "1"],
                   keywords=PLAN_CORRUPT)

    # A major version newer than the engine reads (the plan's own major + 1).
    plan_major = int.from_bytes(data[8:10], "little")
    newer_major = plan_major + 1
    newer = bytearray(data)
    newer[8:10] = newer_major.to_bytes(2, "little")
    path = write(f"{tmp}/v{newer_major}.plan", bytes(newer))

    def names_both_versions(stderr):
        line = stderr.strip()
        if not (re.search(rf"\b{newer_major}(\.\d+)?\b", line) and re.search(rf"\b{plan_major}(\.\d+|\.x)?\b", line)):
            return f"message does not name both format versions ({newer_major} and {plan_major})"
        return None
    r.expect_error(f"run: plan format major {newer_major}", ["run", path, "--input", f"x={x}", "--output", out],
                   keywords=VERSION, extra_check=names_both_versions)
    r.expect_error(f"inspect: plan format major {newer_major}", ["inspect", path], keywords=VERSION,
                   extra_check=names_both_versions)

    # Baseline output of the intact plan, then plans with random bit flips anywhere.
    baseline_dir = f"{tmp}/baseline"
    p = subprocess.run([r.loom, "run", plan, "--input", f"x={x}", "--output", baseline_dir], capture_output=True,
                       text=True, timeout=r.timeout)
    if p.returncode != 0 or not os.path.exists(f"{baseline_dir}/y.npy"):
        r._record("run: intact plan (baseline for bit flips)", f"exit {p.returncode}: {p.stderr.strip()[:200]}")
        return
    baseline = np.load(f"{baseline_dir}/y.npy")
    rng = random.Random(seed)
    flipped_path = f"{tmp}/flipped.plan"
    for i in range(flips):
        variant = bytearray(data)
        positions = [rng.randrange(len(data) * 8) for _ in range(rng.choice((1, 1, 2, 3)))]
        for bit in positions:
            variant[bit // 8] ^= 1 << (bit % 8)
        write(flipped_path, bytes(variant))
        where = ",".join(f"{b // 8}.{b % 8}" for b in positions)
        r.expect_error_or_same_output(f"run: plan with bit flips #{i} at byte.bit {where}",
                                      ["run", flipped_path, "--input", f"x={x}", "--output", out], f"{out}/y.npy",
                                      baseline, PLAN_CORRUPT)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--flips", type=int, default=250)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    loom = next((p for p in (os.path.join(args.build_dir, "bin", "loom"), os.path.join(args.build_dir, "loom"))
                 if os.access(p, os.X_OK)), None)
    if loom is None:
        print(f"run_bad_inputs: error: no loom binary in {args.build_dir}/bin")
        print("0 passed, 1 failed")
        return 1
    r = Runner(loom, args.timeout, args.verbose)
    with tempfile.TemporaryDirectory(prefix="loom_bad_inputs_") as tmp:
        model_cases(r, tmp)
        calibration_cases(r, tmp, f"{tmp}/good.onnx")
        plan = f"{tmp}/good.plan"
        p = subprocess.run([loom, "build", f"{tmp}/good.onnx", "-o", plan], capture_output=True, text=True,
                           timeout=args.timeout)
        if p.returncode != 0:
            r._record("build: the intact model", f"exit {p.returncode}: {p.stderr.strip()[:300]}")
        else:
            run_cases(r, tmp, plan)
            plan_cases(r, tmp, plan, args.flips, args.seed)
    print(f"bit flips: {args.flips} variants, {r.harmless_flips} ran with an unchanged output (flips in unused bytes)")
    print(f"{r.passed} passed, {r.failed} failed")
    return 0 if r.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
