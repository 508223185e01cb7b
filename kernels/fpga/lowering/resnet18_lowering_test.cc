// The 20 convolutions of ResNet-18 (224x224, batch 1) lowered for pynq_z2:
// each lowers; a table per layer of commands, MACs, DMA bytes, the ideal
// utilization bound MACs / (N² · Σ CONV pixels · taps) and the cycle model's
// prediction (kernels/fpga/perf, within a few % of the RTL), so tile choices
// can be judged; two of them run on the functional model.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "kernels/fpga/lowering/command_stream.h"
#include "kernels/fpga/lowering/lowering.h"
#include "kernels/fpga/lowering/testing/lowering_test_util.h"
#include "kernels/fpga/perf/cycle_model.h"

namespace loom {
namespace fpga {
namespace lowering {
namespace {

const contract::AccelConfig& Pynq() { return *contract::FindConfig("pynq_z2"); }

using testing::ResNetConv;

TEST(ResNet18LoweringTest, EveryConvLowersForPynqZ2) {
  const contract::AccelConfig& config = Pynq();
  std::mt19937 rng(18);
  std::printf("%-20s %-16s %8s %6s %4s %8s %7s %9s %9s %7s %8s\n", "layer", "shape", "tiles", "chunks", "res",
              "commands", "MMAC", "DMA rd KB", "DMA wr KB", "ideal %", "model %");
  uint64_t total_macs = 0, total_cycles = 0;
  std::vector<ResNetConv> convs = testing::ResNet18Convs();
  convs.push_back(testing::ResNet18SpaceToDepthStem());
  for (const ResNetConv& r : convs) {
    const testing::ConvCase c = testing::ResNetConvCase(r, &rng);
    const ConvLayer layer = testing::ToLoweringLayer(c);
    Program program;
    const Status s = LowerConv(config, layer, {1, 0}, {2, 0}, {{3, 0}, {3, 8 << 20}}, &program);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_TRUE(CheckTokenBalance(program.commands, config.queue_depth).ok());
    const ProgramStats& st = program.stats;
    perf::CycleEstimate estimate;
    const Status estimated_ok = perf::EstimateCycles(config, program.commands, {}, &estimate);
    ASSERT_TRUE(estimated_ok.ok()) << estimated_ok.message();
    if (std::string(r.name) != "conv1") {  // the total has the stem as the builder lowers it
      total_macs += st.macs;
      total_cycles += estimate.cycles;
    }
    const std::string shape = std::to_string(r.c_in) + "x" + std::to_string(r.size) + " " + std::to_string(r.k) +
                              "x" + std::to_string(r.k) + "/" + std::to_string(r.stride) + ">" +
                              std::to_string(r.c_out);
    const std::string tiles = std::to_string(st.tiles) + ":" + std::to_string(st.tile_h) + "x" +
                              std::to_string(st.tile_w);
    const double estimated = st.macs / (double(config.n) * config.n * estimate.cycles);
    std::printf("%-20s %-16s %8s %6u %4s %8zu %7.1f %9.0f %9.0f %7.1f %8.1f\n", r.name, shape.c_str(), tiles.c_str(),
                st.k_chunks, st.weights_resident ? "yes" : "no", program.commands.size(), st.macs / 1e6,
                st.dma_read_bytes / 1024.0, st.dma_write_bytes / 1024.0, 100 * st.IdealUtilization(),
                100 * estimated);
    // The 3x3 layers with at least 64 channels keep the array busy: no
    // channel padding, and loads and stores hide behind the CONVs.
    if (r.k == 3 && r.c_in >= 64) {
      EXPECT_GE(st.IdealUtilization(), 0.999) << r.name;
      EXPECT_GE(estimated, 0.8) << r.name;
    }
  }
  std::printf("total (conv1 as the space-to-depth stem) %.0f MMAC, estimated %.1f ms at %u MHz (%.1f %% of the %ux%u array)\n", total_macs / 1e6,
              total_cycles / (config.clock_mhz * 1e3), config.clock_mhz,
              100.0 * total_macs / (double(config.n) * config.n * total_cycles), config.n, config.n);
}

// Two of them through the model, bit for bit: a stride-2 3x3 and a 1x1
// stride-2 downsample (subsampled by the load).
TEST(ResNet18LoweringTest, TwoLayersRunBitExact) {
  std::mt19937 rng(19);
  for (const char* name : {"layer3.0.conv1", "layer2.0.downsample"}) {
    for (const ResNetConv& r : testing::ResNet18Convs()) {
      if (std::string(r.name) != name) continue;
      EXPECT_TRUE(testing::RunConvCase(Pynq(), testing::ResNetConvCase(r, &rng), {0, 7}));
    }
  }
}

}  // namespace
}  // namespace lowering
}  // namespace fpga
}  // namespace loom
