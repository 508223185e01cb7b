// `loom build --dump-graph DIR`: the graph as DOT after import and after each
// stage that rewrites it (every pass that runs, quantization, placement, the
// final plan graph), numbered in build order: 00-import.dot,
// 01-graph-eliminate_identity.dot, ... When Graphviz's `dot` is on the PATH,
// each file is also rendered to SVG beside it.
#pragma once

#include <string>
#include <vector>

#include "builder/ir/graph.h"
#include "common/status.h"

namespace loom {

class GraphDumper {
 public:
  // Creates `dir` (and parents) when missing; an empty dir dumps nothing.
  Status Open(const std::string& dir);
  bool enabled() const { return !dir_.empty(); }
  // Writes the next numbered file for `stage` ("import", "graph-fuse_gelu").
  Status Dump(const std::string& stage, const ir::Graph& graph);
  // Renders every file written to SVG when `dot` is found; sets *rendered to
  // the number of SVG files (0 without Graphviz).
  Status RenderSvg(int* rendered) const;
  const std::vector<std::string>& files() const { return files_; }

 private:
  std::string dir_;
  std::vector<std::string> files_;
};

}  // namespace loom
