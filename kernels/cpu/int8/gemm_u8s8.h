// The int8 Conv's second GEMM core, for CPUs with AVX-512 VNNI or AVX2: the
// same product and requantizing epilogue as gemm_s8.h, with the operands
// packed as bytes in "k-quads", the layout a multiply-add of four u8 · s8
// products per 32-bit lane (x86 vpdpbusd; vpmaddubsw then vpmaddwd by ones)
// reads:
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
//
// Split weights (AVX2): vpmaddubsw sums the two u8 · s8 products of each
// int16 lane with saturation, exact iff |x0 · w0 + x1 · w1| <= 2^15 - 1,
// which holds for all x in [0, 255] iff |w0| + |w1| <= 128 for each weight
// pair (k % 4 in {0, 1} or {2, 3}) of a k-quad. SplitQuadWeights rewrites
// packed A panels so every pair satisfies it (a violating pair keeps half of
// each weight, rounded toward zero) and lists the rest, per row, as sparse
// (k-quad, four bytes) entries that satisfy it too; the kernel adds the
// entries' products to its accumulator tile before the store. The sum of the
// two parts is the full weights', so WeightOffsets come from the full weights.
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

// The excess of one row's k-quad over its split weights: the four bytes as
// they lie in a quad panel.
struct QuadRemainder {
  int32_t quad = 0;   // k-quad index
  int32_t bytes = 0;  // four int8 weights, memory order
};

// Splits the quad A panels (PackAQuads's, `rows` x k) at panels in place for
// vpmaddubsw (above); row r's remainder entries are
// (*entries)[(*row_begin)[r], (*row_begin)[r + 1]), in k-quad order.
void SplitQuadWeights(int8_t* panels, int64_t rows, int64_t k, std::vector<int64_t>* row_begin,
                      std::vector<QuadRemainder>* entries);

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
// wrapping, stored at y[i · ldy + j]. Stages are per row. With split weights
// (SplitQuadWeights) `row_begin` is set: block row i's entries are
// remainder[row_begin[i], row_begin[i + 1]).
struct GemmU8S8Block {
  const int8_t* a = nullptr;
  const uint8_t* b = nullptr;
  int64_t rows = 0, cols = 0, kq = 0;
  int8_t* y = nullptr;
  int64_t ldy = 0;
  const int32_t* bias = nullptr;
  const int32_t* offset = nullptr;  // WeightOffsets of the block's rows
  const QuadRemainder* remainder = nullptr;
  const int64_t* row_begin = nullptr;  // rows + 1 entries (the block's first row's first)
  const OutputSteps* steps = nullptr;
  int64_t channel0 = 0;
};

// Whether this CPU runs GemmU8S8 on whole weights (AVX-512 VNNI) / on split
// weights (AVX2), and the block product: split-weight blocks on AVX2, others
// on AVX-512 VNNI, either on the portable form when the CPU lacks it. The
// portable form (both weight forms) is the tests' reference for the layout.
bool GemmU8S8Available();
bool GemmU8S8SplitAvailable();
void GemmU8S8(const GemmU8S8Block& block);
void GemmU8S8Portable(const GemmU8S8Block& block);

}  // namespace int8
}  // namespace loom
