// Rows of int8 activations times a constant int8 weight matrix, the shared
// core of the int8 Gemm and MatMul:
//   Y[i][j] = Requantize(bias[j] + sum_k A[i][k] · B[k][j], stage[j])
// on the GEMM core (gemm_s8.h). B is packed once, as the B operand (output
// features are columns, so stages and bias are per column); each task packs
// its block of A rows into scratch. Tasks are (column block, row block)
// pairs, column blocks sized so their packed weights stay in L2 and listed
// first so one thread's consecutive tasks reuse them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/common/parallel.h"
#include "kernels/common/requantize.h"
#include "kernels/cpu/int8/gemm_s8.h"

namespace loom {
namespace int8 {

class FullyConnectedS8 {
 public:
  // b is [k, n] row-major, or [n, k] when `transposed`; constant. One stage
  // per output column. Requires k <= kGemmS8MaxDepth.
  void Prepare(const int8_t* b, bool transposed, int64_t m, int64_t k, int64_t n,
               const std::vector<requant::OutputStage>& stages);
  size_t ScratchBytes(int num_threads) const;
  // a is [m, k] row-major, bias [n], y [m, n].
  void Run(const int8_t* a, const int32_t* bias, int8_t* y, void* scratch, ThreadPool* pool) const;

 private:
  int64_t m_ = 0, k_ = 0, n_ = 0;
  PackedS8Matrix packed_b_;
  OutputSteps steps_;               // the output stage of each output column
  int64_t block_rows_ = kGemmS8Mr;  // a multiple of kGemmS8Mr
  int64_t block_cols_ = kGemmS8Nr;  // a multiple of kGemmS8Nr
  size_t block_bytes_ = 0;          // one packed A block
};

}  // namespace int8
}  // namespace loom
