// Registration of the CPU kernels, by group. Each group's register.cc lists
// its kernels one line each:  r->AddCpu("Relu", MakeKernel<ReluKernel>);
//   math/    elementwise arithmetic, activations, comparisons, logic, Cast,
//            reductions, Softmax family, ArgMax/TopK, normalizations
//   nn/      Conv, ConvTranspose, MatMul, Gemm, pooling, LRN, Resize
//   tensor/  shape and data movement: Reshape, Transpose, Concat, Slice,
//            Gather, Pad, Expand, Tile, Range, ...
#pragma once

namespace loom {

class KernelRegistry;

void RegisterCpuKernels(KernelRegistry* r);
void RegisterCpuMathKernels(KernelRegistry* r);
void RegisterCpuNnKernels(KernelRegistry* r);
void RegisterCpuTensorKernels(KernelRegistry* r);

}  // namespace loom
