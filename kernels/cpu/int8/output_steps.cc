#include "kernels/cpu/int8/output_steps.h"

#include <cmath>
#include <limits>

namespace loom {
namespace int8 {
namespace {

constexpr int64_t kAccMin = std::numeric_limits<int32_t>::min();
constexpr int64_t kAccMax = std::numeric_limits<int32_t>::max();

// The smallest accumulator in (lo, hi] whose output reaches `value`, given
// Requantize(lo) < value <= Requantize(hi): a gallop from `guess` brackets
// it, then bisection.
int64_t FirstReaching(const requant::OutputStage& stage, int32_t value, int64_t lo, int64_t hi, double guess) {
  auto reaches = [&](int64_t acc) { return requant::Requantize(static_cast<int32_t>(acc), stage) >= value; };
  if (guess > static_cast<double>(lo) && guess < static_cast<double>(hi)) {
    const int64_t g = static_cast<int64_t>(guess);
    if (reaches(g)) {
      hi = g;
      for (int64_t step = 1; hi - step > lo; step *= 2) {
        if (!reaches(hi - step)) {
          lo = hi - step;
          break;
        }
        hi -= step;
      }
    } else {
      lo = g;
      for (int64_t step = 1; lo + step < hi; step *= 2) {
        if (reaches(lo + step)) {
          hi = lo + step;
          break;
        }
        lo += step;
      }
    }
  }
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (reaches(mid)) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return hi;
}

}  // namespace

void OutputSteps::Build(const std::vector<requant::OutputStage>& stages) {
  const size_t n = stages.size();
  scale_.assign(n, 0.f);
  offset_.assign(n, 0.f);
  first_.assign(n, 0);
  top_.assign(n, 0);
  bounds_.assign(n * kStride, static_cast<int32_t>(kAccMax));
  fixed_ = FixedPoint();
  for (const requant::OutputStage& s : stages) {
    const int32_t left = s.m.shift > 0 ? s.m.shift : 0, right = s.m.shift > 0 ? 0 : -s.m.shift;
    fixed_.multiplier.push_back(s.m.multiplier);
    fixed_.left.push_back(left);
    fixed_.sat_hi.push_back(std::numeric_limits<int32_t>::max() >> left);
    fixed_.sat_lo.push_back(std::numeric_limits<int32_t>::min() >> left);
    fixed_.right.push_back(right);
    const int32_t mask = static_cast<int32_t>((int64_t{1} << right) - 1);
    fixed_.round_mask.push_back(mask);
    fixed_.round_half.push_back(mask >> 1);
    fixed_.lo.push_back(s.range.min - s.zero_point);
    fixed_.hi.push_back(s.range.max - s.zero_point);
    fixed_.zero_point.push_back(s.zero_point);
  }
  for (size_t c = 0; c < n; ++c) {
    const requant::OutputStage& s = stages[c];
    const int32_t first = requant::Requantize(static_cast<int32_t>(kAccMin), s);
    const int32_t last = requant::Requantize(static_cast<int32_t>(kAccMax), s);
    const double scale = std::ldexp(static_cast<double>(s.m.multiplier), s.m.shift - 31);
    first_[c] = first;
    top_[c] = last - first;
    scale_[c] = static_cast<float>(scale);
    offset_[c] = static_cast<float>(s.zero_point - first);
    int32_t* upper = bounds_.data() + c * kStride + 1;
    upper[-1] = static_cast<int32_t>(kAccMin);  // the sentinel (never compared)
    int64_t below = kAccMin;                    // the last accumulator of the previous value
    for (int32_t v = first + 1; v <= last; ++v) {
      // The value v starts near (v - 0.5 - zero point) / scale.
      const double guess = (v - 0.5 - s.zero_point) / scale;
      const int64_t start = FirstReaching(s, v, below, kAccMax, guess);
      upper[v - 1 - first] = static_cast<int32_t>(start - 1);
      below = start - 1;
    }
  }
}

}  // namespace int8
}  // namespace loom
