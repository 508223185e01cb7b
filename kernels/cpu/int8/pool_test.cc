#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/requantize.h"
#include "kernels/cpu/int8/act_test_util.h"

namespace loom {
namespace int8 {
namespace {

using namespace test;  // NOLINT

struct PoolCase {
  Shape x;  // N, C, spatial...
  std::vector<int64_t> kernel, strides, pads, dilations;  // empty: ONNX defaults
  int64_t ceil_mode;
  std::string auto_pad;  // empty: NOTSET
};

PoolCase P(Shape x, std::vector<int64_t> kernel, std::vector<int64_t> strides, std::vector<int64_t> pads,
           std::vector<int64_t> dilations, int64_t ceil_mode = 0, std::string auto_pad = "") {
  PoolCase c;
  c.x = std::move(x);
  c.kernel = std::move(kernel);
  c.strides = std::move(strides);
  c.pads = std::move(pads);
  c.dilations = std::move(dilations);
  c.ceil_mode = ceil_mode;
  c.auto_pad = std::move(auto_pad);
  return c;
}

// Per spatial axis: output size and padding, computed from the ONNX formulas.
struct Axis {
  int64_t in, k, s, d, pad_begin, pad_end, out;
};

std::vector<Axis> Geometry(const PoolCase& c) {
  const size_t r = c.x.size() - 2;
  std::vector<Axis> axes(r);
  for (size_t i = 0; i < r; ++i) {
    Axis& a = axes[i];
    a.in = c.x[i + 2];
    a.k = c.kernel[i];
    a.s = c.strides.empty() ? 1 : c.strides[i];
    a.d = c.dilations.empty() ? 1 : c.dilations[i];
    const int64_t ext = (a.k - 1) * a.d + 1;
    if (c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
      a.out = (a.in + a.s - 1) / a.s;
      const int64_t total = std::max<int64_t>(0, (a.out - 1) * a.s + ext - a.in);
      a.pad_begin = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      a.pad_end = total - a.pad_begin;
    } else if (c.auto_pad == "VALID") {
      a.pad_begin = a.pad_end = 0;
      a.out = (a.in - ext) / a.s + 1;
    } else {
      a.pad_begin = c.pads.empty() ? 0 : c.pads[i];
      a.pad_end = c.pads.empty() ? 0 : c.pads[i + r];
      const int64_t span = a.in + a.pad_begin + a.pad_end - ext;
      if (c.ceil_mode) {
        a.out = (span + a.s - 1) / a.s + 1;
        if ((a.out - 1) * a.s >= a.in + a.pad_begin) --a.out;  // last window starts in the input or left pad
      } else {
        a.out = span / a.s + 1;
      }
    }
  }
  return axes;
}

Attributes PoolAttrs(const PoolCase& c, int64_t count_include_pad = -1) {
  Attributes at;
  at.SetInts("kernel_shape", c.kernel);
  if (!c.strides.empty()) at.SetInts("strides", c.strides);
  if (!c.pads.empty()) at.SetInts("pads", c.pads);
  if (!c.dilations.empty()) at.SetInts("dilations", c.dilations);
  if (c.ceil_mode) at.SetInt("ceil_mode", c.ceil_mode);
  if (!c.auto_pad.empty()) at.SetString("auto_pad", c.auto_pad);
  if (count_include_pad >= 0) at.SetInt("count_include_pad", count_include_pad);
  return at;
}

Shape OutShape(const PoolCase& c) {
  Shape s = {c.x[0], c.x[1]};
  for (const Axis& a : Geometry(c)) s.push_back(a.out);
  return s;
}

// Visits every output element: fn(plane, output position, taps), where taps
// lists, for every window tap, its input offset in the plane (-1 in padding)
// and whether it lies inside the padded extent.
template <typename Fn>
void ForEachWindow(const PoolCase& c, Fn&& fn) {
  const std::vector<Axis> axes = Geometry(c);
  const size_t r = axes.size();
  int64_t out_size = 1, taps = 1;
  for (const Axis& a : axes) out_size *= a.out, taps *= a.k;
  std::vector<std::pair<int64_t, bool>> window;
  for (int64_t plane = 0; plane < c.x[0] * c.x[1]; ++plane) {
    for (int64_t o = 0; o < out_size; ++o) {
      window.clear();
      for (int64_t t = 0; t < taps; ++t) {
        int64_t orem = o, trem = t, offset = 0, stride = 1;
        bool inside = true, in_padded = true;
        for (size_t k = 0; k < r; ++k) {
          const Axis& a = axes[r - 1 - k];
          const int64_t oi = orem % a.out, ti = trem % a.k;
          orem /= a.out;
          trem /= a.k;
          const int64_t pos = oi * a.s - a.pad_begin + ti * a.d;
          if (pos < 0 || pos >= a.in) inside = false;
          if (pos >= a.in + a.pad_end) in_padded = false;
          offset += pos * stride;
          stride *= a.in;
        }
        window.push_back({inside ? offset : -1, in_padded});
      }
      fn(plane, o, window);
    }
  }
}

std::vector<int8_t> NaiveMaxPool(const PoolCase& c, const std::vector<int8_t>& x) {
  const int64_t in_size = NumElements(c.x) / (c.x[0] * c.x[1]);
  const int64_t out_size = NumElements(OutShape(c)) / (c.x[0] * c.x[1]);
  std::vector<int8_t> y(static_cast<size_t>(NumElements(OutShape(c))));
  ForEachWindow(c, [&](int64_t plane, int64_t o, const std::vector<std::pair<int64_t, bool>>& window) {
    int8_t best = -128;
    for (const auto& tap : window)
      if (tap.first >= 0) best = std::max(best, x[plane * in_size + tap.first]);
    y[plane * out_size + o] = best;
  });
  return y;
}

std::vector<int8_t> NaiveAveragePool(const PoolCase& c, const std::vector<int8_t>& x, float xs, int32_t xz, float ys,
                                     int32_t yz, bool count_include_pad) {
  const int64_t in_size = NumElements(c.x) / (c.x[0] * c.x[1]);
  const int64_t out_size = NumElements(OutShape(c)) / (c.x[0] * c.x[1]);
  std::vector<int8_t> y(static_cast<size_t>(NumElements(OutShape(c))));
  ForEachWindow(c, [&](int64_t plane, int64_t o, const std::vector<std::pair<int64_t, bool>>& window) {
    int32_t sum = 0, inside = 0, padded = 0;
    for (const auto& tap : window) {
      if (tap.first >= 0) sum += x[plane * in_size + tap.first] - xz, ++inside;
      if (tap.second) ++padded;
    }
    const int32_t count = count_include_pad ? padded : inside;
    int32_t v = yz;
    if (count > 0) {
      requant::OutputStage stage;
      EXPECT_TRUE(requant::MakeOutputStage(xs, 1.f / static_cast<float>(count), ys, yz, requant::Range(), &stage).ok());
      v = requant::Requantize(sum, stage);
    }
    y[plane * out_size + o] = static_cast<int8_t>(v);
  });
  return y;
}

const PoolCase kCases[] = {
    P({1, 2, 7, 7}, {3, 3}, {}, {}, {}),
    P({2, 3, 9, 8}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}),
    P({1, 2, 10, 11}, {3, 2}, {2, 3}, {0, 1, 2, 0}, {}, 1),
    P({1, 2, 10, 10}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 1),  // ceil_mode adds a window past the padding
    P({1, 2, 12, 11}, {3, 3}, {1, 2}, {2, 1, 1, 2}, {2, 2}),  // dilations
    P({1, 1, 13, 9}, {2, 3}, {3, 2}, {1, 0, 0, 1}, {3, 1}, 1),
    P({2, 3, 20}, {4}, {3}, {1, 2}, {}, 1),                  // 1-D
    P({1, 2, 5, 6, 7}, {2, 3, 2}, {2, 1, 2}, {1, 0, 1, 0, 1, 1}, {}),  // 3-D
    P({1, 2, 7, 8}, {3, 3}, {2, 2}, {}, {}, 0, "SAME_UPPER"),
    P({1, 2, 7, 8}, {4, 4}, {3, 2}, {}, {}, 0, "SAME_LOWER"),
    P({1, 2, 7, 8}, {2, 3}, {2, 2}, {}, {}, 0, "VALID"),
    P({1, 1, 4, 4}, {2, 2}, {1, 1}, {2, 2, 2, 2}, {}),  // windows entirely in the padding
    P({1, 1, 3, 3}, {3, 3}, {1, 1}, {}, {}),          // one window, the whole plane
    P({1, 32, 56, 56}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}),  // large: split across threads
    P({1, 2, 3, 4100}, {2, 3}, {1, 2}, {1, 1, 0, 1}, {}),  // rows wider than MaxPool's row buffer
};

TEST(Int8MaxPoolTest, MatchesNaiveAndTheFloatKernel) {
  std::mt19937 gen(21);
  for (const PoolCase& c : kCases) {
    const float s = RandomScale(&gen);
    const int64_t z = RandomZeroPoint(&gen);
    const TestTensor x = RandomQ(c.x, s, z, &gen);
    const std::vector<int8_t> expected = NaiveMaxPool(c, x.As<int8_t>());
    for (int threads : {1, 3}) {
      std::vector<int8_t> y;
      ASSERT_TRUE(RunInt8("MaxPool", PoolAttrs(c), {x}, OutShape(c), s, z, &y, 17, threads).ok())
          << ShapeToString(c.x);
      EXPECT_EQ(y, expected) << ShapeToString(c.x) << " threads " << threads;
    }
    // The float group's MaxPool also takes raw int8 data: same bytes.
    std::vector<TestTensor> outs = {TestTensor::Empty(DType::kInt8, OutShape(c))};
    RunOptions float_kernel;
    float_kernel.kernel_id = "cpu.MaxPool";
    ASSERT_TRUE(RunKernel("MaxPool", PoolAttrs(c), {x}, &outs, float_kernel).ok());
    EXPECT_EQ(outs[0].As<int8_t>(), expected) << ShapeToString(c.x);
  }
}

// Random 1-D, 2-D and 3-D windows (w strides 1 and 2 take the AVX2 row path,
// 3 the loops), odd widths around the 32-output steps, pads, dilations and
// ceil_mode, values with many -128 and 127, on every path this CPU has.
TEST(Int8MaxPoolTest, RandomWindowsMatchNaiveOnEveryPath) {
  ForEachInt8Path([&](const char* path) {
    std::mt19937 gen(22);
    auto uniform = [&gen](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); };
    for (int trial = 0; trial < 300; ++trial) {
      const int rank = trial % 10 == 0 ? 1 : trial % 10 == 1 ? 3 : 2;
      Shape x = {uniform(1, 2), uniform(1, 3)};
      std::vector<int64_t> kernel, strides, pads(2 * rank), dilations;
      for (int a = 0; a < rank; ++a) {
        const bool w = a == rank - 1;
        kernel.push_back(uniform(1, w ? 5 : 3));
        strides.push_back(w ? (trial % 7 == 0 ? 3 : uniform(1, 2)) : uniform(1, 3));
        dilations.push_back(uniform(1, 4) == 1 ? 2 : 1);
        const int64_t extent = (kernel[a] - 1) * dilations[a] + 1;
        pads[a] = uniform(0, kernel[a] - 1);
        pads[a + rank] = uniform(0, kernel[a] - 1);
        const int64_t min_in = std::max<int64_t>(1, extent - pads[a] - pads[a + rank]);
        x.push_back(w ? std::max(min_in, uniform(1, 140)) : std::max(min_in, uniform(1, 9)));
      }
      const PoolCase c = P(x, kernel, strides, pads, dilations, uniform(0, 1));
      const float s = RandomScale(&gen);
      const int64_t z = RandomZeroPoint(&gen);
      const TestTensor xq = RandomQWithExtremes(c.x, s, z, &gen);
      const std::vector<int8_t> expected = NaiveMaxPool(c, xq.As<int8_t>());
      std::vector<int8_t> y;
      ASSERT_TRUE(RunInt8("MaxPool", PoolAttrs(c), {xq}, OutShape(c), s, z, &y, 17, 1 + trial % 2).ok())
          << path << " " << ShapeToString(c.x);
      ASSERT_EQ(y, expected) << path << " trial " << trial << " " << ShapeToString(c.x) << " kernel "
                             << ShapeToString(kernel) << " strides " << ShapeToString(strides) << " pads "
                             << ShapeToString(pads) << " dilations " << ShapeToString(dilations);
    }
  });
}

