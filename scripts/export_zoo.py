#!/usr/bin/env python3
"""Exports torchvision models to ONNX for Loom's model-zoo test.

  export_zoo.py OUTDIR [names...] [--force]

For each model writes OUTDIR/<name>/model.onnx (opset 13, input "input"
1x3x224x224, output "output"), input.npy (seeded N(0,1) float32) and
output.npy (torch's output for it). Weights are random (fixed seed); the
BatchNorm statistics are re-estimated on random batches so activations do not
collapse, and BatchNormalization stays in the graph (TrainingMode.PRESERVE in
eval mode, no constant folding) for Loom's optimizer to fold. Models whose
three files exist are skipped unless --force. Run with /usr/bin/python3.
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np
import torch
import torchvision

SEED = 0
BN_BATCHES = 2
BN_BATCH_SIZE = 4

MODELS = {
    "resnet18": lambda: torchvision.models.resnet18(weights=None),
    "mobilenet_v2": lambda: torchvision.models.mobilenet_v2(weights=None),
    "squeezenet1_1": lambda: torchvision.models.squeezenet1_1(weights=None),
    "efficientnet_b0": lambda: torchvision.models.efficientnet_b0(weights=None),
    "shufflenet_v2_x1_0": lambda: torchvision.models.shufflenet_v2_x1_0(weights=None),
    "googlenet": lambda: torchvision.models.googlenet(weights=None, aux_logits=False, init_weights=True),
    "densenet121": lambda: torchvision.models.densenet121(weights=None),
    "vit_b_16": lambda: torchvision.models.vit_b_16(weights=None),
}
FILES = ("model.onnx", "input.npy", "output.npy")


def randomize_zero_layers(model):
    """Gives zero-initialized Linear layers (ViT's head) random weights, so the output is not all zeros."""
    gen = torch.Generator().manual_seed(SEED + 2)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.Linear) and not m.weight.any():
                m.weight.copy_(torch.randn(m.weight.shape, generator=gen) * 0.02)


def reestimate_batchnorm(model):
    """Replaces BN running stats with a cumulative average over random batches."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return 0
    model.eval()
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None
        bn.train()
    gen = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for _ in range(BN_BATCHES):
            model(torch.randn(BN_BATCH_SIZE, 3, 224, 224, generator=gen))
    model.eval()
    return len(bns)


def write_npy(path, array):
    with open(path, "wb") as f:
        np.save(f, array)


def export(name, outdir):
    torch.manual_seed(SEED)
    model = MODELS[name]()
    randomize_zero_layers(model)
    num_bn = reestimate_batchnorm(model)
    model.eval()
    x = torch.from_numpy(np.random.default_rng(SEED).standard_normal((1, 3, 224, 224)).astype(np.float32))
    with torch.no_grad():
        y = model(x)
    os.makedirs(outdir, exist_ok=True)
    tmp = os.path.join(outdir, "model.onnx.tmp")
    torch.onnx.export(model, x, tmp, opset_version=13, training=torch.onnx.TrainingMode.PRESERVE,
                      do_constant_folding=False, input_names=["input"], output_names=["output"])
    write_npy(os.path.join(outdir, "input.npy.tmp"), x.numpy())
    write_npy(os.path.join(outdir, "output.npy.tmp"), y.numpy())
    for f in FILES:  # files appear only once all three are complete
        os.replace(os.path.join(outdir, f + ".tmp"), os.path.join(outdir, f))
    return num_bn, float(np.abs(y.numpy()).max())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("names", nargs="*", help="models to export (default: all)")
    parser.add_argument("--force", action="store_true", help="re-export models that already exist")
    args = parser.parse_args()
    unknown = [n for n in args.names if n not in MODELS]
    if unknown:
        print(f"export_zoo: error: unknown model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}",
              file=sys.stderr)
        return 1
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    total = time.time()
    for name in args.names or list(MODELS):
        outdir = os.path.join(args.outdir, name)
        if not args.force and all(os.path.exists(os.path.join(outdir, f)) for f in FILES):
            print(f"export_zoo: {name}: exists, skipped")
            continue
        start = time.time()
        num_bn, max_out = export(name, outdir)
        size_mb = os.path.getsize(os.path.join(outdir, "model.onnx")) / 1e6
        print(f"export_zoo: {name}: {size_mb:.1f} MB, {num_bn} BatchNorm layers, max|output| {max_out:.3g}, "
              f"{time.time() - start:.1f} s", flush=True)
    print(f"export_zoo: done in {time.time() - total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
