// loom.ToNchwc and loom.FromNchwc: against the index formula of the blocked
// layout, round trips, 1 and 2 threads, and bad nodes.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace layout {
namespace {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

RunOptions Loom(int threads = 1) {
  RunOptions o;
  o.domain = "loom";
  o.threads = threads;
  return o;
}

TEST(NchwcReorderTest, MatchesTheLayoutAndRoundTrips) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (const Shape& s : {Shape{1, 8, 1, 1}, Shape{2, 16, 3, 5}, Shape{1, 24, 7, 8}, Shape{1, 8, 5, 19},
                         Shape{2, 32, 9, 17}, Shape{1, 64, 56, 56}}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(ShapeToString(s) + " threads " + std::to_string(threads));
      const int64_t n = s[0], c = s[1], hw = s[2] * s[3];
      std::vector<float> x(static_cast<size_t>(NumElements(s)));
      for (float& v : x) v = dist(rng);
      const Shape blocked_shape = {n, c / 8, s[2], s[3], 8};
      std::vector<TestTensor> blocked = {TestTensor::Empty(DType::kFloat32, blocked_shape)};
      ASSERT_TRUE(RunKernel("ToNchwc", {}, {TestTensor::Of<float>(s, x)}, &blocked, Loom(threads)).ok());
      const std::vector<float> b = blocked[0].As<float>();
      for (int64_t i = 0; i < n; ++i)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t p = 0; p < hw; ++p)
            ASSERT_EQ(b[((i * (c / 8) + ch / 8) * hw + p) * 8 + ch % 8], x[(i * c + ch) * hw + p])
                << "n " << i << " c " << ch << " pixel " << p;
      std::vector<TestTensor> back = {TestTensor::Empty(DType::kFloat32, s)};
      ASSERT_TRUE(RunKernel("FromNchwc", {}, blocked, &back, Loom(threads)).ok());
      EXPECT_EQ(back[0].As<float>(), x);
    }
  }
}

TEST(NchwcReorderTest, RejectsBadNodes) {
  auto run = [](const char* op, const Shape& in, const Shape& out, DType dtype = DType::kFloat32) {
    std::vector<TestTensor> outs = {TestTensor::Empty(DType::kFloat32, out)};
    TestTensor x = TestTensor::Empty(dtype, in);
    return RunKernel(op, {}, {x}, &outs, Loom());
  };
  EXPECT_TRUE(run("ToNchwc", {1, 16, 2, 3}, {1, 2, 2, 3, 8}).ok());
  EXPECT_TRUE(run("FromNchwc", {1, 2, 2, 3, 8}, {1, 16, 2, 3}).ok());
  EXPECT_EQ(run("ToNchwc", {1, 12, 2, 3}, {1, 2, 2, 3, 8}).code(), StatusCode::kInvalidArgument);  // C % 8
  EXPECT_EQ(run("ToNchwc", {16, 2, 3}, {2, 2, 3, 8}).code(), StatusCode::kInvalidArgument);        // rank 3
  EXPECT_EQ(run("ToNchwc", {1, 16, 2, 3}, {1, 2, 3, 2, 8}).code(), StatusCode::kInvalidArgument);  // output
  EXPECT_EQ(run("ToNchwc", {1, 16, 2, 3}, {1, 2, 2, 3, 8}, DType::kFloat64).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run("FromNchwc", {1, 2, 2, 3, 4}, {1, 8, 2, 3}).code(), StatusCode::kInvalidArgument);  // block 4
  EXPECT_EQ(run("FromNchwc", {1, 16, 2, 3}, {1, 16, 2, 3}).code(), StatusCode::kInvalidArgument);   // rank 4
  EXPECT_EQ(run("FromNchwc", {1, 2, 2, 3, 8}, {1, 8, 2, 3}).code(), StatusCode::kInvalidArgument);  // output
}

}  // namespace
}  // namespace layout
}  // namespace loom
