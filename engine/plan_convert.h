// Conversions from verified plan tables to the kernel contract's types
// (kernels/common/kernel.h). Inputs must have passed VerifyPlanMetadata.
#pragma once

#include <cstdint>

#include "common/dtype.h"
#include "common/attributes.h"
#include "kernels/common/kernel.h"
#include "schemas/plan_generated.h"

namespace loom {

Shape ToShape(const flatbuffers::Vector<int64_t>* dims);

// A plan tensor as Prepare sees it; constant data points into `constants`
// (the plan's constants section, used in place).
TensorInfo ToTensorInfo(const plan::Tensor& tensor, const uint8_t* constants);

// The node's attributes as loom::Attributes.
Attributes ToAttributes(const plan::Node& node);

}  // namespace loom
