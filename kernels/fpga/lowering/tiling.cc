#include "kernels/fpga/lowering/tiling.h"

#include <algorithm>
#include <tuple>

namespace loom {
namespace fpga {
namespace lowering {
namespace {

uint32_t CeilDiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// CONV, LOAD_ACT and STORE sizes are 12-bit fields.
constexpr uint32_t kMaxTileSide = 4095;

AxisWindow Axis(uint32_t in, uint32_t out, uint32_t kernel, uint32_t stride, uint32_t dilation, uint32_t pad) {
  AxisWindow a;
  a.in = in;
  a.out = out;
  a.stride = stride;
  a.extent = (kernel - 1) * dilation + 1;
  a.pad_before = pad;
  a.subsample = kernel == 1 && stride > 1;
  return a;
}

}  // namespace

AxisWindow AxisWindow::Y(const Window& w, uint32_t in_h) {
  return Axis(in_h, w.OutH(in_h), w.kh, w.stride_y, w.dilation_y, w.pad_top);
}

AxisWindow AxisWindow::X(const Window& w, uint32_t in_w) {
  return Axis(in_w, w.OutW(in_w), w.kw, w.stride_x, w.dilation_x, w.pad_left);
}

std::vector<Span> SplitEvenly(uint32_t total, uint32_t parts) {
  std::vector<Span> spans;
  uint32_t begin = 0;
  for (uint32_t i = 0; i < parts; ++i) {
    const uint32_t size = total / parts + (i < total % parts ? 1 : 0);
    spans.push_back({begin, size});
    begin += size;
  }
  return spans;
}

TileBudget TileBudgetOf(const contract::AccelConfig& config, uint32_t blocks) {
  return {blocks, config.inp_rows / 2, config.inp_rows, config.acc_rows / 2};
}

Status ChooseTileGrid(const AxisWindow& y, const AxisWindow& x, const TileBudget& budget, const std::string& label,
                      TileGrid* out) {
  const uint32_t blocks = budget.blocks, input_rows = budget.input_rows, max_pixels = budget.max_pixels;
  const uint32_t in_h = y.InputSpan(y.out), in_w = x.InputSpan(x.out);
  if (uint64_t{in_h} * in_w * blocks <= budget.single_tile_rows && uint64_t{y.out} * x.out <= max_pixels &&
      in_w <= kMaxTileSide) {
    *out = TileGrid{{{0, y.out}}, {{0, x.out}}, y.out, x.out};
    return Status::Ok();
  }
  // (tiles, column tiles, input pixels) of the best grid so far.
  std::tuple<uint64_t, uint32_t, uint64_t> best{UINT64_MAX, UINT32_MAX, UINT64_MAX};
  uint32_t last_tw = 0;
  for (uint32_t nx = 1; nx <= x.out; ++nx) {
    const uint32_t tw = CeilDiv(x.out, nx);
    if (tw == last_tw) continue;
    last_tw = tw;
    const uint32_t in_tw = x.InputSpan(tw);
    if (tw > kMaxTileSide || in_tw > kMaxTileSide) continue;
    // The tallest th whose input tile and accumulator tile fit.
    uint32_t th = std::min({y.out, max_pixels / tw, kMaxTileSide});
    while (th > 0 && uint64_t{y.InputSpan(th)} * in_tw * blocks > input_rows) --th;
    if (th == 0) continue;
    const uint32_t cols = CeilDiv(x.out, tw);
    const uint32_t rows = CeilDiv(y.out, th);
    const uint32_t even_th = CeilDiv(y.out, rows);
    const std::tuple<uint64_t, uint32_t, uint64_t> score{uint64_t{rows} * cols, cols,
                                                         uint64_t{rows} * cols * y.InputSpan(even_th) * in_tw};
    if (score < best) {
      best = score;
      out->rows = SplitEvenly(y.out, rows);
      out->cols = SplitEvenly(x.out, cols);
      out->tile_h = even_th;
      out->tile_w = CeilDiv(x.out, cols);
    }
  }
  if (std::get<0>(best) == UINT64_MAX) {
    return Status::Unsupported(label + ": even a single output pixel needs " +
                               std::to_string(uint64_t{y.InputSpan(1)} * x.InputSpan(1) * blocks) +
                               " input buffer rows (" + std::to_string(blocks) + " channel blocks), more than the " +
                               std::to_string(input_rows) + " of half the input buffer");
  }
  return Status::Ok();
}

AxisLoad LoadForSpan(const AxisWindow& axis, Span outputs) {
  AxisLoad load;
  if (axis.subsample) {
    load.first = outputs.begin * axis.stride;
    load.read = outputs.size;
    return load;
  }
  const int64_t start = int64_t{outputs.begin} * axis.stride - axis.pad_before;
  const int64_t end = start + axis.InputSpan(outputs.size) - 1;  // inclusive
  const int64_t last = int64_t{axis.in} - 1;
  load.pad_before = static_cast<uint32_t>(std::max<int64_t>(0, -start));
  load.pad_after = static_cast<uint32_t>(std::max<int64_t>(0, end - last));
  load.first = static_cast<uint32_t>(std::max<int64_t>(0, start));
  load.read = static_cast<uint32_t>(std::min(end, last) - load.first + 1);
  return load;
}

std::vector<Tile> TileGrid::List() const {
  std::vector<Tile> tiles;
  for (const Span& r : rows) {
    for (const Span& c : cols) tiles.push_back({r, c});
  }
  return tiles;
}

contract::LoadAct LoadInputTile(const AxisWindow& y, const AxisWindow& x, const Tile& tile,
                                const ActivationLayout& layout, DramTensor input, uint32_t sram_row,
                                uint32_t pad_value) {
  const AxisLoad ly = LoadForSpan(y, tile.rows);
  const AxisLoad lx = LoadForSpan(x, tile.cols);
  contract::LoadAct op;
  op.slot = input.slot;
  op.dram_offset = static_cast<uint32_t>(input.offset + uint64_t{ly.first} * layout.row_pitch +
                                         uint64_t{lx.first} * layout.pixel_pitch);
  op.sram_row = sram_row;
  op.y_size = ly.read;
  op.x_size = lx.read;
  op.cb = layout.blocks;
  op.row_pitch = layout.row_pitch * (y.subsample ? y.stride : 1);
  op.pixel_pitch = layout.pixel_pitch * (x.subsample ? x.stride : 1);
  op.pad_top = ly.pad_before;
  op.pad_bottom = ly.pad_after;
  op.pad_left = lx.pad_before;
  op.pad_right = lx.pad_after;
  op.pad_value = pad_value & 0xFF;
  return op;
}

contract::Store StoreOutputTile(const ActivationLayout& layout, DramTensor output, const Tile& tile,
                                uint32_t block, uint32_t acc_base) {
  contract::Store op;
  op.acc_base = acc_base;
  op.oh = tile.rows.size;
  op.ow = tile.cols.size;
  op.slot = output.slot;
  op.dram_offset = static_cast<uint32_t>(output.offset + uint64_t{tile.rows.begin} * layout.row_pitch +
                                         uint64_t{tile.cols.begin} * layout.pixel_pitch +
                                         uint64_t{block} * (layout.pixel_pitch / layout.blocks));
  op.row_pitch = layout.row_pitch;
  op.pixel_pitch = layout.pixel_pitch;
  return op;
}

Status PlanWeights(const contract::AccelConfig& config, uint32_t in_blocks, uint32_t out_blocks, uint32_t kh,
                   uint32_t kw, const std::string& label, WeightPlan* out) {
  const uint32_t n = config.n;
  const uint32_t half = config.wgt_rows / 2;
  const uint64_t rows_per_block = uint64_t{in_blocks} * kh * kw * n;
  *out = WeightPlan();
  out->rows_per_block = static_cast<uint32_t>(rows_per_block);
  if (rows_per_block * out_blocks <= config.wgt_rows) {
    out->resident = true;
    out->chunks.push_back({0, in_blocks, 0, kh, 0, out->rows_per_block});
    return Status::Ok();
  }
  const uint32_t rows_per_cb = kh * kw * n;
  if (rows_per_cb <= half) {
    const uint32_t parts = CeilDiv(in_blocks, half / rows_per_cb);
    for (const Span& s : SplitEvenly(in_blocks, parts))
      out->chunks.push_back({s.begin, s.size, 0, kh, s.begin * rows_per_cb, s.size * rows_per_cb});
    return Status::Ok();
  }
  const uint32_t rows_per_ky = kw * n;
  if (rows_per_ky > half) {
    return Status::Unsupported(label + ": one kernel row of one channel block needs " + std::to_string(rows_per_ky) +
                               " weight buffer rows, more than the " + std::to_string(half) +
                               " of half the weight buffer");
  }
  const std::vector<Span> ky_runs = SplitEvenly(kh, CeilDiv(kh, half / rows_per_ky));
  for (uint32_t cb = 0; cb < in_blocks; ++cb) {
    for (const Span& s : ky_runs)
      out->chunks.push_back({cb, 1, s.begin, s.size, cb * rows_per_cb + s.begin * rows_per_ky, s.size * rows_per_ky});
  }
  return Status::Ok();
}

}  // namespace lowering
}  // namespace fpga
}  // namespace loom
