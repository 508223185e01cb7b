// Verification of a plan's metadata flatbuffer, before the engine trusts it.
//
//   1. structure: the file identifier "LOOM", then flatbuffers::Verifier
//      (every offset, vector and string inside the buffer, required fields);
//   2. semantics: format version and constants size agree with the header;
//      every tensor has a known, storable dtype, a known layout and memory
//      space (host for constants), non-negative dims and size_bytes ==
//      numel * dtype size (at least that, in whole elements, for
//      nhwc_padded), and its data lies inside the
//      constants section or the arena (aligned to its element size); the
//      arena is no larger than all arena tensors side by side; quant params
//      fit the tensor; graph inputs/outputs are arena tensors with
//      unique non-empty names; every node index is in range, each tensor is
//      produced at most once, nodes read only constants, graph inputs or
//      tensors produced by earlier nodes; attributes are well formed.
//
// Kernel ids, the layouts each kernel takes and each kernel's own checks are
// left to the engine (Prepare).
// Errors are Status::Corrupt (Unsupported for valid but unsupported features)
// and name the tensor, node or attribute at fault.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/status.h"
#include "engine/plan_file.h"
#include "schemas/plan_generated.h"

namespace loom {

// Verifies the metadata described by `layout` inside `metadata` and returns
// its root in *plan (pointing into `metadata`).
Status VerifyPlanMetadata(const uint8_t* metadata, size_t size, const PlanLayout& layout, const plan::Plan** plan);

// "tensor 'x'" (or "tensor #7" when unnamed), for messages.
std::string TensorLabel(const plan::Plan& plan, int32_t index);
// The node's label (common/node_label.h): "conv1 (Conv)", or "node #3 (Conv)"
// when unnamed (3 = its index in the plan), for messages.
std::string NodeLabel(const plan::Node& node, size_t index);

}  // namespace loom
