// The checks of a plan's constants at load. A plan with
// Plan.constant_checksums (format 2.2) has each constant checked on its own,
// and only those the prepared kernels read: a constant a kernel replaced
// with a derived constant (raw weights next to their Winograd-transformed
// form) is neither read nor paged in. The bytes between constants must be
// zero, so every other byte of the section is still checked. Other plans
// have their whole constants section checked before any kernel reads it
// (PlanFile::CheckConstants).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"
#include "schemas/plan_generated.h"

namespace loom {

// Checks that the constants section's bytes outside every CONSTANT tensor
// are zero. Expects verified metadata (every constant inside the section).
Status CheckConstantPadding(const plan::Plan& p, const uint8_t* constants, uint64_t constants_bytes);

// Checks Tensor.checksum of the CONSTANT tensors with read[index] set (all
// of them when `read` is empty); a constant stored once for several tensors
// is checked once. The error names the first damaged constant.
Status CheckConstantChecksums(const plan::Plan& p, const uint8_t* constants, const std::vector<bool>& read);

}  // namespace loom
