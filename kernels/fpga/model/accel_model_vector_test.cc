// The vector path: ADD against requant::RequantizeAdd and MAXPOOL (with
// dtype-minimum padding) against a naive max, each followed by a per-tensor
// STORE, for int8 and uint8 activations.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "kernels/fpga/model/testing/model_test_util.h"

namespace loom {
namespace fpga {
namespace {

using contract::Command;
using testing::Append;
using testing::Blocks;
using testing::Element;
using testing::ModelHarness;
using testing::PynqZ2;

std::vector<int32_t> RandomTensor(size_t size, bool is_unsigned, std::mt19937* rng) {
  std::uniform_int_distribution<int> value(is_unsigned ? 0 : -128, is_unsigned ? 255 : 127);
  std::vector<int32_t> t(size);
  for (int32_t& v : t) v = value(*rng);
  return t;
}

// LOAD_ACT of an unpadded h x w NHWC tensor of `blocks` channel blocks.
contract::LoadAct LoadTensor(uint32_t dram_offset, uint32_t sram_row, int h, int w, int blocks, uint32_t n) {
  contract::LoadAct a;
  a.dram_offset = dram_offset;
  a.sram_row = sram_row;
  a.y_size = h;
  a.x_size = w;
  a.cb = blocks;
  a.pixel_pitch = blocks * n;
  a.row_pitch = w * a.pixel_pitch;
  return a;
}

// STORE per_tensor with a stage, bias 0.
contract::Store StorePerTensor(const requant::OutputStage& stage) {
  contract::Store st;
  st.per_tensor = 1;
  st.multiplier = static_cast<uint32_t>(stage.m.multiplier);
  st.shift = stage.m.shift;
  st.zero_point = stage.zero_point;
  st.qmin = stage.range.min;
  st.qmax = stage.range.max;
  st.deps.pop_prev = true;
  return st;
}

class VectorTest : public ::testing::TestWithParam<bool> {};  // act_unsigned

TEST_P(VectorTest, AddMatchesRequantizeAdd) {
  const bool is_unsigned = GetParam();
  const uint32_t n = PynqZ2().n;
  const int h = 3, w = 5, c = n + 5, blocks = Blocks(c, n);
  const uint32_t rows = h * w * blocks;
  std::mt19937 rng(11 + is_unsigned);
  const std::vector<int32_t> qa = RandomTensor(size_t(c) * h * w, is_unsigned, &rng);
  const std::vector<int32_t> qb = RandomTensor(size_t(c) * h * w, is_unsigned, &rng);
  const requant::Range range = is_unsigned ? requant::Range{0, 255} : requant::Range{-128, 127};
  requant::AddParams p;
  ASSERT_TRUE(requant::MakeAddParams(0.07f, is_unsigned ? 130 : -4, 0.045f, is_unsigned ? 118 : 9, 0.1f,
                                     is_unsigned ? 125 : 2, range, &p)
                  .ok());

  ModelHarness m(PynqZ2());
  const uint32_t a_off = m.Put(testing::ToNhwc(qa, c, h, w, n));
  const uint32_t b_off = m.Put(testing::ToNhwc(qb, c, h, w, n));
  const uint32_t out = m.Reserve(size_t(rows) * n);
  std::vector<Command> s;
  Append(&s, LoadTensor(a_off, 0, h, w, blocks, n));
  contract::LoadAct load_b = LoadTensor(b_off, 1000, h, w, blocks, n);
  load_b.deps.push_next = true;
  Append(&s, load_b);
  contract::Add add;
  add.a_base = 0;
  add.b_base = 1000;
  add.acc_base = 7;
  add.rows = rows;
  add.a_zp = p.a_zero_point;
  add.b_zp = p.b_zero_point;
  add.a_multiplier = static_cast<uint32_t>(p.a.multiplier);
  add.a_shift = p.a.shift;
  add.b_multiplier = static_cast<uint32_t>(p.b.multiplier);
  add.b_shift = p.b.shift;
  add.act_unsigned = is_unsigned;
  add.deps.pop_prev = add.deps.push_next = true;
  Append(&s, add);
  // Accumulator rows are [pixel][block]: store them as h rows of w·blocks "pixels" of N channels.
  contract::Store st = StorePerTensor(p.output);
  st.acc_base = 7;
  st.oh = h;
  st.ow = w * blocks;
  st.dram_offset = out;
  st.pixel_pitch = n;
  st.row_pitch = st.ow * n;
  Append(&s, st);

  const RunResult result = m.Run(s);
  ASSERT_TRUE(result.ok()) << result.error_detail;
  const std::vector<int32_t> y =
      testing::FromNhwc(m.Get(out, size_t(rows) * n), c, h, w, n, is_unsigned ? Element::kUint8 : Element::kInt8);
  for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], requant::RequantizeAdd(qa[i], qb[i], p)) << "element " << i;
}

TEST_P(VectorTest, MaxPoolMatchesANaiveMax) {
  const bool is_unsigned = GetParam();
  const uint32_t n = PynqZ2().n;
  const int h = 7, w = 9, c = n + 3, blocks = Blocks(c, n);
  const int k = 3, stride = 2, pad = 1, oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1;
  const int32_t zp = is_unsigned ? 100 : -7;
  std::mt19937 rng(21 + is_unsigned);
  const std::vector<int32_t> x = RandomTensor(size_t(c) * h * w, is_unsigned, &rng);

  ModelHarness m(PynqZ2());
  const uint32_t x_off = m.Put(testing::ToNhwc(x, c, h, w, n));
  const uint32_t out = m.Reserve(size_t(oh) * ow * blocks * n);
  std::vector<Command> s;
  contract::LoadAct a = LoadTensor(x_off, 0, h, w, blocks, n);
  a.pad_top = a.pad_bottom = a.pad_left = a.pad_right = pad;
  a.pad_value = is_unsigned ? 0 : 0x80;  // the dtype minimum never wins a max
  a.deps.push_next = true;
  Append(&s, a);
  for (int cb = 0; cb < blocks; ++cb) {
    contract::Maxpool mp;
    mp.in_w = w + 2 * pad;
    mp.in_cb = blocks;
    mp.cb = cb;
    mp.kh = mp.kw = k;
    mp.stride_y = mp.stride_x = stride;
    mp.dilation_y = mp.dilation_x = 1;
    mp.oh = oh;
    mp.ow = ow;
    mp.acc_base = cb * oh * ow;
    mp.in_zp = zp;
    mp.act_unsigned = is_unsigned;
    mp.deps.pop_prev = cb == 0;
    mp.deps.push_next = cb + 1 == blocks;
    Append(&s, mp);
  }
  // The identity stage (multiplier 2^30, shift 1) plus the zero point gives back the max.
  requant::OutputStage identity;
  identity.m = {1 << 30, 1};
  identity.zero_point = zp;
  identity.range = is_unsigned ? requant::Range{0, 255} : requant::Range{-128, 127};
  for (int cb = 0; cb < blocks; ++cb) {
    contract::Store st = StorePerTensor(identity);
    st.deps.pop_prev = cb == 0;
    st.acc_base = cb * oh * ow;
    st.oh = oh;
    st.ow = ow;
    st.dram_offset = out + cb * n;
    st.pixel_pitch = blocks * n;
    st.row_pitch = ow * st.pixel_pitch;
    Append(&s, st);
  }

  const RunResult result = m.Run(s);
  ASSERT_TRUE(result.ok()) << result.error_detail;
  const std::vector<int32_t> y = testing::FromNhwc(m.Get(out, size_t(oh) * ow * blocks * n), c, oh, ow, n,
                                                   is_unsigned ? Element::kUint8 : Element::kInt8);
  for (int ch = 0; ch < c; ++ch) {
    for (int oy = 0; oy < oh; ++oy) {
      for (int ox = 0; ox < ow; ++ox) {
        int32_t best = std::numeric_limits<int32_t>::min();
        for (int ky = 0; ky < k; ++ky) {
          for (int kx = 0; kx < k; ++kx) {
            const int iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
            if (iy >= 0 && iy < h && ix >= 0 && ix < w) best = std::max(best, x[(size_t(ch) * h + iy) * w + ix]);
          }
        }
        ASSERT_EQ(y[(size_t(ch) * oh + oy) * ow + ox], best) << "channel " << ch << " at " << oy << "," << ox;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Activations, VectorTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "uint8" : "int8"; });

}  // namespace
}  // namespace fpga
}  // namespace loom
