// The shape side of MatMul with numpy semantics, shared by every MatMul-like
// kernel (MatMul, MatMulInteger): a 1-D A is promoted to a row [1, K] and a
// 1-D B to a column [K, 1] (the added dim is left out of the output), and the
// batch dims broadcast. The product is planned as a list of GEMMs of
// [m·fold, k] × [k, n]: when B has no batch of its own, A's (contiguous)
// batches are folded into M so the whole op is one GEMM; otherwise one GEMM
// per output batch, each with the element offsets of its A and B matrices
// (the output of GEMM i starts at i · m · fold · n).
#pragma once

#include <cstdint>
#include <vector>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/common/kernel.h"

namespace loom {

struct MatMulShape {
  int64_t m = 0, k = 0, n = 0;
  Shape output;            // broadcast batch, then m and n unless A / B is 1-D
  int64_t batches = 0;     // number of output batches (product of the batch dims)
  int64_t b_matrices = 0;  // number of distinct B matrices (product of B's batch dims)
  int64_t fold = 1;        // A batches folded into M (1 unless B is shared)
  std::vector<int64_t> a_offset, b_offset;  // one entry per GEMM
};

// Fails (InvalidArgument, bare message) on scalars, inner dims that differ
// or batch dims that do not broadcast; `a` and `b` are the operand shapes.
Status PlanMatMul(const KernelSetup& setup, const Shape& a, const Shape& b, MatMulShape* out);

}  // namespace loom
