// Removes nodes none of whose outputs reaches a graph output (walking the
// execution order backwards, so whole dead chains go in one run). Runs at -O0
// too: nodes nothing reads need no kernel.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeEliminateDeadNodes();

}  // namespace passes
}  // namespace loom
