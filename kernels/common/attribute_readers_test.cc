#include "kernels/common/attribute_readers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace loom {
namespace {

KernelSetup MakeSetup() {
  KernelSetup s;
  s.op = "Test";
  s.attrs.SetInt("i", 7);
  s.attrs.SetFloat("f", 0.5f);
  s.attrs.SetString("s", "SAME_UPPER");
  s.attrs.SetInts("ints", {1, 2, 3});
  return s;
}

TEST(AttributeReaders, ScalarsAndDefaults) {
  const KernelSetup s = MakeSetup();
  int64_t i = 0;
  float f = 0.f;
  std::string str;
  ASSERT_TRUE(ReadIntAttr(s, "i", 1, &i).ok());
  EXPECT_EQ(i, 7);
  ASSERT_TRUE(ReadIntAttr(s, "absent", 1, &i).ok());
  EXPECT_EQ(i, 1);
  ASSERT_TRUE(ReadFloatAttr(s, "f", 2.f, &f).ok());
  EXPECT_EQ(f, 0.5f);
  ASSERT_TRUE(ReadFloatAttr(s, "i", 2.f, &f).ok());  // an int literal where a float is expected
  EXPECT_EQ(f, 7.f);
  ASSERT_TRUE(ReadStringAttr(s, "s", "NOTSET", &str).ok());
  EXPECT_EQ(str, "SAME_UPPER");
  ASSERT_TRUE(ReadStringAttr(s, "absent", "NOTSET", &str).ok());
  EXPECT_EQ(str, "NOTSET");
}

TEST(AttributeReaders, WrongKindIsInvalid) {
  const KernelSetup s = MakeSetup();
  int64_t i = 0;
  std::string str;
  const Status st = ReadIntAttr(s, "f", 1, &i);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "attribute 'f' is float, expected int");
  EXPECT_EQ(ReadStringAttr(s, "i", "", &str).code(), StatusCode::kInvalidArgument);
  std::vector<int64_t> v;
  EXPECT_EQ(ReadIntsAttr(s, "s", &v).code(), StatusCode::kInvalidArgument);
}

TEST(AttributeReaders, IntLists) {
  const KernelSetup s = MakeSetup();
  std::vector<int64_t> v = {9};
  bool present = true;
  ASSERT_TRUE(ReadIntsAttr(s, "absent", &v, &present).ok());
  EXPECT_FALSE(present);
  EXPECT_TRUE(v.empty());
  ASSERT_TRUE(ReadIntsAttr(s, "ints", &v, &present).ok());
  EXPECT_TRUE(present);
  EXPECT_EQ(v, std::vector<int64_t>({1, 2, 3}));
  ASSERT_TRUE(ReadIntsAttr(s, "i", &v).ok());  // a single int reads as a list of one
  EXPECT_EQ(v, std::vector<int64_t>({7}));
}

TEST(AttributeReaders, IntListsOfFixedLength) {
  const KernelSetup s = MakeSetup();
  std::vector<int64_t> v;
  ASSERT_TRUE(ReadIntsAttr(s, "ints", 3, {0, 0, 0}, &v).ok());
  EXPECT_EQ(v, std::vector<int64_t>({1, 2, 3}));
  ASSERT_TRUE(ReadIntsAttr(s, "absent", 2, {4, 5}, &v).ok());
  EXPECT_EQ(v, std::vector<int64_t>({4, 5}));
  // The default may be the output itself.
  ASSERT_TRUE(ReadIntsAttr(s, "absent", 2, v, &v).ok());
  EXPECT_EQ(v, std::vector<int64_t>({4, 5}));
  EXPECT_EQ(ReadIntsAttr(s, "ints", 2, {}, &v).message(), "attribute 'ints' has 3 values, expected 2");
}

TEST(AttributeReaders, Axis) {
  KernelSetup s = MakeSetup();
  int axis = 0;
  ASSERT_TRUE(ReadAxisAttr(s, "absent", -1, 4, &axis).ok());
  EXPECT_EQ(axis, 3);
  s.attrs.SetInt("axis", -5);
  const Status st = ReadAxisAttr(s, "axis", 0, 4, &axis);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "attribute 'axis' = -5 out of range [-4, 4)");
}

}  // namespace
}  // namespace loom
