#include "builder/quantize/calibration_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "builder/testing/onnx_models.h"

namespace loom {
namespace quantize {
namespace {

using testing::TempDir;

bool Contains(const Status& s, const std::string& what) { return s.message().find(what) != std::string::npos; }

std::string ReadText(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool SameBits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

CalibrationCache SampleCache() {
  CalibrationCache c;
  c.model_hash = "9f86d081884c7d65";
  c.method = "percentile 99.99";
  c.ranges["conv1/Relu_output_0"] = {0.f, 6.0312f};
  c.ranges["with space"] = {-1.5f, 2.25f};
  c.ranges["quote\"back\\slash"] = {-0.1f, 0.1f};
  c.ranges["tab\tnew\nline\rbell\a"] = {-1e-30f, 3.4028235e38f};
  c.ranges["\xc3\xbcnicode \xe2\x9c\x93"] = {-0.f, 1.4e-45f};  // -0 and the smallest denormal
  c.ranges[" lead and trail "] = {-123456.789f, 0.f};
  c.ranges[""] = {-2.f / 3.f, 1.f / 3.f};
  return c;
}

TEST(CalibrationCacheTest, RoundTripsExactly) {
  TempDir dir;
  const std::string path = dir.File("calib.txt");
  const CalibrationCache c = SampleCache();
  Status s = WriteCalibrationCache(path, c);
  ASSERT_TRUE(s.ok()) << s.message();

  CalibrationCache back;
  s = ReadCalibrationCache(path, &back);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(back.model_hash, c.model_hash);
  EXPECT_EQ(back.method, c.method);
  ASSERT_EQ(back.ranges.size(), c.ranges.size());
  for (const auto& [name, r] : c.ranges) {
    ASSERT_EQ(back.ranges.count(name), 1u) << name;
    EXPECT_TRUE(SameBits(back.ranges[name].lo, r.lo)) << name << " " << back.ranges[name].lo;
    EXPECT_TRUE(SameBits(back.ranges[name].hi, r.hi)) << name << " " << back.ranges[name].hi;
  }

  // Human-readable, one tensor per line, names quoted and escaped.
  const std::string text = ReadText(path);
  EXPECT_EQ(text.rfind("loom calibration cache 1\nmodel 9f86d081884c7d65\nmethod percentile 99.99\n", 0), 0u) << text;
  EXPECT_NE(text.find("\n\"with space\" -1.5 2.25\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n\"quote\\\"back\\\\slash\" -0.1 0.1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n\"tab\\tnew\\nline\\rbell\\x07\" -1e-30 3.4028235e+38\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n\"conv1/Relu_output_0\" 0 6.0312\n"), std::string::npos) << text;

  // Rewriting replaces the file and leaves no temporary file behind.
  ASSERT_TRUE(WriteCalibrationCache(path, CalibrationCache{"h", "minmax", {}}).ok());
  ASSERT_TRUE(ReadCalibrationCache(path, &back).ok());
  EXPECT_EQ(back.method, "minmax");
  EXPECT_TRUE(back.ranges.empty());
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1);
}

TEST(CalibrationCacheTest, ToleratesCommentsBlankLinesAndCrlf) {
  TempDir dir;
  testing::WriteBytes(dir.File("c.txt"),
                      "# made by hand\r\nloom calibration cache 1\r\n\r\nmodel  abc \r\nmethod minmax\r\n"
                      "  \"a b\"   -1   2.5  \r\n# done\r\n");
  CalibrationCache c;
  const Status s = ReadCalibrationCache(dir.File("c.txt"), &c);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(c.model_hash, "abc");
  EXPECT_EQ(c.method, "minmax");
  ASSERT_EQ(c.ranges.count("a b"), 1u);
  EXPECT_EQ(c.ranges["a b"].lo, -1.f);
  EXPECT_EQ(c.ranges["a b"].hi, 2.5f);
}

TEST(CalibrationCacheTest, RefusesACacheOfAnotherModelOrMethod) {
  const CalibrationCache c = SampleCache();
  EXPECT_TRUE(CheckCacheMatches("c.txt", c, "9f86d081884c7d65", "percentile 99.99").ok());
  Status s = CheckCacheMatches("c.txt", c, "0123abcd", "percentile 99.99");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "calibration cache 'c.txt' was made for model 9f86d081884c7d65, not 0123abcd: delete it "
            "or pass another --calib-cache");
  s = CheckCacheMatches("c.txt", c, "9f86d081884c7d65", "entropy");
  EXPECT_EQ(s.message(),
            "calibration cache 'c.txt' was made with method 'percentile 99.99', not 'entropy': delete "
            "it or pass another --calib-cache");
}

TEST(CalibrationCacheTest, MissingFileIsNotFound) {
  TempDir dir;
  CalibrationCache c;
  const Status s = ReadCalibrationCache(dir.File("none.txt"), &c);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_TRUE(Contains(s, "calibration cache '" + dir.File("none.txt") + "' does not exist")) << s.message();
}

// Reads `text` as a cache and returns the error.
Status ReadText(const TempDir& dir, const std::string& text) {
  testing::WriteBytes(dir.File("bad.txt"), text);
  CalibrationCache c;
  return ReadCalibrationCache(dir.File("bad.txt"), &c);
}

TEST(CalibrationCacheTest, MalformedFilesNameTheLine) {
  TempDir dir;
  const std::string head = "loom calibration cache 1\nmodel abc\nmethod minmax\n";
  const std::string file = "calibration cache '" + dir.File("bad.txt") + "'";
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"", file + " is empty: its format line is missing"},
      {"# only a comment\n", file + " ends at line 1: its format line is missing"},
      {"loom calibration cache 1\nmodel abc\n", file + " ends at line 2: its 'method' line is missing"},
      {"tensor 1 2\n", file + " line 1: expected 'loom calibration cache 1', got 'tensor 1 2' (not a calibration "
                              "cache?)"},
      {"loom calibration cache 2\n", file + " line 1: format version 2, this Loom reads version 1"},
      {"loom calibration cache 1\nmethod minmax\n", file + " line 2: expected 'model <hash>', got 'method minmax'"},
      {"loom calibration cache 1\nmodel abc\nmodel def\n", file + " line 3: expected 'method <name>', got 'model def'"},
      {head + "\"a\" -1 1\nb -1 1\n", file + " line 5: expected a double-quoted tensor name"},
      {head + "\"a -1 1\n", file + " line 4: unterminated tensor name"},
      {head + "\"a\\q\" -1 1\n", file + " line 4: unknown escape '\\q' in the tensor name"},
      {head + "\"a\\x4\" -1 1\n", file + " line 4: '\\x' in the tensor name needs two hex digits"},
      {head + "\"a\"-1 1\n", file + " line 4: expected a space after the tensor name"},
      {head + "\"a\" -1\n", file + " line 4: expected \"<tensor name>\" <lo> <hi>, got '\"a\" -1'"},
      {head + "\"a\" -1 1 7\n", file + " line 4: expected \"<tensor name>\" <lo> <hi>"},
      {head + "\"a\" -1x 1\n", file + " line 4: lo '-1x' is not a number"},
      {head + "\"a\" -1 +1\n", file + " line 4: hi '+1' is not a number"},
      {head + "\"a\" -1 inf\n", file + " line 4: tensor \"a\" has range [-1, inf], expected finite lo <= 0 <= hi"},
      {head + "\"a\" 0.5 1\n", file + " line 4: tensor \"a\" has range [0.5, 1], expected finite lo <= 0 <= hi"},
      {head + "\"a\" -1 1\n\n\"a\" -2 2\n", file + " line 6: tensor \"a\" is listed twice (also on line 4)"},
  };
  for (const Case& c : cases) {
    const Status s = ReadText(dir, c.text);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_TRUE(Contains(s, c.message)) << "text: " << c.text << "\nmessage: " << s.message();
  }
}

TEST(CalibrationCacheTest, WriteRefusesWhatItCouldNotReadBack) {
  TempDir dir;
  const std::string path = dir.File("c.txt");
  CalibrationCache c = SampleCache();
  c.ranges["bad"] = {-1.f, std::numeric_limits<float>::infinity()};
  Status s = WriteCalibrationCache(path, c);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "tensor \"bad\" has range [-1, inf], expected finite lo <= 0 <= hi")) << s.message();
  c = SampleCache();
  c.model_hash = "abc\ndef";
  s = WriteCalibrationCache(path, c);
  EXPECT_TRUE(Contains(s, "model hash 'abc?def' is not one line of text")) << s.message();
  c = SampleCache();
  c.method = "";
  s = WriteCalibrationCache(path, c);
  EXPECT_TRUE(Contains(s, "method '' is not one line of text")) << s.message();
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace quantize
}  // namespace loom
