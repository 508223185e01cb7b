#include "builder/quantize/op_roles.h"

#include <algorithm>
#include <iterator>

namespace loom {
namespace quantize {

namespace {

bool OneOf(const std::string& op, std::initializer_list<const char*> ops) {
  return std::any_of(ops.begin(), ops.end(), [&](const char* o) { return op == o; });
}

}  // namespace

WeightRoles WeightRolesOf(const ir::Node& n) {
  if (!n.domain.empty()) return {};
  if (n.op == "Conv") return {1, 0, 2};
  if (n.op == "Gemm") return {1, n.attrs.GetInt("transB", 0) ? 0 : 1, 2};
  if (n.op == "MatMul") return {1, 1, 2};
  return {};
}

bool IsDataInput(const ir::Node& n, size_t i) {
  if (n.op == "Add" || n.op == "Mul") return i < 2;
  if (n.op == "Concat") return true;
  return i == 0;
}

bool MovesValuesOnly(const std::string& op) {
  return OneOf(op, {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Identity", "Slice", "Gather",
                    "Expand", "Tile", "DepthToSpace", "SpaceToDepth", "GlobalMaxPool"});
}

OutputRule OutputRuleOf(const ir::Node& n) {
  if (!n.domain.empty()) return OutputRule::kNone;
  if (OneOf(n.op, {"Conv", "Gemm", "MatMul", "Add", "Mul", "AveragePool", "GlobalAveragePool", "Concat", "Sigmoid",
                   "HardSigmoid", "HardSwish"}))
    return OutputRule::kOwnRange;
  if (n.op == "Relu" || n.op == "Clip") return OutputRule::kActivation;
  if (n.op == "MaxPool" || (n.op == "Resize" && n.attrs.GetString("mode", "nearest") == "nearest") ||
      MovesValuesOnly(n.op))
    return OutputRule::kSameAsInput;
  return OutputRule::kNone;
}

}  // namespace quantize
}  // namespace loom
