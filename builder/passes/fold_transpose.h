// Folds a Transpose that swaps the last two dims of a MatMul's or Gemm's
// operand into the product:
//
//   Gemm(a, Transpose(b, [1, 0]))        ->  Gemm(a, b, transB toggled)
//   MatMul(a, Transpose(b, perm))        ->  MatMul(a, Transpose(b, perm'), loom.trans_b toggled)
//
// perm' is perm with its last two entries swapped. When perm' is the identity
// the Transpose goes; otherwise it stays with perm' only when perm' keeps the
// last axis in place (it then moves whole rows, e.g. [1, 2, 0] -> [1, 0, 2]
// for attention's K^T), which is cheaper than the element-wise gather it
// replaces. The float kernel of MatMul reads B transposed (loom.trans_b,
// kernels/cpu/nn/matmul.cc). A's Transpose stays: the int8 Gemm kernels of
// the CPU and the accelerator refuse transA, and MatMul has no transposed A.
// Needs float32
// tensors and the Transpose's output read only by the product, once, and not
// a graph output. Constant operands are fold_constants' business.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeFoldTranspose();

}  // namespace passes
}  // namespace loom
