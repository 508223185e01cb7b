#include "builder/memory/memory_planner.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>

#include "schemas/plan_format.h"

namespace loom {
namespace memory {

namespace {

size_t AlignUp(size_t n) { return (n + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment; }

}  // namespace

Status MemoryPlanner::AddBuffer(size_t size, int first_used, int last_used) {
  if (first_used < 0 || last_used < first_used)
    return Status::InvalidArgument("memory planner: buffer " + std::to_string(buffers_.size()) + " has lifetime [" +
                                   std::to_string(first_used) + ", " + std::to_string(last_used) + "]");
  if (size > std::numeric_limits<size_t>::max() / 2)
    return Status::InvalidArgument("memory planner: buffer of " + std::to_string(size) + " bytes is too large");
  buffers_.push_back({AlignUp(size), first_used, last_used});
  return Status::Ok();
}

size_t MemoryPlanner::GetMaxMemory() const {
  size_t end = 0;
  for (size_t i = 0; i < buffers_.size() && i < offsets_.size(); ++i)
    end = std::max(end, offsets_[i] + buffers_[i].size);
  return end;
}

size_t MemoryPlanner::GetLowerBound() const {
  int steps = 0;
  for (const Buffer& b : buffers_) steps = std::max(steps, b.last_used + 1);
  std::vector<size_t> live(static_cast<size_t>(steps) + 1, 0);  // a difference array over steps
  for (const Buffer& b : buffers_) {
    live[static_cast<size_t>(b.first_used)] += b.size;
    live[static_cast<size_t>(b.last_used) + 1] -= b.size;
  }
  size_t now = 0, most = 0;
  for (int s = 0; s < steps; ++s) {
    now += live[static_cast<size_t>(s)];
    most = std::max(most, now);
  }
  return most;
}

Status LinearMemoryPlanner::Plan() {
  offsets_.assign(buffers_.size(), 0);
  size_t next = 0;
  for (size_t i = 0; i < buffers_.size(); ++i) {
    offsets_[i] = next;
    next += buffers_[i].size;
  }
  return Status::Ok();
}

namespace {

// Places the buffers in `order`, each at the lowest-waste spot: the smallest
// gap between placed lifetime-overlapping buffers that holds it, else on top.
// Returns the arena size.
template <typename Buffer, typename Overlap>
size_t PlaceInOrder(const std::vector<Buffer>& buffers, const std::vector<int>& order, Overlap overlap,
                    std::vector<size_t>* offsets) {
  offsets->assign(buffers.size(), 0);
  std::vector<int> placed;  // kept sorted by offset
  placed.reserve(buffers.size());
  size_t top = 0;
  for (int b : order) {
    const Buffer& buf = buffers[static_cast<size_t>(b)];
    size_t best_offset = 0;
    size_t best_gap = std::numeric_limits<size_t>::max();
    bool found = false;
    size_t cursor = 0;  // lowest free address among the overlapping buffers seen so far
    if (buf.size > 0) {
      for (int p : placed) {
        const Buffer& other = buffers[static_cast<size_t>(p)];
        if (other.size == 0 || !overlap(buf, other)) continue;
        const size_t start = (*offsets)[static_cast<size_t>(p)];
        if (start > cursor) {
          const size_t gap = start - cursor;
          if (gap >= buf.size && gap < best_gap) {
            best_gap = gap;
            best_offset = cursor;
            found = true;
          }
        }
        cursor = std::max(cursor, start + other.size);
      }
    }
    const size_t offset = found ? best_offset : cursor;
    (*offsets)[static_cast<size_t>(b)] = offset;
    top = std::max(top, offset + buf.size);
    auto pos = std::upper_bound(placed.begin(), placed.end(), offset,
                                [&](size_t off, int p) { return off < (*offsets)[static_cast<size_t>(p)]; });
    placed.insert(pos, b);
  }
  return top;
}

}  // namespace

Status GreedyMemoryPlanner::Plan() {
  const size_t n = buffers_.size();
  auto length = [&](int i) {
    const Buffer& b = buffers_[static_cast<size_t>(i)];
    return static_cast<size_t>(b.last_used - b.first_used + 1);
  };
  // Greedy placement is sensitive to the order; a few classic orders are
  // tried and the smallest arena kept (ties go to the earlier order).
  using Less = std::function<bool(int, int)>;
  const Less orders[] = {
      // Largest first, earlier first among equals.
      [&](int a, int b) {
        const Buffer& x = buffers_[static_cast<size_t>(a)];
        const Buffer& y = buffers_[static_cast<size_t>(b)];
        if (x.size != y.size) return x.size > y.size;
        return x.first_used < y.first_used;
      },
      // Largest first, longest-lived first among equals.
      [&](int a, int b) {
        const Buffer& x = buffers_[static_cast<size_t>(a)];
        const Buffer& y = buffers_[static_cast<size_t>(b)];
        if (x.size != y.size) return x.size > y.size;
        return length(a) > length(b);
      },
      // Longest-lived first, then largest.
      [&](int a, int b) {
        if (length(a) != length(b)) return length(a) > length(b);
        return buffers_[static_cast<size_t>(a)].size > buffers_[static_cast<size_t>(b)].size;
      },
      // Largest area (bytes x steps) first.
      [&](int a, int b) {
        return buffers_[static_cast<size_t>(a)].size * length(a) > buffers_[static_cast<size_t>(b)].size * length(b);
      },
  };
  const size_t bound = GetLowerBound();
  size_t best = std::numeric_limits<size_t>::max();
  std::vector<size_t> offsets;
  std::vector<int> best_order;
  for (const Less& less : orders) {
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), less);
    const size_t top = PlaceInOrder(buffers_, order, LifetimesOverlap, &offsets);
    if (top < best) {
      best = top;
      offsets_ = offsets;
      best_order = order;
    }
    if (best == bound) return Status::Ok();
  }
  Refine(best_order, bound, &best);
  return Status::Ok();
}

void GreedyMemoryPlanner::Refine(const std::vector<int>& start, size_t bound, size_t* best) {
  const size_t n = buffers_.size();
  if (n == 0 || bound == 0 || max_refine_rounds_ == 0) return;
  // Priorities, highest placed first: the start order's ranks, then blame.
  std::vector<double> priority(n);
  for (size_t rank = 0; rank < n; ++rank) priority[static_cast<size_t>(start[rank])] = static_cast<double>(n - rank);
  const double blame = static_cast<double>(n);
  std::vector<int> order(start);
  std::vector<size_t> offsets;
  // Each round places all buffers (about n^2 / 2 overlap tests): a budget
  // keeps the refinement to a few tens of milliseconds on large graphs.
  const size_t rounds = std::min<size_t>(max_refine_rounds_, std::max<size_t>(1, kRefineBudget / (n * n)));
  for (size_t round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < n; ++i) {
      const size_t end = (round == 0 ? offsets_[i] : offsets[i]) + buffers_[i].size;
      if (end > bound)
        priority[i] += blame * (0.05 + 0.5 * static_cast<double>(end - bound) / static_cast<double>(bound));
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return priority[static_cast<size_t>(a)] > priority[static_cast<size_t>(b)]; });
    const size_t top = PlaceInOrder(buffers_, order, LifetimesOverlap, &offsets);
    if (top < *best) {
      *best = top;
      offsets_ = offsets;
    }
    if (*best == bound) return;
  }
}

bool IsValidPlan(const MemoryPlanner& planner, const std::vector<size_t>& sizes,
                 const std::vector<std::pair<int, int>>& lifetimes) {
  const size_t n = sizes.size();
  if (static_cast<size_t>(planner.num_buffers()) != n) return false;
  for (size_t i = 0; i < n; ++i) {
    const size_t oi = planner.GetOffset(static_cast<int>(i));
    if (oi % kPlanAlignment != 0 || oi + sizes[i] > planner.GetMaxMemory()) return false;
    for (size_t j = i + 1; j < n; ++j) {
      const bool live_together =
          lifetimes[i].first <= lifetimes[j].second && lifetimes[j].first <= lifetimes[i].second;
      if (!live_together || sizes[i] == 0 || sizes[j] == 0) continue;
      const size_t oj = planner.GetOffset(static_cast<int>(j));
      if (oi < oj + sizes[j] && oj < oi + sizes[i]) return false;
    }
  }
  return true;
}

}  // namespace memory
}  // namespace loom
