// Checks every CPU kernel's Prepare runs on its node, with the same messages
// everywhere: input/output counts, tensor shapes and dtypes, the expected
// output, axis normalization. Messages are bare ("output 0 has shape 2x3,
// expected 3x2"): whoever calls the kernel adds the node's label.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/common/kernel.h"

namespace loom {

// Highest tensor rank the CPU kernels accept (Run keeps index arrays of this
// size on the stack).
constexpr int kMaxRank = 16;

// Checks that the node has min_inputs..max_inputs inputs, the first
// min_inputs of them present, and min_outputs..max_outputs outputs; and that
// every present tensor passes CheckShape and has a storable dtype (not
// string, complex or undefined).
Status CheckNode(const KernelSetup& s, size_t min_inputs, size_t max_inputs, size_t min_outputs, size_t max_outputs);

// Checks that `shape` (of the tensor named by `what`, e.g. "input 0") has
// rank <= kMaxRank, no negative dim, and a size far from int64 overflow.
Status CheckShape(const KernelSetup& s, const std::string& what, const Shape& shape);

// Checks that output i exists, is present and has `dtype` and `shape`.
Status CheckOutput(const KernelSetup& s, size_t i, DType dtype, const Shape& shape);

// Maps `axis` in [-rank, rank) to [0, rank); false when out of range.
bool NormalizeAxis(int64_t axis, int64_t rank, int64_t* out);

// A list of integer values (attribute or input values, not shapes, which
// ShapeToString prints) for messages: "[1, 2, 3]".
std::string IntsToString(const std::vector<int64_t>& values);

}  // namespace loom
