#include "common/timing_cache.h"

#include <gtest/gtest.h>

namespace loom {
namespace {

TEST(TimingCache, SignatureNamesOpFusedOpsDtypesAndShapes) {
  EXPECT_EQ(NodeSignature("Conv", {"Relu"}, {DType::kInt8, DType::kInt8, DType::kInt32},
                          {{1, 64, 56, 56}, {64, 64, 3, 3}, {64}}, {DType::kInt8}, {{1, 64, 56, 56}}),
            "Conv+Relu(int8 1x64x56x56, int8 64x64x3x3, int32 64 -> int8 1x64x56x56)");
  // An omitted optional input is "-"; a scalar output says so.
  EXPECT_EQ(NodeSignature("Clip", {}, {DType::kFloat32, DType::kUndefined}, {{2}, {}}, {DType::kFloat32}, {{}}),
            "Clip(float32 2, - -> float32 scalar)");
}

TEST(TimingCache, RoundTrips) {
  TimingCache cache;
  cache.cpu = "Cortex-A9";
  cache.threads = 2;
  cache.nodes["Conv(int8 1x3x8x8 -> int8 1x8x8x8)"] = {0.125, "conv1"};
  cache.nodes["Odd \"name\"\\\n(x)"] = {12.5, "n\t2", 3};
  const std::string text = SerializeTimingCache(cache);
  TimingCache back;
  const Status s = ParseTimingCache(text, &back);
  ASSERT_TRUE(s.ok()) << s.message() << "\n" << text;
  EXPECT_EQ(back.cpu, "Cortex-A9");
  EXPECT_EQ(back.threads, 2);
  ASSERT_EQ(back.nodes.size(), 2u);
  EXPECT_EQ(back.nodes.at("Conv(int8 1x3x8x8 -> int8 1x8x8x8)").ms, 0.125);
  EXPECT_EQ(back.nodes.at("Conv(int8 1x3x8x8 -> int8 1x8x8x8)").node, "conv1");
  EXPECT_EQ(back.nodes.at("Odd \"name\"\\\n(x)").node, "n\t2");
  EXPECT_EQ(back.nodes.at("Conv(int8 1x3x8x8 -> int8 1x8x8x8)").count, 1);
  EXPECT_EQ(back.nodes.at("Odd \"name\"\\\n(x)").count, 3);
  EXPECT_EQ(SerializeTimingCache(back), text);

  TimingCache empty;
  empty.cpu = "x";
  ASSERT_TRUE(ParseTimingCache(SerializeTimingCache(empty), &back).ok());
  EXPECT_TRUE(back.nodes.empty());
}

TEST(TimingCache, MalformedTextIsRefusedWithWhatIsWrong) {
  const std::string head = R"({"format": "loom timing cache", "version": 1, "cpu": "Cortex-A9", "threads": 1, )";
  struct Case {
    std::string text;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"[]", "the file holds an array, expected an object"},
           {"{\"format\": \"something else\"}", "(not a timing cache?)"},
           {R"({"format": "loom timing cache", "version": 2})", "version 2, this Loom reads version 1"},
           {R"({"format": "loom timing cache", "version": 1, "threads": 1, "nodes": []})", "no \"cpu\" member"},
           {R"({"format": "loom timing cache", "version": 1, "cpu": 7})", "\"cpu\" is a number, expected a string"},
           {head.substr(0, head.size() - 14) + "\"threads\": 0, \"nodes\": []}", "\"threads\" is 0, expected a count"},
           {head + "\"nodes\": {}}", "\"nodes\" is an object, expected an array"},
           {head + "\"nodes\": [3]}", "nodes[0]: is a number, expected an object"},
           {head + "\"nodes\": [{\"signature\": \"a\"}]}", "nodes[0]: no \"ms\" member"},
           {head + "\"nodes\": [{\"signature\": \"a\", \"ms\": -1}]}", "nodes[0]: \"ms\" is -1, expected a time >= 0"},
           {head + "\"nodes\": [{\"signature\": \"a\", \"ms\": 1, \"count\": 0}]}",
            "nodes[0]: \"count\" is 0, expected a count >= 1"},
           {head + "\"nodes\": [{\"signature\": \"a\", \"ms\": 1, \"count\": 1.5}]}",
            "nodes[0]: \"count\" is 1.5, expected a count >= 1"},
           {head + "\"nodes\": [{\"signature\": \"a\", \"ms\": 1, \"count\": \"2\"}]}",
            "nodes[0]: \"count\" is a string, expected a count >= 1"},
           {head + "\"nodes\": [{\"signature\": \"a\", \"ms\": 1}, {\"signature\": \"a\", \"ms\": 2}]}",
            "nodes[1]: repeats signature \"a\""},
           {head + "\"nodes\": [", "line 1, column"},
       }) {
    TimingCache cache;
    const Status s = ParseTimingCache(c.text, &cache);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_NE(s.message().find(c.message), std::string::npos) << c.text << ": " << s.message();
  }
}

}  // namespace
}  // namespace loom
