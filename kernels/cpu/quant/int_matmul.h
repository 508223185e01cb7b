// The integer matrix-product core of MatMulInteger and QLinearMatMul:
// validates A, B and their zero points and computes every output's int32
// accumulator
//   acc[..., i, j] = sum over k of (A[..., i, k] - a_zero_point[i]) · (B[..., k, j] - b_zero_point[j])
// with MatMul's numpy semantics (1-D operands, broadcast batch dims;
// kernels/common/matmul_shape.h), handing each one to the caller's epilogue.
// A and B are uint8 or int8 (independently); a_zero_point is per tensor or
// per row of A (M values), b_zero_point per tensor or per column of B (N
// values); an absent zero point is 0.
//
// Algorithm: B is stored transposed as int16 with its zero point subtracted,
// Bt[n][k], so every accumulator is DotI16 of an A row (converted to int16
// per thread) and a Bt row. A constant B with a constant (or absent) zero
// point is converted once in Prepare; otherwise each GEMM converts its B into
// scratch. When B has no batch of its own, A's batches are folded into M (one
// GEMM).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"
#include "kernels/common/kernel.h"
#include "kernels/cpu/quant/int_dot.h"

namespace loom {
namespace quant {

// Where a node keeps the core's inputs (MatMulInteger's order by default).
struct IntMatMulInputs {
  size_t a = 0, b = 1, a_zero_point = 2, b_zero_point = 3;
};

// Number of values of a per-row (of A: `per_row`) or per-column (of B)
// quantization parameter of input `index` (named `name` in messages): 1 (per
// tensor) or `len`. Besides a scalar and a 1-D tensor, the spec's N-D forms
// [..., M, 1] (A) and [..., 1, N] (B) are accepted when their leading dims
// are 1; other leading dims (per-batch parameters) are unsupported.
Status MatMulParamCount(const KernelSetup& s, size_t index, const char* name, int64_t len, bool per_row,
                        int64_t* count);

class IntMatMul {
 public:
  // Validates A, B and their zero points (when present) of `s`; `out_shape`
  // receives the product's shape. The output's own dtype and shape are the
  // caller's to check.
  Status Prepare(const KernelSetup& s, const IntMatMulInputs& inputs, Shape* out_shape);

  size_t ScratchBytes(int num_threads) const {
    return (packed_bt_.empty() ? bt_bytes_ : 0) + static_cast<size_t>(num_threads) * row_bytes_;
  }

  int64_t m() const { return m_; }
  int64_t n() const { return n_; }

  // Calls emit(i, j, index, acc) once for every output: `index` is its
  // row-major position in y, i its row in A's matrix (in [0, M)), j its
  // column (in [0, N)). emit runs concurrently on the pool's threads, each
  // call on a distinct index. `scratch` holds ScratchBytes(threads) bytes,
  // 64-byte aligned.
  template <typename Emit>
  void Run(const KernelArgs& args, char* scratch, Emit&& emit) const;

 private:
  // Bt[n][k] = B[k][n] - b_zero_point[n] for columns [n0, n1).
  void TransposeB(const void* b, const void* b_zp, int64_t n0, int64_t n1, int16_t* bt) const;
  // Bt of GEMM t: packed, or converted into `scratch`.
  const int16_t* TransposedB(const KernelArgs& args, size_t t, int16_t* scratch) const;
  // Row r of GEMM t's A (M · fold rows) minus its zero point, into `row`.
  void LoadRow(const KernelArgs& args, size_t t, int64_t r, int16_t* row) const;

  IntMatMulInputs in_;
  bool a_signed_ = false, b_signed_ = false;
  int64_t m_ = 0, n_ = 0, k_ = 0;
  int64_t a_zp_count_ = 0, b_zp_count_ = 0;  // 0: absent, 1: per tensor, else per row / column
  // One entry per GEMM: element offsets of its A and B matrices (the output
  // of GEMM i starts at i * m_ * fold_ * n_).
  std::vector<int64_t> a_offset_, b_offset_;
  int64_t fold_ = 1;                // A batches folded into M (B shared by all of them)
  std::vector<int16_t> packed_bt_;  // every B matrix transposed, when B is constant
  size_t bt_bytes_ = 0;             // scratch for one transposed B
  size_t row_bytes_ = 0;            // scratch per thread for one int16 A row
};

template <typename Emit>
void IntMatMul::Run(const KernelArgs& args, char* scratch, Emit&& emit) const {
  int16_t* bt_scratch = reinterpret_cast<int16_t*>(scratch);
  char* rows_scratch = scratch + (packed_bt_.empty() ? bt_bytes_ : 0);
  const int64_t rows = m_ * fold_;
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, n_ * k_));
  for (size_t t = 0; t < a_offset_.size(); ++t) {
    const int16_t* bt = TransposedB(args, t, bt_scratch);
    const int64_t base = static_cast<int64_t>(t) * rows * n_;
    ParallelFor(args.pool, rows, grain, [&](int64_t begin, int64_t end, int thread) {
      int16_t* arow = reinterpret_cast<int16_t*>(rows_scratch + static_cast<size_t>(thread) * row_bytes_);
      for (int64_t r = begin; r < end; ++r) {
        LoadRow(args, t, r, arow);
        const int64_t i = r % m_, row_base = base + r * n_;
        for (int64_t j = 0; j < n_; ++j) emit(i, j, row_base + j, DotI16(arow, bt + j * k_, k_));
      }
    });
  }
}

}  // namespace quant
}  // namespace loom
