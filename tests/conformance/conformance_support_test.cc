// Tests of the conformance runner's own machinery: the tolerance rule, the
// tensor comparison messages, the unsupported list format and the forked
// pool's handling of crashes and hangs.
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "tests/conformance/forked_pool.h"
#include "tests/conformance/unsupported_list.h"
#include "tools/tensor_io/tensor_compare.h"

namespace loom {
namespace conformance {
namespace {

template <typename T>
HostTensor MakeTensor(Shape shape, const std::vector<T>& values) {
  HostTensor t;
  t.dtype = DTypeOf<T>::value;
  t.shape = std::move(shape);
  t.data.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

TensorRef Ref(const HostTensor& t) {
  return {t.dtype, t.shape, t.data.data()};
}

TEST(FloatsCloseTest, FollowsOnnxTolerance) {
  Tolerance tol;
  EXPECT_TRUE(FloatsClose(1.0, 1.0, tol));
  EXPECT_TRUE(FloatsClose(1000.9, 1000.0, tol));   // 0.9 <= 1e-7 + 1.0
  EXPECT_FALSE(FloatsClose(1001.1, 1000.0, tol));  // 1.1 > 1.0000001
  EXPECT_TRUE(FloatsClose(5e-8, 0.0, tol));
  EXPECT_FALSE(FloatsClose(2e-7, 0.0, tol));
}

TEST(FloatsCloseTest, NanAndInfinity) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Tolerance tol;
  EXPECT_TRUE(FloatsClose(nan, nan, tol));
  EXPECT_FALSE(FloatsClose(nan, 1.0, tol));
  EXPECT_FALSE(FloatsClose(1.0, nan, tol));
  EXPECT_TRUE(FloatsClose(inf, inf, tol));
  EXPECT_TRUE(FloatsClose(-inf, -inf, tol));
  EXPECT_FALSE(FloatsClose(-inf, inf, tol));
  EXPECT_FALSE(FloatsClose(1e300, inf, tol));
}

TEST(CompareTensorsTest, AcceptsCloseFloats) {
  HostTensor expected = MakeTensor<float>({2, 2}, {1.0f, -2.0f, 0.0f, 100.0f});
  HostTensor actual = MakeTensor<float>({2, 2}, {1.0005f, -2.001f, 0.0f, 100.09f});
  EXPECT_TRUE(CompareTensors(expected, Ref(actual)).ok());
}

TEST(CompareTensorsTest, BFloat16AllowsOneUlp) {
  // 0.478515625 is bfloat16 0x3EF5; one ulp up is 0x3EF6, two ulps 0x3EF7.
  HostTensor expected = MakeTensor<uint16_t>({1}, {0x3EF5});
  expected.dtype = DType::kBFloat16;
  HostTensor one_ulp = MakeTensor<uint16_t>({1}, {0x3EF6});
  one_ulp.dtype = DType::kBFloat16;
  HostTensor two_ulps = MakeTensor<uint16_t>({1}, {0x3EF7});
  two_ulps.dtype = DType::kBFloat16;
  EXPECT_TRUE(CompareTensors(expected, Ref(one_ulp)).ok());
  EXPECT_FALSE(CompareTensors(expected, Ref(two_ulps)).ok());
}

TEST(CompareTensorsTest, ReportsFirstMismatchAndCount) {
  HostTensor expected = MakeTensor<float>({4}, {1, 2, 3, 4});
  HostTensor actual = MakeTensor<float>({4}, {1, 2.5f, 3, 5});
  Status s = CompareTensors(expected, Ref(actual));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("2 of 4 elements differ"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("index 1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("got 2.5"), std::string::npos) << s.message();
}

TEST(CompareTensorsTest, IntegersMustBeExact) {
  HostTensor expected = MakeTensor<int64_t>({3}, {1, -5, 1000000000000});
  HostTensor same = MakeTensor<int64_t>({3}, {1, -5, 1000000000000});
  HostTensor off = MakeTensor<int64_t>({3}, {1, -5, 1000000000001});
  EXPECT_TRUE(CompareTensors(expected, Ref(same)).ok());
  Status s = CompareTensors(expected, Ref(off));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("expected 1000000000000"), std::string::npos) << s.message();
}

TEST(CompareTensorsTest, SignedValuesInMessages) {
  HostTensor expected = MakeTensor<int8_t>({1}, {-3});
  HostTensor actual = MakeTensor<int8_t>({1}, {-4});
  Status s = CompareTensors(expected, Ref(actual));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("got -4, expected -3"), std::string::npos) << s.message();
}

TEST(CompareTensorsTest, DtypeAndShapeMustMatch) {
  HostTensor expected = MakeTensor<float>({2, 3}, std::vector<float>(6, 1.0f));
  HostTensor transposed = MakeTensor<float>({3, 2}, std::vector<float>(6, 1.0f));
  HostTensor doubles = MakeTensor<double>({2, 3}, std::vector<double>(6, 1.0));
  Status shape = CompareTensors(expected, Ref(transposed));
  ASSERT_FALSE(shape.ok());
  EXPECT_NE(shape.message().find("shape 3x2, expected 2x3"), std::string::npos) << shape.message();
  Status dtype = CompareTensors(expected, Ref(doubles));
  ASSERT_FALSE(dtype.ok());
  EXPECT_NE(dtype.message().find("float64"), std::string::npos) << dtype.message();
}

TEST(CompareTensorsTest, EmptyTensorsMatch) {
  HostTensor expected = MakeTensor<float>({0, 3}, {});
  EXPECT_TRUE(CompareTensors(expected, TensorRef{DType::kFloat32, {0, 3}, nullptr}).ok());
}

TEST(UnsupportedListTest, ParsesCasesReasonsAndComments) {
  UnsupportedList list;
  ASSERT_TRUE(ParseUnsupportedList("# header\n\nnode/test_b  # unsupported: op 'B'\nsimple/test_a\n", &list).ok());
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list["node/test_b"], "unsupported: op 'B'");
  EXPECT_EQ(list["simple/test_a"], "");
}

TEST(UnsupportedListTest, RejectsMalformedAndDuplicateLines) {
  UnsupportedList list;
  EXPECT_FALSE(ParseUnsupportedList("test_without_suite\n", &list).ok());
  EXPECT_FALSE(ParseUnsupportedList("node/a b\n", &list).ok());
  EXPECT_FALSE(ParseUnsupportedList("node/a\nnode/a # again\n", &list).ok());
}

TEST(UnsupportedListTest, FormatRoundTripsSortedWithFirstLineOfReason) {
  UnsupportedList list = {{"simple/z", "why\nmore detail"}, {"node/a", "unsupported: x"}};
  std::string text = FormatUnsupportedList(list);
  EXPECT_LT(text.find("node/a  # unsupported: x"), text.find("simple/z  # why"));
  EXPECT_EQ(text.find("more detail"), std::string::npos);
  UnsupportedList parsed;
  ASSERT_TRUE(ParseUnsupportedList(text, &parsed).ok());
  EXPECT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed["simple/z"], "why");
}

TEST(ForkedPoolTest, ReportsResultsCrashesAndHangs) {
  PoolOptions options;
  options.jobs = 2;
  options.timeout_seconds = 1;
  std::map<size_t, CaseResult> results;
  RunForked(
      5, options,
      [](size_t i) -> CaseResult {
        switch (i) {
          case 0: return {Outcome::kPass, "", ""};
          case 1: return {Outcome::kUnsupported, "unsupported: op", ""};
          case 2: std::printf("about to crash\n"); std::fflush(stdout); std::abort();
          case 3: for (;;) pause();
          default: break;
        }
        return {Outcome::kFail, "bad", ""};
      },
      [&](size_t i, const CaseResult& r) { results[i] = r; });
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].outcome, Outcome::kPass);
  EXPECT_EQ(results[1].outcome, Outcome::kUnsupported);
  EXPECT_EQ(results[1].message, "unsupported: op");
  EXPECT_EQ(results[2].outcome, Outcome::kFail);
  EXPECT_NE(results[2].message.find("signal 6"), std::string::npos) << results[2].message;
  EXPECT_NE(results[2].output.find("about to crash"), std::string::npos);
  EXPECT_EQ(results[3].outcome, Outcome::kFail);
  EXPECT_NE(results[3].message.find("timed out"), std::string::npos) << results[3].message;
  EXPECT_EQ(results[4].outcome, Outcome::kFail);
  EXPECT_EQ(results[4].message, "bad");
}

}  // namespace
}  // namespace conformance
}  // namespace loom
