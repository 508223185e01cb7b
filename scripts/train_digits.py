#!/usr/bin/env python3
"""Trains a small CNN on scikit-learn's bundled 8x8 digits and exports it.

Writes to OUTDIR (default build/models/digits):
  digits.onnx       opset 13, input "input" 1x1x8x8 float32, output "logits" 1x10
  test_images.npy   float32 Nx1x8x8, pixels scaled to [0, 1] (held-out split)
  test_labels.npy   int64 N
  test_logits.npy   float32 Nx10, torch's logits for the test images (for tests)
  calib/train_images.npy  float32 256x1x8x8, training images for `loom build --int8 --calib`

Seeds are fixed, so runs are repeatable; training takes a few seconds on a CPU.
Run with Debian's /usr/bin/python3 (torch, scikit-learn, numpy).
"""
import argparse
import os
import sys
import time

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

SEED = 0
CALIB_SAMPLES = 256
TEST_SIZE = 360


class DigitsNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
            torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.BatchNorm2d(32), torch.nn.ReLU(),
            torch.nn.MaxPool2d(2))
        self.classifier = torch.nn.Sequential(
            torch.nn.Flatten(), torch.nn.Linear(32 * 4 * 4, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def load_split():
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    labels = digits.target.astype(np.int64)
    return train_test_split(images, labels, test_size=TEST_SIZE, stratify=labels, random_state=SEED)


def train(model, x_train, y_train, epochs):
    gen = torch.Generator().manual_seed(SEED)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = torch.from_numpy(x_train), torch.from_numpy(y_train)
    model.train()
    for _ in range(epochs):
        order = torch.randperm(len(x), generator=gen)
        for start in range(0, len(x), 64):
            idx = order[start:start + 64]
            opt.zero_grad()
            loss = loss_fn(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
    model.eval()


def accuracy(model, x_test, y_test):
    with torch.no_grad():
        pred = model(torch.from_numpy(x_test)).argmax(dim=1).numpy()
    return float((pred == y_test).mean())


def save_atomic(path, write):
    """Writes through a temporary file so an interrupted run leaves no partial file."""
    tmp = path + ".tmp"
    write(tmp)
    os.replace(tmp, path)


def write_npy(path, array):
    with open(path, "wb") as f:
        np.save(f, array)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", nargs="?", default=os.path.join("build", "models", "digits"))
    parser.add_argument("--epochs", type=int, default=30)
    args = parser.parse_args()

    torch.manual_seed(SEED)
    np.random.seed(SEED)
    torch.set_num_threads(1)
    os.makedirs(args.outdir, exist_ok=True)

    start = time.time()
    x_train, x_test, y_train, y_test = load_split()
    model = DigitsNet()
    train(model, x_train, y_train, args.epochs)
    acc = accuracy(model, x_test, y_test)
    print(f"train_digits: {len(x_train)} train / {len(x_test)} test images, "
          f"torch accuracy {100 * acc:.1f}% in {time.time() - start:.1f} s")

    onnx_path = os.path.join(args.outdir, "digits.onnx")
    dummy = torch.zeros(1, 1, 8, 8)
    save_atomic(onnx_path, lambda p: torch.onnx.export(
        model, dummy, p, opset_version=13, input_names=["input"], output_names=["logits"]))
    save_atomic(os.path.join(args.outdir, "test_images.npy"),
                lambda p: write_npy(p, np.ascontiguousarray(x_test, dtype=np.float32)))
    save_atomic(os.path.join(args.outdir, "test_labels.npy"),
                lambda p: write_npy(p, y_test.astype(np.int64)))
    with torch.no_grad():
        logits = model(torch.from_numpy(x_test)).numpy()
    save_atomic(os.path.join(args.outdir, "test_logits.npy"), lambda p: write_npy(p, logits.astype(np.float32)))
    # Calibration samples for `loom build --int8`: training images, never the test split.
    os.makedirs(os.path.join(args.outdir, "calib"), exist_ok=True)
    save_atomic(os.path.join(args.outdir, "calib", "train_images.npy"),
                lambda p: write_npy(p, np.ascontiguousarray(x_train[:CALIB_SAMPLES], dtype=np.float32)))
    print(f"train_digits: wrote {onnx_path}, test_images.npy, test_labels.npy, test_logits.npy, calib/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
