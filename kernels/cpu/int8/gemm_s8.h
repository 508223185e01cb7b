// The int8 GEMM core of the int8 Conv, Gemm and MatMul: C = A · B over int8
// operands with int32 accumulators, each result (plus its int32 bias)
// requantized to int8 (requantize.h's Requantize: the exact lookup tables of
// output_steps.h on the portable path, its fixed-point arithmetic evaluated
// in vector registers on x86) and stored as soon as its register tile is
// complete, so no int32 tensor is ever written.
//
// Operands are packed into panels of int16 "k-pairs", the layout a
// multiply-add-pairs instruction (x86 vpmaddwd, Arm smlal) reads:
//   A panel: kGemmS8Mr rows,    element (r, k) at [(k / 2) · 2·Mr + 2r + k % 2]
//   B panel: kGemmS8Nr columns, element (k, j) at [(k / 2) · 2·Nr + 2j + k % 2]
// for k in [0, 2·kp), kp = ceil(K / 2); rows, columns and the odd k past K are
// zero. A constant operand (the weights) is packed once in Prepare, the other
// one per block while the kernel runs.
//
// Exactness: int8 · int8 products sign-extended to int16 and summed in pairs
// (|a0·b0 + a1·b1| <= 2^15) into int32 accumulators are exact, and the
// accumulators cannot overflow while K <= kGemmS8MaxDepth. No implementation
// uses saturating 16-bit sums, so every one returns the same integers.
//
// Implementations: a portable one (plain loops GCC vectorizes, any target)
// and, on x86, AVX2 and AVX-512BW ones (vpmaddwd on a 6 x 16 register tile
// in ymm registers, rows straddling A panels / 4 x 16 in zmm registers) and
// AVX-512 VNNI (vpdpwssd, exact and not
// saturating, on an up to 8 x 48 tile of the same panels), each compiled with a function-level target
// attribute in its own file and picked at run time by CPU features, the
// widest available. The Conv may run on the u8 · s8 core of gemm_u8s8.h
// instead (kAvx2U8, kAvx512VnniU8). Tests run every available one
// (SetGemmS8Impl).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/cpu/int8/output_steps.h"

namespace loom {
namespace int8 {

constexpr int kGemmS8Mr = 4;   // rows of the register tile (A panel height)
constexpr int kGemmS8Nr = 16;  // columns of the register tile (B panel width)
// Largest reduction depth whose int32 accumulators provably cannot overflow:
// K · 128 · 128 < 2^31.
constexpr int64_t kGemmS8MaxDepth = (int64_t{1} << 17) - 1;

// k-pairs of a reduction of depth k.
inline int64_t KPairs(int64_t k) { return (k + 1) / 2; }
// int16 elements of one A / B panel of depth k.
inline int64_t APanelSize(int64_t k) { return KPairs(k) * 2 * kGemmS8Mr; }
inline int64_t BPanelSize(int64_t k) { return KPairs(k) * 2 * kGemmS8Nr; }
inline int64_t NumAPanels(int64_t rows) { return (rows + kGemmS8Mr - 1) / kGemmS8Mr; }
inline int64_t NumBPanels(int64_t cols) { return (cols + kGemmS8Nr - 1) / kGemmS8Nr; }

// Packs the `rows` x k matrix a (row-major, leading dimension lda) into
// NumAPanels(rows) consecutive A panels at dst.
void PackA(const int8_t* a, int64_t lda, int64_t rows, int64_t k, int16_t* dst);

// Packs the k x `cols` matrix b into NumBPanels(cols) consecutive B panels at
// dst; b is row-major [k, cols] with leading dimension ldb, or, when
// `transposed`, row-major [cols, k] (b holds B^T).
void PackB(const int8_t* b, int64_t ldb, bool transposed, int64_t k, int64_t cols, int16_t* dst);

// Packs B(k, j) = src[taps[k] + columns[j]] for k < depth, j < cols (Conv's
// implicit im2col over an input that needs no bounds checks) into
// NumBPanels(cols) B panels at dst. On x86 (any implementation but the
// portable one) a full panel whose columns lie within 32 bytes is packed with
// vector loads that read no byte outside [src + taps[k] + columns[first],
// src + taps[k] + columns[last]].
void PackBGather(const int8_t* src, const int32_t* taps, int64_t depth, const int32_t* columns, int64_t cols,
                 int16_t* dst);

// A weight matrix packed once (Prepare) in one role.
class PackedS8Matrix {
 public:
  void PackA(const int8_t* a, int64_t lda, int64_t rows, int64_t k);
  void PackB(const int8_t* b, int64_t ldb, bool transposed, int64_t k, int64_t cols);
  // The panel holding row (role A) or column (role B) `index`, a multiple of
  // kGemmS8Mr / kGemmS8Nr.
  const int16_t* APanels(int64_t row) const { return data_.data() + (row / kGemmS8Mr) * APanelSize(k_); }
  const int16_t* BPanels(int64_t col) const { return data_.data() + (col / kGemmS8Nr) * BPanelSize(k_); }
  bool empty() const { return data_.empty(); }

