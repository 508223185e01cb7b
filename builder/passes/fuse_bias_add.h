// Folds the Add of a per-output-channel constant into the bias of the Conv,
// Gemm or MatMul before it:
//
//   Conv(x, W[, B]) + c      ->  Conv(x, W, B + c)          c: [C,1,1], [1,C,1,1], scalar ...
//   Gemm(A, B[, C]) + c      ->  Gemm(A, B, beta*C + c)     c: [N], [1,N], scalar (beta becomes 1)
//   MatMul(A, B) + c         ->  Gemm(A, B, c)              A and B 2-D
//   MatMul(A, B) + c         ->  MatMul(A, B, c)            A or B N-D: Loom's bias input (kernels/cpu/nn/matmul.cc)
//
// c must be a float32 constant that, by ONNX broadcasting, adds one value per
// output channel (Conv: axis 1; Gemm/MatMul: the last axis) and does not
// change the output's shape. The anchor's output must be float32, read only
// by the Add and not a graph output, and carry no fused activation; an
// existing bias must be a constant too. The anchor lists "Add" in `fused`.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeFuseBiasAdd();

}  // namespace passes
}  // namespace loom
