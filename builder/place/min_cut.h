// MinCut: the minimum s-t cut of a small directed graph (Dinic's max-flow),
// for placing a graph on two devices: with the CPU as the source side and
// the accelerator as the sink side, a node's edge to the sink carries its
// CPU time and the source's edge to it its accelerator time, and an edge
// u -> v carries the cost of handing a tensor from u on the CPU to v on the
// accelerator (and v -> u the way back). The cut's capacity is then exactly
// the predicted total of a placement, and the minimum cut the best one:
// two-label problems with such pairwise costs are solved exactly by a cut.
//
// Capacities are integers (the placer uses nanoseconds); kInfinite forbids
// a side (a device that cannot run the node).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom {
namespace place {

class MinCut {
 public:
  static constexpr int64_t kInfinite = int64_t{1} << 60;

  explicit MinCut(int nodes);  // nodes 0 .. nodes-1; the source and sink are extra
  int source() const { return source_; }
  int sink() const { return sink_; }

  // Adds capacity to the edge u -> v (capacities of parallel edges add up).
  void AddEdge(int u, int v, int64_t capacity);

  // The minimum cut's capacity (saturating at kInfinite).
  int64_t Solve();
  // After Solve: whether `node` is on the source side.
  bool OnSourceSide(int node) const { return reached_[static_cast<size_t>(node)]; }

 private:
  struct Edge {
    int to;
    int64_t capacity;
  };
  bool Levels();
  int64_t Push(int node, int64_t limit);

  int source_, sink_;
  std::vector<Edge> edges_;  // edge e and its reverse e ^ 1
  std::vector<std::vector<int>> adjacent_;
  std::vector<int> level_, next_;
  std::vector<bool> reached_;
};

}  // namespace place
}  // namespace loom
