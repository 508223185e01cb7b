#include "builder/quantize/progress.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

namespace loom {
namespace quantize {
namespace {

constexpr int kBarWidth = 20;
constexpr double kRedrawSeconds = 0.1;

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

double EstimateSecondsLeft(double elapsed, int64_t done, int64_t total) {
  if (done <= 0) return -1.0;
  if (done >= total) return 0.0;
  return elapsed / static_cast<double>(done) * static_cast<double>(total - done);
}

std::string FormatSeconds(double seconds) {
  char buf[48];
  if (seconds < 59.95) {
    std::snprintf(buf, sizeof(buf), "%.1f s", std::max(seconds, 0.0));
  } else if (const long s = std::lround(seconds); s < 3600) {
    std::snprintf(buf, sizeof(buf), "%ld min %02ld s", s / 60, s % 60);
  } else {
    const long m = std::lround(seconds / 60);
    std::snprintf(buf, sizeof(buf), "%ld h %02ld min", m / 60, m % 60);
  }
  return buf;
}

ProgressBar::ProgressBar(std::string label, int64_t total, std::FILE* out, ProgressBarOptions options)
    : label_(std::move(label)),
      total_(std::max<int64_t>(total, 0)),
      out_(out),
      unit_(std::move(options.unit)),
      tty_(options.tty ? *options.tty : ::isatty(::fileno(out)) == 1),
      clock_(options.clock ? std::move(options.clock) : SteadySeconds),
      start_(clock_()) {
  if (tty_) Draw(false);
}

ProgressBar::~ProgressBar() { Done(); }

double ProgressBar::Elapsed() const { return clock_() - start_; }

void ProgressBar::Step(int64_t n) {
  if (finished_) return;
  done_ = std::min(done_ + n, total_);
  if (tty_) {
    if (done_ == total_ || clock_() - last_draw_ >= kRedrawSeconds) Draw(false);
    return;
  }
  // Plain lines: one per tenth reached; the last tenth is Done()'s line.
  const int64_t tenths = total_ > 0 ? done_ * 10 / total_ : 0;
  if (tenths > printed_tenths_ && tenths < 10) {
    printed_tenths_ = tenths;
    Draw(false);
  }
}

void ProgressBar::Done() {
  if (finished_) return;
  finished_ = true;
  Draw(true);
}

std::string ProgressBar::StatusText(bool final) const {
  const double elapsed = Elapsed();
  std::string s = std::to_string(done_) + "/" + std::to_string(total_) + " " + unit_ + ", " + FormatSeconds(elapsed);
  const double left = EstimateSecondsLeft(elapsed, done_, total_);
  if (!final) s += ", ETA " + (left < 0 ? std::string("?") : FormatSeconds(left));
  return s;
}

void ProgressBar::Draw(bool final) {
  if (tty_) {
    const int filled = total_ > 0 ? static_cast<int>(done_ * kBarWidth / total_) : kBarWidth;
    const std::string bar = std::string(filled, '#') + std::string(kBarWidth - filled, '-');
    // \r returns to the line start, \x1b[K clears what a longer line left.
    std::fprintf(out_, "\r%s [%s] %s\x1b[K%s", label_.c_str(), bar.c_str(), StatusText(final).c_str(),
                 final ? "\n" : "");
    last_draw_ = clock_();
  } else {
    std::fprintf(out_, "%s: %s\n", label_.c_str(), StatusText(final).c_str());
  }
  std::fflush(out_);
}

}  // namespace quantize
}  // namespace loom
