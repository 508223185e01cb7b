// Building small IR graphs in pass tests:
//   IrBuilder b;
//   int x = b.Input("x", {1, 4});
//   int w = b.Const("w", {4}, {1, 2, 3, 4});
//   int y = b.Tensor("y", {1, 4});
//   b.Node("Add", {x, w}, {y});
//   b.Output(y);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "builder/ir/graph.h"

namespace loom {
namespace testing {

class IrBuilder {
 public:
  int Input(const std::string& name, const Shape& shape, DType dtype = DType::kFloat32);
  // A non-constant value; `known` false leaves its shape to be inferred.
  int Tensor(const std::string& name, const Shape& shape, DType dtype = DType::kFloat32, bool known = true);
  int Const(const std::string& name, const Shape& shape, const std::vector<float>& values);
  int ConstInt64(const std::string& name, const Shape& shape, const std::vector<int64_t>& values);
  int ConstBool(const std::string& name, bool value);
  // Returns the node index.
  int Node(const std::string& op, const std::vector<int>& inputs, const std::vector<int>& outputs,
           const std::string& name = "");
  void Output(int id) { g.outputs().push_back(id); }

  ir::Node& node(int index) { return g.node(index); }
  const ir::Node* FindNode(const std::string& op) const;
  std::vector<float> ConstValues(int id) const;

  ir::Graph g;
};

}  // namespace testing
}  // namespace loom
