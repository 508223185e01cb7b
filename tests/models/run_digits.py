#!/usr/bin/env python3
"""Digits end-to-end test: the trained CNN (scripts/train_digits.py) through
`loom build` and samples/classify_digits.

  run_digits.py BUILD_DIR

Trains the model into BUILD_DIR/models/digits if it is not there, builds the
plan, runs classify_digits over the held-out images and requires Loom's
accuracy to equal torch's (same predictions, from test_logits.npy), and Loom's
logits for the first image to match torch's within 1e-4 relative. Then builds
the int8 plan (--int8, calibrated on calib/: training images) and requires its
accuracy within 0.5 points of the float plan's.
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = ("digits.onnx", "test_images.npy", "test_labels.npy", "test_logits.npy", "calib/train_images.npy")


def check(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    sys.stdout.write(p.stdout)
    if p.returncode != 0:
        sys.stdout.write(p.stderr)
        print(f"run_digits: FAILED: {' '.join(cmd)} exited with {p.returncode}")
        print("0 passed, 1 failed")
        sys.exit(1)
    return p.stdout


def main():
    build = os.path.abspath(sys.argv[1])
    models = os.path.join(build, "models", "digits")
    if not all(os.path.exists(os.path.join(models, f)) for f in FILES):
        check(["/usr/bin/python3", os.path.join(ROOT, "scripts", "train_digits.py"), models])
    plan = os.path.join(models, "digits.plan")
    loom = os.path.join(build, "bin", "loom")
    check([loom, "build", os.path.join(models, "digits.onnx"), "-o", plan])
    out = check([os.path.join(build, "bin", "classify_digits"), plan, os.path.join(models, "test_images.npy"),
                 os.path.join(models, "test_labels.npy")])

    plan8 = os.path.join(models, "digits_int8.plan")
    check([loom, "build", os.path.join(models, "digits.onnx"), "-o", plan8, "--int8", "--calib",
           os.path.join(models, "calib")])
    out8 = check([os.path.join(build, "bin", "classify_digits"), plan8, os.path.join(models, "test_images.npy"),
                  os.path.join(models, "test_labels.npy")])

    failures = []
    m = re.search(r"accuracy: [\d.]+% \((\d+)/(\d+)\)", out)
    m8 = re.search(r"accuracy: [\d.]+% \((\d+)/(\d+)\)", out8)
    if not m8:
        failures.append("classify_digits printed no accuracy line for the int8 plan")
    elif m:
        fp32_acc = 100.0 * int(m.group(1)) / int(m.group(2))
        int8_acc = 100.0 * int(m8.group(1)) / int(m8.group(2))
        print(f"run_digits: accuracy fp32 {fp32_acc:.2f}%, int8 {int8_acc:.2f}%")
        if int8_acc < fp32_acc - 0.5:
            failures.append(f"int8 accuracy {int8_acc:.2f}% is more than 0.5 points below fp32's {fp32_acc:.2f}%")
    labels = np.load(os.path.join(models, "test_labels.npy"))
    torch_logits = np.load(os.path.join(models, "test_logits.npy"))
    torch_correct = int((torch_logits.argmax(axis=1) == labels).sum())
    if not m:
        failures.append("classify_digits printed no accuracy line")
    elif int(m.group(1)) != torch_correct or int(m.group(2)) != len(labels):
        failures.append(f"loom classified {m.group(1)}/{m.group(2)} correctly, torch {torch_correct}/{len(labels)}")

    images = np.load(os.path.join(models, "test_images.npy"))
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "image0.npy"), images[:1])
        check([loom, "run", plan, "--input", f"input={os.path.join(tmp, 'image0.npy')}", "--output", tmp])
        logits = np.load(os.path.join(tmp, "logits.npy")).reshape(-1)
    ref = torch_logits[0]
    diff = float(np.abs(logits - ref).max())
    if diff > 1e-4 * float(np.abs(ref).max()):
        failures.append(f"image 0 logits differ from torch by {diff:.3g} (max|ref| {np.abs(ref).max():.3g})")

    for f in failures:
        print("run_digits: FAILED: " + f)
    print(f"{3 - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
