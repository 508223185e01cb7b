// Attribute readers for a kernel's Prepare. An absent attribute yields the
// default; one of the wrong kind (or, for lists of a fixed length, of the
// wrong length) is InvalidArgument with a bare message such as
// "attribute 'axis' is float, expected int".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "kernels/common/kernel.h"

namespace loom {

Status ReadIntAttr(const KernelSetup& s, const char* name, int64_t def, int64_t* out);
// An int attribute is accepted where a float is expected.
Status ReadFloatAttr(const KernelSetup& s, const char* name, float def, float* out);
Status ReadStringAttr(const KernelSetup& s, const char* name, const std::string& def, std::string* out);

// Reads an INTS attribute (a single int is read as a list of one). Absent:
// `out` is cleared and *present (when given) is false.
Status ReadIntsAttr(const KernelSetup& s, const char* name, std::vector<int64_t>* out, bool* present = nullptr);
// Reads an INTS attribute of exactly `n` values; absent: *out = def.
Status ReadIntsAttr(const KernelSetup& s, const char* name, size_t n, const std::vector<int64_t>& def,
                    std::vector<int64_t>* out);

// An int axis attribute normalized against `rank` (valid in [-rank, rank)).
Status ReadAxisAttr(const KernelSetup& s, const char* name, int64_t def, int64_t rank, int* axis);

}  // namespace loom
