// LowerAdd and LowerMaxPool: randomized layers on every configuration, run
// through the functional model under several schedules, bit for bit against
// requant::RequantizeAdd and a naive max; and their refusals.
#include <chrono>
#include <cstdio>

#include <gtest/gtest.h>

#include "kernels/fpga/lowering/lowering.h"
#include "kernels/fpga/lowering/testing/lowering_test_util.h"

namespace loom {
namespace fpga {
namespace lowering {
namespace {

const contract::AccelConfig& Pynq() { return *contract::FindConfig("pynq_z2"); }

template <typename MakeCase, typename RunCase>
void RunRandomLayers(const char* what, int per_config, uint32_t seed, MakeCase make, RunCase run) {
  const auto start = std::chrono::steady_clock::now();
  std::mt19937 rng(seed);
  int layers = 0;
  for (const contract::AccelConfig* config : testing::TestConfigs()) {
    for (int i = 0, count = testing::SweepCount(per_config); i < count; ++i) {
      const auto c = make(*config, &rng);
      ASSERT_TRUE(run(*config, c, {0, rng() | 1, rng() | 1})) << "case " << i;
      ++layers;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ lowering ] %d %s bit-exact (3 schedules each, 3 configurations) in %.1f s\n", layers, what,
              seconds);
}

TEST(VectorLoweringRandomTest, AddLayers) {
  RunRandomLayers("Add layers", 200, 21, testing::RandomAddCase, testing::RunAddCase);
}

TEST(VectorLoweringRandomTest, MaxPoolLayers) {
  RunRandomLayers("MaxPool layers", 200, 22, testing::RandomMaxPoolCase, testing::RunMaxPoolCase);
}

// ResNet's stem pooling: 3x3 stride 2 pad 1 over 112x112x64 -> 56x56.
TEST(VectorLoweringTest, ResNetStemMaxPool) {
  testing::MaxPoolCase c;
  c.layer.name = "maxpool";
  c.layer.h = c.layer.w = 112;
  c.layer.c = 64;
  c.layer.window.kh = c.layer.window.kw = 3;
  c.layer.window.stride_y = c.layer.window.stride_x = 2;
  c.layer.window.pad_top = c.layer.window.pad_bottom = c.layer.window.pad_left = c.layer.window.pad_right = 1;
  c.layer.zero_point = -7;
  std::mt19937 rng(3);
  for (int i = 0; i < 112 * 112 * 64; ++i) c.x.push_back(static_cast<int32_t>(rng() % 256) - 128);
  EXPECT_TRUE(testing::RunMaxPoolCase(Pynq(), c, {0, 5}));
}

TEST(VectorLoweringTest, RefusesBadLayers) {
  Program program;
  AddLayer add;
  add.params.a = add.params.b = add.params.output.m = {1 << 30, 0};
  add.params.a_zero_point = 200;  // not an int8
  Status s = LowerAdd(Pynq(), add, {0, 0}, {1, 0}, {2, 0}, &program);
  EXPECT_NE(s.message().find("add (Add): input a zero point 200 outside [-128, 127]"), std::string::npos)
      << s.message();
  add.params.a_zero_point = 0;
  s = LowerAdd(Pynq(), add, {0, 0}, {5, 0}, {2, 0}, &program);
  EXPECT_NE(s.message().find("input b at slot 5"), std::string::npos) << s.message();

  MaxPoolLayer pool;
  pool.h = pool.w = 8;
  pool.window.kh = pool.window.kw = 2;
  pool.window.pad_left = 2;
  s = LowerMaxPool(Pynq(), pool, {0, 0}, {1, 0}, &program);
  EXPECT_NE(s.message().find("maxpool (MaxPool): pad_left 2"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace lowering
}  // namespace fpga
}  // namespace loom
