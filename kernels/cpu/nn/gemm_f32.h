// Single-precision GEMM core:
// C = act(alpha * op(A) * op(B) + beta * C + residual + bias)
// for row-major matrices with leading dimensions, the hot path of Conv,
// ConvTranspose, MatMul and Gemm.
//
// Algorithm (the classic Goto/BLIS structure):
//   for each NC-column block of C
//     for each KC-deep block of K
//       pack B(kc x nc) into NR-wide panels      (kept in L2/L3)
//       for each MC-row block of C
//         pack A(mc x kc) into MR-tall panels    (kept in L2)
//         for each NR panel, for each MR panel: micro-kernel
// The micro-kernel keeps an MR x NR tile of C in vector registers; MR, NR,
// the micro-kernel and the packers come from the instruction-set path the
// process runs (gemm_f32_isa.h: generic, AVX2+FMA, AVX-512F or NEON, chosen
// at run time; LOOM_CPU_ISA forces one). Edges are handled by zero-padded
// packing; partial tiles are stored through the same epilogue. Alpha, beta, a
// residual matrix (Conv + Add), a per-row or per-column bias and the fused
// activation are applied while a
// tile is stored, so C is written once per K block and finished while hot.
//
// Operands can be packed once ahead of time (PackedMatrixF32: constant
// weights, laid out for the path that packed them) or packed on the fly; B
// can also be gathered through offset tables (Conv's implicit im2col). Work is
// split over row and column ranges of C with ParallelFor; each thread packs
// into its own slice of the scratch buffer. With B packed ahead of time and
// few rows (a transformer's tokens times a weight: M = 197 for ViT-B/16) the
// MC block widens to all the rows (up to kGemmMcWide), so each B panel is
// read once, and several threads pack A once, together, then split the
// columns (each thread reads only its part of B).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/parallel.h"
#include "kernels/cpu/nn/activation_epilogue.h"
#include "kernels/cpu/nn/gemm_f32_isa.h"

namespace loom {
namespace nn {

constexpr int64_t kGemmKc = 384;   // depth of a packed block
constexpr int64_t kGemmMc = 128;   // rows of a packed A block (rounded down to a multiple of MR)
constexpr int64_t kGemmNc = 1024;  // columns of a packed B block (rounded down to a multiple of NR)
constexpr int64_t kGemmMcWide = 256;  // rows of an A block over a B packed ahead of time (see gemm_f32.cc)

// A matrix packed once into the panel layout the micro-kernel of one path
// reads (64-byte aligned).
// Role A: for each KC block, ceil(rows/MR) panels of kc x MR values.
// Role B: for each KC block, ceil(cols/NR) panels of kc x NR values.
// The storage is allocated uninitialized (AllocateAlignedBlock: large blocks
// on huge pages where available): the packers write every value of every
// panel, the zero padding below row M (A) or right of column N (B) included.
// Copies share the storage (read-only after packing).
class PackedMatrixF32 {
 public:
  // Packs op(src) for `isa` where src is row-major with leading dimension ld
  // and op(src) is rows x cols (rows = M, cols = K for role A; rows = K,
  // cols = N for role B); `trans` means src holds the transpose.
  void PackA(const float* src, int64_t ld, bool trans, int64_t m, int64_t k,
             const GemmF32Isa& isa = ActiveGemmF32Isa());
  void PackB(const float* src, int64_t ld, bool trans, int64_t k, int64_t n,
             const GemmF32Isa& isa = ActiveGemmF32Isa());
  // Sets up the role-B layout of a k x n matrix for `isa` without packing
  // anything: the caller then writes every panel through MutableBlockB (for
  // operands computed rather than copied, e.g. transformed weights), zeros
  // right of column n included. Panel (k0, col) holds kc x NR values,
  // element (k0 + kk, col + j) at kk * NR + j, kc = min(kGemmKc, k - k0).
  void AllocateB(int64_t k, int64_t n, const GemmF32Isa& isa = ActiveGemmF32Isa());
  // `count` matrices laid out as AllocateB(k, n, isa) sets up, in one block of
  // memory (fewer, larger allocations: fewer page faults when first written).
  static std::vector<PackedMatrixF32> AllocateManyB(size_t count, int64_t k, int64_t n,
                                                    const GemmF32Isa& isa = ActiveGemmF32Isa());