 private:
  std::vector<int16_t> data_;
  int64_t k_ = 0;
};

// One block of the product: rows [0, rows) of A (consecutive A panels) times
// columns [0, cols) of B (consecutive B panels), over kp k-pairs. Output
// element (i, j) is Requantize(acc(i, j) + bias, stage) stored at
// y[i · ldy + j], with bias and stage taken per row (Conv: output channels
// are rows) or per column (Gemm, MatMul: output features are columns): `bias`
// points at the block's first row's / column's, whose output channel in
// `steps` is `channel0`. The int32 bias add wraps (two's complement), as the
// reference's does.
struct GemmS8Block {
  const int16_t* a = nullptr;
  const int16_t* b = nullptr;
  int64_t rows = 0, cols = 0, kp = 0;
  int8_t* y = nullptr;
  int64_t ldy = 0;
  const int32_t* bias = nullptr;
  const OutputSteps* steps = nullptr;
  int64_t channel0 = 0;
  bool per_row = true;
};

// Runs one block on the selected implementation. Loops over A panels
// (outer: one A panel stays in L1) and B panels (inner: the B block should
// fit in L2).
void GemmS8(const GemmS8Block& block);

// The epilogue alone (the depthwise Conv's): y[i] = steps.Lookup(channel,
// acc[i] + bias) for i < n, the bias add wrapping, on the selected
// implementation's vector path when it has one.
void RequantizeRow(const OutputSteps& steps, int64_t channel, const int32_t* acc, int32_t bias, int64_t n, int8_t* y);

// kAvx2U8 is kAvx2 for GemmS8, and makes the Conv use the u8 · s8 core of
// gemm_u8s8.h on AVX2 (vpmaddubsw on byte panels of split weights) instead;
// kAvx512VnniU8 likewise is kAvx512Vnni with the u8 · s8 core on vpdpbusd.
enum class GemmS8Impl { kPortable, kAvx2, kAvx2U8, kAvx512, kAvx512Vnni, kAvx512VnniU8 };

// The implementations this CPU can run, portable first, fastest last.
std::vector<GemmS8Impl> AvailableGemmS8Impls();
// Selects the implementation GemmS8 uses, process-wide; false, leaving the
// selection, when unavailable. The default is the fastest available, or the
// one $LOOM_INT8_GEMM names ("portable", "avx2", "avx2-u8", "avx512",
// "avx512vnni", "avx512vnni-u8") if available: a
// knob to compare implementations from the command line.
bool SetGemmS8Impl(GemmS8Impl impl);
GemmS8Impl ActiveGemmS8Impl();
const char* GemmS8ImplName(GemmS8Impl impl);

// Whether the int8 kernels outside the GEMM core (Winograd Conv, Add, Mul,
// MaxPool) take their AVX2 paths: on x86 for every implementation but
// kPortable (each of the others implies AVX2), so SetGemmS8Impl(kPortable)
// or LOOM_INT8_GEMM=portable selects the portable paths everywhere.
bool UseInt8Avx2();

}  // namespace int8
}  // namespace loom
