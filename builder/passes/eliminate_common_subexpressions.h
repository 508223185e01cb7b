// Merges what is computed twice:
//   - constants: equal dtype, shape, layout, quantization and bytes (hashed,
//     then compared) become one value that every reader shares;
//   - nodes: equal op, domain, opset, attributes (compared by value, floats
//     bitwise) and inputs, on the same device, compute the same outputs; the
//     later node goes and its readers read the earlier one's outputs.
// In execution order, so chains of duplicates collapse in one run. Nodes
// that draw random numbers or hold subgraphs are never merged, nor a node
// whose outputs are graph outputs (their names must stay), nor outputs one
// node omits and the other does not. Reports the nodes merged away plus the
// nodes rewired to a shared constant.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeEliminateCommonSubexpressions();

}  // namespace passes
}  // namespace loom
