#include "kernels/common/device_context.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

#include "kernels/common/aligned_block.h"

namespace loom {
namespace {

class CpuConfig final : public DeviceConfig {
 public:
  Device device() const override { return Device::kCpu; }
  std::string name() const override { return "cpu"; }
};

class HostAllocator final : public MemoryAllocator {
 public:
  Status Allocate(size_t bytes, size_t alignment, MemorySpace space, MemoryBlock* out) override {
    if (space != MemorySpace::kHost) {
      return Status::Unsupported(std::string("host memory allocator cannot provide ") + MemorySpaceName(space) +
                                 " memory");
    }
    *out = MemoryBlock();
    out->space = space;
    out->bytes = bytes;
    if (bytes == 0) return Status::Ok();
    if (alignment < sizeof(void*)) alignment = sizeof(void*);
    if (bytes > SIZE_MAX - alignment) return OutOfMemory(bytes);
    const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
    if (alignment <= kAlignedBlockAlignment) {
      // Large blocks on huge pages (aligned_block.h): fewer page faults when
      // the context first touches its arena.
      try {
        auto block = std::make_unique<std::shared_ptr<void>>(AllocateAlignedBlock(rounded));
        out->host = block->get();
        out->handle = block.release();
        return Status::Ok();
      } catch (const std::bad_alloc&) {
        return OutOfMemory(bytes);
      }
    }
    void* p = std::aligned_alloc(alignment, rounded);
    if (p == nullptr) return OutOfMemory(bytes);
    out->host = p;
    return Status::Ok();
  }
  void Free(const MemoryBlock& block) override {
    if (block.handle != nullptr) {
      delete static_cast<std::shared_ptr<void>*>(block.handle);
    } else {
      std::free(block.host);
    }
  }

 private:
  static Status OutOfMemory(size_t bytes) {
    return Status::OutOfRange("cannot allocate " + std::to_string(bytes) + " bytes of host memory");
  }
};

}  // namespace

const DeviceConfig& CpuDeviceConfig() {
  static const CpuConfig config;
  return config;
}

MemoryAllocator& HostMemoryAllocator() {
  static HostAllocator allocator;
  return allocator;
}

}  // namespace loom
