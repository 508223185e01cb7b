// LowerConv: Conv, Gemm and MatMul (lowering.h has the loop nest, tiling.h
// the tile and chunk sizes, command_stream.h the tokens).
#include <string>
#include <utility>

#include "kernels/fpga/lowering/command_stream.h"
#include "kernels/fpga/lowering/lowering.h"
#include "kernels/fpga/lowering/tiling.h"

namespace loom {
namespace fpga {
namespace lowering {
namespace {

uint32_t Blocks(const contract::AccelConfig& config, uint32_t channels) { return (channels + config.n - 1) / config.n; }

// [m][cb][ky][kx] tiles of N rows (input channel cb·N + i) × N bytes (output
// channel m·N + j); padding channels are zero.
std::vector<uint8_t> WeightImage(const contract::AccelConfig& config, const ConvLayer& layer) {
  const uint32_t n = config.n, kh = layer.window.kh, kw = layer.window.kw;
  const uint32_t in_blocks = Blocks(config, layer.in_c), out_blocks = Blocks(config, layer.out_c);
  std::vector<uint8_t> image(size_t{out_blocks} * in_blocks * kh * kw * n * n, 0);
  for (uint32_t o = 0; o < layer.out_c; ++o) {
    for (uint32_t c = 0; c < layer.in_c; ++c) {
      for (uint32_t ky = 0; ky < kh; ++ky) {
        for (uint32_t kx = 0; kx < kw; ++kx) {
          const size_t tile = ((size_t{o / n} * in_blocks + c / n) * kh + ky) * kw + kx;
          const size_t src = ((size_t{o} * layer.in_c + c) * kh + ky) * kw + kx;
          image[(tile * n + c % n) * n + o % n] = static_cast<uint8_t>(layer.weights[src]);
        }
      }
    }
  }
  return image;
}

void PutLe32(int32_t value, uint8_t* bytes) {
  const uint32_t v = static_cast<uint32_t>(value);
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<uint8_t>(v >> (8 * i));
}

// One 16-byte record per output channel, padding channels included: int32
// bias, int32 multiplier, int8 shift. A padding channel of an int8/uint8
// output gets bias −zero_point and the identity multiplier, so its byte is
// clamp(0); int32 outputs use the bias alone.
std::vector<uint8_t> ParamImage(const contract::AccelConfig& config, const ConvLayer& layer) {
  const uint32_t channels = Blocks(config, layer.out_c) * config.n;
  std::vector<uint8_t> image(size_t{channels} * contract::kParamRecordBytes, 0);
  for (uint32_t o = 0; o < channels; ++o) {
    requant::Multiplier m{1 << 30, 1};
    int32_t bias = layer.out_int32 ? 0 : -layer.output_zero_point;
    if (o < layer.out_c) {
      bias = layer.bias[o];
      m = layer.multipliers[o];
    }
    if (layer.out_int32) m = requant::Multiplier();  // unused; keeps LOAD_PARAM's shift check quiet
    uint8_t* record = &image[size_t{o} * contract::kParamRecordBytes];
    PutLe32(bias, record);
    PutLe32(m.multiplier, record + 4);
    record[8] = static_cast<uint8_t>(static_cast<int8_t>(m.shift));
  }
  return image;
}

// The stream of one Conv: the loop nest of lowering.h.
class ConvStream {
 public:
  ConvStream(const contract::AccelConfig& config, const ConvLayer& layer, std::string label)
      : config_(config), layer_(layer), stream_(config, std::move(label)) {}

