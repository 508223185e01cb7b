// AppendChained: two layers in one stream give, under every schedule the
// model can take, the bytes the two streams give run one after the other;
// and the barrier's tokens balance.
#include <random>

#include <gtest/gtest.h>

#include "kernels/fpga/lowering/chain.h"
#include "kernels/fpga/lowering/lowering.h"
#include "kernels/fpga/model/testing/model_test_util.h"

namespace loom {
namespace fpga {
namespace lowering {
namespace {

using fpga::testing::ModelHarness;

ConvLayer RandomConv(uint32_t h, uint32_t w, uint32_t in_c, uint32_t out_c, uint32_t k, std::mt19937* rng) {
  ConvLayer layer;
  layer.in_h = h;
  layer.in_w = w;
  layer.in_c = in_c;
  layer.out_c = out_c;
  layer.window.kh = layer.window.kw = k;
  layer.window.pad_top = layer.window.pad_bottom = layer.window.pad_left = layer.window.pad_right = k / 2;
  layer.input_zero_point = -3;
  layer.output_zero_point = 5;
  layer.output_range = {-128, 127};
  for (uint32_t i = 0; i < out_c * in_c * k * k; ++i) layer.weights.push_back(static_cast<int8_t>((*rng)() % 255 - 127));
  for (uint32_t o = 0; o < out_c; ++o) {
    layer.bias.push_back(static_cast<int32_t>((*rng)() % 20001) - 10000);
    requant::Multiplier m;
    EXPECT_TRUE(requant::QuantizeMultiplier(0.0005 + 0.001 * ((*rng)() % 100) / 100.0, &m).ok());
    layer.multipliers.push_back(m);
  }
  return layer;
}

struct Placed {
  DramTensor in, mid, out;
  ConstantPlacement a, b;
};

// Two 3x3 convolutions, a -> b, lowered against offsets in one harness.
struct TwoLayers {
  ConvLayer a, b;
  Program pa, pb;
};

class ChainTest : public ::testing::Test {
 protected:
  ChainTest() : h_(fpga::testing::PynqZ2()) {}

  void SetUpLayers(uint32_t seed) {
    std::mt19937 rng(seed);
    const contract::AccelConfig& config = h_.config();
    layers_.a = RandomConv(12, 10, 20, 24, 3, &rng);
    layers_.b = RandomConv(12, 10, 24, 17, 3, &rng);
    const ActivationLayout in = ActivationLayoutOf(config, 12, 10, 20);
    const ActivationLayout mid = ActivationLayoutOf(config, 12, 10, 24);
    const ActivationLayout out = ActivationLayoutOf(config, 12, 10, 17);
    std::vector<uint8_t> x(in.bytes);
    for (uint8_t& v : x) v = static_cast<uint8_t>(rng());
    p_.in = {0, h_.Put(x)};
    p_.mid = {0, h_.Reserve(mid.bytes)};
    p_.out = {0, h_.Reserve(out.bytes)};
    p_.a = {{0, h_.Reserve(WeightImageBytes(config, layers_.a))}, {0, h_.Reserve(ParamImageBytes(config, layers_.a))}};
    p_.b = {{0, h_.Reserve(WeightImageBytes(config, layers_.b))}, {0, h_.Reserve(ParamImageBytes(config, layers_.b))}};
    ASSERT_TRUE(LowerConv(config, layers_.a, p_.in, p_.mid, p_.a, &layers_.pa).ok());
    ASSERT_TRUE(LowerConv(config, layers_.b, p_.mid, p_.out, p_.b, &layers_.pb).ok());
    for (const auto& [program, placed] : {std::make_pair(&layers_.pa, &p_.a), std::make_pair(&layers_.pb, &p_.b)}) {
      ASSERT_TRUE(h_.memory()
                      .Write(h_.memory().base() + placed->weights.offset, program->weight_image.data(),
                             program->weight_image.size())
                      .ok());
      ASSERT_TRUE(h_.memory()
                      .Write(h_.memory().base() + placed->params.offset, program->param_image.data(),
                             program->param_image.size())
                      .ok());
    }
    out_bytes_ = out.bytes;
    mid_bytes_ = mid.bytes;
  }

  std::vector<uint8_t> Output() const { return h_.Get(p_.out.offset, out_bytes_); }
  void ClearIntermediates() {
    const std::vector<uint8_t> zeros(mid_bytes_ > out_bytes_ ? mid_bytes_ : out_bytes_, 0);
    ASSERT_TRUE(h_.memory().Write(h_.memory().base() + p_.mid.offset, zeros.data(), mid_bytes_).ok());
    ASSERT_TRUE(h_.memory().Write(h_.memory().base() + p_.out.offset, zeros.data(), out_bytes_).ok());
  }

  ModelHarness h_;
  TwoLayers layers_;
  Placed p_;
  size_t out_bytes_ = 0, mid_bytes_ = 0;
};

TEST_F(ChainTest, OneStreamEqualsTwoRuns) {
  SetUpLayers(7);
  ASSERT_EQ(h_.Run(layers_.pa.commands).error, contract::ErrorCode::kNone);
  ASSERT_EQ(h_.Run(layers_.pb.commands).error, contract::ErrorCode::kNone);
  const std::vector<uint8_t> expected = Output();

  std::vector<contract::Command> stream;
  ASSERT_TRUE(AppendChained(layers_.pa.commands, &stream).ok());
  ASSERT_EQ(stream.size(), layers_.pa.commands.size());
  ASSERT_TRUE(AppendChained(layers_.pb.commands, &stream).ok());
  ASSERT_EQ(stream.size(), layers_.pa.commands.size() + 1 + layers_.pb.commands.size());
  for (uint64_t seed : {0ull, 1ull, 2ull, 3ull, 0x9e3779b9ull, 12345ull}) {
    ClearIntermediates();
    const RunResult r = h_.Run(stream, seed);
    ASSERT_EQ(r.error, contract::ErrorCode::kNone) << "seed " << seed;
    EXPECT_EQ(Output(), expected) << "seed " << seed;
  }
}

TEST_F(ChainTest, RefusesAStreamThatAlreadyUsesTheBarrierToken) {
  SetUpLayers(8);
  std::vector<contract::Command> stream = layers_.pa.commands;
  ASSERT_TRUE(AppendChained(layers_.pb.commands, &stream).ok());
  // The chained stream's last store of A now pushes; chaining onto a prefix
  // that ends there again must refuse rather than unbalance the tokens.
  std::vector<contract::Command> prefix(stream.begin(), stream.begin() + layers_.pa.commands.size());
  const Status s = AppendChained(layers_.pb.commands, &prefix);
  EXPECT_EQ(s.code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace lowering
}  // namespace fpga
}  // namespace loom
