// The padded NHWC layout on the CPU: its shapes, Relayout both ways, and the
// fallbacks of accelerator nodes, which must give the int8 CPU kernel's
// bytes from padded tensors.
#include <random>

#include <gtest/gtest.h>

#include "kernels/cpu/layout/padded_layout.h"
#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace layout {
namespace {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

TEST(PaddedLayoutTest, Shapes) {
  PaddedShape s;
  ASSERT_TRUE(PaddedShapeOf({1, 20, 5, 7}, 16, &s).ok());
  EXPECT_EQ(s.h, 5);
  EXPECT_EQ(s.w, 7);
  EXPECT_EQ(s.c, 20);
  EXPECT_EQ(s.c_padded, 32);
  EXPECT_TRUE(s.planar);
  ASSERT_TRUE(PaddedShapeOf({3, 40}, 32, &s).ok());
  EXPECT_EQ(s.h, 1);
  EXPECT_EQ(s.w, 3);
  EXPECT_EQ(s.c_padded, 64);
  EXPECT_FALSE(s.planar);
  ASSERT_TRUE(PaddedShapeOf({1, 3, 16}, 16, &s).ok());
  EXPECT_EQ(s.c_padded, 16);
  EXPECT_EQ(PaddedShapeOf({2, 3, 4, 5}, 16, &s).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(PaddedShapeOf({5}, 16, &s).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(PaddedShapeOf({1, 3, 4, 5}, 0, &s).code(), StatusCode::kInvalidArgument);
}

Attributes Pad(int64_t n) {
  Attributes a;
  a.SetInt(kPadChannelsAttr, n);
  return a;
}

RunOptions Relayout() {
  RunOptions o;
  o.domain = "loom";
  return o;
}

TEST(RelayoutTest, RoundTripsAndZeroesPadding) {
  std::mt19937 rng(1);
  for (const Shape& shape : {Shape{1, 20, 5, 7}, Shape{1, 16, 3, 3}, Shape{6, 17}, Shape{1, 4, 33}}) {
    SCOPED_TRACE(ShapeToString(shape));
    std::vector<int8_t> x(static_cast<size_t>(NumElements(shape)));
    for (int8_t& v : x) v = static_cast<int8_t>(rng());
    PaddedShape ps;
    ASSERT_TRUE(PaddedShapeOf(shape, 16, &ps).ok());
    TestTensor padded = TestTensor::Empty(DType::kInt8, shape);
    padded.layout = Layout::kNhwcPadded;
    padded.bytes.resize(static_cast<size_t>(ps.PaddedElements()));
    std::vector<TestTensor> outs = {padded};
    ASSERT_TRUE(RunKernel("Relayout", Pad(16), {TestTensor::Of<int8_t>(shape, x)}, &outs, Relayout()).ok());
    const std::vector<int8_t> got = outs[0].As<int8_t>();
    // Element (pixel p, channel c) at p * c_padded + c; padding zero.
    for (int64_t p = 0; p < ps.h * ps.w; ++p) {
      for (int64_t c = 0; c < ps.c_padded; ++c) {
        const int8_t want = c >= ps.c ? 0 : ps.planar ? x[c * ps.h * ps.w + p] : x[p * ps.c + c];
        ASSERT_EQ(got[p * ps.c_padded + c], want) << "pixel " << p << " channel " << c;
      }
    }
    TestTensor back_in = outs[0];
    std::vector<TestTensor> back = {TestTensor::Empty(DType::kInt8, shape)};
    ASSERT_TRUE(RunKernel("Relayout", Pad(16), {back_in}, &back, Relayout()).ok());
    EXPECT_EQ(back[0].As<int8_t>(), x);
  }
}

TEST(RelayoutTest, Refusals) {
  std::vector<TestTensor> outs = {TestTensor::Empty(DType::kInt8, {1, 2, 2, 2})};
  const TestTensor x = TestTensor::Of<int8_t>({1, 2, 2, 2}, std::vector<int8_t>(8, 1));
  Status s = RunKernel("Relayout", Pad(16), {x}, &outs, Relayout());  // row-major on both sides
  EXPECT_EQ(s.code(), StatusCode::kUnsupported) << s.ToString();
  outs[0].layout = Layout::kNhwcPadded;
  outs[0].bytes.resize(64);
  s = RunKernel("Relayout", Attributes(), {x}, &outs, Relayout());  // no loom.pad_channels
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
}

// An int8 Conv (fused Relu) through cpu.Conv.padded equals cpu.Conv.int8.
TEST(PaddedFallbackTest, ConvMatchesTheInt8Kernel) {
  std::mt19937 rng(3);
  const Shape xs = {1, 20, 9, 8}, ws = {24, 20, 3, 3}, ys = {1, 24, 9, 8};
  std::vector<int8_t> x(static_cast<size_t>(NumElements(xs))), w(static_cast<size_t>(NumElements(ws)));
  for (int8_t& v : x) v = static_cast<int8_t>(rng());
  for (int8_t& v : w) v = static_cast<int8_t>(rng() % 61 - 30);
  std::vector<int32_t> bias(24);
  for (int32_t& b : bias) b = static_cast<int32_t>(rng() % 4001) - 2000;
  std::vector<float> w_scales(24);
  for (float& s : w_scales) s = 0.01f + 0.001f * static_cast<float>(rng() % 10);
  Attributes attrs;
  attrs.SetInts("pads", {1, 1, 1, 1});
  attrs.SetString("loom.activation", "Relu");
  const TestTensor xt = TestTensor::Of<int8_t>(xs, x).WithQuant({0.05f}, {-4});
  const TestTensor wt = TestTensor::Const<int8_t>(ws, w).WithQuant(w_scales, std::vector<int64_t>(24, 0), 0);
  const TestTensor bt = TestTensor::Const<int32_t>({24}, bias);
  std::vector<TestTensor> want = {TestTensor::Empty(DType::kInt8, ys).WithQuant({0.2f}, {3})};
  RunOptions int8;
  int8.kernel_id = "cpu.Conv.int8";
  ASSERT_TRUE(RunKernel("Conv", attrs, {xt, wt, bt}, &want, int8).ok());

  PaddedShape px, py;
  ASSERT_TRUE(PaddedShapeOf(xs, 16, &px).ok());
  ASSERT_TRUE(PaddedShapeOf(ys, 16, &py).ok());
  TestTensor xp = xt;
  xp.layout = Layout::kNhwcPadded;
  xp.bytes.assign(static_cast<size_t>(px.PaddedElements()), 0x55);
  ToPadded(px, 1, x.data(), xp.bytes.data());
  TestTensor yp = TestTensor::Empty(DType::kInt8, ys).WithQuant({0.2f}, {3});
  yp.layout = Layout::kNhwcPadded;
  yp.bytes.resize(static_cast<size_t>(py.PaddedElements()));
  // A launch's trailing inputs (commands, constant image) are ignored.
  Attributes fpga_attrs = attrs;
  fpga_attrs.SetInt(kPadChannelsAttr, 16);
  fpga_attrs.SetInt("loom.launch_inputs", 2);
  const TestTensor launch = TestTensor::Const<uint8_t>({32}, std::vector<uint8_t>(32, 0));
  std::vector<TestTensor> got = {yp};
  RunOptions padded;
  padded.kernel_id = "cpu.Conv.padded";
  padded.threads = 2;
  const Status s = RunKernel("Conv", fpga_attrs, {xp, wt, bt, launch, launch}, &got, padded);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<int8_t> unpadded(static_cast<size_t>(NumElements(ys)));
  FromPadded(py, 1, got[0].bytes.data(), unpadded.data());
  EXPECT_EQ(unpadded, want[0].As<int8_t>());

  // Without a padded tensor the fallback refuses (the builder never picks it).
  std::vector<TestTensor> plain = {TestTensor::Empty(DType::kInt8, ys).WithQuant({0.2f}, {3})};
  EXPECT_EQ(RunKernel("Conv", fpga_attrs, {xt, wt, bt, launch, launch}, &plain, padded).code(),
            StatusCode::kUnsupported);
}

}  // namespace
}  // namespace layout
}  // namespace loom
