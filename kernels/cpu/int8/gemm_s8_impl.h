// Internal to the GEMM core (gemm_s8.cc, gemm_s8_avx2.cc, gemm_s8_avx512.cc,
// gemm_s8_avx512_vnni.cc): the block
// functions of each implementation and the store of a finished register tile
// they share.
#pragma once

#include <cstdint>

#include "kernels/cpu/int8/gemm_s8.h"
#include "kernels/cpu/int8/output_steps.h"

namespace loom {
namespace int8 {
struct GemmU8S8Block;

namespace internal {

// a + b wrapping in 32 bits (the int32 bias add of GemmS8Block).
inline int32_t WrappingAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int32_t WrappingSub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}

// Requantizes and stores rows x cols of the kGemmS8Mr x kGemmS8Nr row-major
// accumulator tile `acc`, whose first element is block element (i0, j0): one
// scalar lookup at a time. The AVX2 epilogue (store_tile_avx2.cc) evaluates
// requantize.h's arithmetic in eight lanes and takes tiles of up to 6 rows
// (its register tile; acc's rows are still kGemmS8Nr apart).
void StoreTilePortable(const GemmS8Block& blk, const int32_t* acc, int64_t i0, int64_t j0, int rows, int cols);

void GemmS8Portable(const GemmS8Block& block);

#if defined(__x86_64__) || defined(__i386__)
void StoreTileAvx2(const GemmS8Block& blk, const int32_t* acc, int64_t i0, int64_t j0, int rows, int cols);
// y[i] = steps.Lookup(channel, acc[i] + bias) for i < n, sixteen at once.
void RequantizeRowAvx2(const OutputSteps& steps, int64_t channel, const int32_t* acc, int32_t bias, int64_t n,
                       int8_t* y);
void GemmS8Avx2(const GemmS8Block& block);
// One full B panel of PackBGather (kGemmS8Nr columns) when its columns lie
// within 32 bytes: each k-pair two 16-byte rows interleaved and
// sign-extended (vpunpcklbw / vpunpckhbw, vpmovsxbw), a row being 16
// consecutive bytes or, for other columns, vpshufb picks from two 16-byte
// windows that end at the first and the last column (no byte outside them is
// read). False, packing nothing, for columns spread wider.
bool PackBPanelAvx2(const int8_t* src, const int32_t* taps, int64_t depth, const int32_t* columns, int16_t* dst);
// The AVX-512 epilogue (store_tile_avx512.cc): requantize.h's arithmetic
// itself, sixteen lanes at once, instead of the lookup tables.
void StoreTileAvx512(const GemmS8Block& blk, const int32_t* acc, int64_t i0, int64_t j0, int rows, int cols);
void RequantizeRowAvx512(const OutputSteps& steps, int64_t channel, const int32_t* acc, int32_t bias, int64_t n,
                         int8_t* y);
void GemmS8Avx512(const GemmS8Block& block);
void GemmS8Avx512Vnni(const GemmS8Block& block);
void GemmU8S8Avx512Vnni(const GemmU8S8Block& block);
#endif

}  // namespace internal
}  // namespace int8
}  // namespace loom
