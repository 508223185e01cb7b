#include "builder/quantize/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace loom {
namespace quantize {
namespace {

// A temporary FILE* whose text can be read back.
class Capture {
 public:
  Capture() : f_(std::tmpfile()) {}
  ~Capture() { std::fclose(f_); }
  std::FILE* file() const { return f_; }
  std::string Text() const {
    std::fflush(f_);
    std::rewind(f_);
    std::string s;
    for (int c; (c = std::fgetc(f_)) != EOF;) s.push_back(static_cast<char>(c));
    return s;
  }

 private:
  std::FILE* f_;
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(text.substr(start, nl - start));
  EXPECT_EQ(start, text.size()) << "output does not end with a newline";
  return lines;
}

ProgressBarOptions FakeClock(double* now, bool tty) {
  ProgressBarOptions o;
  o.unit = "batches";
  o.tty = tty;
  o.clock = [now] { return *now; };
  return o;
}

TEST(ProgressTest, EstimatesTimeLeftFromTheMeanStep) {
  EXPECT_DOUBLE_EQ(EstimateSecondsLeft(3.1, 16, 32), 3.1);
  EXPECT_DOUBLE_EQ(EstimateSecondsLeft(2.0, 1, 5), 8.0);
  EXPECT_DOUBLE_EQ(EstimateSecondsLeft(6.0, 32, 32), 0.0);
  EXPECT_LT(EstimateSecondsLeft(0.5, 0, 32), 0.0);  // unknown before the first step
}

TEST(ProgressTest, FormatsSeconds) {
  EXPECT_EQ(FormatSeconds(0.0), "0.0 s");
  EXPECT_EQ(FormatSeconds(3.14), "3.1 s");
  EXPECT_EQ(FormatSeconds(59.9), "59.9 s");
  EXPECT_EQ(FormatSeconds(59.97), "1 min 00 s");
  EXPECT_EQ(FormatSeconds(125.4), "2 min 05 s");
  EXPECT_EQ(FormatSeconds(3599.6), "1 h 00 min");
  EXPECT_EQ(FormatSeconds(3725.0), "1 h 02 min");
}

TEST(ProgressTest, PlainOutputPrintsEveryTenthAndTheEnd) {
  Capture out;
  double now = 100.0;
  {
    ProgressBar bar("calibrating", 32, out.file(), FakeClock(&now, false));
    for (int i = 0; i < 32; ++i) {
      now += 0.2;
      bar.Step();
    }
    bar.Done();
    bar.Done();  // once only
  }
  const std::vector<std::string> lines = Lines(out.Text());
  ASSERT_EQ(lines.size(), 10u) << out.Text();
  EXPECT_EQ(lines[0], "calibrating: 4/32 batches, 0.8 s, ETA 5.6 s");
  EXPECT_EQ(lines[4], "calibrating: 16/32 batches, 3.2 s, ETA 3.2 s");
  EXPECT_EQ(lines[8], "calibrating: 29/32 batches, 5.8 s, ETA 0.6 s");
  EXPECT_EQ(lines[9], "calibrating: 32/32 batches, 6.4 s");
}

TEST(ProgressTest, PlainOutputWithFewStepsAndAnEarlyEnd) {
  Capture out;
  double now = 0.0;
  {
    ProgressBar bar("calibrating", 3, out.file(), FakeClock(&now, false));
    now = 1.0;
    bar.Step();
    now = 2.0;
    bar.Step();
  }  // the destructor ends it
  const std::vector<std::string> lines = Lines(out.Text());
  ASSERT_EQ(lines.size(), 3u) << out.Text();
  EXPECT_EQ(lines[0], "calibrating: 1/3 batches, 1.0 s, ETA 2.0 s");
  EXPECT_EQ(lines[1], "calibrating: 2/3 batches, 2.0 s, ETA 1.0 s");
  EXPECT_EQ(lines[2], "calibrating: 2/3 batches, 2.0 s");
}

TEST(ProgressTest, TerminalRedrawsOneLineAtMostTenTimesASecond) {
  Capture out;
  double now = 0.0;
  {
    ProgressBar bar("calibrating", 4, out.file(), FakeClock(&now, true));
    now = 0.05;
    bar.Step();  // too soon after the first draw: skipped
    now = 1.0;
    bar.Step();
    bar.Step();  // same instant: skipped
    now = 2.0;
    bar.Step();  // the last step always draws
    bar.Done();
  }
  EXPECT_EQ(out.Text(),
            "\rcalibrating [--------------------] 0/4 batches, 0.0 s, ETA ?\x1b[K"
            "\rcalibrating [##########----------] 2/4 batches, 1.0 s, ETA 1.0 s\x1b[K"
            "\rcalibrating [####################] 4/4 batches, 2.0 s, ETA 0.0 s\x1b[K"
            "\rcalibrating [####################] 4/4 batches, 2.0 s\x1b[K\n");
}

}  // namespace
}  // namespace quantize
}  // namespace loom
