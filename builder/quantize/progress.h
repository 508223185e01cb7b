// A progress bar for long builder steps such as calibration. On a terminal it
// redraws one line in place (at most ten times a second):
//   calibrating [##########----------] 16/32 batches, 3.1 s, ETA 3.0 s
// Elsewhere (a log file, CI) it prints a plain line at every tenth of the way
// and one at the end, so at most 10 lines:
//   calibrating: 16/32 batches, 3.1 s, ETA 3.0 s
//   calibrating: 32/32 batches, 6.2 s
// The ETA assumes the remaining steps take as long as the mean step so far.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

namespace loom {
namespace quantize {

struct ProgressBarOptions {
  std::string unit = "steps";     // "16/32 <unit>"
  std::optional<bool> tty;        // redraw in place; default isatty(fileno(out))
  std::function<double()> clock;  // seconds, monotonic; default steady_clock
};

class ProgressBar {
 public:
  ProgressBar(std::string label, int64_t total, std::FILE* out = stderr, ProgressBarOptions options = {});
  // Calls Done() if it was not called.
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Counts n more steps done.
  void Step(int64_t n = 1);
  // Prints the final state (steps done, total time) once; on a terminal ends
  // the line. Later calls do nothing.
  void Done();

 private:
  double Elapsed() const;
  // "16/32 batches, 3.1 s, ETA 3.0 s" (no ETA when final).
  std::string StatusText(bool final) const;
  void Draw(bool final);

  std::string label_;
  int64_t total_;
  std::FILE* out_;
  std::string unit_;
  bool tty_;
  std::function<double()> clock_;
  double start_;
  double last_draw_ = -1.0;  // clock time of the last redraw (terminal)
  int64_t done_ = 0;
  int64_t printed_tenths_ = 0;  // tenths of the way already printed (plain lines)
  bool finished_ = false;
};

// Seconds left if the remaining steps take as long as the mean step so far;
// negative (unknown) before the first step.
double EstimateSecondsLeft(double elapsed, int64_t done, int64_t total);

// "3.1 s" below a minute, "2 min 05 s" below an hour, "1 h 02 min" above.
std::string FormatSeconds(double seconds);

}  // namespace quantize
}  // namespace loom
