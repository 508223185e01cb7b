// Internal to the GEMM core (gemm_s8.cc, gemm_s8_avx2.cc, gemm_s8_avx512.cc,
// gemm_s8_avx512_vnni.cc, gemm_u8s8*.cc): the block
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

// Stores a tile of the u8 · s8 core (gemm_u8s8.h) through `store`: its
// first rows (<= kMaxStoreRows) x cols, requantized per row with the bias
// minus the weight offset.
constexpr int kMaxStoreRows = 8;
void StoreU8S8Tile(const GemmU8S8Block& blk, const int32_t* acc, int64_t i0, int64_t j0, int rows, int cols,
                   void (*store)(const GemmS8Block&, const int32_t*, int64_t, int64_t, int, int));

// The AVX2 kernels' row pointers of a tile of `size` rows at row i of a
// block of `rows` in A panels `a_panel` elements apart, a row's k-group
// (k-pair, k-quad) `group` elements wide: row i + r (or the block's last row
// past its end) at out[r].
template <typename T>
void TileRowPointers(const T* a, int64_t a_panel, int group, int64_t rows, int64_t i, int size, const T** out) {
  for (int r = 0; r < size; ++r) {
    const int64_t row = i + r < rows ? i + r : rows - 1;
    out[r] = a + (row / kGemmS8Mr) * a_panel + group * (row % kGemmS8Mr);
  }
}

// The AVX2 kernels' walk over a block's register tiles of up to 6 rows:
// tile(i, j, size) computes and stores the tile of `size` rows (6, or 4 or 2
// for the last ones; rows past the block are the caller's to repeat) at row
// i and column j and returns the rows it stored. B panels of up to 20 KB are
// the outer loop (each then read from L1 by every row tile, the A rows
// streaming from L2); deeper ones the inner.
template <typename Tile>
void ForEachTile(int64_t rows, int64_t cols, int64_t b_panel_bytes, Tile&& tile) {
  constexpr int64_t kL1BPanelBytes = 20 * 1024;
  auto size = [rows](int64_t i) { return rows - i > 4 ? 6 : rows - i > 2 ? 4 : 2; };
  if (cols <= 0) return;  // (a block of only a narrow panel: no row tile would advance)
  if (b_panel_bytes <= kL1BPanelBytes) {
    for (int64_t j = 0; j < cols; j += kGemmS8Nr)
      for (int64_t i = 0; i < rows;) i += tile(i, j, size(i));
    return;
  }
  for (int64_t i = 0; i < rows;) {
    int stored = 0;
    for (int64_t j = 0; j < cols; j += kGemmS8Nr) stored = tile(i, j, size(i));
    i += stored;
  }
}

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
void GemmU8S8Avx2(const GemmU8S8Block& block);
#endif

}  // namespace internal
}  // namespace int8
}  // namespace loom