TEST(Int8AveragePoolTest, MatchesNaiveBothPadCounts) {
  std::mt19937 gen(22);
  for (const PoolCase& c : kCases) {
    for (int params = 0; params < 3; ++params) {
      float xs = RandomScale(&gen), ys = RandomScale(&gen);
      int64_t xz = RandomZeroPoint(&gen), yz = RandomZeroPoint(&gen);
      if (params == 0) ys = xs, yz = xz;  // equal parameters
      if (params == 1) ys = xs * 0.25f;   // averages spread over a wider integer range (saturating)
      const TestTensor x = RandomQ(c.x, xs, xz, &gen);
      for (int64_t include : {0, 1}) {
        const std::vector<int8_t> expected = NaiveAveragePool(c, x.As<int8_t>(), xs, static_cast<int32_t>(xz), ys,
                                                              static_cast<int32_t>(yz), include != 0);
        for (int threads : {1, 3}) {
          std::vector<int8_t> y;
          ASSERT_TRUE(RunInt8("AveragePool", PoolAttrs(c, include), {x}, OutShape(c), ys, yz, &y, 19, threads).ok())
              << ShapeToString(c.x);
          EXPECT_EQ(y, expected) << ShapeToString(c.x) << " count_include_pad " << include << " params " << params
                                 << " threads " << threads;
        }
      }
    }
  }
}

