#include "builder/quantize/calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace loom {
namespace quantize {

namespace {

constexpr double kSmoothingEps = 1e-4;

// Zero entries get kSmoothingEps, nonzero ones pay for it; false when nothing
// is nonzero or an entry would turn non-positive.
bool Smooth(std::vector<double>& d) {
  size_t zeros = 0;
  for (double v : d) zeros += v == 0.0;
  const size_t nonzeros = d.size() - zeros;
  if (nonzeros == 0) return false;
  const double eps1 = kSmoothingEps * static_cast<double>(zeros) / static_cast<double>(nonzeros);
  for (double& v : d) {
    v = v == 0.0 ? kSmoothingEps : v - eps1;
    if (v <= 0.0) return false;
  }
  return true;
}

// KL(p || q) of the distributions p and q normalized; all entries positive.
double KlDivergence(const std::vector<double>& p, const std::vector<double>& q) {
  double p_sum = 0.0, q_sum = 0.0;
  for (size_t k = 0; k < p.size(); ++k) p_sum += p[k], q_sum += q[k];
  double kl = 0.0;
  for (size_t k = 0; k < p.size(); ++k) {
    const double pk = p[k] / p_sum, qk = q[k] / q_sum;
    kl += pk * std::log(pk / qk);
  }
  return kl;
}

}  // namespace

void RangeCollector::Add(const float* data, size_t n) {
  double batch_max_abs = 0.0;
  for (size_t k = 0; k < n; ++k) {
    const float x = data[k];
    if (std::isnan(x)) {
      ++nan_count_;
      continue;
    }
    if (std::isinf(x)) {
      ++inf_count_;
      continue;
    }
    if (finite_count_ == 0) min_ = max_ = x;
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
    ++finite_count_;
    batch_max_abs = std::max(batch_max_abs, static_cast<double>(std::fabs(x)));
  }
  if (batch_max_abs > range_) Widen(batch_max_abs);
  // While range_ is 0 every finite sample is 0 and belongs to bin 0.
  const double bins_per_unit = range_ > 0.0 ? kNumBins / range_ : 0.0;
  for (size_t k = 0; k < n; ++k) {
    const float x = data[k];
    if (!std::isfinite(x)) continue;
    const size_t bin = static_cast<size_t>(std::fabs(x) * bins_per_unit);
    ++bins_[std::min(bin, static_cast<size_t>(kNumBins - 1))];
  }
}

void RangeCollector::Widen(double max_abs) {
  if (range_ == 0.0) {  // only zeros so far, all in bin 0 whatever the range
    range_ = max_abs;
    return;
  }
  while (range_ < max_abs) {
    for (int k = 0; k < kNumBins / 2; ++k) bins_[k] = bins_[2 * k] + bins_[2 * k + 1];
    std::fill(bins_.begin() + kNumBins / 2, bins_.end(), 0);
    range_ *= 2.0;
  }
}

Status RangeCollector::CheckUsable() const {
  const uint64_t bad = nan_count_ + inf_count_;
  if (bad > 0) {
    return Status::InvalidArgument(std::to_string(bad) + " non-finite calibration samples (" +
                                   std::to_string(nan_count_) + " NaN, " + std::to_string(inf_count_) +
                                   " Inf) among " + std::to_string(bad + finite_count_) +
                                   ", expected only finite values");
  }
  if (finite_count_ == 0) return Status::InvalidArgument("no calibration samples were collected");
  return Status::Ok();
}

int RangeCollector::QuantizedLevels(double t) const {
  const ActivationRange r = ClipToObserved(t);
  const double span = static_cast<double>(r.hi) - static_cast<double>(r.lo);
  if (!(span > 0.0)) return kNumQuantizedBins;
  const double levels = std::round(255.0 * t / span);
  return static_cast<int>(std::min(255.0, std::max(static_cast<double>(kNumQuantizedBins), levels)));
}

ActivationRange RangeCollector::ClipToObserved(double t) const {
  ActivationRange r;
  r.lo = std::min(0.f, static_cast<float>(std::max(-t, static_cast<double>(min_))));
  r.hi = std::max(0.f, static_cast<float>(std::min(t, static_cast<double>(max_))));
  return r;
}

Status RangeCollector::MinMaxRange(ActivationRange* out) const {
  RETURN_IF_ERROR(CheckUsable());
  out->lo = std::min(min_, 0.f);
  out->hi = std::max(max_, 0.f);
  return Status::Ok();
}

Status RangeCollector::PercentileRange(double percentile, ActivationRange* out) const {
  if (!(percentile > 0.0 && percentile <= 100.0)) {
    return Status::InvalidArgument("percentile " + std::to_string(percentile) + ", expected in (0, 100]");
  }
  RETURN_IF_ERROR(CheckUsable());
  const double target = percentile / 100.0 * static_cast<double>(finite_count_);
  int bin = kNumBins - 1;
  uint64_t cumulative = 0;
  for (int k = 0; k < kNumBins; ++k) {
    cumulative += bins_[k];
    if (static_cast<double>(cumulative) >= target) {
      bin = k;
      break;
    }
  }
  *out = ClipToObserved((bin + 1) * (range_ / kNumBins));
  return Status::Ok();
}

Status RangeCollector::EntropyRange(ActivationRange* out) const {
  RETURN_IF_ERROR(CheckUsable());
  if (range_ == 0.0) {
    *out = ActivationRange();
    return Status::Ok();
  }
  // Few samples spread over many bins make P mostly empty, and the divergence
  // then favours a short threshold that clips real data (a squeeze-excitation
  // tensor sees a few values per sample): merge bins until they average
  // kMinSamplesPerBin, keeping at least kNumQuantizedBins.
  int merge = 1;
  while (kNumBins / (2 * merge) >= kNumQuantizedBins &&
         static_cast<double>(finite_count_) / (kNumBins / merge) < kMinSamplesPerBin) {
    merge *= 2;
  }
  const int num_bins = kNumBins / merge;
  std::vector<double> bins(num_bins, 0.0);
  for (int k = 0; k < kNumBins; ++k) bins[k / merge] += static_cast<double>(bins_[k]);
  int used = num_bins;
  while (used > 1 && bins[used - 1] == 0) --used;
  bins.resize(used);

  // The zero spike (ReLU zeros, padding) would dominate every divergence.
  if (used > 1) bins[0] = bins[1];

  double best_kl = std::numeric_limits<double>::infinity();
  int best_i = used;
  std::vector<double> p, q;
  for (int i = std::min(kNumQuantizedBins, used); i <= used; ++i) {
    p.assign(bins.begin(), bins.begin() + i);
    for (int k = i; k < used; ++k) p[i - 1] += bins[k];

    q.assign(i, 0.0);
    const int levels = std::min(QuantizedLevels(i * (range_ / num_bins)), i);
    const int merged = i / levels;
    for (int j = 0; j < levels; ++j) {
      const int start = j * merged, stop = j == levels - 1 ? i : start + merged;
      double sum = 0.0;
      int nonzero = 0;
      for (int k = start; k < stop; ++k) {
        sum += bins[k];
        nonzero += p[k] != 0.0;
      }
      if (nonzero == 0) continue;
      for (int k = start; k < stop; ++k) q[k] = p[k] != 0.0 ? sum / nonzero : 0.0;
    }
    if (!Smooth(p) || !Smooth(q)) continue;
    const double kl = KlDivergence(p, q);
    if (kl <= best_kl) best_kl = kl, best_i = i;
  }
  *out = ClipToObserved(best_i * (range_ / num_bins));
  return Status::Ok();
}

Status RangeCollector::Range(const CalibrationOptions& options, ActivationRange* out) const {
  switch (options.method) {
    case CalibrationMethod::kMinMax: return MinMaxRange(out);
    case CalibrationMethod::kPercentile: return PercentileRange(options.percentile, out);
    case CalibrationMethod::kEntropy: return EntropyRange(out);
  }
  return Status::Internal("unknown calibration method");
}

}  // namespace quantize
}  // namespace loom
