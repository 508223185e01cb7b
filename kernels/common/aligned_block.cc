// Large-block allocation (see aligned_block.h).
#include "kernels/common/aligned_block.h"

#include <cstdint>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace loom {
namespace {

constexpr std::align_val_t kAlign{kAlignedBlockAlignment};

#if defined(__linux__) && defined(MADV_HUGEPAGE)
// A private anonymous mapping of `bytes` (rounded up to 4 KiB) starting on a
// 2 MiB boundary, advised as huge pages; null if mapping fails.
std::shared_ptr<void> MapHugeBlock(size_t bytes) {
  if (bytes > SIZE_MAX / 2) return nullptr;  // the rounding below would overflow
  const size_t length = (bytes + 4095) / 4096 * 4096;
  const size_t reserve = length + kHugePageBytes;
  void* base = mmap(nullptr, reserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  const uintptr_t b = reinterpret_cast<uintptr_t>(base);
  const uintptr_t start = (b + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  // Give back the unaligned head and the tail beyond `length`.
  if (start > b) munmap(base, start - b);
  if (b + reserve > start + length) munmap(reinterpret_cast<void*>(start + length), b + reserve - (start + length));
  void* p = reinterpret_cast<void*>(start);
  madvise(p, length, MADV_HUGEPAGE);  // a hint: failure (THP disabled) changes nothing else
  return std::shared_ptr<void>(p, [length](void* q) { munmap(q, length); });
}
#endif

}  // namespace

std::shared_ptr<void> AllocateAlignedBlock(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= kHugePageBytes) {
    if (std::shared_ptr<void> block = MapHugeBlock(bytes)) return block;
  }
#endif
  void* p = ::operator new(bytes > 0 ? bytes : 1, kAlign);
  return std::shared_ptr<void>(p, [](void* q) { ::operator delete(q, kAlign); });
}

}  // namespace loom
