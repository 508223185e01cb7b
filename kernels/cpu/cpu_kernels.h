// The CPU kernel groups. Each group lists its kernels one line each in its
// kernels.def (LOOM_KERNEL("Relu", NewActivationKernel)), which its
// register.cc turns into registrations; the build configuration's file in
// kernels/registration/ lists the groups.
//   math/    elementwise arithmetic, activations, comparisons, logic, Cast,
//            reductions, Softmax family, ArgMax/TopK, normalizations
//   nn/      Conv, ConvTranspose, MatMul, Gemm, pooling, LRN, Resize
//   tensor/  shape and data movement: Reshape, Transpose, Concat, Slice,
//            Gather, Pad, Expand, Tile, Range, ...
//   quant/   quantization: QuantizeLinear, DequantizeLinear, the integer and
//            QLinear ops (requantization: kernels/common/requantize.h)
//   int8/    ONNX ops on int8 tensors with quantization parameters, as the
//            builder's int8 regions use them (int8/README.md)
//   layout/  the accelerator's padded NHWC layout on the CPU: Relayout at
//            CPU<->FPGA boundaries, and the CPU fallbacks of FPGA nodes;
//            NCHW <-> channel-blocked NCHW8c (loom.ToNchwc, loom.FromNchwc)
#pragma once

namespace loom {

class KernelRegistry;

void RegisterCpuMathKernels(KernelRegistry* r);
void RegisterCpuNnKernels(KernelRegistry* r);
void RegisterCpuTensorKernels(KernelRegistry* r);
void RegisterCpuQuantKernels(KernelRegistry* r);
void RegisterCpuInt8Kernels(KernelRegistry* r);
void RegisterCpuLayoutKernels(KernelRegistry* r);

}  // namespace loom
