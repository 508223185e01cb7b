// DeviceMemory: the device DRAM the functional model (and its tests) reads and
// writes — a plain zero-initialised byte array that answers for the device
// addresses [base, base + size). Every access is bounds-checked, so an address
// outside it fails like a bus error would on the board. A bump allocator hands
// out aligned regions for command streams, weights and activations; memory is
// released all at once with ResetAllocator().
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"

namespace loom {
namespace fpga {

class DeviceMemory {
 public:
  // Where the PYNQ/KV260 CMA region typically starts; any value works.
  static constexpr uint64_t kDefaultBase = 0x4000'0000;

  explicit DeviceMemory(size_t size, uint64_t base = kDefaultBase);

  uint64_t base() const { return base_; }
  size_t size() const { return bytes_.size(); }
  uint8_t* data() { return bytes_.data(); }
  const uint8_t* data() const { return bytes_.data(); }

  // Whether [addr, addr + bytes) lies inside the memory (overflow-safe).
  bool Contains(uint64_t addr, size_t bytes) const;

  // OutOfRange, naming the address range, when it is not all inside.
  Status Read(uint64_t addr, void* dst, size_t bytes) const;
  Status Write(uint64_t addr, const void* src, size_t bytes);

  // The next free `bytes` at a multiple of `align` (a power of two); OutOfRange
  // when the memory is full. Zero bytes is allowed and returns the aligned
  // position.
  Status Allocate(size_t bytes, size_t align, uint64_t* addr);
  void ResetAllocator() { next_ = base_; }

 private:
  Status CheckRange(const char* access, uint64_t addr, size_t bytes) const;

  std::vector<uint8_t> bytes_;
  uint64_t base_;
  uint64_t next_;  // first unallocated device address
};

}  // namespace fpga
}  // namespace loom
