// The int8 Conv's second GEMM core, for CPUs with AVX-512 VNNI: the same
// product and requantizing epilogue as gemm_s8.h, with the operands packed
// as bytes in "k-quads", the layout a multiply-add of four u8 · s8 products
// per 32-bit lane (x86 vpdpbusd) reads:
//   A panel (int8 weights):      kGemmS8Mr rows,    element (r, k) at [(k / 4) · 4·Mr + 4r + k % 4]
//   B panel (uint8 activations): kGemmS8Nr columns, element (k, j) at [(k / 4) · 4·Nr + 4j + k % 4]
// for k in [0, 4·kq), kq = ceil(K / 4). A's rows and the k past K are zero;
// B's columns and k past its extent are zero too (A's zeros would cancel them
// anyway).
//
// Exactness: vpdpbusd needs an unsigned operand, so the activations are
// stored as x + 128 (x XOR 0x80) and the accumulator is
//   Σ w · (x + 128) = Σ w · x + 128 · Σ w,
// whose second term is a per-row constant (WeightOffsets, from Prepare)
// subtracted from the bias. Every step (the products, vpdpbusd's
// non-saturating sums, the bias add) is exact modulo 2^32, and the reference's
// accumulator (which cannot overflow, K <= kGemmS8MaxDepth) plus its wrapping
// bias add is the same value modulo 2^32: the results are bit-exact with
// GemmS8's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/cpu/int8/gemm_s8.h"
#include "kernels/cpu/int8/output_steps.h"

namespace loom {
namespace int8 {

// k-quads of a reduction of depth k.
inline int64_t KQuads(int64_t k) { return (k + 3) / 4; }
// Bytes of one A / B panel of depth k.
inline int64_t QuadAPanelSize(int64_t k) { return KQuads(k) * 4 * kGemmS8Mr; }
inline int64_t QuadBPanelSize(int64_t k) { return KQuads(k) * 4 * kGemmS8Nr; }

// Packs the `rows` x k weights a (row-major, leading dimension lda) into
// NumAPanels(rows) consecutive quad A panels at dst.
void PackAQuads(const int8_t* a, int64_t lda, int64_t rows, int64_t k, int8_t* dst);

// 128 · Σ_k a(r, k) for each of the `rows` rows (wrapping), at dst.
void WeightOffsets(const int8_t* a, int64_t lda, int64_t rows, int64_t k, int32_t* dst);

// Packs B(k, j) = src[taps[k] + columns[j]] + 128 for k < depth, j < cols
// (Conv's implicit im2col, as PackBGather) into NumBPanels(cols) quad B
// panels at dst. Reads only the addressed elements.
void PackBGatherU8(const int8_t* src, const int32_t* taps, int64_t depth, const int32_t* columns, int64_t cols,
                   uint8_t* dst);

// One block: rows [0, rows) of A (quad panels) times columns [0, cols) of B
// (quad panels) over kq k-quads; element (i, j) is
// Requantize(acc(i, j) + bias[i] - offset[i], stage of channel0 + i), the adds
// wrapping, stored at y[i · ldy + j]. Stages are per row.
struct GemmU8S8Block {
  const int8_t* a = nullptr;
  const uint8_t* b = nullptr;
  int64_t rows = 0, cols = 0, kq = 0;
  int8_t* y = nullptr;
  int64_t ldy = 0;
  const int32_t* bias = nullptr;
  const int32_t* offset = nullptr;  // WeightOffsets of the block's rows
  const OutputSteps* steps = nullptr;
  int64_t channel0 = 0;
};

// Whether this CPU runs GemmU8S8 (AVX-512 VNNI), and the block product on
// it. The portable form is the tests' reference for the packed layout.
bool GemmU8S8Available();
void GemmU8S8(const GemmU8S8Block& block);
void GemmU8S8Portable(const GemmU8S8Block& block);

}  // namespace int8
}  // namespace loom
