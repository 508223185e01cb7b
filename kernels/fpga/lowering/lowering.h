// Lowering: one int8 layer (layer.h) -> one accelerator command stream plus
// the constant images it reads. The builder calls it at build time; the tests
// run its streams on the functional model (kernels/fpga/model).
//
// A Program is one run (one ap_start): it assumes empty queues and token
// FIFOs at its start and leaves them empty, and it assumes nothing about the
// on-chip buffers. Chaining Programs in one run needs a barrier between them
// (the next layer's loads read what this layer's stores wrote, and load and
// store share no token FIFO).
//
// Conv (and Gemm/MatMul) loop nest, see tiling.h for the tile and chunk sizes:
//   LOAD_PARAM all output channels (or one block before each STORE if they
//              do not fit the parameter buffer)
//   LOAD_ACT   tile 0 into input half 0 (a layer of one tile may fill the
//              whole input buffer)
//   for each spatial tile t (row-major):
//     for each output-channel block m:
//       for each K chunk k:
//         LOAD_WGT chunk (m, k) into the next weight half (resident weights:
//                  once per m, in tile 0)
//         CONV     tile t × chunk k into accumulator half (t, m) alternating;
//                  accumulate for k > 0
//         (after the first CONV of tile t: LOAD_ACT tile t + 1 into input
//          half (t + 1) % 2, so it loads while tile t computes)
//       STORE      block m of tile t: NHWC address + m·N, param rows m·N...
// Tokens come from the buffer regions each command uses (command_stream.h):
// load→compute when a CONV's input tile or weight chunk has arrived,
// compute→load when a half it overwrites has been read for the last time,
// compute→store when an accumulator half is complete, store→compute when it
// has been written out.
//
// Add: the three tensors are contiguous and elementwise, so they are cut into
// flat runs of up to min(input half / 2, accumulator half) buffer rows:
// LOAD_ACT a, LOAD_ACT b (one row of x_size blocks), ADD, STORE per_tensor
// with AddParams' output stage; runs alternate buffer halves.
// MaxPool: spatial tiles as for Conv (all channel blocks per input tile,
// LOAD_ACT padding with the dtype minimum), one MAXPOOL and one STORE per
// channel block, STORE per_tensor with the identity stage (multiplier 2^30,
// shift 1: exact) and the zero point.
//
// Padding channels of an output (up to the next multiple of N) are written
// as clamp(0) for int8/uint8 outputs (0 unless qmin > 0) and 0 for int32
// ones after Conv; after Add and MaxPool they hold whatever the padding
// channels of the inputs produce. Consumers never read them as data: the
// weights of padding input channels are zero.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "kernels/fpga/lowering/layer.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {
namespace lowering {

struct ProgramStats {
  uint64_t macs = 0;             // the layer's own MACs (no channel padding)
  uint64_t array_macs = 0;       // what the array issues: N² · Σ CONV oh · ow · cb_count · kh · kw
  uint64_t dma_read_bytes = 0;   // LOAD_ACT, LOAD_WGT, LOAD_PARAM (not the command fetch)
  uint64_t dma_write_bytes = 0;  // STORE
  uint32_t tiles = 0;            // spatial tiles (Add: flat runs)
  uint32_t tile_h = 0, tile_w = 0;  // the largest tile, output pixels
  uint32_t k_chunks = 0;         // CONVs per output-channel block and tile
  bool weights_resident = false; // weights loaded once for all tiles

  // The utilization the array could reach if loads and stores were free:
  // macs / array_macs (channel padding and 3-channel stems lower it).
  double IdealUtilization() const { return array_macs == 0 ? 0.0 : static_cast<double>(macs) / array_macs; }
};

struct Program {
  std::vector<contract::Command> commands;
  std::vector<uint8_t> weight_image;  // Conv: place at ConstantPlacement::weights
  std::vector<uint8_t> param_image;   // Conv: place at ConstantPlacement::params
  ProgramStats stats;
};

// Bytes of the constant images LowerConv makes, for placing them first.
uint64_t WeightImageBytes(const contract::AccelConfig& config, const ConvLayer& layer);
uint64_t ParamImageBytes(const contract::AccelConfig& config, const ConvLayer& layer);

// input: in_h × in_w × in_c (NHWC, channels padded); output: out_h × out_w ×
// out_c, int8/uint8 or, with out_int32, int32.
Status LowerConv(const contract::AccelConfig& config, const ConvLayer& layer, DramTensor input, DramTensor output,
                 const ConstantPlacement& constants, Program* out);

// a, b and output: h × w × c of the layer's dtype.
Status LowerAdd(const contract::AccelConfig& config, const AddLayer& layer, DramTensor a, DramTensor b,
                DramTensor output, Program* out);

// input h × w × c; output out_h × out_w × c.
Status LowerMaxPool(const contract::AccelConfig& config, const MaxPoolLayer& layer, DramTensor input,
                    DramTensor output, Program* out);

}  // namespace lowering
}  // namespace fpga
}  // namespace loom
