#include "kernels/fpga/device/first_fit_allocator.h"

#include <iterator>

namespace loom {
namespace fpga {

FirstFitAllocator::FirstFitAllocator(uint64_t base, uint64_t bytes) : base_(base), bytes_(bytes) {
  if (bytes > 0) free_[0] = bytes;
}

bool FirstFitAllocator::Allocate(uint64_t bytes, uint64_t alignment, uint64_t* offset) {
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const uint64_t begin = it->first, end = it->first + it->second;
    const uint64_t aligned = ((base_ + begin + alignment - 1) / alignment) * alignment - base_;
    if (aligned + bytes > end) continue;
    free_.erase(it);
    if (aligned > begin) free_[begin] = aligned - begin;
    if (aligned + bytes < end) free_[aligned + bytes] = end - (aligned + bytes);
    *offset = aligned;
    return true;
  }
  return false;
}

void FirstFitAllocator::Free(uint64_t offset, uint64_t bytes) {
  if (bytes == 0 || offset + bytes > bytes_) return;
  auto it = free_.emplace(offset, bytes).first;
  if (auto next = std::next(it); next != free_.end() && it->first + it->second == next->first) {
    it->second += next->second;
    free_.erase(next);
  }
  if (it != free_.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second == it->first) {
      prev->second += it->second;
      free_.erase(it);
    }
  }
}

}  // namespace fpga
}  // namespace loom
