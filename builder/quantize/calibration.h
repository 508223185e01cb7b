// Activation range estimators for int8 calibration. A RangeCollector sees
// every calibration batch of one float tensor and then answers the real range
// [lo, hi] an asymmetric uint8/int8 activation should cover. Every range
// contains 0 (zero must be exactly representable) and is clipped to the
// observed [min, max], so all-positive data (a post-ReLU activation) gets
// [0, t] and all-negative data gets [-t, 0].
//
// What is kept: the exact min and max of the finite samples, and a histogram
// of |x| with kNumBins equal bins over [0, range]. The first batch with a
// nonzero sample sets range = max|x|. A later batch that exceeds the range
// doubles it, as often as needed, merging bins pairwise (new bin k = old bins
// 2k and 2k+1, upper half cleared): counts stay exact integers and no mass is
// moved between bins, at the cost of resolution. The final range therefore
// lies in [max|x|, 2 max|x|) and depends on batch order only through that
// factor (at least kNumBins / 2 bins always cover the data): minmax is
// order-independent, the percentile threshold moves by about a bin and the
// entropy threshold by a few percent of max|x| (it sees a coarser histogram).
//
// The three methods (see each below):
//   minmax      [min(min, 0), max(max, 0)]
//   percentile  |x| threshold t keeping P% of samples, applied symmetrically
//               [-t, t] then clipped to [min, max] (the symmetric path of ONNX
//               Runtime's percentile calibrator)
//   entropy     TensorRT's KL-divergence threshold t on the |x| histogram,
//               applied the same way as the percentile threshold
//
// NaN and Inf samples are counted and otherwise ignored; every range query then
// fails with InvalidArgument naming how many were seen (the caller adds the
// tensor name with Status::WithContext). A collector without any finite sample
// fails likewise. All-zero data is not an error: every method returns [0, 0],
// for which ActivationRange::degenerate() is true, and the caller picks a
// default scale.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"

namespace loom {
namespace quantize {

// A real range for an activation; always lo <= 0 <= hi.
struct ActivationRange {
  float lo = 0.f;
  float hi = 0.f;
  // True for [0, 0] (all samples zero): no scale follows from the data.
  bool degenerate() const { return !(lo < hi); }
};

enum class CalibrationMethod { kMinMax, kPercentile, kEntropy };

struct CalibrationOptions {
  CalibrationMethod method = CalibrationMethod::kEntropy;
  double percentile = 99.99;  // for kPercentile, in (0, 100]
};

class RangeCollector {
 public:
  static constexpr int kNumBins = 2048;        // |x| histogram bins
  static constexpr int kNumQuantizedBins = 128;  // int8 levels on one side
  static constexpr int kMinSamplesPerBin = 8;    // for the entropy histogram

  // Accumulates n samples. Never fails: non-finite samples are only counted.
  void Add(const float* data, size_t n);

  // [min(min, 0), max(max, 0)] of all finite samples.
  Status MinMaxRange(ActivationRange* out) const;

  // t = upper edge of the first |x| bin at which the cumulative count reaches
  // percentile% of the finite samples (so at least that share lies in
  // [-t, t]; ONNX Runtime takes the lower edge of that bin, one bin less);
  // result [max(-t, min), min(t, max)] extended to contain 0.
  Status PercentileRange(double percentile, ActivationRange* out) const;

  // TensorRT's entropy calibration on the |x| histogram, first merged
  // pairwise while its bins average fewer than kMinSamplesPerBin samples (down
  // to kNumQuantizedBins bins, where the threshold is the max), n = bins up to
  // the last nonempty one, bin 0 replaced by bin 1 as TensorRT's calibration tool
  // does (the spike of exact zeros after a ReLU would otherwise decide the
  // threshold). For each candidate i in [128, n] (fewer when n < 128):
  //   P = bins[0, i) with the count of bins[i, n) added to P[i-1];
  //   Q = bins[0, i) (without the outliers) summed into L groups of i/L
  //       bins (the last group takes the remainder), each group's sum spread
  //       evenly over the group's bins where P is nonzero; Q = 0 where P = 0;
  //   P and Q smoothed as in the MXNet / ONNX Runtime reference: zero entries
  //       get eps = 1e-4, nonzero entries lose eps * zeros / nonzeros (a
  //       candidate whose Q would turn non-positive is skipped);
  //   KL(P || Q) of the normalized distributions.
  //   L = QuantizedLevels(i * bin width), at most i: TensorRT's 128 for
  //       data symmetric about 0, up to 255 for one-sided data, which the
  //       asymmetric int8 grid covers with all its levels;
  // t = i * bin width for the i of least KL (the largest such i on ties);
  // result as for the percentile.
  Status EntropyRange(ActivationRange* out) const;

  // Dispatches on options.method.
  Status Range(const CalibrationOptions& options, ActivationRange* out) const;

  uint64_t finite_count() const { return finite_count_; }
  uint64_t nan_count() const { return nan_count_; }
  uint64_t inf_count() const { return inf_count_; }
  float min() const { return min_; }
  float max() const { return max_; }
  // Upper edge of the histogram; 0 until a nonzero sample arrives.
  double histogram_range() const { return range_; }
  const std::vector<uint64_t>& histogram() const { return bins_; }

 private:
  Status CheckUsable() const;
  // Doubles range_ until it covers max_abs, merging bins pairwise.
  void Widen(double max_abs);
  // Int8 steps covering |x| in [0, t] once t is applied: 255 for one-sided
  // data (the asymmetric grid spends every level on [0, t]), 128 for data
  // symmetric about 0, in between otherwise.
  int QuantizedLevels(double t) const;
  // Symmetric |x| threshold t applied to the observed [min, max].
  ActivationRange ClipToObserved(double t) const;

  std::vector<uint64_t> bins_ = std::vector<uint64_t>(kNumBins, 0);
  double range_ = 0.0;
  float min_ = 0.f;
  float max_ = 0.f;
  uint64_t finite_count_ = 0;
  uint64_t nan_count_ = 0;
  uint64_t inf_count_ = 0;
};

}  // namespace quantize
}  // namespace loom
