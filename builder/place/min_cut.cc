#include "builder/place/min_cut.h"

#include <algorithm>
#include <deque>

namespace loom {
namespace place {

MinCut::MinCut(int nodes) : source_(nodes), sink_(nodes + 1), adjacent_(static_cast<size_t>(nodes) + 2) {}

void MinCut::AddEdge(int u, int v, int64_t capacity) {
  if (capacity <= 0 || u == v) return;
  capacity = std::min(capacity, kInfinite);
  adjacent_[static_cast<size_t>(u)].push_back(static_cast<int>(edges_.size()));
  edges_.push_back({v, capacity});
  adjacent_[static_cast<size_t>(v)].push_back(static_cast<int>(edges_.size()));
  edges_.push_back({u, 0});
}

bool MinCut::Levels() {
  level_.assign(adjacent_.size(), -1);
  std::deque<int> queue = {source_};
  level_[static_cast<size_t>(source_)] = 0;
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    for (int e : adjacent_[static_cast<size_t>(u)]) {
      const Edge& edge = edges_[static_cast<size_t>(e)];
      if (edge.capacity > 0 && level_[static_cast<size_t>(edge.to)] < 0) {
        level_[static_cast<size_t>(edge.to)] = level_[static_cast<size_t>(u)] + 1;
        queue.push_back(edge.to);
      }
    }
  }
  return level_[static_cast<size_t>(sink_)] >= 0;
}

int64_t MinCut::Push(int u, int64_t limit) {
  if (u == sink_) return limit;
  for (int& i = next_[static_cast<size_t>(u)]; i < static_cast<int>(adjacent_[static_cast<size_t>(u)].size()); ++i) {
    const int e = adjacent_[static_cast<size_t>(u)][static_cast<size_t>(i)];
    Edge& edge = edges_[static_cast<size_t>(e)];
    if (edge.capacity <= 0 || level_[static_cast<size_t>(edge.to)] != level_[static_cast<size_t>(u)] + 1) continue;
    const int64_t pushed = Push(edge.to, std::min(limit, edge.capacity));
    if (pushed > 0) {
      edge.capacity -= pushed;
      edges_[static_cast<size_t>(e ^ 1)].capacity += pushed;
      return pushed;
    }
  }
  return 0;
}

int64_t MinCut::Solve() {
  int64_t flow = 0;
  while (flow < kInfinite && Levels()) {
    next_.assign(adjacent_.size(), 0);
    while (int64_t pushed = Push(source_, kInfinite)) {
      flow = std::min(kInfinite, flow + pushed);
      if (flow >= kInfinite) break;
    }
  }
  // The source side: what the residual graph still reaches from the source.
  reached_.assign(adjacent_.size(), false);
  std::deque<int> queue = {source_};
  reached_[static_cast<size_t>(source_)] = true;
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    for (int e : adjacent_[static_cast<size_t>(u)]) {
      const Edge& edge = edges_[static_cast<size_t>(e)];
      if (edge.capacity > 0 && !reached_[static_cast<size_t>(edge.to)]) {
        reached_[static_cast<size_t>(edge.to)] = true;
        queue.push_back(edge.to);
      }
    }
  }
  return flow;
}

}  // namespace place
}  // namespace loom
