#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/math/math_test_util.h"

namespace loom {
namespace math {
namespace {

using test::RandomValues;
using test::RunOne;
using testing::RunOptions;
using testing::TestTensor;

const char* const kOps[] = {"ReduceSum", "ReduceMean", "ReduceMax",    "ReduceMin",       "ReduceProd",
                            "ReduceL1",  "ReduceL2",   "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};

double Finish(const std::string& op, const std::vector<double>& v) {
  double sum = 0, abs_sum = 0, squares = 0, exps = 0, prod = 1, max = -INFINITY, min = INFINITY;
  for (double x : v) {
    sum += x;
    abs_sum += std::fabs(x);
    squares += x * x;
    exps += std::exp(x);
    prod *= x;
    max = std::max(max, x);
    min = std::min(min, x);
  }
  if (op == "ReduceSum") return sum;
  if (op == "ReduceMean") return sum / static_cast<double>(v.size());
  if (op == "ReduceMax") return max;
  if (op == "ReduceMin") return min;
  if (op == "ReduceProd") return prod;
  if (op == "ReduceL1") return abs_sum;
  if (op == "ReduceL2") return std::sqrt(squares);
  if (op == "ReduceLogSum") return std::log(sum);
  if (op == "ReduceLogSumExp") return std::log(exps);
  return squares;  // ReduceSumSquare
}

// Naive reduction: groups input elements by output position.
std::vector<double> NaiveReduce(const std::string& op, const std::vector<double>& x, const Shape& shape,
                                const std::vector<bool>& mask) {
  Shape out_shape;
  for (size_t d = 0; d < shape.size(); ++d) out_shape.push_back(mask[d] ? 1 : shape[d]);
  std::vector<std::vector<double>> groups(static_cast<size_t>(NumElements(out_shape)));
  for (int64_t i = 0; i < NumElements(shape); ++i) {
    int64_t rest = i, o = 0, stride = 1;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      const int64_t c = rest % shape[d];
      rest /= shape[d];
      if (!mask[d]) o += c * stride;
      stride *= out_shape[d];
    }
    groups[o].push_back(x[i]);
  }
  std::vector<double> out;
  for (const auto& g : groups) out.push_back(Finish(op, g));
  return out;
}

Shape OutShape(const Shape& shape, const std::vector<bool>& mask, bool keepdims) {
  Shape out;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!mask[d])
      out.push_back(shape[d]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

std::vector<bool> Mask(const Shape& shape, const std::vector<int64_t>& axes) {
  std::vector<bool> mask(shape.size(), axes.empty());
  for (int64_t a : axes) mask[a < 0 ? a + shape.size() : a] = true;
  return mask;
}

template <typename T>
void CheckReduce(const std::string& op, const Shape& shape, const std::vector<int64_t>& axes, bool keepdims,
                 int opset = 17, int threads = 1, bool const_axes = true) {
  SCOPED_TRACE(op + " " + DTypeName(DTypeOf<T>::value) + " " + ShapeToString(shape) + " axes=" + ShapeToString(axes) +
               " keepdims=" + std::to_string(keepdims) + " opset=" + std::to_string(opset));
  const bool positive = op == "ReduceLogSum" || op == "ReduceProd";
  std::vector<T> x = RandomValues<T>(NumElements(shape), positive ? 0.5 : -3, positive ? 1.5 : 3, 17);
  if (std::is_integral_v<T>) {
    const double lo = op == "ReduceProd" ? 1 : std::is_signed_v<T> ? -4 : 0;
    x = RandomValues<T>(NumElements(shape), lo, op == "ReduceProd" ? 3 : 4, 17);
  }
  std::vector<double> xd(x.begin(), x.end());
  const std::vector<bool> mask = Mask(shape, axes);
  const Shape out_shape = OutShape(shape, mask, keepdims);
  std::vector<double> expected = NaiveReduce(op, xd, shape, mask);

  Attributes attrs;
  attrs.SetInt("keepdims", keepdims ? 1 : 0);
  std::vector<TestTensor> inputs = {TestTensor::Of<T>(shape, x)};
  const bool input_form = op == "ReduceSum" ? opset >= 13 : opset >= 18;
  if (input_form) {
    if (!axes.empty()) inputs.push_back(TestTensor::Of<int64_t>({static_cast<int64_t>(axes.size())}, axes, const_axes));
  } else if (!axes.empty()) {
    attrs.SetInts("axes", axes);
  }
  RunOptions opt;
  opt.opset = opset;
  opt.threads = threads;
  TestTensor out;
  const Status s = RunOne(op, attrs, inputs, DTypeOf<T>::value, out_shape, &out, opt);
  ASSERT_TRUE(s.ok()) << s.message();
  const std::vector<T> y = out.As<T>();
  ASSERT_EQ(y.size(), expected.size());
  const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-11;
  for (size_t i = 0; i < y.size(); ++i) {
    double want = expected[i];
    if constexpr (std::is_integral_v<T>) want = std::trunc(want);
    ASSERT_TRUE(test::Near<double>(static_cast<double>(y[i]), want, tol)) << i << ": " << y[i] << " vs " << want;
  }
}

const std::vector<std::vector<int64_t>>& AxisSets() {
  static const std::vector<std::vector<int64_t>> sets = {{}, {0}, {1}, {2}, {-1}, {0, 2}, {1, 2}, {0, 1, 2}, {2, 0}};
  return sets;
}

TEST(ReduceTest, AllOpsAllAxesFloat) {
  for (const char* op : kOps) {
    for (const auto& axes : AxisSets()) {
      for (bool keepdims : {true, false}) {
        CheckReduce<float>(op, {2, 3, 4}, axes, keepdims);
        CheckReduce<double>(op, {3, 1, 5}, axes, keepdims);
      }
    }
    CheckReduce<float>(op, {2, 3, 4, 5}, {1, 3}, true);
    CheckReduce<float>(op, {2, 3, 4, 5}, {0, 2}, false);
    CheckReduce<double>(op, {7}, {0}, false);
    CheckReduce<float>(op, {3, 37}, {1}, true);  // runs longer than the 8 partial sums
    CheckReduce<float>(op, {300, 2}, {0}, true);
    CheckReduce<float>(op, {2, 3, 5, 7, 8}, {2, 3}, true);  // rows of 8: a channel-blocked global pool
    CheckReduce<float>(op, {1, 2, 1, 3, 8}, {2, 3}, true);  // fewer rows than the 4 partial sums
    CheckReduce<float>(op, {2, 3, 5, 7, 8}, {1, 3}, true);  // rows of 8 that are not one run
    CheckReduce<double>(op, {3, 6, 8}, {1}, false);
  }
}

TEST(ReduceTest, IntegerOps) {
  for (const char* op :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceSumSquare", "ReduceL2"}) {
    CheckReduce<int32_t>(op, {2, 3, 4}, {1}, true);
    CheckReduce<int64_t>(op, {2, 3, 4}, {0, 2}, false);
    CheckReduce<uint32_t>(op, {4, 3}, {}, true);
    CheckReduce<int8_t>(op, {2, 3}, {1}, false);
  }
}

TEST(ReduceTest, AxesInputFormsByOpset) {
  CheckReduce<float>("ReduceSum", {2, 3, 4}, {1}, true, 13);
  CheckReduce<float>("ReduceSum", {2, 3, 4}, {0, -1}, false, 13, 1, /*const_axes=*/false);
  CheckReduce<float>("ReduceSum", {2, 3, 4}, {}, true, 13);   // no axes input: reduce all
  CheckReduce<float>("ReduceSum", {2, 3, 4}, {1}, true, 11);  // attribute form
  CheckReduce<float>("ReduceMean", {2, 3, 4}, {2}, true, 18);
  CheckReduce<float>("ReduceMax", {2, 3, 4}, {0, 1}, false, 18, 1, false);
  CheckReduce<double>("ReduceLogSumExp", {2, 3, 4}, {1}, true, 18);
}

TEST(ReduceTest, TwoThreads) {
  for (const char* op : {"ReduceSum", "ReduceMax", "ReduceLogSumExp", "ReduceMean"}) {
    CheckReduce<float>(op, {64, 300}, {0}, true, 17, 2);
    CheckReduce<float>(op, {300, 64}, {1}, false, 17, 2);
    CheckReduce<float>(op, {4, 100, 50}, {0, 2}, true, 17, 2);
  }
}

TEST(ReduceTest, NoopWithEmptyAxes) {
  Attributes attrs;
  attrs.SetInt("noop_with_empty_axes", 1);
  RunOptions opset13;
  opset13.opset = 13;
  const std::vector<float> x = {1, -2, 3, -4};
  TestTensor out;
  ASSERT_TRUE(
      RunOne("ReduceSum", attrs, {TestTensor::Of<float>({2, 2}, x)}, DType::kFloat32, {2, 2}, &out, opset13).ok());
  EXPECT_EQ(out.As<float>(), x);
  ASSERT_TRUE(RunOne("ReduceSum", attrs, {TestTensor::Of<float>({2, 2}, x), TestTensor::Const<int64_t>({0}, {})},
                     DType::kFloat32, {2, 2}, &out, opset13)
                  .ok());
  EXPECT_EQ(out.As<float>(), x);
  RunOptions opset18;
  opset18.opset = 18;
  ASSERT_TRUE(
      RunOne("ReduceSumSquare", attrs, {TestTensor::Of<float>({2, 2}, x)}, DType::kFloat32, {2, 2}, &out, opset18)
          .ok());
  EXPECT_EQ(out.As<float>(), (std::vector<float>{1, 4, 9, 16}));
}

TEST(ReduceTest, EmptyReductionGivesIdentity) {
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    const char* op;
    float value;
  };
  for (const Case& c : {Case{"ReduceSum", 0.f}, Case{"ReduceProd", 1.f}, Case{"ReduceMax", -inf},
                        Case{"ReduceMin", inf}, Case{"ReduceL2", 0.f}, Case{"ReduceLogSumExp", -inf},
                        Case{"ReduceLogSum", -inf}, Case{"ReduceSumSquare", 0.f}}) {
    RunOptions opset11;
    opset11.opset = 11;
    Attributes attrs;
    attrs.SetInts("axes", {1});
    TestTensor out;
    ASSERT_TRUE(
        RunOne(c.op, attrs, {TestTensor::Of<float>({2, 0, 3}, {})}, DType::kFloat32, {2, 1, 3}, &out, opset11).ok())
        << c.op;
    EXPECT_EQ(out.As<float>(), std::vector<float>(6, c.value)) << c.op;
  }
  Attributes attrs;
  attrs.SetInts("axes", {0});
  TestTensor out;
  ASSERT_TRUE(RunOne("ReduceMean", attrs, {TestTensor::Of<float>({0, 2}, {})}, DType::kFloat32, {1, 2}, &out).ok());
  EXPECT_TRUE(std::isnan(out.As<float>()[0]));
  ASSERT_TRUE(RunOne("ReduceMax", attrs, {TestTensor::Of<int32_t>({0, 2}, {})}, DType::kInt32, {1, 2}, &out).ok());
  EXPECT_EQ(out.As<int32_t>()[0], std::numeric_limits<int32_t>::min());
  ASSERT_TRUE(RunOne("ReduceMean", attrs, {TestTensor::Of<int32_t>({0, 2}, {})}, DType::kInt32, {1, 2}, &out).ok());
  EXPECT_EQ(out.As<int32_t>()[0], 0);
  // Kept dim of size 0: empty output.
  ASSERT_TRUE(RunOne("ReduceProd", attrs, {TestTensor::Of<float>({3, 0}, {})}, DType::kFloat32, {1, 0}, &out).ok());
}

TEST(ReduceTest, LogSumExpIsStableAndHandlesInfinities) {
  const float inf = std::numeric_limits<float>::infinity();
  Attributes attrs;
  attrs.SetInts("axes", {1});
  attrs.SetInt("keepdims", 0);
  TestTensor out;
  ASSERT_TRUE(RunOne("ReduceLogSumExp", attrs, {TestTensor::Of<float>({3, 2}, {1000.f, 1000.f, -inf, -inf, inf, 1.f})},
                     DType::kFloat32, {3}, &out)
                  .ok());
  const std::vector<float> y = out.As<float>();
  EXPECT_FLOAT_EQ(y[0], 1000.f + std::log(2.f));
  EXPECT_EQ(y[1], -inf);
  EXPECT_EQ(y[2], inf);
  attrs.SetInts("axes", {0});
  ASSERT_TRUE(RunOne("ReduceLogSumExp", attrs, {TestTensor::Of<float>({2, 2}, {1000.f, -inf, 1000.f, -inf})},
                     DType::kFloat32, {2}, &out)
                  .ok());
  EXPECT_FLOAT_EQ(out.As<float>()[0], 1000.f + std::log(2.f));
  EXPECT_EQ(out.As<float>()[1], -inf);
}

TEST(ReduceTest, ReduceMaxPropagatesNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Attributes attrs;
  attrs.SetInt("keepdims", 0);
  TestTensor out;
  std::vector<float> x(20, 1.f);
  x[13] = nan;
  ASSERT_TRUE(RunOne("ReduceMax", attrs, {TestTensor::Of<float>({20}, x)}, DType::kFloat32, {}, &out).ok());
  EXPECT_TRUE(std::isnan(out.As<float>()[0]));
}

TEST(ReduceTest, RejectsBadSetups) {
  TestTensor out;
  const TestTensor x = TestTensor::Of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Attributes axes3;
  axes3.SetInts("axes", {2});
  EXPECT_EQ(RunOne("ReduceMean", axes3, {x}, DType::kFloat32, {2, 1}, &out).code(), StatusCode::kInvalidArgument);
  Attributes dup;
  dup.SetInts("axes", {1, -1});
  EXPECT_EQ(RunOne("ReduceMean", dup, {x}, DType::kFloat32, {2, 1}, &out).code(), StatusCode::kInvalidArgument);
  Attributes ok_axes;
  ok_axes.SetInts("axes", {1});
  EXPECT_EQ(RunOne("ReduceMean", ok_axes, {x}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("ReduceMean", ok_axes, {x}, DType::kFloat64, {2, 1}, &out).code(), StatusCode::kInvalidArgument);
  Attributes wrong_kind;
  wrong_kind.SetInt("axes", 1);
  EXPECT_EQ(RunOne("ReduceMean", wrong_kind, {x}, DType::kFloat32, {2, 1}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("ReduceMean", {}, {TestTensor::Empty(DType::kFloat16, {2})}, DType::kFloat16, {1}, &out).code(),
            StatusCode::kUnsupported);
  RunOptions opset13;
  opset13.opset = 13;
  // Attribute axes where the input form is expected, and vice versa.
  EXPECT_EQ(RunOne("ReduceSum", ok_axes, {x}, DType::kFloat32, {2, 1}, &out, opset13).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("ReduceMean", {}, {x, TestTensor::Const<int64_t>({1}, {1})}, DType::kFloat32, {2, 1}, &out, opset13)
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(
      RunOne("ReduceSum", {}, {x, TestTensor::Const<float>({1}, {1})}, DType::kFloat32, {2, 1}, &out, opset13).code(),
      StatusCode::kInvalidArgument);
  // Run-time axes that contradict the static output shape, or are out of range.
  EXPECT_EQ(
      RunOne("ReduceSum", {}, {x, TestTensor::Of<int64_t>({1}, {0})}, DType::kFloat32, {2, 1}, &out, opset13).code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(
      RunOne("ReduceSum", {}, {x, TestTensor::Of<int64_t>({1}, {5})}, DType::kFloat32, {2, 1}, &out, opset13).code(),
      StatusCode::kInvalidArgument);
}

TEST(ReduceTest, InferOutputShapes) {
  std::vector<Shape> shapes;
  Attributes attrs;
  attrs.SetInt("keepdims", 0);
  RunOptions opset13;
  opset13.opset = 13;
  ASSERT_TRUE(
      testing::InferShapes("ReduceSum", attrs,
                           {TestTensor::Empty(DType::kFloat32, {2, 3, 4}), TestTensor::Const<int64_t>({2}, {0, -1})},
                           {DType::kFloat32}, &shapes, opset13)
          .ok());
  EXPECT_EQ(shapes, (std::vector<Shape>{{3}}));
  EXPECT_EQ(testing::InferShapes("ReduceSum", attrs,
                                 {TestTensor::Empty(DType::kFloat32, {2, 3, 4}), TestTensor::Of<int64_t>({1}, {0})},
                                 {DType::kFloat32}, &shapes, opset13)
                .code(),
            StatusCode::kUnsupported);
  Attributes axes;
  axes.SetInts("axes", {1});
  ASSERT_TRUE(testing::InferShapes("ReduceL2", axes, {TestTensor::Empty(DType::kFloat32, {2, 3, 4})}, {DType::kFloat32},
                                   &shapes)
                  .ok());
  EXPECT_EQ(shapes, (std::vector<Shape>{{2, 1, 4}}));
}

}  // namespace
}  // namespace math
}  // namespace loom