TEST(Int8AveragePoolTest, ConstantInputAveragesToItself) {
  // Every window of a constant tensor averages to the constant (equal parameters).
  for (int8_t v : {-128, -3, 0, 77, 127}) {
    const PoolCase c = P({1, 3, 8, 8}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 1);
    const TestTensor x = Q(c.x, std::vector<int8_t>(192, v), 0.1f, 5);
    std::vector<int8_t> y;
    ASSERT_TRUE(RunInt8("AveragePool", PoolAttrs(c, 0), {x}, OutShape(c), 0.1f, 5, &y).ok());
    EXPECT_EQ(y, std::vector<int8_t>(y.size(), v));
  }
}

std::vector<int8_t> NaiveGlobalAverage(const Shape& shape, const std::vector<int8_t>& x, float xs, int32_t xz,
                                       float ys, int32_t yz) {
  const int64_t planes = shape[0] * shape[1], size = NumElements(shape) / planes;
  requant::OutputStage stage;
  EXPECT_TRUE(requant::MakeOutputStage(xs, 1.f / static_cast<float>(size), ys, yz, requant::Range(), &stage).ok());
  std::vector<int8_t> y(static_cast<size_t>(planes));
  for (int64_t p = 0; p < planes; ++p) {
    int32_t sum = 0;
    for (int64_t i = 0; i < size; ++i) sum += x[p * size + i] - xz;
    y[p] = static_cast<int8_t>(requant::Requantize(sum, stage));
  }
  return y;
}

