#include "kernels/cpu/tensor/strided_copy.h"

#include <gtest/gtest.h>

#include "kernels/common/thread_pool.h"
#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using tensor::StridedCopy;
using namespace tensor_test;  // NOLINT

// Naive reference: visits every index of dims.
template <typename T>
std::vector<T> Reference(const std::vector<T>& src, int64_t src_base, const Shape& dims, const Shape& ss,
                         const Shape& ds, size_t dst_size) {
  std::vector<T> dst(dst_size, T(0));
  const int64_t n = NumElements(dims);
  for (int64_t flat = 0; flat < n; ++flat) {
    const std::vector<int64_t> idx = Unravel(flat, dims);
    int64_t s = src_base, d = 0;
    for (size_t k = 0; k < dims.size(); ++k) {
      s += idx[k] * ss[k];
      d += idx[k] * ds[k];
    }
    dst[static_cast<size_t>(d)] = src[static_cast<size_t>(s)];
  }
  return dst;
}

template <typename T>
void CheckPermutations(ThreadPool* pool) {
  // Every permutation of a 4-D tensor with awkward sizes, dense destination.
  const Shape shape = {3, 5, 7, 17};
  const std::vector<T> src = Iota<T>(NumElements(shape));
  std::vector<int64_t> perm = {0, 1, 2, 3};
  const Shape strides = tensor::StridesOf(shape);
  do {
    Shape dims(4), ss(4);
    for (int d = 0; d < 4; ++d) {
      dims[d] = shape[static_cast<size_t>(perm[d])];
      ss[d] = strides[static_cast<size_t>(perm[d])];
    }
    const Shape ds = tensor::StridesOf(dims);
    StridedCopy plan;
    ASSERT_TRUE(plan.Build(4, dims.data(), ss.data(), ds.data(), sizeof(T)));
    std::vector<T> dst(src.size());
    plan.Run(pool, src.data(), dst.data());
    EXPECT_EQ(dst, Reference(src, 0, dims, ss, ds, src.size())) << ShapeToString(perm);
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(StridedCopyTest, AllPermutationsEachElementSize) {
  CheckPermutations<uint8_t>(nullptr);
  CheckPermutations<uint16_t>(nullptr);
  CheckPermutations<float>(nullptr);
  CheckPermutations<double>(nullptr);
  StaticThreadPool pool(2);
  CheckPermutations<int32_t>(&pool);
}

TEST(StridedCopyTest, NegativeAndZeroStrides) {
  const std::vector<int32_t> src = Iota<int32_t>(60);  // viewed as 3x4x5
  // Reverse dims 0 and 2, broadcast a new middle dim of 2, keep dim 1.
  const Shape dims = {3, 2, 4, 5};
  const Shape ss = {-20, 0, 5, -1};
  const Shape ds = tensor::StridesOf(dims);
  const int64_t base = 2 * 20 + 4;
  StridedCopy plan;
  ASSERT_TRUE(plan.Build(4, dims.data(), ss.data(), ds.data(), 4));
  std::vector<int32_t> dst(120);
  plan.Run(nullptr, src.data() + base, dst.data());
  EXPECT_EQ(dst, Reference(src, base, dims, ss, ds, 120));
}

TEST(StridedCopyTest, KindsAfterSimplification) {
  StridedCopy plan;
  const Shape dims = {4, 1, 8};
  const Shape dense = {8, 8, 1};
  ASSERT_TRUE(plan.Build(3, dims.data(), dense.data(), dense.data(), 4));
  EXPECT_EQ(plan.kind(), StridedCopy::Kind::kRows);
  EXPECT_EQ(plan.rank(), 1);  // all merged
  const Shape bcast = {1, 0, 0};
  ASSERT_TRUE(plan.Build(3, dims.data(), bcast.data(), dense.data(), 4));
  EXPECT_EQ(plan.kind(), StridedCopy::Kind::kBroadcast);
  const Shape tdims = {64, 32};
  const Shape tsrc = {1, 64};
  const Shape tdst = {32, 1};
  ASSERT_TRUE(plan.Build(2, tdims.data(), tsrc.data(), tdst.data(), 2));
  EXPECT_EQ(plan.kind(), StridedCopy::Kind::kTile2D);
  const Shape zero = {0, 8};
  ASSERT_TRUE(plan.Build(2, zero.data(), tsrc.data(), tdst.data(), 2));
  EXPECT_EQ(plan.kind(), StridedCopy::Kind::kEmpty);
  EXPECT_FALSE(plan.Build(2, tdims.data(), tsrc.data(), tdst.data(), 3));
}

TEST(StridedCopyTest, LargeTransposeWithThreads) {
  const int64_t rows = 300, cols = 517;
  const std::vector<float> src = Iota<float>(rows * cols);
  const Shape dims = {cols, rows};
  const Shape ss = {1, cols};
  const Shape ds = {rows, 1};
  StridedCopy plan;
  ASSERT_TRUE(plan.Build(2, dims.data(), ss.data(), ds.data(), 4));
  std::vector<float> dst(src.size());
  StaticThreadPool pool(2);
  plan.Run(&pool, src.data(), dst.data());
  EXPECT_EQ(dst, Reference(src, 0, dims, ss, ds, src.size()));
}

}  // namespace
}  // namespace loom
