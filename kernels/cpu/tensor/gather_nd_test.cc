#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

// Reference GatherND with batch_dims b, following the spec's index arithmetic.
std::vector<int32_t> RefGatherND(const std::vector<int32_t>& x, const Shape& shape, const std::vector<int64_t>& idx,
                                 const Shape& idx_shape, int64_t b, Shape* out_shape) {
  const int64_t k = idx_shape.back();
  out_shape->assign(idx_shape.begin(), idx_shape.end() - 1);
  out_shape->insert(out_shape->end(), shape.begin() + b + k, shape.end());
  std::vector<int32_t> y;
  for (int64_t flat = 0; flat < NumElements(*out_shape); ++flat) {
    const auto oi = Unravel(flat, *out_shape);
    const size_t q1 = idx_shape.size() - 1;
    // Tuple position: oi[0 .. q1).
    std::vector<int64_t> tuple_pos(oi.begin(), oi.begin() + static_cast<int64_t>(q1));
    tuple_pos.push_back(0);
    std::vector<int64_t> di(oi.begin(), oi.begin() + b);  // batch coordinates
    for (int64_t j = 0; j < k; ++j) {
      tuple_pos.back() = j;
      int64_t v = idx[static_cast<size_t>(Ravel(tuple_pos, idx_shape))];
      if (v < 0) v += shape[static_cast<size_t>(b + j)];
      di.push_back(v);
    }
    di.insert(di.end(), oi.begin() + static_cast<int64_t>(q1), oi.end());
    y.push_back(x[static_cast<size_t>(Ravel(di, shape))]);
  }
  return y;
}

TEST(GatherNDTest, BatchDimsAndTupleLengths) {
  const Shape shape = {2, 3, 4, 5};
  const auto x = Iota<int32_t>(120);
  struct Case {
    int64_t b;
    Shape idx_shape;
  };
  for (const Case& c : {Case{0, {4, 1}}, Case{0, {2, 3, 2}}, Case{0, {3, 4}}, Case{1, {2, 2}}, Case{1, {2, 5, 3}},
                        Case{2, {2, 3, 1}}, Case{2, {2, 3, 6, 2}}}) {
    // Indices in [-dim, dim) of the dims they address.
    const int64_t k = c.idx_shape.back();
    std::vector<int64_t> idx(static_cast<size_t>(NumElements(c.idx_shape)));
    const auto raw = Pseudo<int64_t>(static_cast<int64_t>(idx.size()), 0, 1000, static_cast<uint32_t>(c.b * 10 + k));
    for (size_t i = 0; i < idx.size(); ++i) {
      const int64_t dim = shape[static_cast<size_t>(c.b + static_cast<int64_t>(i) % k)];
      idx[i] = raw[i] % (2 * dim) - dim;
    }
    Shape out_shape;
    const auto want = RefGatherND(x, shape, idx, c.idx_shape, c.b, &out_shape);
    Attributes a;
    a.SetInt("batch_dims", c.b);
    for (int threads : {1, 2}) {
      TestTensor y;
      Status st = Run1("GatherND", a, {TestTensor::Of<int32_t>(shape, x), TestTensor::Of<int64_t>(c.idx_shape, idx)},
                       DType::kInt32, out_shape, &y, Opset(13, threads));
      ASSERT_TRUE(st.ok()) << st.ToString();
      EXPECT_EQ(y.As<int32_t>(), want) << "batch_dims " << c.b << " indices " << ShapeToString(c.idx_shape);
    }
  }
}

TEST(GatherNDTest, ErrorsAndBadSetups) {
  auto x = TestTensor::Of<float>({2, 2}, {1, 2, 3, 4});
  TestTensor y;
  EXPECT_EQ(Run1("GatherND", Attrs(), {x, TestTensor::Of<int64_t>({1, 2}, {0, 2})}, DType::kFloat32, {1}, &y).code(),
            StatusCode::kOutOfRange);
  EXPECT_FALSE(
      Run1("GatherND", Attrs(), {x, TestTensor::Of<int64_t>({1, 3}, {0, 0, 0})}, DType::kFloat32, {1}, &y).ok());
  EXPECT_FALSE(
      Run1("GatherND", Attrs(), {x, TestTensor::Of<int64_t>({1, 2}, {0, 0})}, DType::kFloat32, {1, 1}, &y).ok());
  Attributes a;
  a.SetInt("batch_dims", 2);
  EXPECT_FALSE(Run1("GatherND", a, {x, TestTensor::Of<int64_t>({2, 1}, {0, 0})}, DType::kFloat32, {2}, &y).ok());
  a.SetInt("batch_dims", 1);
  EXPECT_FALSE(Run1("GatherND", a, {x, TestTensor::Of<int64_t>({3, 1}, {0, 0, 0})}, DType::kFloat32, {3}, &y).ok());
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes("GatherND", Attrs(), {x, TestTensor::Of<int64_t>({3, 1}, {0, 1, 0})},
                                   {DType::kFloat32}, &shapes)
                  .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{3, 2}}));
}

}  // namespace
}  // namespace loom