  Status Build(DramTensor input, DramTensor output, const ConstantPlacement& constants, const TileGrid& grid,
               const WeightPlan& plan, Program* out) {
    const uint32_t n = config_.n;
    const ActivationLayout in_layout = ActivationLayoutOf(config_, layer_.in_h, layer_.in_w, layer_.in_c);
    const ActivationLayout out_layout =
        ActivationLayoutOf(config_, layer_.OutH(), layer_.OutW(), layer_.out_c, layer_.out_int32);
    const uint32_t out_blocks = Blocks(config_, layer_.out_c);
    const bool params_resident = out_blocks * n <= config_.param_rows;
    const AxisWindow ay = AxisWindow::Y(layer_.window, layer_.in_h);
    const AxisWindow ax = AxisWindow::X(layer_.window, layer_.in_w);
    const uint32_t inp_half = config_.inp_rows / 2, wgt_half = config_.wgt_rows / 2, acc_half = config_.acc_rows / 2;

    if (params_resident) RETURN_IF_ERROR(LoadParams(constants.params, 0, out_blocks * n));
    const std::vector<Tile> tiles = grid.List();
    auto load_tile = [&](size_t t) {
      const uint32_t half = static_cast<uint32_t>(t % 2);
      const contract::LoadAct op = LoadInputTile(ay, ax, tiles[t], in_layout, input,
                                                 half * inp_half, static_cast<uint32_t>(layer_.input_zero_point));
      return stream_.Append(op, {}, {{Sram::kInput, half}});
    };
    RETURN_IF_ERROR(load_tile(0));

    uint32_t weight_loads = 0, acc_uses = 0;
    for (size_t t = 0; t < tiles.size(); ++t) {
      const Tile& tile = tiles[t];
      const uint32_t inp = static_cast<uint32_t>(t % 2);
      const uint32_t in_w = ax.InputSpan(tile.cols.size);
      bool prefetched = t + 1 == tiles.size();
      for (uint32_t m = 0; m < out_blocks; ++m) {
        const uint32_t acc = acc_uses++ % 2;
        for (size_t k = 0; k < plan.chunks.size(); ++k) {
          const WeightChunk& chunk = plan.chunks[k];
          const uint32_t image_row = m * plan.rows_per_block + chunk.row;
          SramRegion weights{Sram::kWeight, m};
          uint32_t wgt_base = image_row;  // resident: the image's own layout
          if (plan.resident) {
            if (t == 0) RETURN_IF_ERROR(LoadWeights(constants.weights, image_row, chunk.rows, wgt_base, weights));
          } else {
            weights.id = weight_loads++ % 2;
            wgt_base = weights.id * wgt_half;
            RETURN_IF_ERROR(LoadWeights(constants.weights, image_row, chunk.rows, wgt_base, weights));
          }
          contract::Conv op;
          SetWindowFields(ay, ax, layer_.window, tile, &op);
          op.kh = chunk.ky_count;
          op.inp_base = inp * inp_half + chunk.ky_begin * layer_.window.dilation_y * in_w * in_layout.blocks;
          op.in_cb = in_layout.blocks;
          op.cb_begin = chunk.cb_begin;
          op.cb_count = chunk.cb_count;
          op.wgt_base = wgt_base;
          op.acc_base = acc * acc_half;
          op.accumulate = k > 0;
          op.act_unsigned = layer_.act_unsigned;
          const SramRegion input_half{Sram::kInput, inp}, acc_half_region{Sram::kAccumulator, acc};
          if (k == 0) {
            RETURN_IF_ERROR(stream_.Append(op, {input_half, weights}, {acc_half_region}));
          } else {
            RETURN_IF_ERROR(stream_.Append(op, {input_half, weights, acc_half_region}, {acc_half_region}));
          }
          if (!prefetched) {
            RETURN_IF_ERROR(load_tile(t + 1));
            prefetched = true;
          }
        }
        if (!params_resident) RETURN_IF_ERROR(LoadParams(constants.params, m * n, n));
        contract::Store store = StoreOutputTile(out_layout, output, tile, m, acc * acc_half);
        store.param_row = params_resident ? m * n : 0;
        store.out_int32 = layer_.out_int32;
        store.zero_point = layer_.output_zero_point;
        store.qmin = layer_.output_range.min;
        store.qmax = layer_.output_range.max;
        RETURN_IF_ERROR(stream_.Append(store, {{Sram::kAccumulator, acc}}, {}));
      }
    }
    RETURN_IF_ERROR(stream_.Finish(&out->commands));
    out->stats.array_macs = stream_.traffic().array_macs;
    out->stats.dma_read_bytes = stream_.traffic().read_bytes;
    out->stats.dma_write_bytes = stream_.traffic().write_bytes;
    return Status::Ok();
  }

