#include "tools/loom/json_writer.h"

#include <gtest/gtest.h>

#include <limits>

namespace loom {
namespace cli {
namespace {

TEST(JsonWriterTest, EscapesStrings) {
  EXPECT_EQ(JsonWriter::Quote("plain"), "\"plain\"");
  EXPECT_EQ(JsonWriter::Quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonWriter::Quote("x\ny\tz\r"), "\"x\\ny\\tz\\r\"");
  EXPECT_EQ(JsonWriter::Quote(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(JsonWriter::Quote("caf\xc3\xa9/\x7f"), "\"caf\xc3\xa9/\x7f\"");  // UTF-8 and '/' pass through
}

TEST(JsonWriterTest, NestsWithCommas) {
  JsonWriter j;
  j.BeginObject().Field("a", "x").IntField("b", -3).Key("c").BeginArray().Int(1).Number(2.5).Bool(true).Null();
  j.BeginObject().EndObject().BeginArray().EndArray().EndArray();
  j.NumberField("nan", std::numeric_limits<double>::quiet_NaN()).Key("u").UInt(18446744073709551615ull);
  j.Key("shape").BeginArray(true).Int(2).Int(3).BeginArray().String("x").EndArray().EndArray().EndObject();
  EXPECT_EQ(j.str(),
            "{\n"
            "  \"a\": \"x\",\n"
            "  \"b\": -3,\n"
            "  \"c\": [\n"
            "    1,\n"
            "    2.5,\n"
            "    true,\n"
            "    null,\n"
            "    {},\n"
            "    []\n"
            "  ],\n"
            "  \"nan\": null,\n"
            "  \"u\": 18446744073709551615,\n"
            "  \"shape\": [2, 3, [\"x\"]]\n"
            "}\n");
}

}  // namespace
}  // namespace cli
}  // namespace loom
