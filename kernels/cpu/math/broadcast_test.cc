#include "kernels/cpu/math/broadcast.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu/math/math_test_util.h"

namespace loom {
namespace math {
namespace {

TEST(BroadcastShapesTest, NumpyRules) {
  Shape out;
  ASSERT_TRUE(BroadcastPlan::BroadcastShapes({{2, 3, 4}, {4}}, &out));
  EXPECT_EQ(out, (Shape{2, 3, 4}));
  ASSERT_TRUE(BroadcastPlan::BroadcastShapes({{2, 1, 4}, {3, 1}}, &out));
  EXPECT_EQ(out, (Shape{2, 3, 4}));
  ASSERT_TRUE(BroadcastPlan::BroadcastShapes({{}, {5}}, &out));
  EXPECT_EQ(out, (Shape{5}));
  ASSERT_TRUE(BroadcastPlan::BroadcastShapes({{}, {}}, &out));
  EXPECT_EQ(out, Shape{});
  ASSERT_TRUE(BroadcastPlan::BroadcastShapes({{0, 3}, {1, 3}}, &out));
  EXPECT_EQ(out, (Shape{0, 3}));
  ASSERT_TRUE(BroadcastPlan::BroadcastShapes({{2, 1}, {1, 3}, {4, 1, 1}}, &out));
  EXPECT_EQ(out, (Shape{4, 2, 3}));
  EXPECT_FALSE(BroadcastPlan::BroadcastShapes({{2, 3}, {3, 2}}, &out));
  EXPECT_FALSE(BroadcastPlan::BroadcastShapes({{0}, {2}}, &out));
}

TEST(BroadcastPlanTest, RejectsIncompatibleInput) {
  BroadcastPlan plan;
  std::string error;
  EXPECT_FALSE(plan.Init({{3}, {2, 4}}, {2, 4}, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(plan.Init({{1, 2, 4}, {4}}, {2, 4}, &error));  // input rank above output rank
  EXPECT_FALSE(plan.Init({{2, 3}, {2, 3}}, {4, 3}, &error));
}

// Walks every output element through ForRange (from several start points)
// and checks the offsets against naive index arithmetic.
void CheckPlan(const std::vector<Shape>& ins, const Shape& out) {
  SCOPED_TRACE(ShapeToString(out));
  BroadcastPlan plan;
  std::string error;
  ASSERT_TRUE(plan.Init(ins, out, &error)) << error;
  const int64_t size = NumElements(out);
  ASSERT_EQ(plan.size(), size);
  for (int64_t start : {int64_t{0}, size / 3, size - 1}) {
    if (start < 0 || (size > 0 && start >= size)) continue;
    int64_t expected_next = start;
    plan.ForRange(start, size, [&](int64_t o, const int64_t* off, int64_t n) {
      ASSERT_EQ(o, expected_next);
      ASSERT_GT(n, 0);
      for (int64_t k = 0; k < n; ++k) {
        for (size_t i = 0; i < ins.size(); ++i) {
          const int64_t got = off[i] + k * plan.step(static_cast<int>(i));
          ASSERT_EQ(got, test::BroadcastIndex(ins[i], out, o + k)) << "input " << i << " element " << o + k;
        }
      }
      expected_next = o + n;
    });
    EXPECT_EQ(expected_next, std::max<int64_t>(size, start));
  }
}

TEST(BroadcastPlanTest, OffsetsMatchNaiveIndexing) {
  CheckPlan({{2, 3, 4}, {2, 3, 4}}, {2, 3, 4});
  CheckPlan({{2, 3, 4}, {4}}, {2, 3, 4});
  CheckPlan({{2, 3, 4}, {3, 1}}, {2, 3, 4});
  CheckPlan({{2, 1, 4}, {1, 3, 1}}, {2, 3, 4});
  CheckPlan({{5, 1}, {1, 7}}, {5, 7});
  CheckPlan({{}, {6}}, {6});
  CheckPlan({{}, {}}, {});
  CheckPlan({{1, 1}, {1}}, {1, 1});
  CheckPlan({{2, 3, 1, 5}, {1, 3, 4, 1}, {5}}, {2, 3, 4, 5});
  CheckPlan({{1, 3, 1, 1}, {2, 3, 4, 5}}, {2, 3, 4, 5});
  CheckPlan({{0, 3}, {1, 3}}, {0, 3});
}

TEST(BroadcastPlanTest, CollapsesContiguousDims) {
  BroadcastPlan plan;
  std::string error;
  ASSERT_TRUE(plan.Init({{2, 3, 4}, {2, 3, 4}}, {2, 3, 4}, &error));
  EXPECT_EQ(plan.inner(), 24);  // one contiguous run
  EXPECT_EQ(plan.step(0), 1);
  EXPECT_EQ(plan.step(1), 1);
  ASSERT_TRUE(plan.Init({{2, 3, 4, 5}, {1, 3, 1, 1}}, {2, 3, 4, 5}, &error));
  EXPECT_EQ(plan.inner(), 20);  // bias per channel: scalar over H*W
  EXPECT_EQ(plan.step(0), 1);
  EXPECT_EQ(plan.step(1), 0);
  ASSERT_TRUE(plan.Init({{}, {7, 8}}, {7, 8}, &error));
  EXPECT_EQ(plan.inner(), 56);
  EXPECT_EQ(plan.step(0), 0);
}

}  // namespace
}  // namespace math
}  // namespace loom