TEST(Int8GlobalAveragePoolTest, MatchesNaive) {
  std::mt19937 gen(23);
  const Shape shapes[] = {{2, 3, 5, 5}, {1, 16, 7, 7}, {2, 4}, {1, 8, 3, 4, 5}, {3, 2, 17}, {1, 64, 56, 56}};
  for (const Shape& shape : shapes) {
    for (int params = 0; params < 3; ++params) {
      float xs = RandomScale(&gen), ys = RandomScale(&gen);
      int64_t xz = RandomZeroPoint(&gen), yz = RandomZeroPoint(&gen);
      if (params == 0) ys = xs, yz = xz;
      const TestTensor x = RandomQ(shape, xs, xz, &gen);
      Shape out = shape;
      for (size_t i = 2; i < out.size(); ++i) out[i] = 1;
      const std::vector<int8_t> expected =
          NaiveGlobalAverage(shape, x.As<int8_t>(), xs, static_cast<int32_t>(xz), ys, static_cast<int32_t>(yz));
      for (int threads : {1, 3}) {
        std::vector<int8_t> y;
        ASSERT_TRUE(RunInt8("GlobalAveragePool", {}, {x}, out, ys, yz, &y, 17, threads).ok());
        EXPECT_EQ(y, expected) << ShapeToString(shape) << " params " << params;
      }
    }
  }
}