  // The layout of a matrix packed or allocated by the calls above for these
  // arguments: a key for derived constants (kernel.h) naming everything the
  // packed floats depend on besides the source values, and their count.
  static std::string LayoutKeyA(int64_t m, int64_t k, const GemmF32Isa& isa = ActiveGemmF32Isa());
  static std::string LayoutKeyManyB(size_t count, int64_t k, int64_t n, const GemmF32Isa& isa = ActiveGemmF32Isa());
  static size_t FloatsA(int64_t m, int64_t k, const GemmF32Isa& isa = ActiveGemmF32Isa());
  static size_t FloatsManyB(size_t count, int64_t k, int64_t n, const GemmF32Isa& isa = ActiveGemmF32Isa());
  // The floats PackB writes (the first of AllocateManyB's matrices, without
  // the padding to the next one).
  static size_t FloatsB(int64_t k, int64_t n, const GemmF32Isa& isa = ActiveGemmF32Isa());
  // Matrices over packed floats laid out as PackA / AllocateManyB lay out
  // theirs for the same arguments, owned by someone else (a mapped plan's
  // derived constant) who keeps them alive; data 64-byte aligned.
  static PackedMatrixF32 ViewA(const float* data, int64_t m, int64_t k, const GemmF32Isa& isa = ActiveGemmF32Isa());
  static std::vector<PackedMatrixF32> ViewManyB(const float* data, size_t count, int64_t k, int64_t n,
                                                const GemmF32Isa& isa = ActiveGemmF32Isa());
  // The first packed float (of the whole block, for AllocateManyB's first matrix).
  const float* data() const { return data_.get(); }

  bool empty() const { return isa_ == nullptr; }
  const GemmF32Isa* isa() const { return isa_; }
  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  // Start of the packed block for KC block starting at k0 and the panel that
  // holds row/column `index` (a multiple of MR for A, NR for B).
  const float* BlockA(int64_t k0, int64_t row) const;
  const float* BlockB(int64_t k0, int64_t col) const;
  float* MutableBlockB(int64_t k0, int64_t col) { return const_cast<float*>(BlockB(k0, col)); }

 private:
  // Sets the role-B shape fields (not the storage).
  void SetShapeB(int64_t k, int64_t n, const GemmF32Isa& isa);

  std::shared_ptr<float> data_;  // 64-byte aligned
  const GemmF32Isa* isa_ = nullptr;
  int64_t rows_ = 0, cols_ = 0;
  int64_t padded_ = 0;  // M rounded up to MR (A) or N rounded up to NR (B)
};

struct GemmF32Params {
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1.f;
  float beta = 0.f;  // 0: C is not read (may hold garbage)

  // A: exactly one of `a` (row-major, lda, trans_a: a holds A^T) or packed_a.
  const float* a = nullptr;
  int64_t lda = 0;
  bool trans_a = false;
  const PackedMatrixF32* packed_a = nullptr;

  // B: exactly one of `b` (+ldb, trans_b), `b` gathered (+b_k_offset,
  // b_n_offset: op(B)(k, n) = b[b_k_offset[k] + b_n_offset[n]], n_offset
  // strictly increasing; Conv's implicit im2col) or packed_b.
  const float* b = nullptr;
  int64_t ldb = 0;
  bool trans_b = false;
  const int32_t* b_k_offset = nullptr;
  const int32_t* b_n_offset = nullptr;
  const PackedMatrixF32* packed_b = nullptr;

  float* c = nullptr;
  int64_t ldc = 0;

  // Epilogue, after alpha/beta: c += residual[i * ldc + j] + row_bias[i] +
  // col_bias[j]; c = act(c). The residual has C's shape and leading dimension
  // and must not overlap C.
  const float* row_bias = nullptr;
  const float* col_bias = nullptr;
  const float* residual = nullptr;
  Activation act;

  // The instruction-set path (null: ActiveGemmF32Isa()). Packed operands
  // must have been packed for it.
  const GemmF32Isa* isa = nullptr;
};

// Scratch bytes GemmF32 needs for `params`-like problems with up to
// `num_threads` threads (an upper bound independent of m, n, k):
// num_threads times GemmF32ScratchBytes(1), so a caller may as well run
// serial GEMMs side by side, one on each thread's slice.
size_t GemmF32ScratchBytes(int num_threads);

// Runs the GEMM. `scratch` holds GemmF32ScratchBytes(threads) bytes, 64-byte
// aligned. Serial when pool is null.
void GemmF32(const GemmF32Params& params, void* scratch, ThreadPool* pool);

// Double precision: C = act(alpha * op(A) * op(B) + beta * C + bias), a plain
// loop (conformance cases, not a hot path). Same conventions as GemmF32,
// without packed operands.
struct GemmF64Params {
  int64_t m = 0, n = 0, k = 0;
  double alpha = 1.0, beta = 0.0;
  const double* a = nullptr;
  int64_t lda = 0;
  bool trans_a = false;
  const double* b = nullptr;
  int64_t ldb = 0;
  bool trans_b = false;
  double* c = nullptr;
  int64_t ldc = 0;
  const double* row_bias = nullptr;
  const double* col_bias = nullptr;
  Activation act;
};
void GemmF64(const GemmF64Params& params, ThreadPool* pool);

}  // namespace nn
}  // namespace loom
