// Tiling: how a windowed layer (Conv, MaxPool) is cut into spatial tiles that
// fit the on-chip buffers, and how a Conv's weights are cut into K chunks.
//
// Spatial tiles. A tile is th × tw output pixels; its input tile is
// ((th − 1)·sy + ey) × ((tw − 1)·sx + ex) pixels of `blocks` channel blocks
// (e = dilated kernel extent), halo and padding included, and must fit half
// the input buffer (the other half is loading the next tile); th · tw must fit
// half the accumulators (the other half is being stored). An axis with a
// 1-tap kernel and stride s > 1 is subsampled by the load (pitch × s), so the
// tile holds only the pixels the window touches and the CONV runs stride 1.
//
// Heuristic (ChooseTileGrid): a layer whose whole input fits the whole input
// buffer is one tile (nothing to overlap its load with, and the weights are
// loaded once; this keeps ResNet's 7x7 and 14x14 stages at 49 and 196 pixels
// per CONV). Otherwise, for every distinct tile width tw = ceil(W / nx), take
// the tallest th that fits half the buffer, then balance both axes (tiles
// differ by at most one row or column). Choose the grid with
//   1. the fewest tiles — the most pixels per CONV command, so the array's
//      pipeline fill and the weight reload per tile are amortized and the
//      loads of the next tile hide behind longer computes;
//   2. then the fewest column tiles: a full-width tile's LOAD_ACT reads one
//      contiguous block of DRAM (whole rows back to back, long bursts);
//   3. then the fewest input pixels loaded (less halo re-read from DRAM).
// Interior tiles read their halo from DRAM; edge tiles get LOAD_ACT padding.
//
// K chunks (PlanWeights). Weight rows for one output-channel block are
// blocks · kh · kw · N. If all blocks' weights fit the whole weight buffer,
// they stay resident: loaded once, one CONV per block and tile covers all of
// K. Otherwise chunks of as many input-channel blocks as half the buffer holds
// (balanced), double-buffered; a kernel too large for even one block per half
// is cut into runs of kernel rows (a CONV with kh' rows starting at ky).
// Either way the weight image is [m][cb][ky][kx] tiles, which is also the
// order every chunk's CONV reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "kernels/fpga/lowering/layer.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {
namespace lowering {

// The input rows one axis of a window reads: `size` outputs read
// (size − 1) · step + extent inputs.
struct AxisWindow {
  uint32_t in = 0;       // input size
  uint32_t out = 0;      // output size
  uint32_t stride = 1;
  uint32_t extent = 1;   // dilated kernel extent
  uint32_t pad_before = 0;
  bool subsample = false;  // 1-tap kernel with stride > 1: the load skips pixels

  static AxisWindow Y(const Window& w, uint32_t in_h);
  static AxisWindow X(const Window& w, uint32_t in_w);
  // Step between consecutive outputs in the input tile.
  uint32_t Step() const { return subsample ? 1 : stride; }
  uint32_t InputSpan(uint32_t outputs) const { return (outputs - 1) * Step() + (subsample ? 1 : extent); }
};

struct Span {
  uint32_t begin = 0;
  uint32_t size = 0;
};

struct Tile {
  Span rows, cols;  // output rows and columns
};

struct TileGrid {
  std::vector<Span> rows;  // output row spans, top to bottom
  std::vector<Span> cols;  // output column spans, left to right
  uint32_t tile_h = 0, tile_w = 0;  // the largest tile
  size_t Count() const { return rows.size() * cols.size(); }
  std::vector<Tile> List() const;  // row-major
};

// What a tile may use.
struct TileBudget {
  uint32_t blocks = 1;            // channel blocks per input pixel
  uint32_t input_rows = 0;        // input rows of one tile of several (half the input buffer)
  uint32_t single_tile_rows = 0;  // input rows of the only tile (the whole input buffer)
  uint32_t max_pixels = 0;        // output pixels per tile (half the accumulators)
};
TileBudget TileBudgetOf(const contract::AccelConfig& config, uint32_t blocks);

// The grid described above. Unsupported (prefixed by label) if not even one
// output pixel fits.
Status ChooseTileGrid(const AxisWindow& y, const AxisWindow& x, const TileBudget& budget, const std::string& label,
                      TileGrid* out);

// One axis of an input tile as LOAD_ACT reads it: `read` pixels from input
// pixel `first` with `pad_before`/`pad_after` padding pixels around them.
struct AxisLoad {
  uint32_t first = 0, read = 0, pad_before = 0, pad_after = 0;
  uint32_t Span() const { return pad_before + read + pad_after; }
};
AxisLoad LoadForSpan(const AxisWindow& axis, Span outputs);

// LOAD_ACT of the input tile for output `tile`, all
// `layout.blocks` channel blocks into the input buffer at sram_row.
contract::LoadAct LoadInputTile(const AxisWindow& y, const AxisWindow& x, const Tile& tile,
                                const ActivationLayout& layout, DramTensor input, uint32_t sram_row,
                                uint32_t pad_value);

// The window fields CONV and MAXPOOL share, for output `tile`: input tile
// width, kernel, strides and dilations as the tile holds the input (a
// subsampled axis runs stride 1), output size. CONV then narrows kh to its
// chunk's kernel rows.
template <typename Op>
void SetWindowFields(const AxisWindow& y, const AxisWindow& x, const Window& w, const Tile& tile, Op* op) {
  op->in_w = x.InputSpan(tile.cols.size);
  op->kh = w.kh;
  op->kw = w.kw;
  op->stride_y = y.Step();
  op->stride_x = x.Step();
  op->dilation_y = y.subsample ? 1 : w.dilation_y;
  op->dilation_x = x.subsample ? 1 : w.dilation_x;
  op->oh = tile.rows.size;
  op->ow = tile.cols.size;
}

// STORE of output `tile`, channel block `block`, from the
// accumulators at acc_base: position, size and pitches only; the caller sets
// the output stage.
contract::Store StoreOutputTile(const ActivationLayout& layout, DramTensor output, const Tile& tile,
                                uint32_t block, uint32_t acc_base);

// One CONV's share of K: input-channel blocks [cb_begin, cb_begin + cb_count),
// kernel rows [ky_begin, ky_begin + ky_count); `row` is where its tiles start
// in one output block's part of the weight image (rows of N bytes).
struct WeightChunk {
  uint32_t cb_begin = 0, cb_count = 0, ky_begin = 0, ky_count = 0;
  uint32_t row = 0, rows = 0;
};

struct WeightPlan {
  bool resident = false;             // all of the weights stay in the buffer
  uint32_t rows_per_block = 0;       // weight rows per output-channel block
  std::vector<WeightChunk> chunks;   // the same for every output-channel block
};

// Unsupported (prefixed by label) when one kernel row of one block does not
// fit half the weight buffer.
Status PlanWeights(const contract::AccelConfig& config, uint32_t in_blocks, uint32_t out_blocks, uint32_t kh,
                   uint32_t kw, const std::string& label, WeightPlan* out);

// `total` split into `parts` spans whose sizes differ by at most one.
std::vector<Span> SplitEvenly(uint32_t total, uint32_t parts);

}  // namespace lowering
}  // namespace fpga
}  // namespace loom
