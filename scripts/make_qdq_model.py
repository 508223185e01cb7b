#!/usr/bin/env python3
"""Makes a pre-quantized (QDQ) ONNX test model with torch's own eager-mode PTQ.

  make_qdq_model.py OUT_DIR

A small CNN with random weights (fixed seed): QuantStub -> Conv(3->8, 3x3,
pad 1)+ReLU -> Conv(8->8)+BatchNorm+ReLU -> residual Add (FloatFunctional:
that conv's output + the first conv's) -> Conv(8->8, stride 2)+ReLU ->
MaxPool 2x2 -> DeQuantStub -> Flatten -> Linear(128->10) in float.
Conv+BN+ReLU are fused (BN folded), prepared with the qnnpack qconfig
(per-tensor uint8 activations, symmetric int8 weights), calibrated on random
batches and converted; torch.onnx.export (opset 13) turns the quantized
modules into QuantizeLinear/DequantizeLinear pairs around float Conv, Relu,
Add and MaxPool. The graph dequantizes before the Flatten (torch cannot
export a reshape of a quantized tensor).

Writes to OUT_DIR:
  model.onnx           input "input" 1x3x16x16 float32, output "output" 1x10
  input.npy            float32 1x3x16x16, seeded N(0, 1)
  torch_output.npy     float32 1x10, the converted (quantized) model's output
  torch_quantized.npy  uint8 1x8x4x4, the integer values of the last quantized
                       activation (MaxPool's output, before DeQuantStub)

Debian's torch has no fbgemm, so the qnnpack engine runs everything. Needs
torch and numpy only (no onnxruntime). Run with /usr/bin/python3.
"""
import argparse
import os
import sys
import warnings

import numpy as np
import torch

SEED = 0
INPUT_SHAPE = (1, 3, 16, 16)
CALIB_BATCHES = 8
CALIB_BATCH_SIZE = 4
FILES = ("model.onnx", "input.npy", "torch_output.npy", "torch_quantized.npy")


class QdqNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = torch.quantization.QuantStub()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.relu1 = torch.nn.ReLU()
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = torch.nn.BatchNorm2d(8)
        self.relu2 = torch.nn.ReLU()
        self.skip = torch.nn.quantized.FloatFunctional()
        self.conv3 = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.relu3 = torch.nn.ReLU()
        self.pool = torch.nn.MaxPool2d(2)
        self.dequant = torch.quantization.DeQuantStub()
        self.fc = torch.nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = self.relu1(self.conv1(self.quant(x)))
        y = self.relu2(self.bn2(self.conv2(x)))
        x = self.skip.add(y, x)
        x = self.pool(self.relu3(self.conv3(x)))
        return self.fc(torch.flatten(self.dequant(x), 1))


FUSE = [["conv1", "relu1"], ["conv2", "bn2", "relu2"], ["conv3", "relu3"]]


def randomize_batchnorm(model):
    """Gives BatchNorm random statistics and affine parameters, so folding it changes the conv."""
    gen = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
                m.weight.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(m.num_features, generator=gen) * 0.1)


def quantize(model):
    """Eager post-training quantization: fuse, prepare (qnnpack), calibrate, convert."""
    model.eval()
    model = torch.quantization.fuse_modules(model, FUSE)
    model.qconfig = torch.quantization.get_default_qconfig("qnnpack")
    model.fc.qconfig = None  # the classifier stays float, after the DeQuantStub
    torch.quantization.prepare(model, inplace=True)
    gen = torch.Generator().manual_seed(SEED + 2)
    with torch.no_grad():
        for _ in range(CALIB_BATCHES):
            model(torch.randn((CALIB_BATCH_SIZE,) + INPUT_SHAPE[1:], generator=gen))
    torch.quantization.convert(model, inplace=True)
    return model


def write_npy(path, array):
    with open(path, "wb") as f:
        np.save(f, array)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    args = parser.parse_args()

    torch.backends.quantized.engine = "qnnpack"
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", category=UserWarning)

    model = QdqNet()
    randomize_batchnorm(model)
    model = quantize(model)

    # The last quantized activation, as DeQuantStub receives it.
    captured = {}
    hook = model.dequant.register_forward_pre_hook(lambda _, inputs: captured.update(q=inputs[0]))
    x = torch.from_numpy(np.random.default_rng(SEED).standard_normal(INPUT_SHAPE).astype(np.float32))
    with torch.no_grad():
        y = model(x)
    hook.remove()
    q = captured["q"]

    os.makedirs(args.outdir, exist_ok=True)
    tmp = {f: os.path.join(args.outdir, f + ".tmp") for f in FILES}
    torch.onnx.export(model, x, tmp["model.onnx"], opset_version=13, input_names=["input"],
                      output_names=["output"])
    write_npy(tmp["input.npy"], x.numpy())
    write_npy(tmp["torch_output.npy"], y.numpy().astype(np.float32))
    write_npy(tmp["torch_quantized.npy"], q.int_repr().numpy())
    for f in FILES:  # files appear only once all are complete
        os.replace(tmp[f], os.path.join(args.outdir, f))
    print(f"make_qdq_model: wrote {', '.join(FILES)} to {args.outdir}; last activation "
          f"{q.dtype} {tuple(q.shape)} scale {q.q_scale():.6g} zero point {q.q_zero_point()}; "
          f"max|output| {float(y.abs().max()):.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
