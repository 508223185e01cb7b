// Uninitialized, 64-byte-aligned memory for large long-lived buffers (the
// operands kernels pack or transform once at Prepare).
//
// Writing freshly allocated memory costs a page fault per 4 KiB page; when a
// model's packed weights run to tens of MiB, those faults dominate the time
// to load it. So on Linux a block of at least kHugePageBytes is mapped on its
// own, 2 MiB-aligned, and advised as transparent huge pages (MADV_HUGEPAGE):
// where the kernel grants them, one fault per 2 MiB. The advice is only a
// hint (ignored where THP is disabled); nothing depends on it. Smaller blocks,
// other systems and failed mappings use aligned operator new.
#pragma once

#include <cstddef>
#include <memory>

namespace loom {

constexpr size_t kHugePageBytes = size_t{2} << 20;
constexpr size_t kAlignedBlockAlignment = 64;

// `bytes` uninitialized bytes, 64-byte aligned (2 MiB-aligned when mapped as
// above); freed when the last owner goes. Throws std::bad_alloc on failure,
// as operator new does.
std::shared_ptr<void> AllocateAlignedBlock(size_t bytes);

}  // namespace loom