 private:
  // `count` records from channel `first` into parameter rows from 0 (all
  // channels) or 0..N (one block before its STORE).
  Status LoadParams(DramTensor params, uint32_t first, uint32_t count) {
    contract::LoadParam op;
    op.slot = params.slot;
    op.dram_offset = params.offset + first * contract::kParamRecordBytes;
    op.param_row = 0;
    op.count = count;
    return stream_.Append(op, {}, {});
  }

  Status LoadWeights(DramTensor weights, uint32_t image_row, uint32_t rows, uint32_t sram_row, SramRegion region) {
    contract::LoadWgt op;
    op.slot = weights.slot;
    op.dram_offset = static_cast<uint32_t>(weights.offset + uint64_t{image_row} * config_.n);
    op.sram_row = sram_row;
    op.rows = rows;
    return stream_.Append(op, {}, {region});
  }

  const contract::AccelConfig& config_;
  const ConvLayer& layer_;
  CommandStream stream_;
};

}  // namespace

uint64_t WeightImageBytes(const contract::AccelConfig& config, const ConvLayer& layer) {
  return uint64_t{Blocks(config, layer.out_c)} * Blocks(config, layer.in_c) * layer.window.kh * layer.window.kw *
         config.n * config.n;
}

uint64_t ParamImageBytes(const contract::AccelConfig& config, const ConvLayer& layer) {
  return uint64_t{Blocks(config, layer.out_c)} * config.n * contract::kParamRecordBytes;
}

Status LowerConv(const contract::AccelConfig& config, const ConvLayer& layer, DramTensor input, DramTensor output,
                 const ConstantPlacement& constants, Program* out) {
  RETURN_IF_ERROR(ValidateConv(config, layer));
  const std::string label = layer.name + " (Conv)";
  const ActivationLayout in_layout = ActivationLayoutOf(config, layer.in_h, layer.in_w, layer.in_c);
  const ActivationLayout out_layout =
      ActivationLayoutOf(config, layer.OutH(), layer.OutW(), layer.out_c, layer.out_int32);
  RETURN_IF_ERROR(CheckPlacement(config, label, "input", input, in_layout.bytes));
  RETURN_IF_ERROR(CheckPlacement(config, label, "output", output, out_layout.bytes));
  RETURN_IF_ERROR(CheckPlacement(config, label, "weight image", constants.weights, WeightImageBytes(config, layer)));
  RETURN_IF_ERROR(CheckPlacement(config, label, "parameter image", constants.params, ParamImageBytes(config, layer)));

  TileGrid grid;
  RETURN_IF_ERROR(ChooseTileGrid(AxisWindow::Y(layer.window, layer.in_h), AxisWindow::X(layer.window, layer.in_w),
                                 TileBudgetOf(config, in_layout.blocks), label, &grid));
  WeightPlan plan;
  RETURN_IF_ERROR(PlanWeights(config, in_layout.blocks, Blocks(config, layer.out_c), layer.window.kh, layer.window.kw,
                              label, &plan));
  Program program;
  RETURN_IF_ERROR(ConvStream(config, layer, label).Build(input, output, constants, grid, plan, &program));
  program.weight_image = WeightImage(config, layer);
  program.param_image = ParamImage(config, layer);
  program.stats.macs = layer.Macs();
  program.stats.tiles = static_cast<uint32_t>(grid.Count());
  program.stats.tile_h = grid.tile_h;
  program.stats.tile_w = grid.tile_w;
  program.stats.k_chunks = static_cast<uint32_t>(plan.chunks.size());
  program.stats.weights_resident = plan.resident;
  *out = std::move(program);
  return Status::Ok();
}

}  // namespace lowering
}  // namespace fpga
}  // namespace loom