TEST(Int8PoolTest, Refusals) {
  const PoolCase c = P({1, 2, 4, 4}, {2, 2}, {2, 2}, {}, {});
  const TestTensor x = Q(c.x, std::vector<int8_t>(32, 1), 0.1f, 0);
  const TestTensor fx = TestTensor::Of<float>(c.x, std::vector<float>(32, 1.f));
  const Shape out = OutShape(c);
  std::vector<int8_t> y;
  for (const char* op : {"MaxPool", "AveragePool"}) {
    std::vector<TestTensor> fouts = {TestTensor::Empty(DType::kFloat32, out)};
    EXPECT_EQ(RunKernel(op, PoolAttrs(c), {fx}, &fouts, Int8Kernel(op)).code(), StatusCode::kUnsupported) << op;
    ASSERT_TRUE(RunKernel(op, PoolAttrs(c), {fx}, &fouts).ok()) << op;  // the float kernel takes it
    EXPECT_EQ(RunInt8(op, PoolAttrs(c), {x.WithQuant({0.1f, 0.2f}, {0, 0}, 1)}, out, 0.1f, 0, &y).code(),
              StatusCode::kUnsupported)
        << op;
  }
  // MaxPool: Indices output, and differing X/Y parameters.
  std::vector<TestTensor> outs = {QOut(out, 0.1f, 0), TestTensor::Empty(DType::kInt64, out)};
  EXPECT_EQ(RunKernel("MaxPool", PoolAttrs(c), {x}, &outs, Int8Kernel("MaxPool")).code(), StatusCode::kUnsupported);
  EXPECT_EQ(RunInt8("MaxPool", PoolAttrs(c), {x}, out, 0.2f, 0, &y).code(), StatusCode::kUnsupported);
  EXPECT_EQ(RunInt8("MaxPool", PoolAttrs(c), {x}, out, 0.1f, 1, &y).code(), StatusCode::kUnsupported);
  // GlobalAveragePool
  std::vector<TestTensor> gouts = {TestTensor::Empty(DType::kFloat32, {1, 2, 1, 1})};
  EXPECT_EQ(RunKernel("GlobalAveragePool", {}, {fx}, &gouts, Int8Kernel("GlobalAveragePool")).code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(RunInt8("GlobalAveragePool", {}, {x.WithQuant({0.1f, 0.2f}, {0, 0}, 1)}, {1, 2, 1, 1}, 0.1f, 0, &y).code(),
            StatusCode::kUnsupported);
}

}  // namespace
}  // namespace int8
}  // namespace loom
