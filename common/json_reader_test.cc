#include "common/json_reader.h"

#include <gtest/gtest.h>

namespace loom {
namespace {

TEST(JsonReader, ReadsEveryKindOfValue) {
  JsonValue v;
  const Status s = ParseJson(R"( {"a": [1, -2.5e1, 0], "b": "x\"\\\/\n\u00e9", "c": true, "d": false, "e": null,
                                   "f": {}} )",
                             &v);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(v.kind, JsonValue::Kind::kObject);
  ASSERT_EQ(v.object.size(), 6u);
  const JsonValue* a = v.Find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->array.size(), 3u);
  EXPECT_EQ(a->array[1].number, -25.0);
  EXPECT_EQ(v.Find("b")->string, "x\"\\/\n\xc3\xa9");
  EXPECT_TRUE(v.Find("c")->boolean);
  EXPECT_EQ(v.Find("d")->kind, JsonValue::Kind::kBool);
  EXPECT_FALSE(v.Find("d")->boolean);
  EXPECT_EQ(v.Find("e")->kind, JsonValue::Kind::kNull);
  EXPECT_EQ(v.Find("f")->kind, JsonValue::Kind::kObject);
  EXPECT_EQ(v.Find("zz"), nullptr);
}

TEST(JsonReader, ErrorsNameThePositionAndWhatWasExpected) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"{\"a\": 1,\n \"b\" 2}", "line 2, column 6: expected ':' after member \"b\""},
           {"[1 2]", "line 1, column 4: expected ',' or ']'"},
           {"{\"a\": 1", "expected ',' or '}'"},
           {"", "expected a value, found the end of the text"},
           {"01", "unexpected text after the value"},
           {"1.", "expected digits after '.'"},
           {"1e999", "number out of range"},
           {"\"abc", "unterminated string"},
           {"\"a\\q\"", "unknown escape '\\q'"},
           {"\"\\u12\"", "expected 4 hex digits after \\u"},
           {"nul", "unexpected character 'n'"},
           {"{1: 2}", "expected a member name in quotes"},
           {"\"tab\there\"", "control character in a string"},
       }) {
    JsonValue v;
    const Status s = ParseJson(c.text, &v);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_NE(s.message().find(c.message), std::string::npos) << c.text << ": " << s.message();
  }
}

TEST(JsonReader, RefusesDeepNesting) {
  JsonValue v;
  EXPECT_TRUE(ParseJson(std::string(64, '[') + std::string(64, ']'), &v).ok());
  const Status s = ParseJson(std::string(100000, '['), &v);
  EXPECT_NE(s.message().find("nested deeper than 64 levels"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace loom
