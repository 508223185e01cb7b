// Static memory planning: buffers with known sizes and lifetimes (inclusive
// ranges of execution steps) get byte offsets in one arena so that no two
// buffers alive at the same step overlap. Offsets and sizes are rounded to
// kPlanAlignment (64 bytes). Same interface as TFLite Micro's planners:
//   planner.AddBuffer(size, first_used, last_used);  ...
//   planner.Plan();  planner.GetOffset(i);  planner.GetMaxMemory();
#pragma once

#include <cstddef>
#include <vector>

#include "common/status.h"

namespace loom {
namespace memory {

class MemoryPlanner {
 public:
  virtual ~MemoryPlanner() = default;

  // Adds buffer number num_buffers(); first_used <= last_used, both >= 0.
  Status AddBuffer(size_t size, int first_used, int last_used);
  // Computes the offsets of all buffers added so far.
  virtual Status Plan() = 0;
  size_t GetOffset(int buffer) const { return offsets_[static_cast<size_t>(buffer)]; }
  // Arena bytes needed (end of the highest buffer), a multiple of 64.
  size_t GetMaxMemory() const;
  // The least any planner could need: the largest sum of the (rounded)
  // sizes of the buffers live at one step. Independent of Plan().
  size_t GetLowerBound() const;
  int num_buffers() const { return static_cast<int>(buffers_.size()); }

 protected:
  struct Buffer {
    size_t size;  // rounded up to kPlanAlignment
    int first_used;
    int last_used;
  };
  static bool LifetimesOverlap(const Buffer& a, const Buffer& b) {
    return a.first_used <= b.last_used && b.first_used <= a.last_used;
  }
  std::vector<Buffer> buffers_;
  std::vector<size_t> offsets_;
};

// Every buffer at its own offset, one after another: the baseline.
class LinearMemoryPlanner : public MemoryPlanner {
 public:
  Status Plan() override;
};

// Greedy with best fit: buffers are placed one by one, each into the
// smallest gap between already placed, lifetime-overlapping buffers that
// holds it, or above all of them if no gap does. The result depends on the
// order, so a few orders are tried (largest first, longest-lived first,
// largest bytes x steps first) and the smallest arena is kept.
//
// When none reaches the lower bound, the best order is refined by "squeaky
// wheel" rounds: every buffer that ends above the bound gets a higher
// priority (more the higher it ends), the buffers are placed again by
// priority, and the smallest arena seen is kept. Greedy fails where a buffer
// placed late has to go on top of its neighbours, as the long-lived outputs of
// a DenseNet block (each kept until the block's last Concat) placed after the
// large, short-lived Concat copies and layout conversions that, once placed,
// leave no common gap for the whole lifetime; raising such buffers in the
// order places them first, and the short-lived ones then fill the gaps.
// Rounds stop at the bound, after max_refine_rounds (0: the classic orders
// only), or when about kRefineBudget overlap tests have been spent.
class GreedyMemoryPlanner : public MemoryPlanner {
 public:
  static constexpr size_t kMaxRefineRounds = 100;
  static constexpr size_t kRefineBudget = size_t{1} << 26;

  explicit GreedyMemoryPlanner(size_t max_refine_rounds = kMaxRefineRounds) : max_refine_rounds_(max_refine_rounds) {}
  Status Plan() override;

 private:
  // Squeaky-wheel rounds from `start` (the best order so far, whose placement
  // is in offsets_ and needs *best bytes); updates offsets_ and *best.
  void Refine(const std::vector<int>& start, size_t bound, size_t* best);

  size_t max_refine_rounds_;
};

// True if no two buffers with overlapping lifetimes overlap in memory and
// every offset is aligned; for tests and debug checks.
bool IsValidPlan(const MemoryPlanner& planner, const std::vector<size_t>& sizes,
                 const std::vector<std::pair<int, int>>& lifetimes);

}  // namespace memory
}  // namespace loom
