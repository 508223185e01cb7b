#include "builder/memory/memory_planner.h"

#include <algorithm>
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

Status GreedyMemoryPlanner::Plan() {
  const size_t n = buffers_.size();
  offsets_.assign(n, 0);
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const Buffer& x = buffers_[static_cast<size_t>(a)];
    const Buffer& y = buffers_[static_cast<size_t>(b)];
    if (x.size != y.size) return x.size > y.size;
    return x.first_used < y.first_used;
  });
  std::vector<int> placed;  // kept sorted by offset
  placed.reserve(n);
  for (int b : order) {
    const Buffer& buf = buffers_[static_cast<size_t>(b)];
    size_t best_offset = 0;
    size_t best_gap = std::numeric_limits<size_t>::max();
    bool found = false;
    size_t cursor = 0;  // lowest free address among the overlapping buffers seen so far
    if (buf.size > 0) {
      for (int p : placed) {
        const Buffer& other = buffers_[static_cast<size_t>(p)];
        if (other.size == 0 || !LifetimesOverlap(buf, other)) continue;
        const size_t start = offsets_[static_cast<size_t>(p)];
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
    offsets_[static_cast<size_t>(b)] = found ? best_offset : cursor;
    auto pos = std::upper_bound(placed.begin(), placed.end(), offsets_[static_cast<size_t>(b)],
                                [&](size_t off, int p) { return off < offsets_[static_cast<size_t>(p)]; });
    placed.insert(pos, b);
  }
  return Status::Ok();
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
