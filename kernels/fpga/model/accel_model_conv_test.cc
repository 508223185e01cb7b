// CONV and STORE against a naive int64 NCHW convolution: one tile holding the
// whole padded input, channel counts that are not multiples of N (padded with
// zeros in DRAM and in the weights), int8 and uint8 activations, both
// configurations; bit for bit.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "kernels/fpga/model/testing/model_test_util.h"

namespace loom {
namespace fpga {
namespace {

using contract::Command;
using testing::Append;
using testing::Blocks;
using testing::ConvLayer;
using testing::Element;
using testing::ModelHarness;
using testing::PynqZ2;

struct ConvStreamOptions {
  bool split_k = false;     // one CONV per input channel block, accumulating
  bool out_int32 = false;   // STORE acc + bias as int32
  bool per_tensor = false;  // STORE with stage 0 from the command, bias 0, no LOAD_PARAM
};

struct ConvRun {
  RunResult result;
  std::vector<uint8_t> output;  // NHWC, channels padded to N
};

// LOAD_PARAM, LOAD_ACT (the whole input, padded), LOAD_WGT (all blocks), per
// output block CONV(s) and STORE; one load->compute and one compute->store token.
ConvRun RunConvLayer(ModelHarness* h, const ConvLayer& l, const ConvStreamOptions& o, uint64_t seed = 0) {
  const uint32_t n = h->n();
  const uint32_t in_blocks = Blocks(l.c_in, n), out_blocks = Blocks(l.c_out, n);
  const uint32_t oh = l.out_h(), ow = l.out_w();
  const uint32_t block_rows = in_blocks * l.kh * l.kw * n;
  const uint32_t element = o.out_int32 ? 4 : 1;
  const uint32_t x = h->Put(testing::ToNhwc(l.x, l.c_in, l.h, l.w, n));
  const uint32_t weights = h->Put(testing::TileWeights(l, n));
  const uint32_t params = h->Put(testing::ParamRecords(l, n));
  const uint32_t out_pixel_pitch = out_blocks * n * element;
  const uint32_t out = h->Reserve(size_t{oh} * ow * out_pixel_pitch);

  std::vector<Command> s;
  if (!o.per_tensor) {
    contract::LoadParam p;
    p.dram_offset = params;
    p.count = out_blocks * n;
    Append(&s, p);
  }
  contract::LoadAct a;
  a.dram_offset = x;
  a.y_size = l.h;
  a.x_size = l.w;
  a.cb = in_blocks;
  a.pixel_pitch = in_blocks * n;
  a.row_pitch = l.w * a.pixel_pitch;
  a.pad_top = l.pad_top;
  a.pad_bottom = l.pad_bottom;
  a.pad_left = l.pad_left;
  a.pad_right = l.pad_right;
  a.pad_value = static_cast<uint8_t>(l.x_zero_point);
  Append(&s, a);
  contract::LoadWgt w;
  w.dram_offset = weights;
  w.rows = out_blocks * block_rows;
  w.deps.push_next = true;
  Append(&s, w);

  const uint32_t chunks = o.split_k ? in_blocks : 1;
  for (uint32_t ob = 0; ob < out_blocks; ++ob) {
    for (uint32_t chunk = 0; chunk < chunks; ++chunk) {
      contract::Conv c;
      c.in_w = l.pad_left + l.w + l.pad_right;
      c.in_cb = in_blocks;
      c.cb_begin = o.split_k ? chunk : 0;
      c.cb_count = o.split_k ? 1 : in_blocks;
      c.kh = l.kh;
      c.kw = l.kw;
      c.stride_y = l.stride_y;
      c.stride_x = l.stride_x;
      c.dilation_y = l.dilation_y;
      c.dilation_x = l.dilation_x;
      c.oh = oh;
      c.ow = ow;
      c.wgt_base = ob * block_rows + c.cb_begin * l.kh * l.kw * n;
      c.acc_base = ob * oh * ow;
      c.accumulate = chunk > 0;
      c.act_unsigned = l.act_unsigned;
      c.deps.pop_prev = ob == 0 && chunk == 0;
      c.deps.push_next = ob + 1 == out_blocks && chunk + 1 == chunks;
      Append(&s, c);
    }
  }
  const requant::OutputStage& stage = l.stages[0];
  for (uint32_t ob = 0; ob < out_blocks; ++ob) {
    contract::Store st;
    st.acc_base = ob * oh * ow;
    st.oh = oh;
    st.ow = ow;
    st.dram_offset = out + ob * n * element;
    st.pixel_pitch = out_pixel_pitch;
    st.row_pitch = ow * out_pixel_pitch;
    st.param_row = ob * n;
    st.out_int32 = o.out_int32;
    st.per_tensor = o.per_tensor;
    st.zero_point = stage.zero_point;
    st.qmin = stage.range.min;
    st.qmax = stage.range.max;
    st.multiplier = static_cast<uint32_t>(stage.m.multiplier);
    st.shift = stage.m.shift;
    st.deps.pop_prev = ob == 0;
    Append(&s, st);
  }
  ConvRun run;
  run.result = h->Run(s, seed);
  run.output = h->Get(out, size_t{oh} * ow * out_pixel_pitch);
  return run;
}

ConvLayer Layer3x3(int n, int stride, int dilation, bool act_unsigned, std::mt19937* rng) {
  ConvLayer l;
  l.c_in = n + 4;
  l.c_out = n + 3;
  l.h = 9;
  l.w = 11;
  l.kh = l.kw = 3;
  l.stride_y = l.stride_x = stride;
  l.dilation_y = l.dilation_x = dilation;
  l.pad_top = l.pad_left = dilation;
  l.pad_bottom = dilation;
  l.pad_right = dilation + (stride > 1 ? 1 : 0);  // asymmetric with stride 2
  l.act_unsigned = act_unsigned;
  l.x_zero_point = act_unsigned ? 121 : -3;
  testing::Randomize(&l, rng);
  return l;
}

// (configuration, stride, dilation, act_unsigned)
class ConvTest : public ::testing::TestWithParam<std::tuple<const char*, int, int, bool>> {};

TEST_P(ConvTest, MatchesTheNaiveReferenceBitForBit) {
  const auto [config_name, stride, dilation, act_unsigned] = GetParam();
  const contract::AccelConfig* config = contract::FindConfig(config_name);
  ASSERT_NE(config, nullptr);
  std::mt19937 rng(stride * 10 + dilation + act_unsigned * 100);
  const ConvLayer l = Layer3x3(config->n, stride, dilation, act_unsigned, &rng);
  ModelHarness h(*config);
  const ConvRun run = RunConvLayer(&h, l, {});
  ASSERT_TRUE(run.result.ok()) << run.result.error_detail;
  EXPECT_EQ(testing::FromNhwc(run.output, l.c_out, l.out_h(), l.out_w(), config->n, Element::kInt8),
            testing::ReferenceConv(l));

  const uint64_t n = config->n, blocks = 2;
  EXPECT_EQ(run.result.macs, blocks * l.out_h() * l.out_w() * blocks * 9 * n * n);
  EXPECT_EQ(run.result.commands[static_cast<int>(contract::Queue::kLoad)], 2u);
  EXPECT_EQ(run.result.commands[static_cast<int>(contract::Queue::kCompute)], 2u);
  EXPECT_EQ(run.result.commands[static_cast<int>(contract::Queue::kStore)], 3u);
  EXPECT_EQ(run.result.bytes_written, uint64_t(l.out_h()) * l.out_w() * blocks * n);
}

INSTANTIATE_TEST_SUITE_P(Layers, ConvTest,
                         ::testing::Combine(::testing::Values("pynq_z2", "kv260"), ::testing::Values(1, 2),  // stride
                                            ::testing::Values(1, 2),                                         // dilation
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param)) + "_s" +
                                  std::to_string(std::get<1>(info.param)) + "_d" +
                                  std::to_string(std::get<2>(info.param)) +
                                  (std::get<3>(info.param) ? "_uint8" : "_int8");
                         });

// Runs the layer's stream on pynq_z2; the output must equal `expected`.
void ExpectPynqRun(const ConvLayer& l, const ConvStreamOptions& o, Element element,
                   const std::vector<int32_t>& expected) {
  const contract::AccelConfig& config = PynqZ2();
  ModelHarness h(config);
  const ConvRun run = RunConvLayer(&h, l, o);
  ASSERT_TRUE(run.result.ok()) << run.result.error_detail;
  EXPECT_EQ(testing::FromNhwc(run.output, l.c_out, l.out_h(), l.out_w(), config.n, element), expected);
}

TEST(ConvStreamTest, KSplitAcrossTwoAccumulatingConvsMatches) {
  std::mt19937 rng(7);
  const ConvLayer l = Layer3x3(PynqZ2().n, 1, 1, false, &rng);
  ConvStreamOptions o;
  o.split_k = true;  // one CONV per input channel block
  ExpectPynqRun(l, o, Element::kInt8, testing::ReferenceConv(l));
}

TEST(ConvStreamTest, OutInt32WritesTheAccumulatorPlusBias) {
  std::mt19937 rng(8);
  const ConvLayer l = Layer3x3(PynqZ2().n, 2, 1, true, &rng);
  ConvStreamOptions o;
  o.out_int32 = true;
  const std::vector<int64_t> acc = testing::ReferenceConvAcc(l);
  ExpectPynqRun(l, o, Element::kInt32, std::vector<int32_t>(acc.begin(), acc.end()));
}

TEST(ConvStreamTest, PerTensorUsesTheCommandsStageAndNoBias) {
  std::mt19937 rng(9);
  ConvLayer l = Layer3x3(PynqZ2().n, 1, 2, false, &rng);
  l.x_zero_point = 0;  // nothing to fold: per_tensor has bias 0
  std::fill(l.bias.begin(), l.bias.end(), 0);
  std::fill(l.stages.begin(), l.stages.end(), l.stages[0]);
  ConvStreamOptions o;
  o.per_tensor = true;
  ExpectPynqRun(l, o, Element::kInt8, testing::ReferenceConv(l));
}

}  // namespace
}  // namespace fpga
}  // namespace loom
