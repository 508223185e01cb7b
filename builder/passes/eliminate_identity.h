// Removes Identity nodes and inference-mode Dropout (whose mask output is
// unused): consumers read the input directly. When the removed node produces
// a graph output, the input's producer writes that output instead, keeping
// the output's name; if the input is a graph input, a constant or another
// graph output, the node stays as the copy that produces the output.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeEliminateIdentity();

}  // namespace passes
}  // namespace loom
