// LowerAdd and LowerMaxPool: the vector path (ADD, MAXPOOL), see lowering.h.
#include <algorithm>
#include <string>
#include <utility>

#include "kernels/fpga/lowering/command_stream.h"
#include "kernels/fpga/lowering/lowering.h"
#include "kernels/fpga/lowering/tiling.h"

namespace loom {
namespace fpga {
namespace lowering {
namespace {

Status FinishProgram(CommandStream* stream, Program* out) {
  RETURN_IF_ERROR(stream->Finish(&out->commands));
  out->stats.dma_read_bytes = stream->traffic().read_bytes;
  out->stats.dma_write_bytes = stream->traffic().write_bytes;
  return Status::Ok();
}

// A STORE's per-tensor output stage (bias 0, the command's multiplier).
void SetPerTensorStage(const requant::OutputStage& stage, contract::Store* op) {
  op->per_tensor = 1;
  op->zero_point = stage.zero_point;
  op->qmin = stage.range.min;
  op->qmax = stage.range.max;
  op->multiplier = static_cast<uint32_t>(stage.m.multiplier);
  op->shift = stage.m.shift;
}

}  // namespace

Status LowerAdd(const contract::AccelConfig& config, const AddLayer& layer, DramTensor a, DramTensor b,
                DramTensor output, Program* out) {
  RETURN_IF_ERROR(ValidateAdd(config, layer));
  const std::string label = layer.name + " (Add)";
  const uint32_t n = config.n;
  const ActivationLayout layout = ActivationLayoutOf(config, layer.h, layer.w, layer.c);
  RETURN_IF_ERROR(CheckPlacement(config, label, "input a", a, layout.bytes));
  RETURN_IF_ERROR(CheckPlacement(config, label, "input b", b, layout.bytes));
  RETURN_IF_ERROR(CheckPlacement(config, label, "output", output, layout.bytes));

  // The tensors are layout.bytes / N buffer rows each, contiguous; a run's a
  // and b rows share one input half.
  const uint32_t inp_half = config.inp_rows / 2, acc_half = config.acc_rows / 2;
  const uint32_t max_run = std::min(inp_half / 2, acc_half);
  const uint64_t total = layout.bytes / n;
  const std::vector<Span> runs =
      SplitEvenly(static_cast<uint32_t>(total), static_cast<uint32_t>((total + max_run - 1) / max_run));
  const requant::AddParams& p = layer.params;

  CommandStream stream(config, label);
  for (size_t i = 0; i < runs.size(); ++i) {
    const uint32_t half = static_cast<uint32_t>(i % 2);
    const Span run = runs[i];
    const uint32_t a_row = half * inp_half, b_row = a_row + max_run;
    for (const auto& [tensor, row] : {std::pair{a, a_row}, std::pair{b, b_row}}) {
      contract::LoadAct load;
      load.slot = tensor.slot;
      load.dram_offset = tensor.offset + run.begin * n;
      load.sram_row = row;
      load.y_size = 1;
      load.x_size = run.size;
      load.cb = 1;
      load.row_pitch = run.size * n;
      load.pixel_pitch = n;
      RETURN_IF_ERROR(stream.Append(load, {}, {{Sram::kInput, half}}));
    }
    contract::Add add;
    add.a_base = a_row;
    add.b_base = b_row;
    add.acc_base = half * acc_half;
    add.rows = run.size;
    add.a_zp = p.a_zero_point;
    add.b_zp = p.b_zero_point;
    add.a_multiplier = static_cast<uint32_t>(p.a.multiplier);
    add.a_shift = p.a.shift;
    add.b_multiplier = static_cast<uint32_t>(p.b.multiplier);
    add.b_shift = p.b.shift;
    add.act_unsigned = layer.act_unsigned;
    RETURN_IF_ERROR(stream.Append(add, {{Sram::kInput, half}}, {{Sram::kAccumulator, half}}));

    // The run as one row of run.size "pixels" of one block.
    const ActivationLayout row_layout{1, n, run.size * n, uint64_t{run.size} * n};
    const DramTensor at{output.slot, output.offset + run.begin * n};
    contract::Store store = StoreOutputTile(row_layout, at, Tile{{0, 1}, {0, run.size}}, 0, half * acc_half);
    SetPerTensorStage(p.output, &store);
    RETURN_IF_ERROR(stream.Append(store, {{Sram::kAccumulator, half}}, {}));
  }
  Program program;
  RETURN_IF_ERROR(FinishProgram(&stream, &program));
  program.stats.tiles = static_cast<uint32_t>(runs.size());
  program.stats.tile_h = 1;
  program.stats.tile_w = runs.empty() ? 0 : runs[0].size;
  *out = std::move(program);
  return Status::Ok();
}

Status LowerMaxPool(const contract::AccelConfig& config, const MaxPoolLayer& layer, DramTensor input,
                    DramTensor output, Program* out) {
  RETURN_IF_ERROR(ValidateMaxPool(config, layer));
  const std::string label = layer.name + " (MaxPool)";
  const ActivationLayout in_layout = ActivationLayoutOf(config, layer.h, layer.w, layer.c);
  const ActivationLayout out_layout = ActivationLayoutOf(config, layer.OutH(), layer.OutW(), layer.c);
  RETURN_IF_ERROR(CheckPlacement(config, label, "input", input, in_layout.bytes));
  RETURN_IF_ERROR(CheckPlacement(config, label, "output", output, out_layout.bytes));

  const uint32_t inp_half = config.inp_rows / 2, acc_half = config.acc_rows / 2;
  const AxisWindow ay = AxisWindow::Y(layer.window, layer.h), ax = AxisWindow::X(layer.window, layer.w);
  TileGrid grid;
  RETURN_IF_ERROR(ChooseTileGrid(ay, ax, TileBudgetOf(config, in_layout.blocks), label, &grid));
  const std::vector<Tile> tiles = grid.List();
  // Padding never wins the max: the dtype's minimum byte.
  const uint32_t pad_value = layer.act_unsigned ? 0x00 : 0x80;
  const requant::OutputStage identity{{1 << 30, 1}, layer.zero_point,
                                      layer.act_unsigned ? requant::Range{0, 255} : requant::Range{-128, 127}};

  CommandStream stream(config, label);
  auto load_tile = [&](size_t t) {
    const uint32_t half = static_cast<uint32_t>(t % 2);
    const contract::LoadAct op =
        LoadInputTile(ay, ax, tiles[t], in_layout, input, half * inp_half, pad_value);
    return stream.Append(op, {}, {{Sram::kInput, half}});
  };
  RETURN_IF_ERROR(load_tile(0));
  uint32_t acc_uses = 0;
  for (size_t t = 0; t < tiles.size(); ++t) {
    const Tile& tile = tiles[t];
    const uint32_t inp = static_cast<uint32_t>(t % 2);
    for (uint32_t cb = 0; cb < in_layout.blocks; ++cb) {
      const uint32_t acc = acc_uses++ % 2;
      contract::Maxpool op;
      SetWindowFields(ay, ax, layer.window, tile, &op);
      op.inp_base = inp * inp_half;
      op.in_cb = in_layout.blocks;
      op.cb = cb;
      op.acc_base = acc * acc_half;
      op.in_zp = layer.zero_point;
      op.act_unsigned = layer.act_unsigned;
      RETURN_IF_ERROR(stream.Append(op, {{Sram::kInput, inp}}, {{Sram::kAccumulator, acc}}));
      if (cb == 0 && t + 1 < tiles.size()) RETURN_IF_ERROR(load_tile(t + 1));
      contract::Store store = StoreOutputTile(out_layout, output, tile, cb, acc * acc_half);
      SetPerTensorStage(identity, &store);
      RETURN_IF_ERROR(stream.Append(store, {{Sram::kAccumulator, acc}}, {}));
    }
  }
  Program program;
  RETURN_IF_ERROR(FinishProgram(&stream, &program));
  program.stats.tiles = static_cast<uint32_t>(grid.Count());
  program.stats.tile_h = grid.tile_h;
  program.stats.tile_w = grid.tile_w;
  *out = std::move(program);
  return Status::Ok();
}

}  // namespace lowering
}  // namespace fpga
}  // namespace loom
