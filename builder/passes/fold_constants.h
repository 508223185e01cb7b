// Constant folding: a deterministic node whose inputs are all constant is run
// once at build time with the real CPU kernel (registry lookup, Prepare, Run)
// and replaced by constants holding its outputs. Shape and Size fold whenever
// their input's (static) shape is known. Results above kMaxFoldBytes, and
// nodes no kernel accepts, are left alone.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

// DequantizeLinear of a constant (a quantized weight) is left to fold_qdq,
// which reads the int8 values behind it; "fold_dequantized", after fold_qdq,
// folds the ones it left.
std::unique_ptr<Pass> MakeFoldConstants();
std::unique_ptr<Pass> MakeFoldDequantized();

}  // namespace passes
}  // namespace loom
