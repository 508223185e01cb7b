// FirstFitAllocator: sub-allocation of one contiguous device-visible range
// (the model's memory, a u-dma-buf buffer, the simulated DRAM), first fit
// over a free list kept sorted by offset; freed blocks merge with their
// neighbours. Alignment is of the device address (base + offset). It only
// keeps the books: the backend maps offsets to its host and device views.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace loom {
namespace fpga {

class FirstFitAllocator {
 public:
  // Manages [0, bytes) of a range whose device address is `base`.
  FirstFitAllocator(uint64_t base, uint64_t bytes);

  // The offset of `bytes` aligned to `alignment` (a power of two), or false
  // when no free block holds them.
  bool Allocate(uint64_t bytes, uint64_t alignment, uint64_t* offset);
  // Returns [offset, offset + bytes), which Allocate handed out.
  void Free(uint64_t offset, uint64_t bytes);

  uint64_t bytes() const { return bytes_; }

 private:
  const uint64_t base_;
  const uint64_t bytes_;
  std::map<uint64_t, uint64_t> free_;  // offset -> bytes
};

}  // namespace fpga
}  // namespace loom
